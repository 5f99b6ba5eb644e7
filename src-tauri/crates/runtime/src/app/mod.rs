//! The application: composition of store and clock, and the use cases.

pub(crate) mod active;
mod bundles;
mod commands;
pub(crate) mod compact;
mod demo;
mod export;
mod held_secrets;
pub(crate) mod helper_runs;
pub(crate) mod images;
pub(crate) mod local_run;
pub(crate) mod local_servers;
mod loop_start;
pub(crate) mod mcp;
mod own_folders;
mod project_hooks;
pub(crate) mod proposal;
pub(crate) mod remembered;
mod replay;
pub(crate) mod requests;
mod resume;
pub(crate) mod review;
mod rewind;
mod run_queries;
pub(crate) mod runs;
pub(crate) mod settings;
pub(crate) mod threads;
mod web;
mod worktree_list;
mod worktrees;

use crate::config::{OsKeychain, SecretStore};
use crate::live::LiveBus;
use crate::run::approvals::ApprovalGate;
use crate::run::reconcile::reconcile_unfinished;
use crate::views::{RunSummary, Workspace};
use crate::watch::{Attribution, WorkspaceWatcher};
use crate::AppError;
use active::ActiveRun;
use bearagent_kernel::{Clock, RunId, WorkspaceId};
use bearagent_store::{RunFilter, Store};
use bearagent_tools::{Executor, ExecutorLimits, Registry};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tracing::instrument;

/// How many recent workspaces are remembered for display.
pub const RECENT_LIMIT: u32 = 12;

pub struct Application {
    pub(crate) home: PathBuf,
    pub(crate) config_path: PathBuf,
    pub(crate) secrets: Arc<dyn SecretStore>,
    pub(crate) store: Arc<Store>,
    pub(crate) clock: Arc<dyn Clock>,
    current: Mutex<Option<Workspace>>,
    pub(crate) live: LiveBus,
    pub(crate) approvals: Arc<ApprovalGate>,
    pub(crate) registry: Arc<Registry>,
    pub(crate) executor: Arc<Executor>,
    pub(crate) active: Arc<Mutex<HashMap<RunId, ActiveRun>>>,
    watcher: Mutex<Option<WorkspaceWatcher>>,
    follower: Mutex<Option<crate::follow::Follower>>,
    pub(crate) artifact_cache: crate::artifacts::cache::ArtifactCache,
    /// The one web fetcher (its cache shared by every run, see `web.rs`)
    /// and the `[web]` table it was built from.
    web: Mutex<Option<(crate::config::WebEntry, Arc<bearagent_tools::web::Fetcher>)>>,
}

impl Application {
    /// A recorder that appends to `run_id` after its recorded `events`
    /// (a settled run being reviewed, or an interrupted one resuming).
    pub(crate) fn recorder_for(
        &self,
        run: crate::local::LocalRun,
        events: Vec<bearagent_kernel::EventEnvelope>,
    ) -> Result<crate::run::recorder::Recorder, AppError> {
        crate::run::recorder::Recorder::resume(
            self.store.clone(),
            self.clock.clone(),
            self.live.clone(),
            run.id(),
            events,
        )
    }

    /// Opens the data directory `home` (creating and migrating its
    /// database), marks runs whose owner process is gone as interrupted
    /// (verifying their writes) — never runs another live process is
    /// executing — and restores the most recent workspace if it still
    /// exists.
    /// Opens with the config file at `home/config.toml` and keys in the OS
    /// keychain.
    pub fn open(home: &Path, clock: Arc<dyn Clock>) -> Result<Application, AppError> {
        Self::open_with(home, &home.join("config.toml"), clock, Arc::new(OsKeychain))
    }

