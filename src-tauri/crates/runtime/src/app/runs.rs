//! Run use cases of the application API: start, cancel, decide approvals,
//! read runs and events, subscribe to live updates.

use crate::app::active::ActiveRun;
use crate::app::Application;
use crate::live::LiveEvent;
use crate::profile::RunProfile;
use crate::run::agent_loop::{drive, LoopStart};
use crate::run::approvals::Decision;
use crate::run::context_profile::ContextProfile;
use crate::run::deps::LoopDeps;
use crate::run::recorder::{append_beside, Recorder};
use crate::AppError;
use bearagent_kernel::{
    check_image, check_image_count, CallId, EventPayload, ImageRef, RunId, RunProjection,
};
use bearagent_providers::ModelProvider;
use bearagent_tools::WorkspaceRoot;
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use tracing::{instrument, Instrument};

pub struct StartRun {
    /// Absolute path of the workspace folder.
    pub workspace: String,
    pub goal: String,
    pub profile: RunProfile,
    pub provider: Arc<dyn ModelProvider>,
    /// Images that go with the goal, checked and stored before the run is
    /// created.
    pub images: Vec<ImageInput>,
}

/// An image as a front end hands it over: its bytes and a name for people
/// (a file name, or "pasted image").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageInput {
    pub name: String,
    pub bytes: Vec<u8>,
}

impl Application {
    /// Records the run's creation and start, then drives it in the
    /// background. Returns once `RunCreated` and `RunStarted` are committed.
    #[instrument(skip(self, start), fields(goal_len = start.goal.len()))]
    pub fn start_run(&self, start: StartRun) -> Result<RunId, AppError> {
        self.create_run(start, None, RunId::new(), None)
    }

    /// `start_run` with the id the run is to have: a client that named its
    /// session before the first goal (an ACP editor) keeps one id for both.
    /// An id a run of this store already has is refused.
    #[instrument(skip(self, start), fields(run = %run_id))]
    pub fn start_run_as(&self, start: StartRun, run_id: RunId) -> Result<RunId, AppError> {
        if self.get_run(run_id).is_ok() {
            return Err(AppError::InvalidInput(format!(
                "a run with id {run_id} exists already"
            )));
        }
        self.create_run(start, None, run_id, None)
    }

    /// `start_run` for a run that continues `parent` (a follow-up or fork,
    /// already validated by the caller).
    pub(crate) fn create_run(
        &self,
        mut start: StartRun,
        parent: Option<bearagent_kernel::ParentRun>,
        run_id: RunId,
        worktree: Option<bearagent_kernel::Worktree>,
    ) -> Result<RunId, AppError> {
        if start.goal.trim().is_empty() {
            return Err(AppError::InvalidInput("a goal is required".into()));
        }
        let workspace = self.run_workspace(&mut start, worktree.as_ref())?;
        let mcp = self.mcp_plan()?;
        let root = self.tool_root(&workspace.path)?;
        let mut rec = Recorder::new(
            self.store.clone(),
            self.clock.clone(),
            self.live.clone(),
            run_id,
        );
        let info = start.provider.info();
        if start.profile.budgets.max_cost_micro_usd.is_some() && info.price.is_none() {
            return Err(AppError::InvalidInput(format!(
                "a cost limit needs a price for provider {}: add price = {{ input_per_mtok = …, \
                 output_per_mtok = … }} to its config, or run without a cost limit",
                info.name
            )));
        }
        let images = self.store_images(&start.images, &info)?;
        let depth = crate::delegation::thread_depth(&self.store, parent)?;
        let delegation = start
            .profile
            .delegation
            .filter(|d| d.allows_child_at(depth));
        let profile = ContextProfile::chosen(start.profile.context_profile, info.context_window);
        start.profile.context = profile.caps(start.profile.context, info.context_window);
        let created = rec.record(
            None,
            EventPayload::RunCreated {
                goal: start.goal,
                workspace_id: workspace.id,
                workspace_path: workspace.path,
                profile: start.profile.name.clone(),
                budgets: start.profile.budgets,
                approval_mode: start.profile.approval_mode,
                context_caps: start.profile.context,
                max_invalid_outputs: start.profile.max_invalid_outputs,
                max_repeated_calls: start.profile.max_repeated_calls,
                provider: info.name.clone(),
                model: info.model.clone(),
                config_versions: crate::run::context::recorded_versions(
                    &info,
                    &*start.provider,
                    profile,
                ),
                price: info.price,
                commands: start.profile.commands.clone(),
                mcp_rules: start.profile.mcp_rules.clone(),
                parent,
                delegated_by: None,
                delegation,
                images,
                worktree,
                plan_mode: start.profile.plan_mode,
                learned: info.learned.clone(),
                web_rules: start.profile.web_rules.clone(),
            },
        )?;
        rec.record(Some(created), EventPayload::RunStarted)?;
        self.spawn_loop(
            rec,
            root,
            start.profile,
            start.provider,
            LoopStart::Fresh,
            mcp,
        );
        Ok(run_id)
    }

