use super::*;
use crate::testutil::{put, workspace};

#[test]
fn new_requires_an_existing_directory() {
    let (dir, _ws) = workspace();
    put(dir.path(), "file.txt", "x");
    assert!(matches!(
        WorkspaceRoot::new(&dir.path().join("missing")),
        Err(PathError::NotFound { .. })
    ));
    assert!(matches!(
        WorkspaceRoot::new(&dir.path().join("file.txt")),
        Err(PathError::NotADirectory { .. })
    ));
}

#[test]
fn root_is_canonical() {
    let (dir, ws) = workspace();
    fs::create_dir(dir.path().join("sub")).unwrap();
    let dotted = WorkspaceRoot::new(&dir.path().join("sub/..")).unwrap();
    assert_eq!(dotted.path(), ws.path());
    assert!(ws.path().is_absolute());
}

#[test]
fn resolves_relative_and_inside_absolute_paths() {
    let (dir, ws) = workspace();
    put(dir.path(), "a/b.txt", "x");
    let expected = ws.path().join("a/b.txt");
    assert_eq!(ws.resolve_existing("a/b.txt").unwrap(), expected);
    assert_eq!(ws.resolve_existing("./a/../a/b.txt").unwrap(), expected);
    let abs = ws.path().join("a/b.txt");
    assert_eq!(
        ws.resolve_existing(abs.to_str().unwrap()).unwrap(),
        expected
    );
    assert_eq!(ws.resolve_existing(".").unwrap(), ws.path());
    assert_eq!(ws.relative(&expected), "a/b.txt");
    assert_eq!(ws.relative(ws.path()), ".");
}

#[test]
fn refuses_absolute_paths_outside() {
    let (_dir, ws) = workspace();
    let err = ws.resolve_existing("/etc/passwd").unwrap_err();
    assert!(matches!(err, PathError::AbsoluteOutside { .. }), "{err:?}");
    assert!(err.to_string().contains("relative to the workspace root"));
    let sneaky = format!("{}/../outside.txt", ws.path().display());
    assert!(matches!(
        ws.resolve_for_write(&sneaky),
        Err(PathError::AbsoluteOutside { .. })
    ));
}

#[test]
fn refuses_dotdot_escapes() {
    let (_dir, ws) = workspace();
    for bad in ["..", "../x", "a/../../x", "./../../etc/passwd"] {
        let err = ws.resolve_for_write(bad).unwrap_err();
        assert!(matches!(err, PathError::Escape { .. }), "{bad}: {err:?}");
        assert!(matches!(
            ws.resolve_existing(bad),
            Err(PathError::Escape { .. })
        ));
    }
}

#[test]
fn refuses_empty_and_nul() {
    let (_dir, ws) = workspace();
    assert_eq!(ws.resolve_existing(""), Err(PathError::Empty));
    assert_eq!(ws.resolve_for_write("  "), Err(PathError::Empty));
    assert_eq!(ws.resolve_existing("a\0b"), Err(PathError::NulByte));
    assert_eq!(ws.resolve_for_write("a\0b"), Err(PathError::NulByte));
}

#[test]
fn missing_files_are_not_found_for_reads_but_fine_for_writes() {
    let (_dir, ws) = workspace();
    assert!(matches!(
        ws.resolve_existing("nope.txt"),
        Err(PathError::NotFound { .. })
    ));
    let target = ws.resolve_for_write("new/deep/file.txt").unwrap();
    assert_eq!(target, ws.path().join("new/deep/file.txt"));
}

#[test]
fn refuses_writes_inside_git() {
    let (dir, ws) = workspace();
    fs::create_dir(dir.path().join(".git")).unwrap();
    for bad in [".git/config", ".git", "sub/.git/hooks/pre-commit", ".GIT/x"] {
        let err = ws.resolve_for_write(bad).unwrap_err();
        assert!(matches!(err, PathError::GitDir { .. }), "{bad}: {err:?}");
    }
    // .gitignore is an ordinary file, and reading inside .git is allowed.
    assert!(ws.resolve_for_write(".gitignore").is_ok());
    assert!(ws.resolve_existing(".git").is_ok());
}

#[test]
fn write_through_a_file_as_directory_is_refused() {
    let (dir, ws) = workspace();
    put(dir.path(), "file.txt", "x");
    assert!(matches!(
        ws.resolve_for_write("file.txt/child"),
        Err(PathError::NotADirectory { .. })
    ));
}

#[cfg(unix)]
mod symlinks {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn symlink_to_tmp_outside_is_refused() {
        let (dir, ws) = workspace();
        let outside = tempfile::tempdir().unwrap();
        put(outside.path(), "secret.txt", "s");
        symlink(outside.path(), dir.path().join("out")).unwrap();
        symlink(outside.path().join("secret.txt"), dir.path().join("s.txt")).unwrap();

