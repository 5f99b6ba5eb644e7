//! Rewinding a run's files to one of its events (and every later run of
//! its thread to its start first), and redoing the last rewind, as use
//! cases. What a rewind plans and writes: `crate::artifacts::rewind` and
//! `rewind_thread`.

use crate::app::Application;
use crate::artifacts::revert::{command_dirs, Step, Swap};
use crate::artifacts::rewind::{
    plan_to, redo_plan, refuse_changed, write_all, Planned, RewindReport,
};
use crate::artifacts::rewind_thread::{check_thread, later_runs};
use crate::run::recorder::Recorder;
use crate::AppError;
use bearagent_kernel::{EventPayload, EventSeq, ReviewAction, RunId};

impl Application {
    /// Rewinds the files of the ended run `run_id` to event `to` — and
    /// first, newest first, every later run of its thread (its follow-ups
    /// and forks) to its start, refusing as a whole if a file changed
    /// since any of them wrote it.
    #[tracing::instrument(skip(self))]
    pub fn rewind(
        &self,
        run_id: RunId,
        to: EventSeq,
        force: bool,
    ) -> Result<RewindReport, AppError> {
        let later = self.later_runs(run_id)?;
        let mut plans = Vec::with_capacity(later.len() + 1);
        for id in later {
            let (rec, plan) = self.plan_rewind(id, EventSeq(0))?;
            plans.push((id, EventSeq(0), rec, plan));
        }
        let (rec, plan) = self.plan_rewind(run_id, to)?;
        plans.push((run_id, to, rec, plan));
        if !force {
            if let Some((first, ..)) = plans.first() {
                check_thread(&self.workspace_root(*first)?, &plans)?;
            }
        }
        let mut also = Vec::new();
        let mut report = None;
        for (id, to, rec, plan) in plans {
            if id != run_id && plan.is_empty() {
                continue;
            }
            let done = self.apply_rewind(rec, id, (to, false), plan, force)?;
            if id == run_id {
                report = Some(done);
            } else {
                also.push((id, done.files.len()));
            }
        }
        let mut report =
            report.ok_or_else(|| AppError::Internal("the rewind lost its run".into()))?;
        report.later_runs = also;
        Ok(report)
    }

    /// What rewinding `run_id` to `to` changes, file by file; nothing is
    /// touched.
    pub(crate) fn plan_rewind(
        &self,
        run_id: RunId,
        to: EventSeq,
    ) -> Result<(Recorder, Vec<Planned>), AppError> {
        let rec = self.settled_recorder(run_id)?;
        let root = self.workspace_root(run_id)?;
        let plan = plan_to(rec.events(), to, &root)?;
        Ok((rec, plan))
    }

    /// Undoes the last rewind of `run_id`: each of its files gets back
    /// what the rewind replaced, guarded the same way.
    #[tracing::instrument(skip(self))]
    pub fn redo_rewind(&self, run_id: RunId, force: bool) -> Result<RewindReport, AppError> {
        let rec = self.settled_recorder(run_id)?;
        let (to, plan) = redo_plan(rec.events())?;
        self.apply_rewind(rec, run_id, (to, true), plan, force)
    }

    /// Checks every file first (nothing is touched if one changed since,
    /// unless forced), then records the rewind and changes file by file.
    fn apply_rewind(
        &self,
        mut rec: Recorder,
        run_id: RunId,
        (to, redo): (EventSeq, bool),
        plan: Vec<Planned>,
        force: bool,
    ) -> Result<RewindReport, AppError> {
        let root_dir = self.workspace_root(run_id)?.path().to_path_buf();
        let swaps = self.plan_swaps(run_id, plan)?;
        if !force {
            refuse_changed(&swaps)?;
        }
        let mut report = RewindReport {
            to,
            redo,
            files: Vec::new(),
            later_runs: Vec::new(),
        };
        if swaps.is_empty() {
            return Ok(report);
        }
        let paths = swaps.iter().map(|(p, _)| p.path.clone()).collect();
        let action = if redo {
            ReviewAction::Redo
        } else {
            ReviewAction::Rewind
        };
        let step = Step {
            action,
            rewound_to: Some(to),
        };
        // Every intent in one commit before the disk changes, every
        // outcome in one after: a crash between leaves intents that the
        // next review settles from the disk, file by file.
        let mut intents = vec![EventPayload::RewindStarted { to, redo, paths }];
        intents.extend(
            swaps
                .iter()
                .map(|(p, s)| s.intent(&p.path, step, &[], &p.target)),
        );
        rec.record_chain(rec.last_seq(), intents)?;
        let dirs = command_dirs(rec.events(), action);
        let (outcomes, failed) = write_all(swaps, step, &dirs, &mut report.files);
        // On disk before the outcomes say so.
        if let Err(source) = bearagent_tools::sync_filesystem(&root_dir) {
            tracing::warn!(%source, "could not sync the workspace after a rewind");
        }
        rec.record_chain(rec.last_seq(), outcomes)?;
        match failed {
            Some(e) => Err(e),
            None => Ok(report),
        }
    }

    /// The runs that continue `run_id` (follow-ups and forks, at any
    /// depth), newest first.
    pub(crate) fn later_runs(&self, run_id: RunId) -> Result<Vec<RunId>, AppError> {
        let run = self.get_run(run_id)?;
        later_runs(&self.store, run.workspace_id, run_id)
    }

    /// Reads what every file holds now (saving it, in one batch, so the
    /// rewind can be undone) and the version that goes there. Nothing on
    /// disk changes.
    fn plan_swaps(
        &self,
        run_id: RunId,
        plan: Vec<Planned>,
    ) -> Result<Vec<(Planned, Swap)>, AppError> {
        let root = self.workspace_root(run_id)?;
        let mut current = Vec::with_capacity(plan.len());
        for p in &plan {
            let path = root
                .resolve_for_write(&p.path)
                .map_err(|e| AppError::InvalidInput(format!("{}: {e}", p.path)))?;
            let now = crate::run::receipts::current_hash(&path).map_err(|source| AppError::Io {
                path: path.clone(),
                source,
            })?;
            current.push((path, now));
        }
        let kept = self.store.put_blobs(
            current
                .iter()
                .filter_map(|(_, now)| now.as_ref().map(|(_, b)| b.as_slice())),
            self.clock.now(),
        )?;
        let mut kept = kept.into_iter();
        let mut out = Vec::with_capacity(plan.len());
        for (p, (path, now)) in plan.into_iter().zip(current) {
            let hash = now.as_ref().map(|(h, _)| h.clone());
            let replaced = now.and_then(|_| kept.next());
            let forced = hash != p.expected;
            let swap = Swap::new(path, self.blob(&p.target)?, replaced, forced).with_mode(p.mode);
            out.push((p, swap));
        }
        Ok(out)
    }
}

#[cfg(test)]
#[path = "rewind_tests.rs"]
mod tests;
