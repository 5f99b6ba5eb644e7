//! Edit before keep: the user changes the run's version of a file (in the
//! diff view) and keeps their edit. Guarded and recorded like a revert;
//! the outcome, `ArtifactEdited`, marks the content as the user's, and a
//! follow-up's model is told what the user changed.

use crate::app::Application;
use crate::artifacts::diff::{diff_versions, DiffHunk, FileDiff};
use crate::artifacts::hunks::MAX_TOLD_BYTES;
use crate::artifacts::projection::{ArtifactRecord, Review};
use crate::AppError;
use bearagent_kernel::{ContentHash, ReviewAction, RunId};

impl Application {
    /// Writes `content` — the user's edit of the run's version of `path` —
    /// if the file still holds what BearAgent last put there (or with
    /// `force`, saving what it holds), and keeps it.
    #[tracing::instrument(skip(self, content), fields(bytes = content.len()))]
    pub fn keep_edited(
        &self,
        run_id: RunId,
        path: &str,
        content: &str,
        force: bool,
    ) -> Result<(), AppError> {
        let mut rec = self.settled_recorder(run_id)?;
        let record = self.find_artifact(run_id, path)?;
        let shown = shown_version(&record);
        let base = self.edit_base(run_id, path)?;
        if base == content && shown == &record.now {
            return Err(AppError::InvalidInput(format!(
                "the edit of {path} changes nothing: keep the run's version instead"
            )));
        }
        let target = Some(self.store.put_blob(content.as_bytes(), self.clock.now())?);
        let told = edit_text(&base, content);
        let swap = self.plan_swap(run_id, path, &record.now, &target, force)?;
        Self::apply_swap(
            &mut rec,
            path,
            ReviewAction::Edit.into(),
            &[(0, told)],
            &target,
            swap,
        )
    }
}

impl Application {
    /// The text the user edits before keeping: the run's version of `path`
    /// as the diff view shows it (what `keep_edited` diffs the edit with).
    #[tracing::instrument(skip(self))]
    pub fn edit_base(&self, run_id: RunId, path: &str) -> Result<String, AppError> {
        let record = self.find_artifact(run_id, path)?;
        let base = self.blob(shown_version(&record))?.unwrap_or_default();
        String::from_utf8(base).map_err(|_| {
            AppError::InvalidInput(format!("{path} is not text: it cannot be edited here"))
        })
    }
}

/// The version the diff view shows and the user edits: the run's, even
/// after a revert.
fn shown_version(record: &ArtifactRecord) -> &Option<ContentHash> {
    match record.review {
        Review::Reverted => &record.after,
        Review::Pending | Review::Kept | Review::Partial => &record.now,
    }
}

/// The user's change to the run's version, as a bounded unified diff.
fn edit_text(base: &str, edited: &str) -> String {
    let text = match diff_versions(Some(base.as_bytes()), Some(edited.as_bytes()), true) {
        FileDiff::Text { hunks, .. } => hunks.iter().map(DiffHunk::unified).collect::<String>(),
        FileDiff::Binary { .. } => String::new(),
    };
    crate::run::context::preview(&text, MAX_TOLD_BYTES)
}

#[cfg(test)]
#[path = "edit_tests.rs"]
mod tests;
