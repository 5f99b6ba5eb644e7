//! The use cases of project hooks: showing a workspace's hooks file,
//! trusting or untrusting exactly its content, and the hooks a run fires
//! (the gate itself is `hooks/trust.rs`).

use crate::app::Application;
use crate::config::TrustedHooks;
use crate::hooks::trust::{read_project_hooks, ProjectHooks};
use crate::hooks::{check_hooks, RunHooks, UntrustedHooks, PROJECT_HOOKS_FILE};
use crate::AppError;
use bearagent_kernel::{ContentHash, HookSource};
use std::path::Path;
use tracing::instrument;

impl Application {
    /// The workspace's hooks file, if it has one, with its trust state.
    #[instrument(skip(self))]
    pub fn project_hooks(&self, workspace: &str) -> Result<Option<ProjectHooks>, AppError> {
        let home = self.open_workspace(workspace)?.path;
        let trusted = self.config()?.trusted_hooks;
        Ok(read_project_hooks(Path::new(&home), &home, &trusted)?.map(|(shown, _)| shown))
    }

    /// Trusts the workspace's hooks file as it is now, which must be the
    /// content the user reviewed (`sha256` from [`Self::project_hooks`]).
    #[instrument(skip(self))]
    pub fn trust_project_hooks(
        &self,
        workspace: &str,
        sha256: &str,
    ) -> Result<ProjectHooks, AppError> {
        let home = self.open_workspace(workspace)?.path;
        let Some((mut hooks, _)) = read_project_hooks(Path::new(&home), &home, &[])? else {
            return Err(AppError::NotFound {
                what: "hooks file",
                id: Path::new(&home)
                    .join(PROJECT_HOOKS_FILE)
                    .display()
                    .to_string(),
            });
        };
        if let Some(error) = &hooks.error {
            return Err(AppError::InvalidInput(format!(
                "{} cannot be trusted: {error}",
                hooks.file
            )));
        }
        if hooks.sha256 != sha256.trim() {
            return Err(AppError::Conflict(format!(
                "{} changed since it was shown (it is now {}); review it again before trusting it",
                hooks.file, hooks.sha256
            )));
        }
        let entry = TrustedHooks {
            workspace: home.clone(),
            sha256: hooks.sha256.clone(),
            at: self.clock.now().to_rfc3339(),
        };
        self.update_config(move |config| {
            config
                .trusted_hooks
                .retain(|t| t.workspace != entry.workspace);
            config.trusted_hooks.push(entry);
            Ok(())
        })?;
        hooks.trusted = true;
        Ok(hooks)
    }

    /// Takes back the trust in a workspace's hooks file; whether there was
    /// any.
    #[instrument(skip(self))]
    pub fn untrust_project_hooks(&self, workspace: &str) -> Result<bool, AppError> {
        let home = self.open_workspace(workspace)?.path;
        let mut removed = false;
        self.update_config(|config| {
            let before = config.trusted_hooks.len();
            config.trusted_hooks.retain(|t| t.workspace != home);
            removed = config.trusted_hooks.len() != before;
            Ok(())
        })?;
        Ok(removed)
    }

    /// The hooks a run fires: the user's own, then the project's when
    /// trusted. `folder` is where the run works (its worktree, if any);
    /// `home` the workspace trust is kept for (a worktree's main checkout).
    pub(crate) fn run_hooks(&self, folder: &Path, home: &str) -> Result<RunHooks, AppError> {
        let config = self.config()?;
        let mut hooks: Vec<_> = check_hooks(&config.hooks)
            .map_err(|e| AppError::InvalidInput(format!("config: {e}")))?
            .into_iter()
            .map(|hook| (HookSource::User, hook))
            .collect();
        let mut untrusted = None;
        if let Some((project, checked)) = read_project_hooks(folder, home, &config.trusted_hooks)? {
            match checked {
                Some(checked) if project.trusted => {
                    hooks.extend(checked.into_iter().map(|hook| (HookSource::Project, hook)))
                }
                _ => {
                    untrusted = Some(UntrustedHooks {
                        content_hash: ContentHash::parse(&project.sha256)
                            .map_err(|e| AppError::Internal(e.to_string()))?,
                        commands: project.hooks.iter().map(|h| h.command.clone()).collect(),
                        file: project.file,
                    })
                }
            }
        }
        Ok(RunHooks {
            hooks,
            untrusted,
            hooks_dir: self.config_path.parent().map(|dir| dir.join("hooks")),
            writing: Default::default(),
        })
    }
}

impl Application {
    /// The hooks of the run `rec` records, working in `workspace`: trust
    /// is kept for its workspace (a worktree run's main checkout).
    pub(crate) fn hooks_of(
        &self,
        rec: &crate::run::recorder::Recorder,
        workspace: &bearagent_tools::WorkspaceRoot,
    ) -> Result<RunHooks, AppError> {
        let home = match rec.events().first().map(|e| &e.payload) {
            Some(bearagent_kernel::EventPayload::RunCreated {
                worktree: Some(w), ..
            }) => w.repo.clone(),
            Some(bearagent_kernel::EventPayload::RunCreated { workspace_path, .. }) => {
                workspace_path.clone()
            }
            _ => workspace.path().display().to_string(),
        };
        self.run_hooks(workspace.path(), &home)
    }
}

#[cfg(test)]
#[path = "project_hooks_tests.rs"]
mod tests;
