//! Settings' "What a command sees" in the mock: what the code that builds
//! the sandbox shows of a made-up home folder (toolchains, configuration,
//! a credential inside a bound folder, PATH entries it leaves out), for a
//! profile with the network off, one with it on and one with the sandbox
//! off — as `sandbox_view` sends it, the home folder shown as `/home/dev`.
//! Written to `ui/src/dev/mock/fixtures/sandbox-views.json`.

use crate::dto::sandbox::CommandSandboxView;
use bearagent_kernel::CommandSettings;
use bearagent_tools::sandbox::view::describe;
use bearagent_tools::tools::run_command::HostEnvironment;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const HOME: &str = "/home/dev";

fn make_home(h: &Path) {
    for dir in [
        ".cargo/bin",
        ".cargo/registry",
        ".rustup/toolchains",
        ".npm",
        ".pyenv/shims",
        ".ssh",
        ".scripts",
        ".local/share/bearagent",
        ".config/bearagent",
    ] {
        std::fs::create_dir_all(h.join(dir)).unwrap();
    }
    for (file, text) in [
        (".gitconfig", "[user]\n\tname = Dev\n"),
        (".npmrc", "//registry.npmjs.org/:_authToken=SECRET\n"),
        (".cargo/config.toml", "[alias]\nb = \"build\"\n"),
        (
            ".cargo/credentials.toml",
            "[registry]\ntoken = \"SECRET\"\n",
        ),
        (".ssh/id_ed25519", "SECRET\n"),
    ] {
        std::fs::write(h.join(file), text).unwrap();
    }
}

/// The machine as `Application::command_host` sees it: BearAgent's data
/// and config folders hidden, the user's PATH (a desktop session's: no
/// `~/.cargo/bin`, which the sandbox adds), rustup's home.
fn host(h: &Path) -> HostEnvironment {
    HostEnvironment {
        home: h.to_path_buf(),
        hidden: vec![
            h.join(".local/share/bearagent"),
            h.join(".config/bearagent"),
        ],
        path: vec![
            h.join(".pyenv/shims"),
            h.join(".scripts"),
            "/usr/local/bin".into(),
            "/usr/bin".into(),
            "/bin".into(),
            ".".into(),
        ],
        tool_homes: vec![("RUSTUP_HOME".into(), h.join(".rustup"))],
    }
}

fn view(host: &HostEnvironment, profile: &str, settings: CommandSettings) -> Value {
    let workspace = Path::new("/tmp/bearagent-scenario");
    let sight = if settings.sandbox {
        describe(&host.policy(workspace, &settings))
    } else {
        None
    };
    serde_json::to_value(CommandSandboxView::new(profile.into(), &settings, sight)).unwrap()
}

#[cfg(target_os = "linux")]
#[test]
fn the_sandbox_views_scenario_is_what_the_sandbox_code_shows_now() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path().canonicalize().unwrap();
    make_home(&h);
    let host = host(&h);
    let views = json!({
        "generated_by": "src-tauri/src/scenarios/sandbox.rs (BEARAGENT_UPDATE_FIXTURES=1 cargo test -p bearagent-desktop scenarios to refresh)",
        "network_off": view(&host, "default", CommandSettings::default()),
        "network_on": view(&host, "online", CommandSettings { network: true, ..CommandSettings::default() }),
        "sandbox_off": view(&host, "unsandboxed", CommandSettings { sandbox: false, ..CommandSettings::default() }),
    });
    let text = serde_json::to_string_pretty(&super::sorted(views)).unwrap() + "\n";
    let text = text.replace(h.to_str().unwrap(), HOME);
    assert!(!text.contains("SECRET"));
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("ui/src/dev/mock/fixtures/sandbox-views.json");
    super::compare_or_write(&path, &text);
}
