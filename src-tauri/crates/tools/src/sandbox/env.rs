//! The command's environment: an allow-list, never the parent's environment,
//! so API keys and tokens BearAgent holds cannot reach a command.

use super::error::SandboxError;
use super::home::under_home;
use super::network::OFFLINE_ENV;
use super::path_drop::PathDrop;
use super::policy::SandboxPolicy;
use std::path::{Path, PathBuf};

/// System folders always on PATH (after the user's own entries), so basic
/// tools are found whatever the user's PATH holds.
const DEFAULT_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// The command's PATH, and the user's entries left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CommandPath {
    pub entries: Vec<PathBuf>,
    /// Relative, not UTF-8, or (sandboxed) pointing into a folder the
    /// command cannot see: under the hidden home but in no bound folder,
    /// or under a hidden folder — each with why.
    pub dropped: Vec<(PathBuf, PathDrop)>,
}

/// The user's PATH (`policy.path`) in its order, keeping what the command
/// can see, then `bin_dirs` and [`DEFAULT_PATH`] where not already there.
pub(super) fn command_path(
    policy: &SandboxPolicy,
    bin_dirs: &[PathBuf],
    sandboxed: bool,
) -> CommandPath {
    let mut entries: Vec<PathBuf> = Vec::new();
    let mut dropped = Vec::new();
    let add = |entry: &Path, entries: &mut Vec<PathBuf>| {
        if !entries.iter().any(|known| known == entry) {
            entries.push(entry.to_path_buf());
        }
    };
    for entry in &policy.path {
        // A relative entry ("." or empty) would make the files of the
        // working directory commands.
        let usable = entry.is_absolute() && entry.to_str().is_some_and(|s| !s.contains(':'));
        let why = if !usable {
            Some(PathDrop::NotAbsolute)
        } else if sandboxed {
            unseen(policy, entry)
        } else {
            None
        };
        match why {
            None => add(entry, &mut entries),
            Some(why) => dropped.push((entry.clone(), why)),
        }
    }
    let defaults = DEFAULT_PATH.split(':').map(PathBuf::from);
    for dir in bin_dirs.iter().cloned().chain(defaults) {
        if dir.to_str().is_some_and(|s| !s.contains(':')) {
            add(&dir, &mut entries);
        }
    }
    CommandPath { entries, dropped }
}

/// Why `entry` does not exist inside the sandbox (None: it does): under a
/// hidden folder, or under the home folder in none of the folders bound
/// back.
fn unseen(policy: &SandboxPolicy, entry: &Path) -> Option<PathDrop> {
    if policy.hidden.iter().any(|hidden| entry.starts_with(hidden)) {
        return Some(PathDrop::HiddenFolder);
    }
    let relative = under_home(entry, &policy.home)?;
    let bound = policy
        .readable_home_dirs
        .iter()
        .chain(&policy.writable_home_dirs)
        .filter_map(|dir| dir.strip_prefix(&policy.home).ok())
        .any(|dir| relative.starts_with(dir));
    (!bound).then_some(PathDrop::HomeNotBound)
}

/// The whole environment of the command: PATH (`path`), HOME, LANG/LC_ALL,
/// TERM, USER, the offline switches when `offline` (a sandbox without
/// network), then `policy.env`, which overrides the defaults.
pub(super) fn command_env(
    policy: &SandboxPolicy,
    path: &[PathBuf],
    offline: bool,
) -> Result<Vec<(String, String)>, SandboxError> {
    let path = path
        .iter()
        .filter_map(|dir| dir.to_str())
        .collect::<Vec<_>>()
        .join(":");
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