        for rel in ["out", "out/secret.txt", "s.txt"] {
            let err = ws.resolve_existing(rel).unwrap_err();
            assert!(
                matches!(err, PathError::SymlinkOutside { .. }),
                "{rel}: {err:?}"
            );
        }
        for rel in [
            "s.txt",
            "out/secret.txt",
            "out/new.txt",
            "out/new/deeper.txt",
        ] {
            let err = ws.resolve_for_write(rel).unwrap_err();
            assert!(
                matches!(err, PathError::SymlinkOutside { .. }),
                "{rel}: {err:?}"
            );
        }
        assert!(!outside.path().join("new").exists());
    }

    #[test]
    fn symlinked_parent_dir_outside_is_refused() {
        let (dir, ws) = workspace();
        let outside = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("real")).unwrap();
        symlink(outside.path(), dir.path().join("real/linked")).unwrap();
        let err = ws.resolve_for_write("real/linked/sub/x.txt").unwrap_err();
        assert!(matches!(err, PathError::SymlinkOutside { .. }), "{err:?}");
        assert!(err.to_string().contains("outside the workspace"));
    }

    #[test]
    fn symlinks_inside_the_workspace_resolve_to_their_target() {
        let (dir, ws) = workspace();
        put(dir.path(), "docs/a.md", "a");
        symlink(dir.path().join("docs"), dir.path().join("d")).unwrap();
        assert_eq!(
            ws.resolve_existing("d/a.md").unwrap(),
            ws.path().join("docs/a.md")
        );
        assert_eq!(
            ws.resolve_for_write("d/new.md").unwrap(),
            ws.path().join("docs/new.md")
        );
    }

    #[test]
    fn symlink_into_git_is_refused_for_writes() {
        let (dir, ws) = workspace();
        fs::create_dir(dir.path().join(".git")).unwrap();
        symlink(dir.path().join(".git"), dir.path().join("g")).unwrap();
        assert!(matches!(
            ws.resolve_for_write("g/config"),
            Err(PathError::GitDir { .. })
        ));
    }

    #[test]
    fn dangling_symlinks_are_refused_for_writes() {
        let (dir, ws) = workspace();
        symlink("/nonexistent/bearagent/target", dir.path().join("dangling")).unwrap();
        assert!(matches!(
            ws.resolve_for_write("dangling"),
            Err(PathError::DanglingSymlink { .. })
        ));
        assert!(matches!(
            ws.resolve_for_write("dangling/x.txt"),
            Err(PathError::DanglingSymlink { .. })
        ));
    }

    #[test]
    fn root_reached_through_an_alias_is_accepted() {
        let (dir, ws) = workspace();
        put(dir.path(), "a.txt", "a");
        let alias_dir = tempfile::tempdir().unwrap();
        let alias = alias_dir.path().join("alias");
        symlink(ws.path(), &alias).unwrap();
        let via_alias = alias.join("a.txt");
        assert_eq!(
            ws.resolve_existing(via_alias.to_str().unwrap()).unwrap(),
            ws.path().join("a.txt")
        );
        // A workspace opened through the alias is canonicalised.
        assert_eq!(WorkspaceRoot::new(&alias).unwrap().path(), ws.path());
    }
}

#[test]
fn a_protected_folder_is_refused_however_it_is_reached() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let own = ws.join("data");
    std::fs::create_dir_all(&own).unwrap();
    std::fs::write(own.join("bearagent.db"), "db").unwrap();
    std::os::unix::fs::symlink(&own, ws.join("link")).unwrap();
    let root = WorkspaceRoot::new(&ws)
        .unwrap()
        .protecting(std::slice::from_ref(&own));
    for rel in ["data/bearagent.db", "link/bearagent.db", "link"] {
        assert!(
            matches!(root.resolve_existing(rel), Err(PathError::OwnFolder { .. })),
            "{rel}"
        );
    }
    for rel in ["data/new.txt", "link/config.toml"] {
        assert!(
            matches!(
                root.resolve_for_write(rel),
                Err(PathError::OwnFolder { .. })
            ),
            "{rel}"
        );
    }
    assert!(root.resolve_for_write("other.txt").is_ok());
}

#[test]
fn a_protected_folder_around_the_root_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("worktrees/run");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("a.txt"), "a").unwrap();
    let root = WorkspaceRoot::new(&ws)
        .unwrap()
        .protecting(&[dir.path().to_path_buf()]);
    assert!(root.resolve_existing("a.txt").is_ok());
}
