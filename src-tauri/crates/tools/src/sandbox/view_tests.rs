use super::{describe, DroppedPath, PathDrop, PathEntry, PathSource};
use crate::tools::run_command::HostEnvironment;
use bearagent_kernel::CommandSettings;
use std::path::PathBuf;

/// Each PATH entry says where it comes from, each one left out why; the
/// toolchain homes passed in are listed, the offline switches only with
/// the network off.
#[test]
fn the_view_says_where_path_entries_come_from_and_why_some_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path().canonicalize().unwrap();
    for folder in [
        ".pyenv/shims",
        ".cargo/bin",
        ".secret/bin",
        ".local/share/bearagent/bin",
    ] {
        std::fs::create_dir_all(h.join(folder)).unwrap();
    }
    let host = HostEnvironment {
        home: h.clone(),
        hidden: vec![h.join(".local/share/bearagent")],
        path: vec![
            h.join(".pyenv/shims"),
            h.join(".secret/bin"),
            h.join(".local/share/bearagent/bin"),
            PathBuf::from("."),
            PathBuf::from("/usr/bin"),
        ],
        tool_homes: vec![("CARGO_HOME".into(), h.join(".cargo"))],
    };
    let settings = CommandSettings::default();
    let view = describe(&host.policy(&h, &settings)).unwrap();

    assert_eq!(view.home, h);
    let entry = |path: PathBuf, source| PathEntry { path, source };
    assert_eq!(
        view.path[..3],
        [
            entry(h.join(".pyenv/shims"), PathSource::UserBound),
            entry("/usr/bin".into(), PathSource::User),
            entry(h.join(".cargo/bin"), PathSource::Toolchain),
        ]
    );
    assert!(view.path[3..]
        .iter()
        .all(|e| e.source == PathSource::System && e.path.is_absolute()));
    let dropped = |path: PathBuf, reason| DroppedPath { path, reason };
    assert_eq!(
        view.path_dropped,
        [
            dropped(h.join(".secret/bin"), PathDrop::HomeNotBound),
            dropped(h.join(".local/share/bearagent/bin"), PathDrop::HiddenFolder),
            dropped(".".into(), PathDrop::NotAbsolute),
        ]
    );
    assert_eq!(
        view.tool_homes,
        [("CARGO_HOME".to_string(), h.join(".cargo"))]
    );
    assert!(view
        .offline_env
        .iter()
        .any(|(n, _)| n == "CARGO_NET_OFFLINE"));

    let online = CommandSettings {
        network: true,
        ..CommandSettings::default()
    };
    let view = describe(&host.policy(&h, &online)).unwrap();
    assert!(view.network && view.offline_env.is_empty());
}
