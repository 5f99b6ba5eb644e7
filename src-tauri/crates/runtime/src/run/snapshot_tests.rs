use super::*;
use bearagent_kernel::testkit::at;

fn store() -> (tempfile::TempDir, Store) {
    let home = tempfile::tempdir().unwrap();
    let store = Store::open_in(home.path()).unwrap();
    (home, store)
}

#[test]
fn a_command_s_creations_changes_and_deletions_are_found_with_kept_pre_images() {
    let (_home, store) = store();
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    std::fs::write(root.join("keep.txt"), "same").unwrap();
    std::fs::write(root.join("edit.txt"), "old").unwrap();
    std::fs::write(root.join("gone.txt"), "bye").unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/HEAD"), "ref").unwrap();
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
    let mut cache = SnapshotCache::default();
    let before = take(root, &mut cache, &store, at(0)).unwrap();
    assert!(before.files.contains_key("keep.txt"));
    assert!(!before.files.keys().any(|k| k.starts_with(".git/")));

    // What a command might do.
    std::fs::write(root.join("edit.txt"), "new content").unwrap();
    std::fs::remove_file(root.join("gone.txt")).unwrap();
    std::fs::create_dir_all(root.join("src/deep")).unwrap();
    std::fs::write(root.join("src/deep/made.rs"), "fn main() {}").unwrap();
    std::fs::create_dir_all(root.join("target")).unwrap();
    std::fs::write(root.join("target/build.o"), "ignored").unwrap();
    std::fs::write(root.join(".git/HEAD"), "planted").unwrap();
    let after = take(root, &mut cache, &store, at(1)).unwrap();
    let found = changes(&before, &after);
    let paths: Vec<&str> = found.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["edit.txt", "gone.txt", "src/deep/made.rs"]);
    // The earlier versions are blobs, so a revert can restore them.
    let edit = &found[0];
    let old = store
        .get_blob(edit.before.as_ref().unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(old, b"old");
    let gone = &found[1];
    assert_eq!(gone.after, None);
    assert_eq!(
        store
            .get_blob(gone.before.as_ref().unwrap())
            .unwrap()
            .unwrap(),
        b"bye"
    );
    assert_eq!(found[2].before, None);
    assert!(found.iter().all(|c| !c.unrevertable));
}

/// Writes the same bytes to `path` again until its metadata differs from
/// `before` (a coarse clock may need a few tries), failing after 5 s.
fn rewrite_until_metadata_changes(path: &std::path::Path, before: FileMeta) {
    let bytes = std::fs::read(path).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        std::fs::write(path, &bytes).unwrap();
        if FileMeta::of(&std::fs::metadata(path).unwrap()) != before {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{} kept its metadata",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

#[test]
fn touching_a_file_without_changing_it_is_not_a_change() {
    let (_home, store) = store();
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("a.txt"), "same").unwrap();
    let mut cache = SnapshotCache::default();
    let before = take(ws.path(), &mut cache, &store, at(0)).unwrap();
    // Rewritten with the same bytes: new metadata, same content.
    rewrite_until_metadata_changes(&ws.path().join("a.txt"), before.files["a.txt"].meta);
    let after = take(ws.path(), &mut cache, &store, at(1)).unwrap();
    assert!(changes(&before, &after).is_empty());
}

#[test]
fn files_too_large_to_keep_are_reported_but_not_revertable() {
    let (_home, store) = store();
    let ws = tempfile::tempdir().unwrap();
    let big = ws.path().join("big.bin");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(MAX_KEPT_FILE_BYTES + 1).unwrap();
    let mut cache = SnapshotCache::default();
    let before = take(ws.path(), &mut cache, &store, at(0)).unwrap();
    assert_eq!(before.files["big.bin"].hash, None);
    std::fs::write(&big, "small now").unwrap();
    let after = take(ws.path(), &mut cache, &store, at(1)).unwrap();
    let found = changes(&before, &after);
    assert_eq!(found.len(), 1);
    assert!(found[0].unrevertable);
}

/// A crate without a `.gitignore`: cargo's `target/` carries a
/// `CACHEDIR.TAG`, so nothing under it is snapshotted or changed; a tag
/// without the signature does not count.
#[test]
fn folders_tagged_as_caches_are_build_output_whatever_the_ignore_files_say() {
    let (_home, store) = store();
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"c\"\n").unwrap();
    std::fs::write(root.join("src/lib.rs"), "").unwrap();
    let mut cache = SnapshotCache::default();
    let before = take(root, &mut cache, &store, at(0)).unwrap();

    // What `cargo test` leaves, as cargo writes it.
    std::fs::create_dir_all(root.join("target/debug/deps")).unwrap();
    std::fs::write(
        root.join("target/CACHEDIR.TAG"),
        "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by cargo.\n",
    )
    .unwrap();
    std::fs::write(root.join("target/debug/deps/c-1234"), "binary").unwrap();
    std::fs::write(root.join("Cargo.lock"), "version = 4\n").unwrap();
    // A look-alike tag is not a cache tag.
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::write(root.join("notes/CACHEDIR.TAG"), "Signature: not the one\n").unwrap();
    std::fs::write(root.join("notes/keep.md"), "mine").unwrap();
    let after = take(root, &mut cache, &store, at(1)).unwrap();
    let paths: Vec<String> = changes(&before, &after)
        .into_iter()
        .map(|c| c.path)
        .collect();
    assert_eq!(paths, ["Cargo.lock", "notes/CACHEDIR.TAG", "notes/keep.md"]);
    assert!(!after.dirs.iter().any(|d| d.starts_with("target")));
    assert!(is_cache_dir(&root.join("target")));
    assert!(!is_cache_dir(&root.join("notes")) && !is_cache_dir(&root.join("src")));
}

#[test]
fn the_folders_a_command_made_and_removed_are_known() {
    let (_home, store) = store();
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path();
    std::fs::create_dir_all(root.join("old/inner")).unwrap();
    std::fs::write(root.join("old/inner/f"), "x").unwrap();
    std::fs::create_dir_all(root.join("kept")).unwrap();
    std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
    let mut cache = SnapshotCache::default();
    let before = take(root, &mut cache, &store, at(0)).unwrap();
    std::fs::remove_dir_all(root.join("old")).unwrap();
    std::fs::create_dir_all(root.join("kept/__pycache__")).unwrap();
    std::fs::write(root.join("kept/__pycache__/m.pyc"), "pyc").unwrap();
    std::fs::create_dir_all(root.join("build/out")).unwrap();
    std::fs::create_dir_all(root.join("node_modules/a/lib")).unwrap();
    std::fs::create_dir_all(root.join("node_modules/b")).unwrap();
    std::fs::create_dir_all(root.join("node_modules-x")).unwrap();
    let after = take(root, &mut cache, &store, at(1)).unwrap();
    let (created, removed) = dir_changes(&before, &after);
    // Only the topmost of each made or removed tree.
    assert_eq!(
        created,
        ["kept/__pycache__", "node_modules", "node_modules-x"]
    );
    assert_eq!(removed, ["old"]);
}