    /// The workspace a new run belongs to and works in, with the approvals
    /// remembered for it added to the profile's rules (after them: a deny
    /// rule still wins). A worktree run belongs to its main checkout's
    /// workspace and works in the worktree's folder.
    fn run_workspace(
        &self,
        start: &mut StartRun,
        worktree: Option<&bearagent_kernel::Worktree>,
    ) -> Result<crate::Workspace, AppError> {
        let mut workspace = match worktree {
            Some(w) => self.open_workspace(&w.repo)?,
            None => self.open_workspace(&start.workspace)?,
        };
        for rule in self.remembered_rules_for(&workspace.path)? {
            if !start.profile.commands.rules.contains(&rule) {
                start.profile.commands.rules.push(rule);
            }
        }
        if let Some(w) = worktree {
            if !std::path::Path::new(&w.path).is_dir() {
                return Err(AppError::PathMissing {
                    path: w.path.clone().into(),
                });
            }
            workspace.path = w.path.clone();
        }
        Ok(workspace)
    }

    /// The goal's images checked (count, size, type by magic bytes, a
    /// model that reads images) and stored as blobs, in order. Nothing is
    /// stored unless every image passes.
    fn store_images(
        &self,
        images: &[ImageInput],
        info: &bearagent_providers::ProviderInfo,
    ) -> Result<Vec<ImageRef>, AppError> {
        if images.is_empty() {
            return Ok(Vec::new());
        }
        let invalid = |e: bearagent_kernel::ImageError| AppError::InvalidInput(e.to_string());
        check_image_count(images.len()).map_err(invalid)?;
        let types = images
            .iter()
            .map(|i| check_image(&i.name, &i.bytes).map_err(invalid))
            .collect::<Result<Vec<_>, _>>()?;
        if !info.vision {
            return Err(AppError::InvalidInput(format!(
                "provider {} (model {}) is not set to read images: set vision = true in its \
                 [providers.{}] config if the model reads them, or use a provider whose model does \
                 (JSON-text mode never sends images)",
                info.name, info.model, info.name
            )));
        }
        let at = self.clock.now();
        images
            .iter()
            .zip(types)
            .map(|(image, media_type)| {
                Ok(ImageRef {
                    blob: self.store.put_blob(&image.bytes, at)?,
                    media_type,
                    bytes: image.bytes.len() as u64,
                    name: image.name.clone(),
                })
            })
            .collect()
    }

