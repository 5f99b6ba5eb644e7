//! Watches the open workspace (notify + debouncer) and turns changes made
//! while a run is active into `ExternalChangeObserved` events on that run,
//! unless the change is the run's own write. Honours `.gitignore` and
//! `.bearagentignore`; ignores `.git/`, folders tagged by `CACHEDIR.TAG`
//! and BearAgent's temp files. Keeps no
//! per-file state (on Linux the debouncer needs no file-id cache).

use crate::app::active::ActiveRun;
use crate::live::LiveBus;
use crate::run::receipts::current_hash;
use crate::run::recorder::append_all_beside;
use crate::run::snapshot::is_cache_dir;
use crate::AppError;
use bearagent_kernel::{
    Clock, ContentHash, EventEnvelope, EventPayload, EventSeq, FileEffect, ReceiptStep, RunId,
};
use bearagent_store::{Store, StoreError};
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use notify::RecursiveMode;
use notify_debouncer_full::{new_debouncer, DebounceEventResult, Debouncer, RecommendedCache};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Quiet time before a burst of changes is reported.
pub const DEBOUNCE: Duration = Duration::from_millis(50);

pub struct WorkspaceWatcher {
    root: PathBuf,
    _debouncer: Debouncer<notify::RecommendedWatcher, RecommendedCache>,
}

impl WorkspaceWatcher {
    pub fn root(&self) -> &Path {
        &self.root
    }
}

