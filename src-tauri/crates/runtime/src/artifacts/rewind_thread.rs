//! A thread rewinds as one: rewinding run 1 of a thread of three puts
//! back what runs 3 and 2 did first (newest first), each to its start,
//! then run 1 to the chosen event — checked as a whole before anything is
//! touched, so a file changed since any of them wrote it refuses the
//! rewind naming the run and the file.

use super::rewind::Planned;
use crate::run::receipts::current_hash;
use crate::run::recorder::Recorder;
use crate::AppError;
use bearagent_kernel::{ContentHash, EventSeq, RunId, WorkspaceId};
use bearagent_store::{RunFilter, Store};
use bearagent_tools::WorkspaceRoot;
use std::collections::{BTreeMap, BTreeSet};

/// Runs of one workspace looked at to find a thread's later runs.
const MAX_THREAD_SCAN: u32 = 10_000;

/// The runs of workspace `workspace_id` that continue `run_id`
/// (follow-ups and forks, at any depth), newest first.
pub(crate) fn later_runs(
    store: &Store,
    workspace_id: WorkspaceId,
    run_id: RunId,
) -> Result<Vec<RunId>, AppError> {
    let filter = RunFilter {
        workspace_id: Some(workspace_id),
        limit: Some(MAX_THREAD_SCAN),
        ..RunFilter::default()
    };
    let runs = store.list_runs(&filter)?;
    let mut children: BTreeMap<RunId, Vec<(bearagent_kernel::Timestamp, RunId)>> = BTreeMap::new();
    for r in &runs {
        if let Some(parent) = &r.parent {
            children
                .entry(parent.run_id)
                .or_default()
                .push((r.created_at, r.run_id));
        }
    }
    let mut found: Vec<(bearagent_kernel::Timestamp, RunId)> = Vec::new();
    let mut seen = BTreeSet::from([run_id]);
    let mut next = vec![run_id];
    while let Some(id) = next.pop() {
        for (at, child) in children.get(&id).into_iter().flatten() {
            if seen.insert(*child) {
                found.push((*at, *child));
                next.push(*child);
            }
        }
    }
    found.sort_by(|a, b| b.cmp(a));
    Ok(found.into_iter().map(|(_, id)| id).collect())
}

/// Walks the plans in order over what the disk holds, as each would
/// leave it: every file that holds something else than its run
/// expects refuses the rewind (`root`: their workspace), named (with the later run that wrote
/// it, if it is not the rewound run itself).
pub(crate) fn check_thread(
    root: &WorkspaceRoot,
    plans: &[(RunId, EventSeq, Recorder, Vec<Planned>)],
) -> Result<(), AppError> {
    let target_run = plans.last().map(|p| p.0);
    let mut disk: BTreeMap<&str, Option<ContentHash>> = BTreeMap::new();
    let mut changed = Vec::new();
    for (run, _, _, plan) in plans {
        for p in plan {
            let now = match disk.get(p.path.as_str()) {
                Some(hash) => hash.clone(),
                None => {
                    let path = root
                        .resolve_for_write(&p.path)
                        .map_err(|e| AppError::InvalidInput(format!("{}: {e}", p.path)))?;
                    current_hash(&path)
                        .map_err(|source| AppError::Io { path, source })?
                        .map(|(h, _)| h)
                }
            };
            if now != p.expected {
                changed.push(if Some(*run) == target_run {
                    p.path.clone()
                } else {
                    format!(
                        "{} (written by run {run}, which continues this one)",
                        p.path
                    )
                });
            }
            disk.insert(p.path.as_str(), p.target.clone());
        }
    }
    if changed.is_empty() {
        return Ok(());
    }
    let (n, them, hold) = match changed.len() {
        1 => ("1 file".to_owned(), "it", "it holds"),
        n => (format!("{n} files"), "them", "they hold"),
    };
    Err(AppError::Conflict(format!(
        "{n} changed since BearAgent last wrote {them}: {}; nothing was touched (rewind with force to replace {them} — what {hold} now is kept so this can be undone)",
        changed.join(", ")
    )))
}
