//! Approvals that learn: "always allow commands starting with …" kept
//! beyond the run, for one workspace or every workspace, in the user's
//! config file (never in a workspace: a repository cannot grant itself
//! approvals). New runs take them as allow rules after the profile's own,
//! so a deny rule still wins.

use crate::app::Application;
use crate::config::RememberedCommand;
use crate::AppError;
use bearagent_kernel::{CommandRule, RuleDecision, RunId};
use tracing::instrument;

/// Where a remembered rule holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RememberScope {
    /// The run's workspace (a worktree run's main checkout).
    Workspace,
    Everywhere,
}

impl Application {
    /// Remembers "allow commands starting with `prefix`" from an approval
    /// in `run_id`. The same prefix for the same place is kept once.
    #[instrument(skip(self))]
    pub fn remember_command(
        &self,
        run_id: RunId,
        prefix: &str,
        network: bool,
        scope: RememberScope,
    ) -> Result<RememberedCommand, AppError> {
        let rule = CommandRule {
            prefix: prefix.trim().to_owned(),
            decision: RuleDecision::Allow,
        };
        bearagent_tools::command::rules::validate_rule(&rule)
            .map_err(|e| AppError::InvalidInput(format!("command prefix: {e}")))?;
        let workspace = match scope {
            RememberScope::Workspace => Some(self.rule_home_of(run_id)?),
            RememberScope::Everywhere => None,
        };
        let remembered = RememberedCommand {
            prefix: rule.prefix,
            network,
            workspace,
            from_run: run_id.to_string(),
            at: self.clock.now().to_rfc3339(),
        };
        let kept = remembered.clone();
        self.update_config(move |config| {
            config
                .remembered_commands
                .retain(|r| !(r.prefix == kept.prefix && r.workspace == kept.workspace));
            config.remembered_commands.push(kept);
            Ok(())
        })?;
        Ok(remembered)
    }

    /// Decides an approval and, when `remember` says where, keeps its
    /// command prefix beyond the run first (an approval with a prefix).
    #[instrument(skip(self, decision))]
    pub fn decide_approval_remembering(
        &self,
        run_id: RunId,
        call_id: &str,
        decision: crate::Decision,
        remember: Option<RememberScope>,
    ) -> Result<(), AppError> {
        if let Some(scope) = remember {
            let Some(prefix) = decision
                .allow_prefix
                .as_deref()
                .filter(|_| decision.approve)
            else {
                return Err(AppError::InvalidInput(
                    "only an approval that allows a command prefix can be remembered".into(),
                ));
            };
            self.remember_command(run_id, prefix, decision.network, scope)?;
        }
        self.decide_approval(run_id, call_id, decision)
    }

    /// Every remembered rule, in the order they were remembered.
    pub fn remembered_commands(&self) -> Result<Vec<RememberedCommand>, AppError> {
        Ok(self.config()?.remembered_commands)
    }

    /// Forgets the remembered rule with the stable `id`
    /// (`RememberedCommand::id`); the rule forgotten.
    #[instrument(skip(self))]
    pub fn forget_command(&self, id: &str) -> Result<RememberedCommand, AppError> {
        let id = id.trim().to_ascii_lowercase();
        let mut forgotten = None;
        self.update_config(|config| {
            let Some(index) = config.remembered_commands.iter().position(|r| r.id() == id) else {
                return Err(AppError::NotFound {
                    what: "remembered rule",
                    id: id.clone(),
                });
            };
            forgotten = Some(config.remembered_commands.remove(index));
            Ok(())
        })?;
        forgotten.ok_or_else(|| AppError::Corrupt("a forgotten rule went missing".into()))
    }

    /// The allow rules remembered for runs in `workspace` (a folder path),
    /// as command rules.
    pub(crate) fn remembered_rules_for(
        &self,
        workspace: &str,
    ) -> Result<Vec<CommandRule>, AppError> {
        Ok(self
            .config()?
            .remembered_commands
            .into_iter()
            .filter(|r| r.workspace.as_deref().is_none_or(|w| w == workspace))
            .map(|r| CommandRule {
                prefix: r.prefix,
                decision: if r.network {
                    RuleDecision::AllowNetwork
                } else {
                    RuleDecision::Allow
                },
            })
            .collect())
    }

    /// The folder a workspace rule of `run_id` holds for: its workspace,
    /// or a worktree run's main checkout.
    fn rule_home_of(&self, run_id: RunId) -> Result<String, AppError> {
        if let Ok(worktree) = self.worktree_of(run_id) {
            return Ok(worktree.repo);
        }
        Ok(self.get_run(run_id)?.workspace_path)
    }
}
