//! Edit before keep: the user changes the run's version of a file (in the
//! diff view) and keeps their edit. Guarded and recorded like a revert;
//! the outcome, `ArtifactEdited`, marks the content as the user's, and a
//! follow-up's model is told what the user changed. The use cases
//! (`keep_edited`, `edit_base`) are in `app/review.rs`.

use crate::artifacts::diff::{diff_versions, DiffHunk, FileDiff};
use crate::artifacts::hunks::MAX_TOLD_BYTES;

/// The user's change to the run's version, as a bounded unified diff.
pub(crate) fn edit_text(base: &str, edited: &str) -> String {
    let text = match diff_versions(Some(base.as_bytes()), Some(edited.as_bytes()), true) {
        FileDiff::Text { hunks, .. } => hunks.iter().map(DiffHunk::unified).collect::<String>(),
        FileDiff::Binary { .. } => String::new(),
    };
    crate::run::context::preview(&text, MAX_TOLD_BYTES)
}
