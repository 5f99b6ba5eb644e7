//! What a command will see, for a settings view: the home folders bound
//! back, the configuration passed or withheld, the credentials hidden,
//! PATH and the offline switches — from the same code that builds the
//! sandbox, so the view cannot drift from what runs.

use super::SandboxPolicy;
#[cfg(target_os = "linux")]
use super::{bwrap, env, home, network};
use serde::Serialize;
use std::path::PathBuf;

/// Home paths are as the command sees them (under its `HOME`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SandboxView {
    pub network: bool,
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
    pub path: Vec<PathBuf>,
    /// The user's PATH entries left out (relative, or into a hidden folder).
    pub path_dropped: Vec<PathBuf>,
    /// Variables set because the network is off.
    pub offline_env: Vec<(String, String)>,
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
        path: path.entries,
        path_dropped: path.dropped,
        offline_env,
    }
}
