//! The trust gate of project hooks: a workspace's `.bearagent/hooks.toml`
//! runs only after the user trusted it exactly as it is — it, every file
//! of the workspace's `.bearagent/` folder and every workspace file a
//! hook's command line names (`pin.rs`; the digest is kept in the user's
//! config, never in the workspace). A change to any of them untrusts the
//! hooks again; untrusted hooks never run and their run says so once.

use super::config::{check_hooks, CheckedHook, ProjectHooksFile};
use crate::config::TrustedHooks;
use crate::AppError;
use std::path::Path;

/// Where a workspace keeps its hooks.
pub const PROJECT_HOOKS_FILE: &str = ".bearagent/hooks.toml";
/// A bigger hooks file is refused (a hostile repository's flood).
const MAX_HOOKS_FILE_BYTES: u64 = 64 * 1024;

/// A workspace's hooks file as the user reviews it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectHooks {
    /// The file's path.
    pub file: String,
    /// The digest trusting pins: SHA-256 over the pinned files (`pinned`).
    pub sha256: String,
    /// The workspace files the digest covers (workspace-relative).
    pub pinned: Vec<String>,
    /// Each hook it sets, in order.
    pub hooks: Vec<ProjectHook>,
    /// The user trusted exactly these bytes for this workspace.
    pub trusted: bool,
    /// Why the file cannot run even if trusted (unreadable, invalid).
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectHook {
    pub event: String,
    pub matcher: Option<String>,
    pub command: String,
    pub timeout_secs: u32,
}

/// The file's bytes, refused when too big or not a regular file.
fn file_bytes(path: &Path) -> Result<Option<Vec<u8>>, String> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    if !meta.is_file() {
        return Err("it is not a regular file (a link or a folder is never trusted)".into());
    }
    if meta.len() > MAX_HOOKS_FILE_BYTES {
        return Err(format!(
            "it is {} bytes; a hooks file may have at most {MAX_HOOKS_FILE_BYTES}",
            meta.len()
        ));
    }
    std::fs::read(path).map(Some).map_err(|e| e.to_string())
}

/// A hooks file's bytes parsed and checked.
fn parse_hooks(bytes: &[u8]) -> Result<Vec<CheckedHook>, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_owned())?;
    let file: ProjectHooksFile = toml::from_str(text).map_err(|e| e.to_string())?;
    check_hooks(&file.hooks).map_err(|e| e.to_string())
}

/// A hooks file as shown, and its hooks when they are valid.
type ReadHooks = (ProjectHooks, Option<Vec<CheckedHook>>);

/// Reads `folder`'s hooks file once (None without one): what it shows,
/// whether `home` trusted these exact bytes, and the hooks parsed from
/// those same bytes (None when they are invalid), so what runs is what
/// was hashed.
pub(crate) fn read_project_hooks(
    folder: &Path,
    home: &str,
    trusted: &[TrustedHooks],
) -> Result<Option<ReadHooks>, AppError> {
    let path = folder.join(PROJECT_HOOKS_FILE);
    let file = path.display().to_string();
    let (bytes, read_error) = match file_bytes(&path) {
        Ok(None) => return Ok(None),
        Ok(Some(bytes)) => (bytes, None),
        Err(e) => (Vec::new(), Some(e)),
    };
    let parsed = match read_error {
        Some(e) => Err(e),
        None => parse_hooks(&bytes),
    };
    let commands: Vec<String> = parsed
        .as_ref()
        .map(|checked| checked.iter().map(|h| h.command.clone()).collect())
        .unwrap_or_default();
    let (sha256, pinned, parsed) = match super::pin::pin(folder, &commands) {
        Ok(pin) => (pin.digest, pin.files, parsed),
        // Nothing that cannot be pinned runs: the file's own hash is shown.
        Err(e) => (
            bearagent_store::hash_bytes(&bytes).to_string(),
            Vec::new(),
            Err(e),
        ),
    };
    let hooks = parsed
        .as_ref()
        .map(|checked| checked.iter().map(shown).collect())
        .unwrap_or_default();
    let trusted = trusted
        .iter()
        .any(|t| t.workspace == home && t.sha256 == sha256);
    let shown = ProjectHooks {
        file,
        sha256,
        pinned,
        hooks,
        trusted,
        error: parsed.as_ref().err().cloned(),
    };
    Ok(Some((shown, parsed.ok())))
}

/// A checked hook as the trust prompt lists it.
fn shown(hook: &CheckedHook) -> ProjectHook {
    ProjectHook {
        event: hook.event.name().to_owned(),
        matcher: hook.matcher_text.clone(),
        command: hook.command.clone(),
        timeout_secs: hook.timeout_secs,
    }
}
