use super::*;
use serde_json::json;

fn view() -> SandboxView {
    SandboxView {
        network: false,
        home: "/home/dev".into(),
        readable: vec!["/home/dev/.cargo".into()],
        writable: vec![],
        config: vec!["/home/dev/.gitconfig".into()],
        withheld: vec!["/home/dev/.npmrc".into()],
        hidden: vec!["/home/dev/.cargo/credentials.toml".into()],
        path: vec![
            PathEntry {
                path: "/home/dev/.cargo/bin".into(),
                source: PathSource::UserBound,
            },
            PathEntry {
                path: "/usr/bin".into(),
                source: PathSource::System,
            },
        ],
        path_dropped: vec![DroppedPath {
            path: "/home/dev/.secret/bin".into(),
            reason: PathDrop::HomeNotBound,
        }],
        tool_homes: vec![("RUSTUP_HOME".into(), "/home/dev/.rustup".into())],
        offline_env: vec![("CARGO_NET_OFFLINE".into(), "true".into())],
    }
}

/// A sandboxed profile crosses with what its command sees, camelCase, the
/// closed sets as their snake_case names, and the credential denylist.
#[test]
fn a_sandboxed_view_crosses_with_what_the_command_sees() {
    let settings = CommandSettings::default();
    let dto = CommandSandboxView::new("default".into(), &settings, Some(view()));
    let v = serde_json::to_value(&dto).unwrap();
    assert_eq!(v["profile"], "default");
    assert_eq!(v["network"], false);
    assert_eq!(v["sandbox"]["kind"], "on");
    let sight = &v["sandbox"]["sight"];
    assert_eq!(sight["home"], "/home/dev");
    assert_eq!(sight["readable"], json!(["/home/dev/.cargo"]));
    assert_eq!(
        sight["hidden"],
        json!(["/home/dev/.cargo/credentials.toml"])
    );
    assert_eq!(
        sight["path"],
        json!([
            {"path": "/home/dev/.cargo/bin", "source": "user_bound"},
            {"path": "/usr/bin", "source": "system"},
        ])
    );
    assert_eq!(
        sight["pathDropped"],
        json!([{"path": "/home/dev/.secret/bin", "reason": "home_not_bound"}])
    );
    assert_eq!(
        sight["toolHomes"],
        json!([{"name": "RUSTUP_HOME", "value": "/home/dev/.rustup"}])
    );
    assert_eq!(
        sight["offlineEnv"],
        json!([{"name": "CARGO_NET_OFFLINE", "value": "true"}])
    );
    let denylist = v["credentialsDenylist"].as_array().unwrap();
    assert!(denylist.contains(&json!(".ssh")));
    assert_eq!(denylist.len(), CREDENTIALS.len());
}

/// No view: the profile turned the sandbox off, or this platform has none.
#[test]
fn without_a_view_the_sandbox_is_off_or_unavailable() {
    let off = CommandSettings {
        sandbox: false,
        ..CommandSettings::default()
    };
    let dto = CommandSandboxView::new("loose".into(), &off, None);
    assert_eq!(dto.sandbox, SandboxStateView::Off);
    let on = CommandSettings::default();
    let dto = CommandSandboxView::new("default".into(), &on, None);
    assert_eq!(dto.sandbox, SandboxStateView::Unavailable);
    assert_eq!(
        serde_json::to_value(&dto.sandbox).unwrap(),
        json!({"kind": "unavailable"})
    );
}