    /// Runs the loop in the background and remembers it as active: the
    /// run's MCP servers start first and stop when the loop ends.
    pub(crate) fn spawn_loop(
        &self,
        mut rec: Recorder,
        workspace: WorkspaceRoot,
        profile: RunProfile,
        provider: Arc<dyn ModelProvider>,
        start: LoopStart,
        mcp: crate::mcp::McpPlan,
    ) {
        let run_id = rec.run_id();
        let cancel = CancellationToken::new();
        let hooks = self.hooks_of(&rec, &workspace);
        let hooks_writing = hooks
            .as_ref()
            .map(|h| h.writing.clone())
            .unwrap_or_default();
        let created = rec.events().first().map(|e| &e.payload);
        let mut deps = LoopDeps {
            provider,
            registry: crate::delegation::registry_for(&self.registry, created),
            executor: self.executor.clone(),
            approvals: self.approvals.clone(),
            workspace,
            profile,
            cancel: cancel.clone(),
            host: self.command_host(),
            mcp_tools: BTreeMap::new(),
            tool_rules: BTreeMap::new(),
            ancestors: Arc::new(Vec::new()),
            hooks: Arc::default(),
            web: self.fetcher(),
            children: Some(Arc::new(crate::delegation::Spawner {
                worktrees_dir: self.worktrees_dir().map_err(|e| e.to_string()),
                own_folders: self.own_folders(),
            })),
            ledger: Arc::default(),
        };
        let span = tracing::info_span!("run", %run_id);
        let store = rec.store().clone();
        let clock = rec.clock().clone();
        let live = rec.live().clone();
        let handle = tokio::spawn(
            async move {
                deps.hooks = match hooks {
                    Ok(hooks) => Arc::new(hooks),
                    Err(e) => {
                        let reason = format!("the run's hooks could not be read: {e}");
                        rec.record(rec.last_seq(), EventPayload::RunFailed { reason })?;
                        return Ok(());
                    }
                };
                let prepared =
                    super::loop_start::prepare_loop(&mut rec, &mut deps, &start, mcp).await;
                let servers = match prepared {
                    Ok(Some(servers)) => servers,
                    Ok(None) => return Ok(()),
                    Err(e) => {
                        abort_run(&store, clock.as_ref(), &live, run_id, &e);
                        return Err(e);
                    }
                };
                deps.mcp_tools = servers.tools();
                deps.tool_rules = servers.tool_rules(&deps.profile.mcp_rules);
                let result = drive(rec, deps, start).await;
                servers.shutdown().await;
                if let Err(e) = &result {
                    abort_run(&store, clock.as_ref(), &live, run_id, e);
                }
                result
            }
            .instrument(span),
        );
        if let Ok(mut active) = self.active.lock() {
            active.insert(run_id, ActiveRun::new(cancel, handle, hooks_writing));
        }
    }

    /// Runs whose loop is alive in this process.
    pub fn active_runs(&self) -> Vec<RunId> {
        crate::app::active::running_ids(&self.active)
    }

    /// Waits for a run started by this process to end, then returns it; or
    /// the error that stopped its loop (its events could not be stored).
    pub async fn wait_run(&self, run_id: RunId) -> Result<RunProjection, AppError> {
        let handle = self
            .active
            .lock()
            .ok()
            .and_then(|mut a| a.get_mut(&run_id).and_then(|r| r.handle.take()));
        let outcome = match handle {
            Some(handle) => handle.await.unwrap_or_else(|e| {
                tracing::error!(error = %e, %run_id, "run task failed");
                Err(AppError::Internal(format!("the run's task failed: {e}")))
            }),
            None => Ok(()),
        };
        if let Ok(mut active) = self.active.lock() {
            active.remove(&run_id);
        }
        outcome?;
        self.get_run(run_id)
    }

    #[instrument(skip(self))]
    pub fn cancel_run(&self, run_id: RunId) -> Result<(), AppError> {
        let active = self
            .active
            .lock()
            .map_err(|_| AppError::Corrupt("lock poisoned".into()))?;
        match active.get(&run_id) {
            Some(run) => {
                run.cancel.cancel();
                Ok(())
            }
            None => Err(self
                .owned_elsewhere(run_id, "cancel it")?
                .unwrap_or_else(|| {
                    AppError::Conflict(format!("run {run_id} is not running in this process"))
                })),
        }
    }

