//! What a run produced: per-file diffs, the artifacts projection, and
//! keep / revert / re-apply / rewind without git.

pub(crate) mod cache;
pub mod diff;
pub mod edit;
pub mod export;
pub mod hunks;
pub mod projection;
pub mod revert;
pub mod rewind;
pub(crate) mod rewind_thread;
pub(crate) mod secrets;
pub(crate) mod swap;

pub use export::Exported;
pub use projection::{ArtifactRecord, Change, Review, UntrackedEffect};
pub use revert::{ArtifactView, DiskState};
