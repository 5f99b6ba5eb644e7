//! IPC types of the run's changes (artifacts) and their diffs.

use bearagent_kernel::{NotTrackedChange, NotTrackedWhy, TreeSize};
use bearagent_runtime::artifacts::diff::{DiffHunk, FileDiff, LineKind};
use bearagent_runtime::artifacts::{
    ArtifactView, Change, DiskState, Exported, Review, UntrackedEffect,
};
use serde::Serialize;

#[derive(Debug, Clone, Copy, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum ChangeKind {
    Added,
    Modified,
    Deleted,
}

/// What the list's badge shows.
#[derive(Debug, Clone, Copy, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum ArtifactState {
    /// The file holds the run's version; nothing decided.
    Pending,
    Kept,
    Reverted,
    /// Some hunks reverted, the others kept.
    Partial,
    /// Someone changed the file since the run wrote it.
    Conflict,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactItem {
    pub path: String,
    pub change: ChangeKind,
    pub state: ArtifactState,
    pub before_bytes: u64,
    pub after_bytes: u64,
    /// Lines added / removed; null for binary files.
    pub lines: Option<LineStats>,
    /// The hooks that changed it (their commands): "by hook …".
    pub by_hooks: Vec<String>,
}

/// A path a command changed without BearAgent keeping its contents.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct UntrackedItem {
    /// The command's `command_finished` event.
    pub seq: u64,
    pub command: String,
    /// Workspace-relative; a folder ends with `/`.
    pub path: String,
    pub why: NotTrackedWhy,
    pub change: NotTrackedChange,
    /// What a made or changed folder holds now.
    pub size: Option<TreeSize>,
}

impl From<UntrackedEffect> for UntrackedItem {
    fn from(u: UntrackedEffect) -> Self {
        Self {
            seq: u.seq.get(),
            command: u.command,
            path: u.item.path,
            why: u.item.why,
            change: u.item.change,
            size: u.item.size,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct LineStats {
    pub added: u32,
    pub removed: u32,
}

impl From<ArtifactView> for ArtifactItem {
    fn from(a: ArtifactView) -> Self {
        let change = match a.record.change() {
            Change::Added => ChangeKind::Added,
            Change::Modified => ChangeKind::Modified,
            Change::Deleted => ChangeKind::Deleted,
        };
        let state = match (a.record.review, a.disk) {
            (Review::Reverted, DiskState::BeforeVersion) => ArtifactState::Reverted,
            (Review::Partial, DiskState::ReviewedVersion) => ArtifactState::Partial,
            (_, DiskState::ChangedSince) | (Review::Reverted | Review::Partial, _) => {
                ArtifactState::Conflict
            }
            (Review::Kept, _) => ArtifactState::Kept,
            (Review::Pending, _) => ArtifactState::Pending,
        };
        Self {
            path: a.record.path,
            change,
            state,
            before_bytes: a.before_bytes,
            after_bytes: a.after_bytes,
            lines: a.lines.map(|(added, removed)| LineStats { added, removed }),
            by_hooks: a.record.by_hooks,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum DiffLineKind {
    Context,
    Added,
    Removed,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct DiffLineView {
    pub kind: DiffLineKind,
    pub old_line: Option<u32>,
    pub new_line: Option<u32>,
    pub text: String,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct DiffHunkView {
    pub old_start: u32,
    pub old_len: u32,
    pub new_start: u32,
    pub new_len: u32,
    pub lines: Vec<DiffLineView>,
}

impl From<DiffHunk> for DiffHunkView {
    fn from(h: DiffHunk) -> Self {
        Self {
            old_start: h.old_start,
            old_len: h.old_len,
            new_start: h.new_start,
            new_len: h.new_len,
            lines: h
                .lines
                .into_iter()
                .map(|l| DiffLineView {
                    kind: match l.kind {
                        LineKind::Context => DiffLineKind::Context,
                        LineKind::Added => DiffLineKind::Added,
                        LineKind::Removed => DiffLineKind::Removed,
                    },
                    old_line: l.old_line,
                    new_line: l.new_line,
                    text: l.text,
                })
                .collect(),
        }
    }
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum FileDiffView {
    Binary {
        before_bytes: u64,
        after_bytes: u64,
    },
    /// `statsOnly`: the file is over 1 MB; ask again with `full` to render.
    Text {
        added: u32,
        removed: u32,
        stats_only: bool,
        hunks: Vec<DiffHunkView>,
    },
}

impl From<FileDiff> for FileDiffView {
    fn from(d: FileDiff) -> Self {
        match d {
            FileDiff::Binary {
                before_bytes,
                after_bytes,
            } => Self::Binary {
                before_bytes,
                after_bytes,
            },
            FileDiff::Text {
                added,
                removed,
                hunks,
                stats_only,
            } => Self::Text {
                added,
                removed,
                stats_only,
                hunks: hunks.into_iter().map(DiffHunkView::from).collect(),
            },
        }
    }
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ExportedView {
    pub json_path: String,
    pub markdown_path: String,
}

impl From<Exported> for ExportedView {
    fn from(e: Exported) -> Self {
        Self {
            json_path: e.json.display().to_string(),
            markdown_path: e.markdown.display().to_string(),
        }
    }
}

/// The diff a write waiting for approval would make (`newFile`: the file
/// does not exist yet).
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ProposedChangeView {
    pub call_id: String,
    pub path: String,
    pub new_file: bool,
    pub diff: FileDiffView,
}

impl From<bearagent_runtime::ProposedChange> for ProposedChangeView {
    fn from(c: bearagent_runtime::ProposedChange) -> Self {
        Self {
            call_id: c.call_id.to_string(),
            path: c.path,
            new_file: c.new_file,
            diff: c.diff.into(),
        }
    }
}
