//! What front ends ask for by name: a run from the new-run form (workspace,
//! provider and profile looked up here, not in the shell), a run with who
//! runs it, an export to the data folder's `exports/`.

use crate::app::runs::StartRun;
use crate::app::Application;
use crate::artifacts::Exported;
use crate::AppError;
use bearagent_kernel::{ApprovalMode, Budgets, RunId, RunProjection, WorkspaceId};
use bearagent_store::Ownership;
use tracing::instrument;

/// The new-run form: the approval mode and budgets it shows override the
/// profile's; everything else (commands, context caps, MCP rules, loop
/// detection) comes from the profile ("default" when none is named).
#[derive(Debug, Clone, PartialEq)]
pub struct RunRequest {
    pub workspace_id: WorkspaceId,
    pub goal: String,
    /// A configured provider's name, or "demo".
    pub provider: String,
    pub profile: Option<String>,
    pub approval_mode: ApprovalMode,
    pub budgets: Budgets,
    /// Images pasted or dropped into the goal box.
    pub images: Vec<crate::ImageInput>,
    /// Run in a new git worktree of the workspace's repository.
    pub worktree: Option<crate::worktrees::WorktreeRequest>,
    /// Plan first (the form's "Plan first" switch).
    pub plan_mode: bool,
    /// Helpers (the form's "Helpers" switch): the run may start child runs
    /// with the `task` tool, at the profile's depth and share (or the
    /// defaults). Off leaves the profile's own `delegate` as it is.
    pub delegate: bool,
}

/// A run, whether its loop runs in this process, and which process owns it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunDetail {
    pub projection: RunProjection,
    pub active: bool,
    pub owner: Ownership,
    /// The bundle it was imported from (read-only here); None when made here.
    pub imported_from: Option<String>,
}

impl Application {
    /// A local provider's server is asked first for what its config does
    /// not state (`provider_for_run`).
    #[instrument(skip(self, request), fields(goal_len = request.goal.len()))]
    pub async fn start_requested_run(&self, request: RunRequest) -> Result<RunId, AppError> {
        let workspace = self.workspace_by_id(request.workspace_id)?.path;
        let overrides = crate::config::ProviderOverrides::default();
        let provider = self.provider_for_run(&request.provider, &overrides).await?;
        let name = request.profile.as_deref().unwrap_or("default");
        let (mut profile, _, _) = self.profile_named(name)?;
        profile.approval_mode = request.approval_mode;
        profile.budgets = request.budgets;
        profile.plan_mode = request.plan_mode;
        if request.delegate {
            profile.delegation = Some(profile.delegation.unwrap_or_default());
        }
        let start = StartRun {
            workspace,
            goal: request.goal,
            profile,
            provider,
            images: request.images,
        };
        match request.worktree {
            Some(worktree) => self.start_run_in_worktree(start, worktree),
            None => self.start_run(start),
        }
    }

    pub fn run_detail(&self, run_id: RunId) -> Result<RunDetail, AppError> {
        Ok(RunDetail {
            projection: self.get_run(run_id)?,
            active: self.active_runs().contains(&run_id),
            owner: self.run_ownership(run_id)?,
            imported_from: self.store.imported(run_id)?.map(|i| i.source),
        })
    }

    /// Writes the run's JSON export and Markdown report under
    /// `<data>/exports`.
    pub fn export_run_to_data_folder(&self, run_id: RunId) -> Result<Exported, AppError> {
        let dir = self.home().join("exports");
        self.export_run(run_id, &dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bearagent_kernel::{FixedClock, Timestamp};
    use std::sync::Arc;

    #[tokio::test]
    async fn a_form_request_takes_the_profile_and_overrides_mode_and_budgets() {
        let home = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join("config.toml"),
            "version = 1\n[profiles.careful]\napproval = \"ask\"\nmax_tool_calls = 7\nnetwork = true\n",
        )
        .unwrap();
        let clock = FixedClock(Timestamp::from_unix_millis(1_800_000_000_000).unwrap());
        let app = Application::open(home.path(), Arc::new(clock)).unwrap();
        let workspace = app
            .open_workspace(&ws.path().display().to_string())
            .unwrap();
        let budgets = Budgets {
            max_model_calls: 3,
            ..Budgets::default()
        };
        let run = app
            .start_requested_run(RunRequest {
                workspace_id: workspace.id,
                goal: "hello".into(),
                provider: "demo".into(),
                profile: Some("careful".into()),
                approval_mode: ApprovalMode::AllowAll,
                budgets,
                images: Vec::new(),
                worktree: None,
                plan_mode: false,
                delegate: false,
            })
            .await
            .unwrap();
        let detail = app.run_detail(run).unwrap();
        assert_eq!(detail.projection.approval_mode, ApprovalMode::AllowAll);
        assert_eq!(detail.projection.budgets.max_model_calls, 3);
        assert_eq!(detail.projection.profile, "careful");
        let unknown = app
            .start_requested_run(RunRequest {
                workspace_id: workspace.id,
                goal: "hello".into(),
                provider: "nobody".into(),
                profile: None,
                approval_mode: ApprovalMode::AllowAll,
                budgets,
                images: Vec::new(),
                worktree: None,
                plan_mode: false,
                delegate: false,
            })
            .await;
        assert!(unknown.is_err());
        let helped = app
            .start_requested_run(RunRequest {
                workspace_id: workspace.id,
                goal: "hello".into(),
                provider: "demo".into(),
                profile: None,
                approval_mode: ApprovalMode::AllowAll,
                budgets,
                images: Vec::new(),
                worktree: None,
                plan_mode: false,
                delegate: true,
            })
            .await
            .unwrap();
        let created = app
            .list_events(helped, bearagent_kernel::EventSeq(0), 1)
            .unwrap();
        assert!(
            matches!(
                &created[0].payload,
                bearagent_kernel::EventPayload::RunCreated { delegation: Some(d), .. }
                    if *d == bearagent_kernel::Delegation::default()
            ),
            "the Helpers switch lets the run delegate: {:?}",
            created[0].payload
        );
        app.cancel_run(helped).ok();
        app.wait_run(helped).await.unwrap();
        app.cancel_run(run).ok();
        app.wait_run(run).await.unwrap();
        let exported = app.export_run_to_data_folder(run).unwrap();
        assert!(
            exported.json.starts_with(home.path().join("exports")),
            "{exported:?}"
        );
    }
}
