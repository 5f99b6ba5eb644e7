//! Rewind: every file the run changed after event `to` — by a file tool or
//! a command — goes back to what it held at `to`, in one recorded step;
//! redo puts back what the last rewind replaced. Each file is guarded and
//! recorded like a revert (intent, disk, outcome; settled after a crash),
//! and the whole rewind is refused, touching nothing, when any file
//! changed since BearAgent last wrote it, unless forced.

use crate::app::Application;
use crate::artifacts::projection::ArtifactFold;
use crate::artifacts::revert::{abandoned, command_dirs, prune_empty_dirs, Step, Swap};
use crate::AppError;
use bearagent_kernel::{
    ContentHash, EventEnvelope, EventPayload, EventSeq, FileEffect, ReviewAction, RunId,
};
use std::collections::BTreeMap;

/// What a rewind (or its redo) did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewindReport {
    pub to: EventSeq,
    pub redo: bool,
    /// Sorted by path.
    pub files: Vec<RewoundFile>,
    /// The later runs of the thread rewound to their start first (newest
    /// first), with how many files each put back.
    pub later_runs: Vec<(RunId, usize)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewoundFile {
    pub path: String,
    /// What the file holds now (None: it was removed).
    pub now: Option<ContentHash>,
    /// It held something else than BearAgent last put there (forced).
    pub forced: bool,
}

/// A file's version: its content (None: not there) and, when recorded,
/// its permission bits.
pub type Version = (Option<ContentHash>, Option<u32>);

/// Per file the run wrote after `to`, what it held at `to`: the content
/// (and mode) its first later write found (None: it did not exist).
pub fn versions_at(events: &[EventEnvelope], to: EventSeq) -> BTreeMap<String, Version> {
    let mut at = BTreeMap::new();
    for e in events.iter().filter(|e| e.seq > to) {
        if let Some(FileEffect::Written {
            path,
            before_hash,
            before_mode,
            ..
        }) = e.payload.file_effect()
        {
            at.entry(path.to_owned())
                .or_insert_with(|| (before_hash.clone(), before_mode));
        }
    }
    at
}

/// A file a rewind changed: path, what it put there, what it replaced.
type RewoundFrom = (String, Option<ContentHash>, Option<ContentHash>);

/// The files of the last rewind that is not redone yet, and the event it
/// rewound to.
fn last_rewind(events: &[EventEnvelope]) -> Result<(EventSeq, Vec<RewoundFrom>), String> {
    let started = events
        .iter()
        .rposition(|e| matches!(e.payload, EventPayload::RewindStarted { .. }))
        .ok_or("the run was never rewound: nothing to redo")?;
    let (to, redo) = match &events[started].payload {
        EventPayload::RewindStarted { to, redo, .. } => (*to, *redo),
        _ => return Err("the run was never rewound: nothing to redo".into()),
    };
    if redo {
        return Err("the last rewind is already redone".into());
    }
    let files = events[started..]
        .iter()
        .filter_map(|e| match &e.payload {
            EventPayload::ArtifactRewound {
                path,
                restored_hash,
                replaced_hash,
                redo: false,
                ..
            } => Some((path.clone(), restored_hash.clone(), replaced_hash.clone())),
            _ => None,
        })
        .collect();
    Ok((to, files))
}

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
            self.check_thread(&plans)?;
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
    ) -> Result<(crate::run::recorder::Recorder, Vec<Planned>), AppError> {
        let rec = self.settled_recorder(run_id)?;
        let end = rec
            .events()
            .iter()
            .find(|e| e.payload.is_terminal())
            .map(|e| e.seq)
            .ok_or_else(|| AppError::Conflict("the run has not ended".into()))?;
        if to > end {
            return Err(AppError::InvalidInput(format!(
                "event {} is after the run's end (event {}): rewind to one of its events",
                to.0, end.0
            )));
        }
        let run_events: Vec<EventEnvelope> = rec
            .events()
            .iter()
            .filter(|e| e.seq <= end)
            .cloned()
            .collect();
        let mut fold = ArtifactFold::default();
        fold.apply(rec.events());
        let root = self.workspace_root(run_id)?;
        let plan: Vec<Planned> = versions_at(&run_events, to)
            .into_iter()
            .filter_map(|(path, (target, mode))| {
                let expected = fold.file(&path).map(|r| r.now.clone()).unwrap_or(None);
                let mode_moved = mode.is_some() && mode != mode_on_disk(&root, &path);
                (expected != target || mode_moved).then_some(Planned {
                    path,
                    expected,
                    target,
                    mode,
                })
            })
            .collect();
        Ok((rec, plan))
    }

    /// Undoes the last rewind of `run_id`: each of its files gets back
    /// what the rewind replaced, guarded the same way.
    #[tracing::instrument(skip(self))]
    pub fn redo_rewind(&self, run_id: RunId, force: bool) -> Result<RewindReport, AppError> {
        let rec = self.settled_recorder(run_id)?;
        let (to, files) = last_rewind(rec.events()).map_err(AppError::Conflict)?;
        let mut fold = ArtifactFold::default();
        fold.apply(rec.events());
        let plan = files
            .into_iter()
            .map(|(path, _, replaced)| {
                let record = fold.file(&path);
                Planned {
                    expected: record.and_then(|r| r.now.clone()),
                    // What the rewind replaced was, as a rule, the run's end.
                    mode: record.and_then(|r| r.after_mode),
                    path,
                    target: replaced,
                }
            })
            .collect();
        self.apply_rewind(rec, run_id, (to, true), plan, force)
    }

    /// Checks every file first (nothing is touched if one changed since,
    /// unless forced), then records the rewind and changes file by file.
    fn apply_rewind(
        &self,
        mut rec: crate::run::recorder::Recorder,
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
}

