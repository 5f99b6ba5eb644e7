//! Runs in managed git worktrees: several agents on one repository, each
//! in its own checkout. A worktree is made outside the repository on a
//! branch of its own, recorded on the run's first event, reviewed as the
//! run's Changes, then applied to the main checkout or discarded. Only
//! worktrees a run recorded are ever removed; nothing is committed on the
//! user's branches. The use cases (start, fork, apply, undo, discard,
//! list, prune) are in `app/worktrees.rs` and `app/worktree_list.rs`.

pub(crate) mod apply;
pub(crate) mod create;
mod git;
pub(crate) mod landing;
pub(crate) mod list;
pub(crate) mod removal;
pub(crate) mod settle;
pub(crate) mod undo;

pub use apply::ApplyReport;
pub use create::WorktreeRequest;
pub use list::{WorktreeEntry, WorktreeState};
