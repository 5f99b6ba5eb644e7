//! Given keys BearAgent holds in its keychain (a provider's, an MCP
//! server's) and a run whose model quotes them, when the run is exported
//! as a bundle, then neither is in it and the manifest counts each kind.

use super::names_secret_file;
use crate::bundle::ExportOptions;
use crate::config::keys::MemoryKeys;
use crate::{Application, RunProfile, StartRun};
use bearagent_kernel::{ApprovalMode, FixedClock, Timestamp};
use bearagent_providers::ScriptedProvider;
use serde_json::json;
use std::io::Read;
use std::sync::Arc;

const PROVIDER_KEY: &str = "keychain-provider-key-0a1b2c3d";
const MCP_TOKEN: &str = "keychain-mcp-token-9z8y7x6w";

#[test]
fn a_command_reading_a_secret_file_is_known_by_its_words() {
    for c in [
        "cat .env",
        "grep KEY <app/.env.local",
        "cp x && cat 'id_rsa'",
    ] {
        assert!(names_secret_file(c), "{c}");
    }
    for c in ["cargo test", "cat README.md", "echo env"] {
        assert!(!names_secret_file(c), "{c}");
    }
}

#[tokio::test]
async fn keys_in_the_keychain_are_redacted_from_a_bundle() {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        "version = 1\n[providers.keyed]\nprotocol = \"openai-chat\"\n\
         base_url = \"http://127.0.0.1:1\"\nmodel = \"m\"\nkey = \"keychain\"\n\
         [mcp_servers.tools]\ncommand = \"true\"\nenv = { API_TOKEN = \"keychain\" }\n",
    )
    .unwrap();
    let clock = FixedClock(Timestamp::from_unix_millis(1_800_000_000_000).unwrap());
    let app = Application::open_with(
        home.path(),
        &home.path().join("config.toml"),
        Arc::new(clock),
        Arc::new(MemoryKeys::default()),
    )
    .unwrap();
    app.set_provider_key("keyed", PROVIDER_KEY).unwrap();
    app.set_mcp_secret("tools", "API_TOKEN", MCP_TOKEN).unwrap();
    let answer = format!("the keys are {PROVIDER_KEY} and {MCP_TOKEN}");
    let steps = json!([{"final_answer": answer}]).to_string();
    let run = app
        .start_run(StartRun {
            workspace: ws.path().display().to_string(),
            goal: "say the keys".into(),
            profile: RunProfile {
                approval_mode: ApprovalMode::AllowAll,
                ..RunProfile::default()
            },
            provider: Arc::new(ScriptedProvider::from_json(&steps).unwrap()),
            images: Vec::new(),
        })
        .unwrap();
    app.wait_run(run).await.unwrap();

    let file = home.path().join("run.bearagent-run");
    let manifest = app
        .export_bundle(run, &file, ExportOptions::default())
        .unwrap();
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&file).unwrap())
        .read_to_end(&mut bytes)
        .unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert!(!text.contains(PROVIDER_KEY) && !text.contains(MCP_TOKEN));
    assert!(text.contains("the keys are [REDACTED:provider-key] and [REDACTED:mcp-secret]"));
    let counts: Vec<(&str, usize)> = manifest
        .redactions
        .iter()
        .map(|r| (r.kind.as_str(), r.count))
        .collect();
    assert_eq!(counts, [("mcp-secret", 1), ("provider-key", 1)]);
}
