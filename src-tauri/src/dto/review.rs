//! IPC types of turn-grain review: a rewind's (or its redo's) report.

use bearagent_runtime::artifacts::rewind::{RewindReport, RewoundFile};
use serde::Serialize;

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RewindReportView {
    /// The event the run's files went back to.
    pub to: u32,
    /// This undid the last rewind.
    pub redo: bool,
    /// Sorted by path; empty when nothing had changed since `to`.
    pub files: Vec<RewoundFileView>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RewoundFileView {
    pub path: String,
    /// The file was removed (it did not exist at `to`).
    pub removed: bool,
    /// It held something else than BearAgent last put there (forced).
    pub forced: bool,
}

impl From<RewindReport> for RewindReportView {
    fn from(r: RewindReport) -> Self {
        Self {
            to: u32::try_from(r.to.0).unwrap_or(u32::MAX),
            redo: r.redo,
            files: r.files.into_iter().map(RewoundFileView::from).collect(),
        }
    }
}

impl From<RewoundFile> for RewoundFileView {
    fn from(f: RewoundFile) -> Self {
        Self {
            path: f.path,
            removed: f.now.is_none(),
            forced: f.forced,
        }
    }
}
