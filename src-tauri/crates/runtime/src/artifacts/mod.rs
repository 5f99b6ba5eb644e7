//! What a run produced: per-file diffs (and, next, the artifact
//! projection, revert and re-apply).

pub mod diff;
