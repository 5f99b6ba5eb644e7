//! What listing a run's changes would otherwise recompute on every call:
//! each run's artifact fold (so a call reads only the events since the
//! last one) and each pair of versions' sizes and line counts (content
//! hashes never change meaning, so an entry is never stale).

use crate::artifacts::diff::{diff_versions, FileDiff};
use crate::artifacts::projection::{ArtifactFold, ArtifactRecord, UntrackedEffect};
use crate::AppError;
use bearagent_kernel::{ContentHash, RunId};
use bearagent_store::Store;
use std::collections::HashMap;
use std::sync::Mutex;

/// Runs whose fold is kept; beyond it the cache starts again (a review
/// session looks at a handful of runs).
const MAX_RUNS: usize = 32;
/// Version pairs whose stats are kept (a few dozen bytes each).
const MAX_PAIRS: usize = 50_000;

/// Sizes and line counts of one change (`lines` is None for binary files).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChangeStats {
    pub before_bytes: u64,
    pub after_bytes: u64,
    pub lines: Option<(u32, u32)>,
}

type VersionPair = (Option<ContentHash>, Option<ContentHash>);

#[derive(Default)]
pub(crate) struct ArtifactCache {
    folds: Mutex<HashMap<RunId, ArtifactFold>>,
    stats: Mutex<HashMap<VersionPair, ChangeStats>>,
}

impl ArtifactCache {
    /// The run's artifacts as of its latest event.
    pub(crate) fn records(
        &self,
        store: &Store,
        run_id: RunId,
    ) -> Result<Vec<ArtifactRecord>, AppError> {
        self.with_fold(store, run_id, ArtifactFold::records)
    }

    /// What the run's commands did that is not tracked, as of its latest
    /// event.
    pub(crate) fn untracked(
        &self,
        store: &Store,
        run_id: RunId,
    ) -> Result<Vec<UntrackedEffect>, AppError> {
        self.with_fold(store, run_id, |fold| fold.untracked().to_vec())
    }

    /// `read` of the run's fold brought up to its latest event.
    fn with_fold<T>(
        &self,
        store: &Store,
        run_id: RunId,
        read: impl FnOnce(&ArtifactFold) -> T,
    ) -> Result<T, AppError> {
        let mut fold = self.lock_folds()?.get(&run_id).cloned().unwrap_or_default();
        store.visit_events_since(run_id, fold.seen(), |page| {
            fold.apply(&page);
            Ok::<_, AppError>(())
        })?;
        let out = read(&fold);
        let mut folds = self.lock_folds()?;
        // Another caller may have folded further meanwhile; keep the newer.
        if folds.get(&run_id).is_none_or(|f| f.seen() < fold.seen()) {
            if folds.len() >= MAX_RUNS {
                folds.clear();
            }
            folds.insert(run_id, fold);
        }
        Ok(out)
    }

    /// The stats of the change `before` → `after`, computed by `load`
    /// (which reads both versions) only the first time.
    pub(crate) fn stats(
        &self,
        before: &Option<ContentHash>,
        after: &Option<ContentHash>,
        load: impl FnOnce() -> Result<(Option<Vec<u8>>, Option<Vec<u8>>), AppError>,
    ) -> Result<ChangeStats, AppError> {
        let key = (before.clone(), after.clone());
        if let Some(hit) = self.lock_stats()?.get(&key) {
            return Ok(*hit);
        }
        let (before, after) = load()?;
        let lines = match diff_versions(before.as_deref(), after.as_deref(), false) {
            FileDiff::Text { added, removed, .. } => Some((added, removed)),
            FileDiff::Binary { .. } => None,
        };
        let stats = ChangeStats {
            before_bytes: before.as_ref().map_or(0, |b| b.len() as u64),
            after_bytes: after.as_ref().map_or(0, |b| b.len() as u64),
            lines,
        };
        let mut all = self.lock_stats()?;
        if all.len() >= MAX_PAIRS {
            all.clear();
        }
        all.insert(key, stats);
        Ok(stats)
    }

    fn lock_folds(
        &self,
    ) -> Result<std::sync::MutexGuard<'_, HashMap<RunId, ArtifactFold>>, AppError> {
        self.folds
            .lock()
            .map_err(|_| AppError::Internal("the artifact cache is poisoned".into()))
    }

    fn lock_stats(
        &self,
    ) -> Result<std::sync::MutexGuard<'_, HashMap<VersionPair, ChangeStats>>, AppError> {
        self.stats
            .lock()
            .map_err(|_| AppError::Internal("the artifact cache is poisoned".into()))
    }
}