    #[instrument(skip(self, decision), fields(approve = decision.approve))]
    pub fn decide_approval(
        &self,
        run_id: RunId,
        call_id: &str,
        decision: Decision,
    ) -> Result<(), AppError> {
        let call_id = CallId::new(call_id).map_err(|e| AppError::InvalidInput(e.to_string()))?;
        if decision.network && !decision.approve {
            return Err(AppError::InvalidInput(
                "\"with the network\" goes with an approval".into(),
            ));
        }
        if let Some(prefix) = &decision.allow_prefix {
            if !decision.approve {
                return Err(AppError::InvalidInput(
                    "\"always allow commands starting with …\" goes with an approval".into(),
                ));
            }
            let rule = bearagent_kernel::CommandRule {
                prefix: prefix.clone(),
                decision: bearagent_kernel::RuleDecision::Allow,
            };
            bearagent_tools::command::rules::validate_rule(&rule)
                .map_err(|e| AppError::InvalidInput(format!("command prefix: {e}")))?;
        }
        if self.approvals.decide(run_id, &call_id, decision.clone()) {
            return Ok(());
        }
        if let Some(elsewhere) = self.owned_elsewhere(run_id, "answer its approvals")? {
            return Err(elsewhere);
        }
        // No loop waits here: maybe the app quit while this run waited.
        self.resume_at_approval(run_id, &call_id, decision)
    }

    /// The conflict to report when another live BearAgent process executes
    /// `run_id`: only it can `act` ("cancel it", ...) on the run.
    fn owned_elsewhere(&self, run_id: RunId, act: &str) -> Result<Option<AppError>, AppError> {
        Ok(match self.store.ownership(run_id)? {
            bearagent_store::Ownership::Elsewhere(owner) => Some(AppError::Conflict(format!(
                "run {run_id} is being executed by another BearAgent process ({}, pid {}); \
                 {act} there",
                owner.program, owner.pid
            ))),
            bearagent_store::Ownership::Here | bearagent_store::Ownership::Nobody => None,
        })
    }
}

/// The loop could not record its run: say so once, loudly, and try to end
/// the run as failed so no reader takes it for live. That last append may
/// be refused too (e.g. another process marked the run); the loop is over
/// either way and front ends learn it from `RunAborted`.
fn abort_run(
    store: &Arc<bearagent_store::Store>,
    clock: &dyn bearagent_kernel::Clock,
    live: &crate::live::LiveBus,
    run_id: RunId,
    error: &AppError,
) {
    tracing::error!(error = %error, "the run stopped: its events could not be stored");
    let reason = format!("BearAgent could not record this run's events: {error}");
    let failed = EventPayload::RunFailed {
        reason: reason.clone(),
    };
    if let Err(e) = append_beside(store, clock, live, run_id, failed) {
        tracing::warn!(error = %e, "the run could not be marked failed either");
    }
    live.publish(LiveEvent::RunAborted {
        run_id,
        message: reason,
    });
}

#[cfg(test)]
#[path = "runs_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "images_tests.rs"]
mod images_tests;

#[cfg(test)]
#[path = "remembered_tests.rs"]
mod remembered_tests;

#[cfg(test)]
#[path = "web_tests.rs"]
mod web_tests;

#[cfg(test)]
#[path = "hooks_tests.rs"]
mod hooks_tests;

#[cfg(test)]
#[path = "edits_tests.rs"]
mod edits_tests;

#[cfg(test)]
#[path = "proposal_tests.rs"]
mod proposal_tests;

#[cfg(test)]
#[path = "turns_tests.rs"]
mod turns_tests;

#[cfg(test)]
#[path = "commands_tests.rs"]
mod commands_tests;

#[cfg(test)]
#[path = "network_grant_tests.rs"]
mod network_grant_tests;

#[cfg(test)]
#[path = "mcp_tests.rs"]
mod mcp_tests;

#[cfg(test)]
#[path = "threads_tests.rs"]
mod threads_tests;

#[cfg(test)]
#[path = "thread_reviews_tests.rs"]
mod thread_reviews_tests;

#[cfg(test)]
#[path = "compaction_tests.rs"]
mod compaction_tests;

#[cfg(test)]
#[path = "text_calls_tests.rs"]
mod text_calls_tests;