    #[instrument(skip(clock, secrets), fields(home = %home.display()))]
    pub fn open_with(
        home: &Path,
        config_path: &Path,
        clock: Arc<dyn Clock>,
        secrets: Arc<dyn SecretStore>,
    ) -> Result<Application, AppError> {
        let store = Arc::new(Store::open_in(home)?);
        let last = store
            .recent_workspaces(1)?
            .into_iter()
            .next()
            .filter(|w| Path::new(&w.path).is_dir())
            .map(Workspace::from);
        let live = LiveBus::new();
        reconcile_unfinished(&store, &clock, &live)?;
        crate::worktrees::settle::settle_interrupted(&store, clock.as_ref(), &live)?;
        Ok(Application {
            home: home.to_path_buf(),
            config_path: config_path.to_path_buf(),
            secrets,
            store,
            clock,
            current: Mutex::new(last),
            live,
            approvals: Arc::new(ApprovalGate::default()),
            registry: Arc::new(Registry::with_workspace_tools()),
            executor: Arc::new(Executor {
                // Above read_file's own 256 KiB cap, so its "use start_line"
                // hint reaches the model instead of a blind cut.
                limits: ExecutorLimits {
                    max_output_bytes: 300 * 1024,
                    ..ExecutorLimits::default()
                },
            }),
            active: Arc::new(Mutex::new(HashMap::new())),
            watcher: Mutex::new(None),
            follower: Mutex::new(None),
            artifact_cache: Default::default(),
            web: Default::default(),
        })
    }

    /// What command sandboxes hide: BearAgent's data folder (database, logs,
    /// blobs) and the folder of its config file.
    pub(crate) fn command_host(&self) -> bearagent_tools::tools::run_command::HostEnvironment {
        let mut hidden = vec![self.home.clone()];
        if let Some(dir) = self.config_path.parent() {
            if !dir.as_os_str().is_empty() && dir != self.home {
                hidden.push(dir.to_path_buf());
            }
        }
        bearagent_tools::tools::run_command::HostEnvironment::current(hidden)
    }

    /// Publishes, on the live bus, the events other BearAgent processes
    /// commit to this data folder, so their runs show live here (the
    /// desktop app calls this; a CLI run has no use for it). Idempotent.
    #[instrument(skip(self))]
    pub fn follow_other_processes(&self) -> Result<(), AppError> {
        let mut slot = self
            .follower
            .lock()
            .map_err(|_| AppError::Internal("follower lock poisoned".into()))?;
        if slot.is_none() {
            *slot = Some(crate::follow::Follower::start(
                self.store.clone(),
                self.clock.clone(),
                self.live.clone(),
            )?);
        }
        Ok(())
    }

    /// Which process executes `run_id`: this one, another live BearAgent
    /// process (whose approvals and cancel belong to it), or none.
    pub fn run_ownership(&self, run_id: RunId) -> Result<bearagent_store::Ownership, AppError> {
        Ok(self.store.ownership(run_id)?)
    }

    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    pub fn home(&self) -> &Path {
        &self.home
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// Makes the folder at `path` the current workspace and records it as
    /// recent. The path is canonicalised so the same folder is one
    /// workspace however it was named.
    #[instrument(skip(self))]
    pub fn open_workspace(&self, path: &str) -> Result<Workspace, AppError> {
        if path.trim().is_empty() {
            return Err(AppError::InvalidInput(
                "a workspace path is required".into(),
            ));
        }
        if path.contains('\0') {
            return Err(AppError::InvalidInput(
                "a path cannot contain a NUL byte".into(),
            ));
        }
        let raw = Path::new(path.trim());
        if !raw.is_absolute() {
            return Err(AppError::InvalidInput(format!(
                "{path} is not an absolute path"
            )));
        }
        let canonical = match raw.canonicalize() {
            Ok(p) => p,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(AppError::PathMissing { path: raw.into() })
            }
            Err(source) => {
                return Err(AppError::Io {
                    path: raw.into(),
                    source,
                })
            }
        };
        if !canonical.is_dir() {
            return Err(AppError::NotADirectory { path: canonical });
        }
        self.check_workspace_folder(&canonical)?;
        let Some(canonical_str) = canonical.to_str() else {
            return Err(AppError::InvalidInput(format!(
                "{} is not valid UTF-8; BearAgent needs UTF-8 paths",
                canonical.display()
            )));
        };
        let name = canonical
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(canonical_str)
            .to_owned();
        let record = self
            .store
            .touch_workspace(canonical_str, &name, self.clock.now())?;
        let workspace = Workspace::from(record);
        if let Ok(mut current) = self.current.lock() {
            *current = Some(workspace.clone());
        }
        self.watch(&canonical);
        tracing::info!(workspace = %workspace.path, "workspace opened");
        Ok(workspace)
    }

