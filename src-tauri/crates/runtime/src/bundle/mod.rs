//! Run bundles: one file that hands a run to someone else — the run, its
//! thread's earlier runs, and every blob their events reference (versions
//! of files that look like secrets withheld, as in every export). A gzip'd
//! tar of `manifest.json`, `runs/<id>.jsonl` (one event per line) and
//! `blobs/<sha256>`. Importing adds the runs as read-only imported runs:
//! inspectable and forkable, never continued or reviewed here.

mod read;
mod write;

pub use read::BundleError;

use serde::{Deserialize, Serialize};

/// What a bundle's manifest says it is.
pub const BUNDLE_FORMAT: &str = "bearagent-run-bundle";
/// The newest bundle version this BearAgent reads (and the one it writes).
pub const BUNDLE_VERSION: u32 = 1;
/// The file name extension of a bundle.
pub const BUNDLE_EXTENSION: &str = "bearagent-run";

/// `manifest.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub version: u32,
    /// The run the bundle was made of.
    pub run_id: String,
    /// Every run in the bundle, its thread's oldest first (the run last).
    pub runs: Vec<String>,
    /// Blobs referenced but left out: versions of files that look like
    /// they hold secrets.
    #[serde(default)]
    pub withheld_blobs: Vec<String>,
    /// RFC 3339.
    pub exported_at: String,
    /// The BearAgent that wrote it.
    pub producer: String,
}

/// What an import added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportReport {
    /// The bundle's own run.
    pub run_id: bearagent_kernel::RunId,
    /// Runs added to this store (an ancestor already here is not).
    pub added: Vec<bearagent_kernel::RunId>,
    pub blobs: usize,
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
