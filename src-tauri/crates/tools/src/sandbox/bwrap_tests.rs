use super::{args, resolve, Layout};
use crate::sandbox::{SandboxError, SandboxPolicy};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

fn layout(network: bool) -> Layout {
    Layout {
        workspace_read_only: false,
        workspace: "/tmp/ws".into(),
        home: Some("/home/u".into()),
        readable: vec![("/opt/cargo".into(), "/home/u/.cargo".into())],
        writable: vec![(
            "/opt/cargo/registry".into(),
            "/home/u/.cargo/registry".into(),
        )],
        config: vec![("/home/u/.gitconfig".into(), "/home/u/.gitconfig".into())],
        git: vec!["/tmp/ws/.git".into()],
        hidden: vec![
            ("/tmp/ws/.bearagent".into(), true),
            ("/etc/bearagent.toml".into(), false),
            ("/home/u/.local/share/bearagent".into(), true),
        ],
        resolv_conf: Some("/run/systemd/resolve/stub-resolv.conf".into()),
        network,
    }
}

fn argv(layout: &Layout) -> Vec<String> {
    let env = vec![("PATH".to_string(), "/usr/bin".to_string())];
    args(layout, Path::new("/tmp/ws/src"), &env, "echo 'hi'", None)
        .into_iter()
        .map(|arg: OsString| arg.into_string().unwrap())
        .collect()
}

/// Index of `window` in `argv`; panics when it is missing.
fn at(argv: &[String], window: &[&str]) -> usize {
    argv.windows(window.len())
        .position(|w| w.iter().zip(window).all(|(a, b)| a == b))
        .unwrap_or_else(|| panic!("{window:?} not in {argv:?}"))
}

#[test]
fn namespaces_and_privileges() {
    let argv = argv(&layout(false));
    assert_eq!(argv[0], "--unshare-all");
    assert!(!argv.contains(&"--share-net".to_string()));
    for flag in [
        &["--die-with-parent"][..],
        &["--new-session"],
        &["--cap-drop", "ALL"],
        &["--clearenv"],
        &["--seccomp", "0"],
    ] {
        at(&argv, flag);
    }
    assert_eq!(at(&argv, &["--ro-bind", "/", "/"]), 5);
    let with_net = super::args(&layout(true), Path::new("/tmp/ws"), &[], "true", None);
    assert_eq!(with_net[1], "--share-net");
}

#[test]
fn a_writable_cache_is_bound_inside_its_read_only_toolchain_dir() {
    let argv = argv(&layout(true));
    let home = at(&argv, &["--tmpfs", "/home/u"]);
    let config = at(
        &argv,
        &["--ro-bind", "/home/u/.gitconfig", "/home/u/.gitconfig"],
    );
    assert!(home < config, "configuration shows through the empty home");
    let cargo = at(&argv, &["--ro-bind", "/opt/cargo", "/home/u/.cargo"]);
    let registry = at(
        &argv,
        &["--bind", "/opt/cargo/registry", "/home/u/.cargo/registry"],
    );
    assert!(cargo < registry);
}

#[test]
fn deeper_mounts_come_after_shallower_ones() {
    let argv = argv(&layout(false));
    let tmp = at(&argv, &["--tmpfs", "/tmp"]);
    let run = at(&argv, &["--tmpfs", "/run"]);
    let home = at(&argv, &["--tmpfs", "/home/u"]);
    let cargo = at(&argv, &["--ro-bind", "/opt/cargo", "/home/u/.cargo"]);
    let workspace = at(&argv, &["--bind", "/tmp/ws", "/tmp/ws"]);
    let git = at(&argv, &["--ro-bind", "/tmp/ws/.git", "/tmp/ws/.git"]);
    let inner = at(&argv, &["--tmpfs", "/tmp/ws/.bearagent"]);
    let data = at(&argv, &["--tmpfs", "/home/u/.local/share/bearagent"]);
    let file = at(&argv, &["--ro-bind", "/dev/null", "/etc/bearagent.toml"]);
    assert!(tmp < workspace && workspace < git && workspace < inner);
    assert!(run < workspace && home < cargo && home < data && file > tmp);
    // Hidden folders become read-only after every mount is in place.
    let remount = at(&argv, &["--remount-ro", "/tmp/ws/.bearagent"]);
    let remount_data = at(&argv, &["--remount-ro", "/home/u/.local/share/bearagent"]);
    assert!(remount > inner.max(data).max(git).max(file));
    assert!(remount_data > data);
    assert!(!argv
        .iter()
        .any(|arg| arg == "/run/systemd/resolve/stub-resolv.conf"));
}

