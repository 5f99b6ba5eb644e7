//! Rewind: every file the run changed after event `to` — by a file tool or
//! a command — goes back to what it held at `to`, in one recorded step;
//! redo puts back what the last rewind replaced. Each file is guarded and
//! recorded like a revert (intent, disk, outcome; settled after a crash),
//! and the whole rewind is refused, touching nothing, when any file
//! changed since BearAgent last wrote it, unless forced. The use cases
//! (`rewind`, `redo_rewind`) are in `app/rewind.rs`.

use crate::artifacts::projection::ArtifactFold;
use crate::artifacts::revert::{abandoned, prune_empty_dirs, Step, Swap};
use crate::AppError;
use bearagent_kernel::{ContentHash, EventEnvelope, EventPayload, EventSeq, FileEffect, RunId};
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

/// Refuses when a file holds something else than BearAgent last put there.
pub(crate) fn refuse_changed(swaps: &[(Planned, Swap)]) -> Result<(), AppError> {
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
pub(crate) fn write_all(
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

/// What rewinding the run of `events` to `to` changes, file by file
/// (`root`: its workspace): each file whose content or mode moved since.
/// Refused before the run ended or past its end; nothing is touched.
pub(crate) fn plan_to(
    events: &[EventEnvelope],
    to: EventSeq,
    root: &bearagent_tools::WorkspaceRoot,
) -> Result<Vec<Planned>, AppError> {
    let end = events
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
    let run_events: Vec<EventEnvelope> = events.iter().filter(|e| e.seq <= end).cloned().collect();
    let mut fold = ArtifactFold::default();
    fold.apply(events);
    let plan = versions_at(&run_events, to)
        .into_iter()
        .filter_map(|(path, (target, mode))| {
            let expected = fold.file(&path).map(|r| r.now.clone()).unwrap_or(None);
            let mode_moved = mode.is_some() && mode != mode_on_disk(root, &path);
            (expected != target || mode_moved).then_some(Planned {
                path,
                expected,
                target,
                mode,
            })
        })
        .collect();
    Ok(plan)
}

/// What redoing the last rewind of the run of `events` puts back, and the
/// event that rewind went to: each file gets what the rewind replaced.
pub(crate) fn redo_plan(events: &[EventEnvelope]) -> Result<(EventSeq, Vec<Planned>), AppError> {
    let (to, files) = last_rewind(events).map_err(AppError::Conflict)?;
    let mut fold = ArtifactFold::default();
    fold.apply(events);
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
    Ok((to, plan))
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
mod tests {
    use super::*;

    #[test]
    fn the_version_at_a_point_is_what_the_first_later_write_found() {
        use bearagent_kernel::{CallId, NewEvent};
        let h = |c: char| Some(ContentHash::parse(&c.to_string().repeat(64)).unwrap());
        let written = |path: &str, before, after| EventPayload::ArtifactRecorded {
            call_id: CallId::new("c").unwrap(),
            path: path.into(),
            before_hash: before,
            after_hash: after,
            before_mode: None,
            after_mode: None,
            by_hook: None,
        };
        let run = RunId::new();
        let events: Vec<EventEnvelope> = [
            written("a", None, h('a')),
            written("a", h('a'), h('b')),
            written("b", h('c'), None),
        ]
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            NewEvent::new(bearagent_kernel::testkit::at(0), None, p)
                .into_envelope(run, EventSeq(i as u64 + 1))
        })
        .collect();
        let at1 = versions_at(&events, EventSeq(1));
        assert_eq!(at1.get("a"), Some(&(h('a'), None)));
        assert_eq!(at1.get("b"), Some(&(h('c'), None)));
        assert_eq!(
            versions_at(&events, EventSeq(0)).get("a"),
            Some(&(None, None))
        );
        assert!(versions_at(&events, EventSeq(3)).is_empty());
    }
}
