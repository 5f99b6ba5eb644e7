//! Undoing a worktree's apply from its record: every file the run's
//! applies (since its last undo) wrote goes back to the pre-image its
//! intent saved, byte for byte and mode for mode; a file the apply created
//! is deleted. A file the user changed since is refused by name unless
//! forced (its content is then saved first, like any pre-image).

use super::landing::{FileState, FileWrite};
use crate::AppError;
use bearagent_kernel::{EventEnvelope, EventPayload, WorktreeFileChange, WorktreeStep};
use bearagent_store::Store;
use std::collections::BTreeMap;
use std::path::{Component, Path};

/// What the run's applies since its last finished undo changed, by path:
/// the earliest pre-image and the latest post-image of each file.
pub(crate) fn applied_since_undo(events: &[EventEnvelope]) -> BTreeMap<String, WorktreeFileChange> {
    let mut pending: BTreeMap<String, WorktreeFileChange> = BTreeMap::new();
    for e in events {
        let EventPayload::WorktreeStep { step } = &e.payload else {
            continue;
        };
        match step {
            WorktreeStep::ApplyStarted {
                undo: false, files, ..
            } => {
                for f in files {
                    pending
                        .entry(f.path.clone())
                        .and_modify(|p| {
                            p.after = f.after.clone();
                            p.after_mode = f.after_mode;
                        })
                        .or_insert_with(|| f.clone());
                }
            }
            WorktreeStep::ApplyUndone { .. } => pending.clear(),
            WorktreeStep::ApplyStarted { .. }
            | WorktreeStep::ApplySettled { .. }
            | WorktreeStep::RemovalStarted { .. } => {}
        }
    }
    pending
}

/// The writes that undo `pending` in the main checkout `repo`: files that
/// hold the apply's version go back; files already back are left alone.
/// Refuses, naming them, files the user changed since (unless `force`);
/// with the writes, whether any replaces such a file.
pub(crate) fn plan_undo(
    store: &Store,
    repo: &Path,
    pending: &BTreeMap<String, WorktreeFileChange>,
    force: bool,
) -> Result<(Vec<FileWrite>, bool), AppError> {
    let mut writes = Vec::new();
    let mut changed = Vec::new();
    for (rel, f) in pending {
        if !Path::new(rel)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
        {
            return Err(AppError::Corrupt(format!(
                "an apply recorded the path {rel}"
            )));
        }
        let abs = repo.join(rel);
        let now = FileState::read(&abs)?;
        let recorded = now.as_ref().map(FileState::recorded);
        let is = |hash: &Option<_>, mode: Option<u32>| match (&recorded, hash) {
            (None, None) => true,
            (Some((h, m)), Some(want)) => h == want && Some(*m) == mode,
            _ => false,
        };
        if is(&f.before, f.before_mode) {
            continue;
        }
        if !is(&f.after, f.after_mode) {
            changed.push(rel.clone());
            if !force {
                continue;
            }
        }
        writes.push(FileWrite {
            rel: rel.clone(),
            abs,
            before: now,
            after: pre_image(store, f)?,
        });
    }
    if !changed.is_empty() && !force {
        return Err(AppError::Conflict(format!(
            "changed since the apply: {}; nothing was touched (undo with --force to replace them — their current content is kept in the record)",
            changed.join(", ")
        )));
    }
    Ok((writes, !changed.is_empty()))
}

/// The file as it was before the apply (None: it did not exist).
fn pre_image(store: &Store, f: &WorktreeFileChange) -> Result<Option<FileState>, AppError> {
    let Some(hash) = &f.before else {
        return Ok(None);
    };
    let bytes = store
        .get_blob(hash)?
        .ok_or_else(|| AppError::Corrupt(format!("the saved version of {} is missing", f.path)))?;
    let mode = f.before_mode.unwrap_or_else(bearagent_tools::new_file_mode);
    Ok(Some(FileState { bytes, mode }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bearagent_kernel::testkit::at;
    use bearagent_kernel::{ContentHash, EventSeq, NewEvent, RunId};

    fn hash(c: u8) -> Option<ContentHash> {
        Some(ContentHash::from_digest([c; 32]))
    }

    fn change(path: &str, before: u8, after: u8) -> WorktreeFileChange {
        WorktreeFileChange {
            path: path.into(),
            before: hash(before),
            before_mode: Some(0o644),
            after: hash(after),
            after_mode: Some(0o755),
        }
    }

    fn events(steps: Vec<WorktreeStep>) -> Vec<EventEnvelope> {
        let run = RunId::new();
        steps
            .into_iter()
            .enumerate()
            .map(|(i, step)| {
                NewEvent::new(at(1_000), None, EventPayload::WorktreeStep { step })
                    .into_envelope(run, EventSeq(i as u64 + 1))
            })
            .collect()
    }

    fn started(undo: bool, files: Vec<WorktreeFileChange>) -> WorktreeStep {
        WorktreeStep::ApplyStarted {
            undo,
            forced: false,
            instance: "ab".into(),
            pid: 1,
            files,
        }
    }

    #[test]
    fn an_undo_goes_back_to_the_first_pre_image_of_every_apply_since_the_last_undo() {
        let undone = WorktreeStep::ApplyUndone { restored: vec![] };
        let log = events(vec![
            started(false, vec![change("old.txt", 1, 2)]),
            undone,
            started(false, vec![change("a.txt", 3, 4)]),
            // Re-applied after a crash: a.txt again, and one more file.
            started(false, vec![change("a.txt", 4, 5), change("b.txt", 6, 7)]),
            // An unfinished undo changes nothing of what is pending.
            started(true, vec![change("a.txt", 5, 3)]),
        ]);
        let pending = applied_since_undo(&log);
        assert_eq!(pending.keys().collect::<Vec<_>>(), ["a.txt", "b.txt"]);
        assert_eq!(
            (
                pending["a.txt"].before.clone(),
                pending["a.txt"].after.clone()
            ),
            (hash(3), hash(5))
        );
    }

    #[test]
    fn a_file_changed_since_the_apply_is_refused_by_name_and_nothing_planned() {
        let repo = tempfile::tempdir().unwrap();
        std::fs::write(repo.path().join("a.txt"), "the user's later edit").unwrap();
        let home = tempfile::tempdir().unwrap();
        let store = Store::open_in(home.path()).unwrap();
        let pending =
            applied_since_undo(&events(vec![started(false, vec![change("a.txt", 1, 2)])]));
        let err = plan_undo(&store, repo.path(), &pending, false)
            .err()
            .unwrap();
        assert!(err.to_string().contains("a.txt"), "{err}");
    }
}
