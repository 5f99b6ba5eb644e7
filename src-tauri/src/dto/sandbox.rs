//! IPC types of Settings' "What a command sees": a profile's command
//! sandbox as this machine builds it (the runtime's `command_view`).
//! Paths cross as display strings.

use bearagent_kernel::CommandSettings;
use bearagent_runtime::sandbox_view::{
    DroppedPath, PathDrop, PathEntry, PathSource, SandboxView, CREDENTIALS,
};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What a command of `profile` sees of this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CommandSandboxView {
    pub profile: String,
    /// Network inside the sandbox, as the profile sets it (`network`).
    pub network: bool,
    /// Credentials under the home folder (home-relative) no command reads,
    /// even inside a folder bound back.
    pub credentials_denylist: Vec<String>,
    pub sandbox: SandboxStateView,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SandboxStateView {
    /// The profile says `sandbox = "off"`: commands see and may change
    /// everything the user can.
    Off,
    /// Sandboxed, but this platform has no sandbox: commands are refused.
    Unavailable,
    On {
        sight: Box<SandboxSightView>,
    },
}

/// Home paths are as the command sees them (under its `HOME`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SandboxSightView {
    /// `HOME` inside: empty but for what is bound back.
    pub home: String,
    /// Toolchain folders bound back read-only (that exist here).
    pub readable: Vec<String>,
    /// Package caches bound read-write (only with the network on).
    pub writable: Vec<String>,
    /// Configuration files and folders passed read-only.
    pub config: Vec<String>,
    /// Configuration not passed: it looks like it holds a credential.
    pub withheld: Vec<String>,
    /// Credentials a bound folder holds, hidden inside it.
    pub hidden: Vec<String>,
    /// The command's PATH, in order.
    pub path: Vec<PathEntryView>,
    /// The user's PATH entries left out.
    pub path_dropped: Vec<DroppedPathView>,
    /// `RUSTUP_HOME` / `CARGO_HOME` passed in, as set.
    pub tool_homes: Vec<EnvValueView>,
    /// Variables set because the network is off.
    pub offline_env: Vec<EnvValueView>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PathEntryView {
    pub path: String,
    pub source: PathSourceView,
}

/// Where a PATH entry comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum PathSourceView {
    /// The user's PATH, outside the home folder.
    User,
    /// The user's PATH, inside a home folder bound back read-only.
    UserBound,
    /// Added: the `bin` of a toolchain folder bound back.
    Toolchain,
    /// Added: a system folder.
    System,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct DroppedPathView {
    pub path: String,
    pub reason: PathDropView,
}

/// Why a PATH entry of the user's was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum PathDropView {
    /// Relative, or not a plain path.
    NotAbsolute,
    /// Inside BearAgent's own folders.
    HiddenFolder,
    /// In the home folder, outside the folders passed in.
    HomeNotBound,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct EnvValueView {
    pub name: String,
    pub value: String,
}

impl CommandSandboxView {
    /// From `command_view`'s answer for `profile`.
    pub fn new(profile: String, settings: &CommandSettings, view: Option<SandboxView>) -> Self {
        let sandbox = match view {
            Some(view) => SandboxStateView::On {
                sight: Box::new(view.into()),
            },
            None if settings.sandbox => SandboxStateView::Unavailable,
            None => SandboxStateView::Off,
        };
        Self {
            profile,
            network: settings.network,
            credentials_denylist: CREDENTIALS.iter().map(|c| (*c).to_owned()).collect(),
            sandbox,
        }
    }
}

impl From<SandboxView> for SandboxSightView {
    fn from(v: SandboxView) -> Self {
        Self {
            home: shown(&v.home),
            readable: all(&v.readable),
            writable: all(&v.writable),
            config: all(&v.config),
            withheld: all(&v.withheld),
            hidden: all(&v.hidden),
            path: v.path.into_iter().map(PathEntryView::from).collect(),
            path_dropped: v
                .path_dropped
                .into_iter()
                .map(DroppedPathView::from)
                .collect(),
            tool_homes: v
                .tool_homes
                .into_iter()
                .map(|(name, dir)| EnvValueView {
                    name,
                    value: shown(&dir),
                })
                .collect(),
            offline_env: v
                .offline_env
                .into_iter()
                .map(|(name, value)| EnvValueView { name, value })
                .collect(),
        }
    }
}

impl From<PathEntry> for PathEntryView {
    fn from(e: PathEntry) -> Self {
        Self {
            path: shown(&e.path),
            source: match e.source {
                PathSource::User => PathSourceView::User,
                PathSource::UserBound => PathSourceView::UserBound,
                PathSource::Toolchain => PathSourceView::Toolchain,
                PathSource::System => PathSourceView::System,
            },
        }
    }
}

impl From<DroppedPath> for DroppedPathView {
    fn from(d: DroppedPath) -> Self {
        Self {
            path: shown(&d.path),
            reason: match d.reason {
                PathDrop::NotAbsolute => PathDropView::NotAbsolute,
                PathDrop::HiddenFolder => PathDropView::HiddenFolder,
                PathDrop::HomeNotBound => PathDropView::HomeNotBound,
            },
        }
    }
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

fn all(paths: &[PathBuf]) -> Vec<String> {
    paths.iter().map(|p| shown(p)).collect()
}

#[cfg(test)]
#[path = "sandbox_tests.rs"]
mod tests;