fn ignore_rules(root: &Path) -> Gitignore {
    let mut builder = GitignoreBuilder::new(root);
    for name in [".gitignore", ".bearagentignore"] {
        let file = root.join(name);
        if file.is_file() {
            // A malformed line is skipped, not fatal: watching goes on.
            let _ = builder.add(file);
        }
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

fn relevant(root: &Path, rules: &Gitignore, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    if rel.components().any(|c| c.as_os_str() == ".git") {
        return None;
    }
    let name = rel.file_name()?.to_string_lossy();
    if name.starts_with(".bearagent-tmp-") || name.starts_with(".config.toml.") {
        return None;
    }
    if rules
        .matched_path_or_any_parents(rel, path.is_dir())
        .is_ignore()
        || in_cache_dir(root, rel)
    {
        return None;
    }
    Some(rel.to_string_lossy().replace('\\', "/"))
}

/// Whether `rel` is a folder tagged by `CACHEDIR.TAG` or lies under one
/// (build output, like an ignored path; one open per ancestor).
fn in_cache_dir(root: &Path, rel: &Path) -> bool {
    rel.ancestors()
        .filter(|dir| !dir.as_os_str().is_empty())
        .any(|dir| is_cache_dir(&root.join(dir)))
}

/// Starts watching `root`; `on_change` gets workspace-relative paths.
pub fn watch(
    root: &Path,
    on_change: impl Fn(Vec<String>) + Send + 'static,
) -> Result<WorkspaceWatcher, AppError> {
    let root = root.to_path_buf();
    let rules = ignore_rules(&root);
    let base = root.clone();
    let watch_error =
        |e: notify::Error| AppError::InvalidInput(format!("cannot watch {}: {e}", root.display()));
    let mut debouncer = new_debouncer(DEBOUNCE, None, move |result: DebounceEventResult| {
        let Ok(events) = result else { return };
        // Reads (open/close without writing) are not changes; counting them
        // would make hashing a changed file report it again. The debouncer's
        // default mask (`EventKindMask::CORE`) already keeps the kernel from
        // reporting them, so a read no longer wakes the watcher's thread;
        // the filter stays for backends that cannot mask.
        let paths: BTreeSet<String> = events
            .iter()
            .filter(|e| !matches!(e.event.kind, notify::EventKind::Access(_)))
            .flat_map(|e| e.event.paths.iter())
            .filter_map(|p| relevant(&base, &rules, p))
            .collect();
        if !paths.is_empty() {
            on_change(paths.into_iter().collect());
        }
    })
    .map_err(watch_error)?;
    debouncer
        .watch(&root, RecursiveMode::Recursive)
        .map_err(watch_error)?;
    Ok(WorkspaceWatcher {
        root,
        _debouncer: debouncer,
    })
}

/// Everything attribution needs, cloned into the watcher's callback.
#[derive(Clone)]
pub(crate) struct Attribution {
    pub(crate) store: Arc<Store>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) live: LiveBus,
    pub(crate) active: Arc<Mutex<HashMap<RunId, ActiveRun>>>,
    /// What each live run's events said so far, so a burst reads only the
    /// events since the last one (not the whole log every time).
    pub(crate) facts: Arc<Mutex<HashMap<RunId, RunFacts>>>,
}

/// What attribution needs from one run's events: the run's own last
/// version of each file it wrote, its writes in flight, and whether a
/// command is running.
#[derive(Debug, Default)]
pub(crate) struct RunFacts {
    seen: EventSeq,
    own: HashMap<String, Option<ContentHash>>,
    writing: BTreeSet<String>,
    command_running: bool,
}

impl RunFacts {
    /// A run's facts before its own events: for a follow-up or fork, the
    /// last version of each file its thread's earlier runs wrote — all
    /// their writes, also those after a fork's branch point: they happened
    /// before this run started (a late notification of one is not a change
    /// outside the run).
    fn starting(
        store: &Store,
        parent: Option<bearagent_kernel::ParentRun>,
    ) -> Result<Self, AppError> {
        let mut chain = Vec::new();
        let mut next = parent.map(|p| p.run_id);
        while let Some(run_id) = next {
            if chain.len() >= crate::thread::MAX_THREAD_DEPTH || chain.contains(&run_id) {
                break;
            }
            chain.push(run_id);
            next = store
                .get_run(run_id)?
                .and_then(|r| r.parent)
                .map(|p| p.run_id);
        }
        let mut facts = RunFacts::default();
        for run_id in chain.into_iter().rev() {
            store.visit_events_since(run_id, EventSeq(0), |page| {
                facts.fold(&page);
                Ok::<_, AppError>(())
            })?;
        }
        facts.seen = EventSeq(0);
        facts.writing.clear();
        facts.command_running = false;
        Ok(facts)
    }

    /// Folds the run's events since the last one seen.
    fn catch_up(&mut self, store: &Store, run_id: RunId) -> Result<(), AppError> {
        store.visit_events_since(run_id, self.seen, |page| {
            self.fold(&page);
            Ok(())
        })
    }

    fn fold(&mut self, events: &[EventEnvelope]) {
        for e in events {
            self.seen = e.seq;
            if let Some(ReceiptStep::Intended { path, .. }) = e.payload.receipt_step() {
                self.writing.insert(path.to_owned());
            }
            if let Some(FileEffect::Written {
                path, after_hash, ..
            }) = e.payload.file_effect()
            {
                self.writing.remove(path);
                self.own.insert(path.to_owned(), after_hash.clone());
            }
            // A review (revert, keep an edit, rewind…) writes through
            // BearAgent too: a late notification of it, arriving once a
            // fork of the run started, is no change outside the run.
            if let Some((path, now, _)) = e.payload.review_versions() {
                self.own.insert(path.to_owned(), now.clone());
            }
            match &e.payload {
                EventPayload::EffectVerified { .. } | EventPayload::ToolCallFailed { .. } => {
                    self.writing.clear()
                }
                // A command may change any file until its artifacts are
                // recorded, which is done before the next step starts.
                EventPayload::CommandStarted { .. } => self.command_running = true,
                EventPayload::ModelCallRequested { .. }
                | EventPayload::ToolCallRequested { .. } => self.command_running = false,
                _ => {}
            }
        }
    }
}

/// What one burst's attribution reads and folds for `run_id`: the events
/// after `seen` (0: the whole log, as every burst did before the per-run
/// facts were kept). Returns how many files the run wrote. For the bench.
#[doc(hidden)]
pub fn attribution_fold(store: &Store, run_id: RunId, seen: EventSeq) -> Result<usize, AppError> {
    let mut facts = RunFacts {
        seen,
        ..RunFacts::default()
    };
    facts.catch_up(store, run_id)?;
    Ok(facts.own.len())
}

impl Attribution {
    /// Records changes to `paths` under `root` on every active run in that
    /// workspace, except the run's own writes.
    pub(crate) fn observe(&self, root: &Path, paths: &[String]) {
        let runs = crate::app::active::running_ids(&self.active);
        for run_id in runs {
            if let Err(e) = self.observe_run(run_id, root, paths) {
                tracing::warn!(error = %e, %run_id, "could not record an external change");
            }
        }
    }

    fn observe_run(&self, run_id: RunId, root: &Path, paths: &[String]) -> Result<(), AppError> {
        let Some(run) = self.store.get_run(run_id)? else {
            return Ok(());
        };
        if Path::new(&run.workspace_path) != root || !run.status.is_live() {
            // A run that ended needs no facts any more.
            if let Ok(mut all) = self.facts.lock() {
                all.remove(&run_id);
            }
            return Ok(());
        }
        let Ok(mut all) = self.facts.lock() else {
            return Err(AppError::Internal(
                "the attribution cache is poisoned".into(),
            ));
        };
        let facts = match all.entry(run_id) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(RunFacts::starting(&self.store, run.parent)?)
            }
        };
        facts.catch_up(&self.store, run_id)?;
        // A hook's own changes are recorded by its snapshots.
        if crate::app::active::hooks_writing(&self.active, run_id) {
            return Ok(());
        }
        let RunFacts {
            own,
            writing,
            command_running,
            ..
        } = &*facts;
        if *command_running {
            // The command's own artifacts are recorded when it ends.
            return Ok(());
        }
        let mut observed = Vec::new();
        for rel in paths {
            // The run's write in flight will record its own outcome.
            if writing.contains(rel.as_str()) {
                continue;
            }
            // A folder is not a file change: the files in it report their
            // own (a late event for a folder a command made or removed
            // would otherwise read as someone else's change).
            let abs = root.join(rel);
            if abs.is_dir() {
                continue;
            }
            let hash = current_hash(&abs).ok().flatten().map(|(h, _)| h);
            if own.get(rel.as_str()).is_some_and(|after| *after == hash) {
                continue;
            }
            let folder = format!("{rel}/");
            if hash.is_none() && own.keys().any(|p| p.starts_with(&folder)) {
                continue;
            }
            observed.push(EventPayload::ExternalChangeObserved {
                path: rel.clone(),
                hash,
            });
        }
        if observed.is_empty() {
            return Ok(());
        }
        self.append(run_id, observed)
    }

    /// Appends a burst's observations beside the run's loop, in one write.
    fn append(&self, run_id: RunId, payloads: Vec<EventPayload>) -> Result<(), AppError> {
        match append_all_beside(
            &self.store,
            self.clock.as_ref(),
            &self.live,
            run_id,
            payloads,
        ) {
            Ok(()) => Ok(()),
            // The run ended between the check and the append: the change
            // is no longer the run's to record.
            Err(StoreError::Rejected { .. }) => Ok(()),
            Err(StoreError::Conflict { .. }) => Err(AppError::Conflict(format!(
                "run {run_id} kept moving; the change was not recorded"
            ))),
            Err(e) => Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bearagent_kernel::testkit::at;
    use bearagent_kernel::NewEvent;
    use std::sync::mpsc;

    /// Given the user's revert of a run's write, a late notification of
    /// the revert (the file at the restored version) is the thread's own.
    #[test]
    fn a_review_leaves_the_file_at_a_version_the_thread_owns() {
        let run = RunId::new();
        let ours = Some(ContentHash::from_digest([1; 32]));
        let before = Some(ContentHash::from_digest([2; 32]));
        let events: Vec<EventEnvelope> = [EventPayload::ArtifactReverted {
            path: "docs/plan.md".into(),
            restored_hash: before.clone(),
            replaced_hash: ours,
            forced: false,
        }]
        .into_iter()
        .enumerate()
        .map(|(i, p)| NewEvent::new(at(0), None, p).into_envelope(run, EventSeq(i as u64 + 1)))
        .collect();
        let mut facts = RunFacts::default();
        facts.fold(&events);
        assert_eq!(facts.own.get("docs/plan.md"), Some(&before));
    }

    #[test]
    fn changes_are_reported_relative_and_ignored_paths_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
        std::fs::write(root.join(".bearagentignore"), "*.secret\n").unwrap();
        std::fs::create_dir_all(root.join("build")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        // Not ignored, but tagged as a cache (cargo's target/).
        std::fs::create_dir_all(root.join("target/debug")).unwrap();
        std::fs::write(
            root.join("target/CACHEDIR.TAG"),
            "Signature: 8a477f597d28d172789f06886806bc55\n",
        )
        .unwrap();
        let (tx, rx) = mpsc::channel();
        let _watcher = watch(&root, move |paths| {
            let _ = tx.send(paths);
        })
        .unwrap();
        std::fs::write(root.join("build/out.o"), "o").unwrap();
        std::fs::write(root.join("target/debug/bin"), "b").unwrap();
        std::fs::write(root.join("k.secret"), "s").unwrap();
        std::fs::write(root.join(".git/HEAD"), "h").unwrap();
        std::fs::write(root.join(".bearagent-tmp-123"), "t").unwrap();
        std::fs::write(root.join("notes.md"), "n").unwrap();
        let mut seen = BTreeSet::new();
        while let Ok(paths) = rx.recv_timeout(Duration::from_millis(1500)) {
            seen.extend(paths);
            if seen.contains("notes.md") {
                break;
            }
        }
        assert!(seen.contains("notes.md"), "{seen:?}");
        assert!(seen.iter().all(|p| p == "notes.md"), "{seen:?}");
    }
}
