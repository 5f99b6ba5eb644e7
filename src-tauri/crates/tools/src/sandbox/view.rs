//! What a command will see, for a settings view: the home folders bound
//! back, the configuration passed or withheld, the credentials hidden,
//! PATH (where each entry comes from, and why one was left out), the
//! toolchain homes and the offline switches — from the same code that
//! builds the sandbox, so the view cannot drift from what runs.

use super::policy::SandboxPolicy;
#[cfg(target_os = "linux")]
use super::{bwrap, env, home, network};
use serde::Serialize;
use std::path::PathBuf;

pub use super::path_drop::PathDrop;

/// Home paths are as the command sees them (under its `HOME`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SandboxView {
    pub network: bool,
    /// The home folder (canonical): `HOME` inside, an empty folder but for
    /// what is bound back.
    pub home: PathBuf,
    /// Folders of the home bound back read-only (that exist here).
    pub readable: Vec<PathBuf>,
    /// Package caches bound read-write (only with the network on).
    pub writable: Vec<PathBuf>,
    /// Configuration files and folders passed read-only.
    pub config: Vec<PathBuf>,
    /// Configuration not passed: it looks like it holds a credential.
    pub withheld: Vec<PathBuf>,
    /// Credentials (and credential-looking configuration) a bound folder
    /// holds, hidden inside it.
    pub hidden: Vec<PathBuf>,
    /// The command's PATH, in order.
    pub path: Vec<PathEntry>,
    /// The user's PATH entries left out.
    pub path_dropped: Vec<DroppedPath>,
    /// Toolchain homes passed in (`RUSTUP_HOME`, `CARGO_HOME`, as set).
    pub tool_homes: Vec<(String, PathBuf)>,
    /// Variables set because the network is off.
    pub offline_env: Vec<(String, String)>,
}

/// One folder of the command's PATH and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PathEntry {
    pub path: PathBuf,
    pub source: PathSource,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PathSource {
    /// The user's PATH, outside the home folder: seen as it is.
    User,
    /// The user's PATH, inside a home folder bound back read-only (a
    /// version manager or toolchain).
    UserBound,
    /// Added: the `bin` of a toolchain folder bound back.
    Toolchain,
    /// Added: a system folder, always on PATH.
    System,
}

/// A PATH entry of the user's left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DroppedPath {
    pub path: PathBuf,
    pub reason: PathDrop,
}

/// What a sandboxed command under `policy` sees of this machine (None
/// where there is no sandbox).
pub fn describe(policy: &SandboxPolicy) -> Option<SandboxView> {
    #[cfg(target_os = "linux")]
    {
        Some(describe_linux(policy))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = policy;
        None
    }
}

#[cfg(target_os = "linux")]
fn describe_linux(policy: &SandboxPolicy) -> SandboxView {
    let home = std::fs::canonicalize(&policy.home).ok();
    let targets = |binds: Vec<(PathBuf, PathBuf)>| binds.into_iter().map(|(_, t)| t).collect();
    let readable = bwrap::home_binds(&policy.readable_home_dirs, &policy.home, home.as_deref());
    let bin_dirs: Vec<PathBuf> = readable
        .iter()
        .filter(|(source, _)| source.join("bin").is_dir())
        .map(|(_, target)| target.join("bin"))
        .collect();
    let (config, hidden) = bwrap::home_files(policy, home.as_deref());
    let bound = policy.bound_home_dirs();
    let withheld = home::config_files(&policy.config_files, &bound).withheld;
    let path = env::command_path(policy, &bin_dirs, true);
    let offline_env = if policy.network {
        Vec::new()
    } else {
        network::OFFLINE_ENV
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    };
    SandboxView {
        network: policy.network,
        readable: targets(readable),
        writable: targets(bwrap::home_binds(
            &policy.writable_home_dirs,
            &policy.home,
            home.as_deref(),
        )),
        config: targets(config),
        withheld,
        hidden: hidden.into_iter().map(|(path, _)| path).collect(),
        path: path
            .entries
            .into_iter()
            .map(|entry| PathEntry {
                source: path_source(policy, &bin_dirs, &entry),
                path: entry,
            })
            .collect(),
        path_dropped: path
            .dropped
            .into_iter()
            .map(|(path, reason)| DroppedPath { path, reason })
            .collect(),
        tool_homes: policy
            .env
            .iter()
            .filter(|(name, _)| home::TOOL_HOME_VARS.contains(&name.as_str()))
            .map(|(name, value)| (name.clone(), PathBuf::from(value)))
            .collect(),
        offline_env,
        home: home.unwrap_or_else(|| policy.home.clone()),
    }
}

/// Where an entry of the command's PATH comes from.
#[cfg(target_os = "linux")]
fn path_source(
    policy: &SandboxPolicy,
    bin_dirs: &[PathBuf],
    entry: &std::path::Path,
) -> PathSource {
    if policy.path.iter().any(|own| own == entry) {
        if home::under_home(entry, &policy.home).is_some() {
            PathSource::UserBound
        } else {
            PathSource::User
        }
    } else if bin_dirs.iter().any(|dir| dir == entry) {
        PathSource::Toolchain
    } else {
        PathSource::System
    }
}

#[cfg(test)]
#[cfg(target_os = "linux")]
#[path = "view_tests.rs"]
mod tests;
