//! What a bundle says it is (`manifest.json`), how it is made and what an
//! import added: the values the reader and the writer share, below both.

use super::redact::Redaction;
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
