//! The command's environment: an allow-list, never the parent's environment,
//! so API keys and tokens BearAgent holds cannot reach a command.

use super::network::OFFLINE_ENV;
use super::{SandboxError, SandboxPolicy};
use std::path::PathBuf;

/// A fixed PATH: the parent's PATH may name folders the sandbox hides.
const DEFAULT_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// The whole environment of the command: PATH (`bin_dirs` first, then
/// [`DEFAULT_PATH`]), HOME, LANG/LC_ALL, TERM, USER, the offline switches
/// when `offline` (a sandbox without network), then `policy.env`, which
/// overrides the defaults.
pub(super) fn command_env(
    policy: &SandboxPolicy,
    bin_dirs: &[PathBuf],
    offline: bool,
) -> Result<Vec<(String, String)>, SandboxError> {
    let mut path = String::new();
    for dir in bin_dirs {
        let dir = dir.to_str().ok_or_else(|| {
            SandboxError::InvalidPolicy(format!("{} is not valid UTF-8", dir.display()))
        })?;
        if dir.contains(':') {
            continue; // would split PATH
        }
        path.push_str(dir);
        path.push(':');
    }
    path.push_str(DEFAULT_PATH);
    let home = policy.home.to_str().ok_or_else(|| {
        SandboxError::InvalidPolicy(format!("home {} is not valid UTF-8", policy.home.display()))
    })?;

    let mut env: Vec<(String, String)> = vec![
        ("PATH".into(), path),
        ("HOME".into(), home.into()),
        ("LANG".into(), "C.UTF-8".into()),
        ("LC_ALL".into(), "C.UTF-8".into()),
        ("TERM".into(), "xterm-256color".into()),
    ];
    if let Some(user) = user_name() {
        env.push(("USER".into(), user));
    }
    if offline {
        env.extend(
            OFFLINE_ENV
                .iter()
                .map(|(name, value)| ((*name).to_owned(), (*value).to_owned())),
        );
    }
    for (name, value) in &policy.env {
        if name.is_empty() || name.contains('=') || name.contains('\0') || value.contains('\0') {
            return Err(SandboxError::InvalidPolicy(format!(
                "environment variable {name:?} is not a valid name or has a NUL in its value"
            )));
        }
        env.retain(|(existing, _)| existing != name);
        env.push((name.clone(), value.clone()));
    }
    Ok(env)
}

/// The login name: `USER`/`LOGNAME` of this process, else `/etc/passwd` for
/// our uid (both are public, not secrets).
fn user_name() -> Option<String> {
    for var in ["USER", "LOGNAME"] {
        if let Ok(name) = std::env::var(var) {
            if !name.is_empty() && !name.contains('\0') {
                return Some(name);
            }
        }
    }
    let uid = rustix::process::getuid().as_raw().to_string();
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let mut fields = line.split(':');
        let name = fields.next()?;
        let _password = fields.next()?;
        (fields.next()? == uid).then(|| name.to_string())
    })
}
