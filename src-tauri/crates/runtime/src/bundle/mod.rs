//! Run bundles: one file that hands a run to someone else — the run, its
//! thread's earlier runs, and every blob their events reference (versions
//! of files that look like secrets withheld, as in every export). A gzip'd
//! tar of `manifest.json`, `runs/<id>.jsonl` (one event per line) and
//! `blobs/<sha256>`. Secret values found in the events and text blobs
//! (keys BearAgent holds, what secret-looking files held, token shapes) are
//! replaced by `[REDACTED:kind]` markers unless the user opts out.
//! Importing adds the runs as read-only imported runs: inspectable and
//! forkable, never continued or reviewed here.

mod read;
pub(crate) mod redact;
mod scrub;
pub(crate) mod secret_values;
mod write;

pub use read::BundleError;
pub use redact::Redaction;

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
    /// Secret values replaced by markers, counted per kind (absent in
    /// bundles made before redaction, and with `include_secrets`).
    #[serde(default)]
    pub redactions: Vec<Redaction>,
    /// RFC 3339.
    pub exported_at: String,
    /// The BearAgent that wrote it.
    pub producer: String,
}

impl Manifest {
    /// Distinct values the bundle redacted, all kinds together.
    pub fn redacted(&self) -> usize {
        self.redactions.iter().map(|r| r.count).sum()
    }
}

/// How a bundle is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// Keep secret values in clear (the user's explicit choice); by
    /// default they are redacted.
    pub include_secrets: bool,
}

/// What an import added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportReport {
    /// The bundle's own run.
    pub run_id: bearagent_kernel::RunId,
    /// Runs added to this store (an ancestor already here is not).
    pub added: Vec<bearagent_kernel::RunId>,
    pub blobs: usize,
    /// What the bundle's writer redacted, from its manifest.
    pub redactions: Vec<Redaction>,
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
