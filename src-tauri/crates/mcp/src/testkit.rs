//! For tests and benches of this crate and of the crates above it: the
//! official reference server (`@modelcontextprotocol/server-everything`,
//! pinned in `<repo>/tests/mcp` and installed there by npm).
#![allow(clippy::expect_used, clippy::panic)]

use bearagent_kernel::ToolName;
use bearagent_tools::{
    ApprovalMode, AuthorizedCall, Effect, Policy, PolicyDecision, PreparedCall, ToolSpec,
};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::Once;

/// A call with `args` as the run loop would hand it over: prepared, then
/// allowed by the policy (everything allowed, as in a test's profile).
pub fn authorized(args: Map<String, Value>) -> AuthorizedCall {
    let name = ToolName::new("test__tool").expect("a valid name");
    let spec = ToolSpec {
        name: name.clone(),
        description: "a tool under test".into(),
        parameters: serde_json::json!({"type": "object"}),
        effect: Effect::External,
    };
    let prepared = PreparedCall::external(name, "a test call".into(), Value::Object(args), false);
    match Policy::new(ApprovalMode::AllowAll).decide(&spec, prepared) {
        PolicyDecision::Allow(call) => call,
        PolicyDecision::Ask(_) | PolicyDecision::Deny { .. } => {
            panic!("allow-all allows an external call")
        }
    }
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// `<repo>/tests/mcp/node_modules/.bin/mcp-server-everything`, installed
/// with `npm ci` on first use (once per process, and under a lock file so
/// test binaries running side by side do not install twice).
#[expect(
    clippy::disallowed_methods,
    reason = "test support: a lock file in the temp dir while npm installs the reference server"
)]
pub fn everything_bin() -> PathBuf {
    static INSTALL: Once = Once::new();
    let dir = repo_root().join("tests/mcp");
    let bin = dir.join("node_modules/.bin/mcp-server-everything");
    INSTALL.call_once(|| {
        if bin.exists() {
            return;
        }
        let lock = std::fs::File::create(std::env::temp_dir().join("bearagent-mcp-npm.lock"))
            .expect("lock file");
        lock.lock().expect("lock");
        if !bin.exists() {
            let status = std::process::Command::new("npm")
                .args([
                    "ci",
                    "--no-audit",
                    "--no-fund",
                    "--loglevel=error",
                    "--prefix",
                ])
                .arg(&dir)
                .status()
                .expect(
                    "npm is needed for the MCP reference server (scripts/setup.sh installs it)",
                );
            assert!(status.success(), "npm ci --prefix tests/mcp failed");
        }
        let _ = lock.unlock();
    });
    assert!(bin.exists(), "{} missing after npm ci", bin.display());
    bin
}