/// Refuses when a file holds something else than BearAgent last put there.
fn refuse_changed(swaps: &[(Planned, Swap)]) -> Result<(), AppError> {
    let changed: Vec<&str> = swaps
        .iter()
        .filter(|(_, s)| s.forced())
        .map(|(p, _)| p.path.as_str())
        .collect();
    if changed.is_empty() {
        return Ok(());
    }
    let (them, hold) = match changed.len() {
        1 => ("it", "it holds"),
        _ => ("them", "they hold"),
    };
    Err(AppError::Conflict(format!(
        "{} changed since BearAgent last wrote {them}: {}; nothing was touched (rewind with force to replace {them} — what {hold} now is kept so this can be undone)",
        plural(changed.len()),
        changed.join(", "),
    )))
}

/// Writes every file (without waiting for the disk), stopping at the
/// first that fails: the outcomes to record, and that failure.
fn write_all(
    swaps: Vec<(Planned, Swap)>,
    step: Step,
    dirs: &std::collections::BTreeSet<String>,
    files: &mut Vec<RewoundFile>,
) -> (Vec<EventPayload>, Option<AppError>) {
    let mut outcomes = Vec::with_capacity(swaps.len());
    let mut failed = None;
    for (p, swap) in swaps {
        if failed.is_some() {
            let why = "not attempted: an earlier file of the rewind could not be written";
            outcomes.push(abandoned(&p.path, why.into()));
            continue;
        }
        if let Err(e) = swap.put_unsynced() {
            outcomes.push(abandoned(&p.path, e.to_string()));
            failed = Some(e);
            continue;
        }
        if swap.removes() {
            prune_empty_dirs(swap.path(), &p.path, dirs);
        }
        let forced = swap.forced();
        outcomes.push(swap.done(&p.path, step, &[], &p.target));
        files.push(RewoundFile {
            path: p.path,
            now: p.target,
            forced,
        });
    }
    (outcomes, failed)
}

fn plural(n: usize) -> String {
    if n == 1 {
        "1 file".into()
    } else {
        format!("{n} files")
    }
}

impl Application {
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

/// One file of a rewind: what it should hold now, and what goes there.
pub(crate) struct Planned {
    pub(crate) path: String,
    pub(crate) expected: Option<ContentHash>,
    pub(crate) target: Option<ContentHash>,
    pub(crate) mode: Option<u32>,
}

/// The permission bits `rel` has now (None: not there or unreadable).
fn mode_on_disk(root: &bearagent_tools::WorkspaceRoot, rel: &str) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    let path = root.resolve_for_write(rel).ok()?;
    std::fs::metadata(path)
        .ok()
        .map(|m| m.permissions().mode() & 0o7777)
}

#[cfg(test)]
#[path = "rewind_tests.rs"]
mod tests;
