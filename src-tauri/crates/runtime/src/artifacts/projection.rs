//! The artifacts of a run, derived from its events: every file it created,
//! modified or deleted, with the version before its first write and after
//! its last, and what the user did since (kept, reverted, re-applied).

use bearagent_kernel::{
    CallId, ContentHash, EventEnvelope, EventPayload, EventSeq, FileEffect, NotTracked,
};
use std::collections::{BTreeMap, HashMap};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Added,
    Modified,
    Deleted,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Review {
    /// Not decided yet.
    Pending,
    Kept,
    Reverted,
    /// Some hunks reverted, the others kept (or rewound to a version
    /// between the one before the run and the run's last).
    Partial,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtifactRecord {
    pub path: String,
    /// Before the run's first write (None: the file did not exist).
    pub before: Option<ContentHash>,
    /// After the run's last write (None: the run deleted it).
    pub after: Option<ContentHash>,
    /// What BearAgent last put there: `after`, or what a review left
    /// (`before` after a revert, the run's change minus some hunks).
    pub now: Option<ContentHash>,
    pub review: Review,
    /// Permission bits before the run's first write and after its last,
    /// when a command's snapshots saw them (None: not recorded, or the
    /// file was not there).
    pub before_mode: Option<u32>,
    pub after_mode: Option<u32>,
    /// The hooks that changed it (their commands, in run order): Changes
    /// says "by hook …".
    pub by_hooks: Vec<String>,
}

impl Change {
    /// `added`, `modified` or `deleted`, as exports and the CLI print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Modified => "modified",
            Change::Deleted => "deleted",
        }
    }
}

impl ArtifactRecord {
    /// Both modes are known and differ (a chmod, maybe with a change).
    pub fn mode_changed(&self) -> bool {
        matches!((self.before_mode, self.after_mode), (Some(b), Some(a)) if a != b)
    }

    pub fn change(&self) -> Change {
        match (&self.before, &self.after) {
            (None, _) => Change::Added,
            (Some(_), None) => Change::Deleted,
            (Some(_), Some(_)) => Change::Modified,
        }
    }
}

/// A path whose contents a command changed without BearAgent keeping
/// them (build output, dependencies, past the safety net's limits): not
/// restorable, and Changes says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UntrackedEffect {
    /// The command's `CommandFinished`.
    pub seq: EventSeq,
    pub command: String,
    pub item: NotTracked,
}

/// A run's artifacts folded from its events so far; `apply` takes the
/// events after the last one it saw, so a cached fold never re-reads a log.
#[derive(Debug, Clone, Default)]
pub struct ArtifactFold {
    seen: EventSeq,
    files: BTreeMap<String, ArtifactRecord>,
    /// Commands started and not finished yet, by call.
    commands: HashMap<CallId, String>,
    untracked: Vec<UntrackedEffect>,
}

impl ArtifactFold {
    /// The last event folded (0 before any).
    pub fn seen(&self) -> EventSeq {
        self.seen
    }

    pub fn apply(&mut self, events: &[EventEnvelope]) {
        for event in events {
            self.seen = event.seq;
            self.note_command(event);
            self.apply_one(&event.payload);
            self.note_hook(&event.payload);
        }
    }

    /// In run order, what the run's commands left untracked.
    pub fn untracked(&self) -> &[UntrackedEffect] {
        &self.untracked
    }

    fn note_command(&mut self, event: &EventEnvelope) {
        match &event.payload {
            EventPayload::CommandStarted {
                call_id, command, ..
            } => {
                self.commands.insert(call_id.clone(), command.clone());
            }
            EventPayload::CommandFinished {
                call_id,
                not_tracked,
                ..
            } => {
                let command = self.commands.remove(call_id).unwrap_or_default();
                self.untracked
                    .extend(not_tracked.iter().map(|item| UntrackedEffect {
                        seq: event.seq,
                        command: command.clone(),
                        item: item.clone(),
                    }));
            }
            _ => {}
        }
    }

    /// A hook's write names the hook on the file's record.
    fn note_hook(&mut self, payload: &EventPayload) {
        if let EventPayload::ArtifactRecorded {
            path,
            by_hook: Some(hook),
            ..
        } = payload
        {
            if let Some(record) = self.files.get_mut(path) {
                if !record.by_hooks.contains(hook) {
                    record.by_hooks.push(hook.clone());
                }
            }
        }
    }

    /// One file the run wrote, also one it wrote back to how it was.
    pub fn file(&self, path: &str) -> Option<&ArtifactRecord> {
        self.files.get(path)
    }

    /// The artifacts so far, sorted by path. A file the run wrote back to
    /// exactly how it was is not an artifact.
    pub fn records(&self) -> Vec<ArtifactRecord> {
        self.files
            .values()
            .filter(|a| a.before != a.after || a.mode_changed())
            .cloned()
            .collect()
    }

    fn apply_one(&mut self, payload: &EventPayload) {
        let files = &mut self.files;
        let (path, review, now) = match payload.file_effect() {
            Some(FileEffect::Written {
                path,
                before_hash,
                after_hash,
                before_mode,
                after_mode,
            }) => {
                let entry = files
                    .entry(path.to_owned())
                    .or_insert_with(|| ArtifactRecord {
                        path: path.to_owned(),
                        before: before_hash.clone(),
                        after: after_hash.clone(),
                        now: after_hash.clone(),
                        review: Review::Pending,
                        before_mode,
                        after_mode,
                        by_hooks: Vec::new(),
                    });
                // A file tool keeps the mode: only a recorded one moves it.
                if after_hash.is_none() || after_mode.is_some() {
                    entry.after_mode = after_mode;
                }
                entry.after = after_hash.clone();
                entry.now = after_hash.clone();
                entry.review = Review::Pending;
                return;
            }
            Some(FileEffect::Reverted { path }) => (path, Review::Reverted, None),
            Some(FileEffect::Reapplied { path }) => (path, Review::Pending, None),
            Some(FileEffect::HunksReverted { path, now }) => (path, Review::Partial, Some(now)),
            Some(FileEffect::Kept { path }) => (path, Review::Kept, None),
            Some(FileEffect::Edited { path, now }) => (path, Review::Kept, Some(now)),
            Some(FileEffect::Rewound { path, now }) => {
                if let Some(a) = files.get_mut(path) {
                    a.now = now.clone();
                    // At the run's end or before its start it reads as the
                    // run's version or a revert; between, as a partial one.
                    a.review = if a.now == a.after {
                        Review::Pending
                    } else if a.now == a.before {
                        Review::Reverted
                    } else {
                        Review::Partial
                    };
                }
                return;
            }
            None => return,
        };
        if let Some(a) = files.get_mut(path) {
            a.now = match (review, now) {
                (Review::Reverted, _) => a.before.clone(),
                (Review::Pending, _) => a.after.clone(),
                (_, Some(now)) => now.clone(),
                (_, None) => a.now.clone(),
            };
            // Every hunk reverted is the version from before the run.
            a.review = if review == Review::Partial && a.now == a.before {
                Review::Reverted
            } else {
                review
            };
        }
    }
}

/// Folds a run's events into its artifacts, sorted by path.
pub fn artifacts(events: &[EventEnvelope]) -> Vec<ArtifactRecord> {
    let mut fold = ArtifactFold::default();
    fold.apply(events);
    fold.records()
}
