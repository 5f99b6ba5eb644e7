//! Given a workspace with ignored files, dependency folders and build
//! output, when a command changes them, then what existed before can be
//! restored and what is left out is named.

use super::*;
use crate::run::snapshot::{changes, take, SnapshotCache};
use bearagent_kernel::testkit::at;
use bearagent_store::Store;

fn store() -> (tempfile::TempDir, Store) {
    let home = tempfile::tempdir().unwrap();
    let store = Store::open_in(home.path()).unwrap();
    (home, store)
}

fn workspace() -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    let w = |rel: &str, content: &str| {
        let p = ws.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    };
    w(
        ".gitignore",
        ".env\nlocal/\nnode_modules/\ntarget/\nbig.bin\n",
    );
    w(".env", "SECRET=1\n");
    w("local/settings.json", "{}\n");
    w("main.py", "print(1)\n");
    w("node_modules/left-pad/index.js", "module.exports = 1\n");
    w(
        "target/CACHEDIR.TAG",
        "Signature: 8a477f597d28d172789f06886806bc55\n",
    );
    w("target/debug/app", "binary\n");
    ws
}

#[test]
fn ignored_files_are_kept_and_whole_dependency_and_build_trees_left_out() {
    let ws = workspace();
    let (_d, store) = store();
    let s = take(ws.path(), &mut SnapshotCache::default(), &store, at(0)).unwrap();
    let env = s.files.get(".env").expect("the ignored .env is kept");
    assert!(env.ignored && env.hash.is_some());
    assert!(s
        .files
        .get("local/settings.json")
        .is_some_and(|f| f.ignored));
    assert!(s.files.get("main.py").is_some_and(|f| !f.ignored));
    assert!(!s
        .files
        .keys()
        .any(|k| k.starts_with("node_modules/") || k.starts_with("target/")));
    let left: Vec<(&str, NotTrackedWhy)> = s
        .left_out
        .iter()
        .map(|(k, v)| (k.as_str(), v.why))
        .collect();
    assert_eq!(
        left,
        [
            ("node_modules/", NotTrackedWhy::Dependencies),
            ("target/", NotTrackedWhy::BuildOutput)
        ]
    );
}

#[test]
fn a_deleted_ignored_file_is_a_change_and_an_ignored_file_made_is_not() {
    let ws = workspace();
    let (_d, store) = store();
    let mut cache = SnapshotCache::default();
    let before = take(ws.path(), &mut cache, &store, at(0)).unwrap();
    std::fs::remove_file(ws.path().join(".env")).unwrap();
    std::fs::write(ws.path().join("local/settings.json"), "{\"a\":1}\n").unwrap();
    std::fs::write(ws.path().join("local/new.log"), "output\n").unwrap();
    std::fs::remove_file(ws.path().join("main.py")).unwrap();
    let after = take(ws.path(), &mut cache, &store, at(0)).unwrap();
    let changed = changes(&before, &after);
    let paths: Vec<&str> = changed.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(
        paths,
        [".env", "local/settings.json", "main.py"],
        "{changed:?}"
    );
    assert!(changed[0].after.is_none() && !changed[0].unrevertable);
    // The deleted .env's content is kept, so a revert brings it back.
    let env = &before.files[".env"];
    assert_eq!(
        store
            .get_blob(env.hash.as_ref().unwrap())
            .unwrap()
            .as_deref(),
        Some(b"SECRET=1\n".as_slice())
    );
}

#[test]
fn removing_or_making_a_left_out_tree_is_named() {
    let ws = workspace();
    let (_d, store) = store();
    let mut cache = SnapshotCache::default();
    let before = take(ws.path(), &mut cache, &store, at(0)).unwrap();
    std::fs::remove_dir_all(ws.path().join("node_modules")).unwrap();
    std::fs::write(
        ws.path().join(".gitignore"),
        ".env\nlocal/\nnode_modules/\ntarget/\n.venv/\n",
    )
    .unwrap();
    std::fs::create_dir_all(ws.path().join("web/.venv")).unwrap();
    std::fs::write(ws.path().join("web/.venv/pyvenv.cfg"), "home = /usr\n").unwrap();
    let after = take(ws.path(), &mut cache, &store, at(0)).unwrap();
    let named: Vec<(String, NotTrackedChange)> =
        left_out_changes(&before.left_out, &after.left_out)
            .into_iter()
            .map(|n| (n.path, n.change))
            .collect();
    assert_eq!(
        named,
        [
            ("node_modules/".to_owned(), NotTrackedChange::Removed),
            ("web/.venv/".to_owned(), NotTrackedChange::Made),
        ]
    );
}

#[test]
fn a_left_out_tree_the_command_changed_is_counted_and_a_removed_one_is_not() {
    let ws = workspace();
    let (_d, store) = store();
    let mut cache = SnapshotCache::default();
    let before = take(ws.path(), &mut cache, &store, at(0)).unwrap();
    std::fs::remove_dir_all(ws.path().join("node_modules")).unwrap();
    // A build adds two files right in target/ (its own mtime moves).
    std::fs::write(ws.path().join("target/a.o"), vec![0u8; 3000]).unwrap();
    std::fs::write(ws.path().join("target/b.o"), vec![0u8; 1000]).unwrap();
    let after = take(ws.path(), &mut cache, &store, at(0)).unwrap();
    let mut list = left_out_changes(&before.left_out, &after.left_out);
    measure_left_out(ws.path(), &mut list);
    let sizes: Vec<(&str, Option<TreeSize>)> =
        list.iter().map(|n| (n.path.as_str(), n.size)).collect();
    let target = TreeSize {
        // CACHEDIR.TAG, debug/app, a.o, b.o
        files: 4,
        bytes: 44 + 7 + 3000 + 1000,
        at_least: false,
    };
    assert_eq!(sizes, [("node_modules/", None), ("target/", Some(target))]);
    assert_eq!(
        bearagent_kernel::not_tracked_note(&list),
        "; not tracked, so not restorable: node_modules/ removed (dependencies or caches), \
         target/ changed (build output, 4 files, 4.0 KB)"
    );
}

#[test]
fn past_the_budget_ignored_files_are_left_out_by_name() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join(".gitignore"), "*.dat\n").unwrap();
    let big = vec![b'x'; (MAX_IGNORED_FILE_BYTES + 1) as usize];
    std::fs::write(ws.path().join("huge.dat"), &big).unwrap();
    std::fs::write(ws.path().join("small.dat"), "s").unwrap();
    let walked = walk_ignored(ws.path(), &HashSet::new(), &BTreeSet::new());
    let kept: Vec<&str> = walked.files.iter().map(|f| f.0.as_str()).collect();
    assert!(
        kept.contains(&"small.dat") && !kept.contains(&"huge.dat"),
        "{kept:?}"
    );
    assert_eq!(walked.left_out["huge.dat"].why, NotTrackedWhy::OverLimit);
}