#[test]
fn resolv_conf_is_bound_back_only_with_network() {
    let argv: Vec<String> = args(&layout(true), Path::new("/tmp/ws"), &[], "true", None)
        .into_iter()
        .map(|arg| arg.into_string().unwrap())
        .collect();
    let resolv = "/run/systemd/resolve/stub-resolv.conf";
    let bound = at(&argv, &["--ro-bind", resolv, resolv]);
    assert!(bound > at(&argv, &["--tmpfs", "/run"]));
}

#[test]
fn a_hidden_folder_holding_the_workspace_yields_to_it() {
    let mut layout = layout(false);
    layout.hidden = vec![("/tmp".into(), true)];
    let argv = argv(&layout);
    let hidden = argv
        .windows(2)
        .rposition(|w| w[0] == "--tmpfs" && w[1] == "/tmp")
        .unwrap();
    assert!(hidden < at(&argv, &["--bind", "/tmp/ws", "/tmp/ws"]));
}

#[test]
fn env_cwd_and_command_come_last() {
    let argv = argv(&layout(false));
    let chdir = at(&argv, &["--chdir", "/tmp/ws/src"]);
    let env = at(&argv, &["--setenv", "PATH", "/usr/bin"]);
    assert!(chdir > at(&argv, &["--remount-ro", "/tmp/ws/.bearagent"]));
    assert!(env > chdir);
    let tail = &argv[argv.len() - 8..];
    let expected = [
        "--seccomp",
        "0",
        "--",
        "/bin/sh",
        "-c",
        "exec /bin/sh -c \"$1\" </dev/null",
        "sh",
        "echo 'hi'",
    ];
    assert_eq!(tail, expected);
}

fn policy(workspace: &Path, home: &Path) -> SandboxPolicy {
    SandboxPolicy {
        workspace: workspace.into(),
        home: home.into(),
        network: false,
        readable_home_dirs: vec![
            home.join(".cargo"),
            home.join("missing"),
            home.join(".cargo/bin"),
        ],
        writable_home_dirs: Vec::new(),
        config_files: Vec::new(),
        credentials: Vec::new(),
        path: Vec::new(),
        hidden: vec![workspace.join(".bearagent"), home.join("absent")],
        env: Vec::new(),
    }
}

#[test]
fn resolve_follows_symlinks_and_drops_missing_paths() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let home = root.join("home");
    let ws = root.join("ws");
    let cargo_real = root.join("cargo-real");
    std::fs::create_dir_all(ws.join(".bearagent")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    // Its bin exists, but is seen through the bind of .cargo.
    std::fs::create_dir_all(cargo_real.join("bin")).unwrap();
    std::os::unix::fs::symlink(&cargo_real, home.join(".cargo")).unwrap();
    // A worktree-style `.git` file pointing at a git dir inside the workspace.
    std::fs::create_dir_all(ws.join("gitdir")).unwrap();
    std::fs::write(ws.join(".git"), "gitdir: gitdir\n").unwrap();

    let layout = resolve(&policy(&ws, &home)).unwrap();
    assert_eq!(layout.workspace, ws);
    assert_eq!(layout.home.as_deref(), Some(home.as_path()));
    assert_eq!(layout.readable, vec![(cargo_real, home.join(".cargo"))]);
    assert_eq!(layout.hidden, vec![(ws.join(".bearagent"), true)]);
    // `.bearagent/` is read-only like `.git` (its hiding, when it is
    // BearAgent's data, comes later and wins).
    assert_eq!(
        layout.git,
        vec![ws.join(".bearagent"), ws.join(".git"), ws.join("gitdir")]
    );
}

#[test]
fn resolve_refuses_root_and_missing_workspaces() {
    let home = PathBuf::from("/nonexistent-home");
    for workspace in ["/", "/nonexistent-workspace-3b1"] {
        let result = resolve(&policy(Path::new(workspace), &home));
        assert!(
            matches!(result, Err(SandboxError::InvalidPolicy(_))),
            "{workspace}: {result:?}"
        );
    }
}