    /// Watches the workspace at `root` (replacing the previous watch, which
    /// stops). A workspace that cannot be watched still works; it is logged.
    fn watch(&self, root: &Path) {
        let Ok(mut slot) = self.watcher.lock() else {
            return;
        };
        if slot.as_ref().is_some_and(|w| w.root() == root) {
            return;
        }
        *slot = None;
        let attribution = Attribution {
            store: self.store.clone(),
            clock: self.clock.clone(),
            live: self.live.clone(),
            active: self.active.clone(),
            facts: Default::default(),
        };
        let base = root.to_path_buf();
        match crate::watch::watch(root, move |paths| attribution.observe(&base, &paths)) {
            Ok(w) => *slot = Some(w),
            Err(e) => tracing::warn!(error = %e, "workspace changes will not be observed"),
        }
    }

    pub fn current_workspace(&self) -> Option<Workspace> {
        self.current.lock().ok().and_then(|c| c.clone())
    }

    #[instrument(skip(self))]
    pub fn recent_workspaces(&self) -> Result<Vec<Workspace>, AppError> {
        Ok(self
            .store
            .recent_workspaces(RECENT_LIMIT)?
            .into_iter()
            .map(Workspace::from)
            .collect())
    }

    pub fn workspace_by_id(&self, id: WorkspaceId) -> Result<Workspace, AppError> {
        self.store
            .workspace(id)?
            .map(Workspace::from)
            .ok_or_else(|| AppError::NotFound {
                what: "workspace",
                id: id.to_string(),
            })
    }

    /// The known workspace at exactly this (canonical) path.
    pub fn recent_workspace_by_path(&self, path: &str) -> Result<Option<Workspace>, AppError> {
        Ok(self.store.workspace_by_path(path)?.map(Workspace::from))
    }

    /// Runs of one workspace, newest first.
    #[instrument(skip(self))]
    pub fn list_runs(&self, workspace_id: WorkspaceId) -> Result<Vec<RunSummary>, AppError> {
        if self.store.workspace(workspace_id)?.is_none() {
            return Err(AppError::NotFound {
                what: "workspace",
                id: workspace_id.to_string(),
            });
        }
        let filter = RunFilter {
            workspace_id: Some(workspace_id),
            ..RunFilter::default()
        };
        self.summaries(self.store.list_runs(&filter)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;
    use bearagent_kernel::{FixedClock, Timestamp};

    fn app(home: &Path) -> Application {
        let clock = FixedClock(Timestamp::from_unix_millis(1_800_000_000_000).unwrap());
        Application::open(home, Arc::new(clock)).unwrap()
    }

    #[test]
    fn opening_a_folder_makes_it_current_and_recent_and_survives_reopen() {
        let home = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let a = app(home.path());
        assert_eq!(a.current_workspace(), None);
        let opened = a.open_workspace(ws.path().to_str().unwrap()).unwrap();
        assert_eq!(a.current_workspace(), Some(opened.clone()));
        assert_eq!(a.recent_workspaces().unwrap(), vec![opened.clone()]);
        assert!(a.list_runs(opened.id).unwrap().is_empty());
        drop(a);
        let b = app(home.path());
        assert_eq!(b.recent_workspaces().unwrap(), vec![opened.clone()]);
        assert_eq!(b.current_workspace(), Some(opened));
    }

    #[test]
    fn the_same_folder_by_another_spelling_is_the_same_workspace() {
        let home = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        std::fs::create_dir(ws.path().join("sub")).unwrap();
        let a = app(home.path());
        let first = a.open_workspace(ws.path().to_str().unwrap()).unwrap();
        let dotted = format!("{}/sub/..", ws.path().display());
        let second = a.open_workspace(&dotted).unwrap();
        assert_eq!(first.id, second.id);
        assert_eq!(a.recent_workspaces().unwrap().len(), 1);
    }

    #[test]
    fn bad_paths_get_clear_coded_errors() {
        let home = tempfile::tempdir().unwrap();
        let a = app(home.path());
        let file = home.path().join("file.txt");
        std::fs::write(&file, "x").unwrap();
        let code = |p: &str| a.open_workspace(p).unwrap_err().code();
        assert_eq!(code(""), ErrorCode::InvalidInput);
        assert_eq!(code("relative/path"), ErrorCode::InvalidInput);
        assert_eq!(code("/a\0b"), ErrorCode::InvalidInput);
        assert_eq!(code("/definitely/not/here"), ErrorCode::NotFound);
        assert_eq!(code(file.to_str().unwrap()), ErrorCode::NotADirectory);
        assert_eq!(a.current_workspace(), None);
        assert_eq!(
            a.list_runs(WorkspaceId::new()).unwrap_err().code(),
            ErrorCode::NotFound
        );
    }
}
