//! Facets of an event: what a site that cares about a few kinds asks of
//! every event, answered here once, next to the events. A site asks
//! `event.receipt_step()` instead of matching all kinds to ignore most, so
//! adding a kind touches the kernel, the reducer and the renderers that
//! show it — not every reader. (The reducer, the context builder and the
//! renderers still match every kind: each kind must be decided there.)

use crate::{CallId, ContentHash, EventPayload, TokenUsage};

/// A write's receipt as the events tell it (DESIGN: intent before the
/// file is touched, outcome after).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReceiptStep<'a> {
    /// The pre-image is saved and the write is about to happen.
    Intended {
        call_id: &'a CallId,
        path: &'a str,
        before_hash: &'a Option<ContentHash>,
    },
    /// The write's outcome is known: completed, verified or unknown.
    Settled { call_id: &'a CallId },
}

/// What an event did to one workspace file the run is answerable for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileEffect<'a> {
    /// The run (a tool or a command) left the file at `after_hash`.
    Written {
        path: &'a str,
        before_hash: &'a Option<ContentHash>,
        after_hash: &'a Option<ContentHash>,
        /// Permission bits before and after, when recorded.
        before_mode: Option<u32>,
        after_mode: Option<u32>,
    },
    /// The user put the version from before the run back.
    Reverted { path: &'a str },
    /// The user undid a revert: the run's version is back.
    Reapplied { path: &'a str },
    /// The user reverted some hunks: the file holds `now`.
    HunksReverted {
        path: &'a str,
        now: &'a Option<ContentHash>,
    },
    /// The user reviewed the file and kept the run's version.
    Kept { path: &'a str },
    /// The user edited the run's version and kept it: the file holds `now`.
    Edited {
        path: &'a str,
        now: &'a Option<ContentHash>,
    },
    /// A rewind (or its redo) left the file at `now`.
    Rewound {
        path: &'a str,
        now: &'a Option<ContentHash>,
    },
}

/// What a model call (or a compaction, which is one) spent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelSpend {
    pub usage: TokenUsage,
    pub cost_micro_usd: Option<u64>,
}

/// "hunk 2" / "hunks 1, 3", as the renderers name reverted hunks.
pub fn hunk_list(hunks: &[u32]) -> String {
    let numbers: Vec<String> = hunks.iter().map(u32::to_string).collect();
    let noun = if hunks.len() == 1 { "hunk" } else { "hunks" };
    format!("{noun} {}", numbers.join(", "))
}

impl EventPayload {
    /// The tool call this event is about, if any.
    pub fn call_id(&self) -> Option<&CallId> {
        match self {
            EventPayload::ToolCallRequested { call, .. } => Some(&call.call_id),
            EventPayload::ToolCallCompleted { result, .. }
            | EventPayload::ToolCallFailed { result } => Some(&result.call_id),
            EventPayload::ApprovalRequested { call_id, .. }
            | EventPayload::ApprovalGranted { call_id, .. }
            | EventPayload::ApprovalDenied { call_id, .. }
            | EventPayload::ToolCallStarted { call_id }
            | EventPayload::EffectIntended { call_id, .. }
            | EventPayload::ArtifactRecorded { call_id, .. }
            | EventPayload::EffectVerified { call_id, .. }
            | EventPayload::EffectUnknown { call_id, .. }
            | EventPayload::LoopDetected { call_id, .. }
            | EventPayload::CommandStarted { call_id, .. }
            | EventPayload::CommandFinished { call_id, .. }
            | EventPayload::WebFetched { call_id, .. }
            | EventPayload::WebFetchFailed { call_id, .. }
            | EventPayload::HookRan {
                call_id: Some(call_id),
                ..
            } => Some(call_id),
            _ => None,
        }
    }

    /// Where a write's receipt stands after this event, if it is a step
    /// of one.
    pub fn receipt_step(&self) -> Option<ReceiptStep<'_>> {
        match self {
            EventPayload::EffectIntended {
                call_id,
                path,
                before_hash,
            } => Some(ReceiptStep::Intended {
                call_id,
                path,
                before_hash,
            }),
            EventPayload::ToolCallCompleted { result, .. } => Some(ReceiptStep::Settled {
                call_id: &result.call_id,
            }),
            EventPayload::EffectVerified { call_id, .. }
            | EventPayload::EffectUnknown { call_id, .. } => Some(ReceiptStep::Settled { call_id }),
            _ => None,
        }
    }

    /// What this event did to a workspace file the run answers for.
    pub fn file_effect(&self) -> Option<FileEffect<'_>> {
        match self {
            EventPayload::ArtifactRecorded {
                path,
                before_hash,
                after_hash,
                before_mode,
                after_mode,
                ..
            } => Some(FileEffect::Written {
                path,
                before_hash,
                after_hash,
                before_mode: *before_mode,
                after_mode: *after_mode,
            }),
            EventPayload::ArtifactReverted { path, .. } => Some(FileEffect::Reverted { path }),
            EventPayload::ArtifactReapplied { path, .. } => Some(FileEffect::Reapplied { path }),
            EventPayload::ArtifactHunksReverted {
                path,
                restored_hash,
                ..
            } => Some(FileEffect::HunksReverted {
                path,
                now: restored_hash,
            }),
            EventPayload::ArtifactKept { path } => Some(FileEffect::Kept { path }),
            EventPayload::ArtifactEdited {
                path,
                restored_hash,
                ..
            } => Some(FileEffect::Edited {
                path,
                now: restored_hash,
            }),
            EventPayload::ArtifactRewound {
                path,
                restored_hash,
                ..
            } => Some(FileEffect::Rewound {
                path,
                now: restored_hash,
            }),
            _ => None,
        }
    }

    /// For a review's intent and each outcome that changed a file: the
    /// path, the version it put there and the one it replaced.
    #[allow(clippy::type_complexity)]
    pub fn review_versions(&self) -> Option<(&str, &Option<ContentHash>, &Option<ContentHash>)> {
        match self {
            EventPayload::ArtifactReverted {
                path,
                restored_hash,
                replaced_hash,
                ..
            }
            | EventPayload::ArtifactReapplied {
                path,
                restored_hash,
                replaced_hash,
            }
            | EventPayload::ArtifactHunksReverted {
                path,
                restored_hash,
                replaced_hash,
                ..
            }
            | EventPayload::ArtifactRewound {
                path,
                restored_hash,
                replaced_hash,
                ..
            }
            | EventPayload::ArtifactEdited {
                path,
                restored_hash,
                replaced_hash,
                ..
            }
            | EventPayload::ReviewIntended {
                path,
                restored_hash,
                replaced_hash,
                ..
            } => Some((path, restored_hash, replaced_hash)),
            _ => None,
        }
    }

    /// A review of the run's files (keep, revert, re-apply, a review's
    /// intent or abandonment, its worktree applied or removed): not run
    /// activity, allowed after the run ended.
    pub fn is_review(&self) -> bool {
        self.file_effect()
            .is_some_and(|e| !matches!(e, FileEffect::Written { .. }))
            || matches!(
                self,
                EventPayload::ReviewIntended { .. }
                    | EventPayload::ArtifactHunksKept { .. }
                    | EventPayload::ReviewAbandoned { .. }
                    | EventPayload::RewindStarted { .. }
                    | EventPayload::WorktreeApplied { .. }
                    | EventPayload::WorktreeRemoved { .. }
                    | EventPayload::WorktreeStep { .. }
            )
    }

    /// How the CLI and reports word a worktree's fate, the todo list or a
    /// hook (None for every other event).
    pub fn steering_text(&self) -> Option<String> {
        match self {
            EventPayload::WorktreeApplied {
                applied,
                merged,
                refused,
            } => Some(crate::worktree::applied_summary(applied, merged, refused)),
            EventPayload::WorktreeRemoved { discarded } => {
                Some(crate::worktree::removed_summary(*discarded))
            }
            EventPayload::WorktreeStep { step } => Some(step.summary()),
            EventPayload::TodoUpdated { items } => Some(format!(
                "plan: {}\n{}",
                crate::todo::todo_progress(items),
                crate::todo::todo_checklist(items)
            )),
            EventPayload::HookRan { .. } | EventPayload::HooksNotTrusted { .. } => {
                crate::hook_text::hook_text(self)
            }
            EventPayload::ToolModeSwitched { to, reason, .. } => {
                Some(format!("switched to {to} tool calls: {reason}"))
            }
            _ => None,
        }
    }

    /// The run ended here: succeeded, failed, cancelled, out of budget or
    /// interrupted. Nothing follows but review.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            EventPayload::RunSucceeded { .. }
                | EventPayload::RunFailed { .. }
                | EventPayload::RunCancelled { .. }
                | EventPayload::BudgetExhausted { .. }
                | EventPayload::RunInterrupted { .. }
        )
    }

    /// What a model call spent, for events that record one (a retry's
    /// abandoned attempt and a compaction included).
    pub fn model_spend(&self) -> Option<ModelSpend> {
        match self {
            EventPayload::ModelCallCompleted {
                usage,
                cost_micro_usd,
                ..
            }
            | EventPayload::ModelCallFailed {
                usage,
                cost_micro_usd,
                ..
            }
            | EventPayload::ModelCallRetryScheduled {
                usage,
                cost_micro_usd,
                ..
            }
            | EventPayload::ContextCompacted {
                usage,
                cost_micro_usd,
                ..
            } => Some(ModelSpend {
                usage: *usage,
                cost_micro_usd: *cost_micro_usd,
            }),
            _ => None,
        }
    }
}

impl EventPayload {
    /// The stable name stored in the `type` column.
    pub fn type_name(&self) -> &'static str {
        match self {
            EventPayload::RunCreated { .. } => "run_created",
            EventPayload::RunStarted => "run_started",
            EventPayload::InstructionsLoaded { .. } => "instructions_loaded",
            EventPayload::ModelCallRequested { .. } => "model_call_requested",
            EventPayload::ModelCallStarted { .. } => "model_call_started",
            EventPayload::ModelCallRetryScheduled { .. } => "model_call_retry_scheduled",
            EventPayload::ModelCallCompleted { .. } => "model_call_completed",
            EventPayload::ModelCallFailed { .. } => "model_call_failed",
            EventPayload::ToolCallRequested { .. } => "tool_call_requested",
            EventPayload::ApprovalRequested { .. } => "approval_requested",
            EventPayload::ApprovalGranted { .. } => "approval_granted",
            EventPayload::ApprovalDenied { .. } => "approval_denied",
            EventPayload::ToolCallStarted { .. } => "tool_call_started",
            EventPayload::EffectIntended { .. } => "effect_intended",
            EventPayload::ToolCallCompleted { .. } => "tool_call_completed",
            EventPayload::ToolCallFailed { .. } => "tool_call_failed",
            EventPayload::ArtifactRecorded { .. } => "artifact_recorded",
            EventPayload::ExternalChangeObserved { .. } => "external_change_observed",
            EventPayload::EffectVerified { .. } => "effect_verified",
            EventPayload::EffectUnknown { .. } => "effect_unknown",
            EventPayload::RunSucceeded { .. } => "run_succeeded",
            EventPayload::RunFailed { .. } => "run_failed",
            EventPayload::RunCancelled { .. } => "run_cancelled",
            EventPayload::BudgetExhausted { .. } => "budget_exhausted",
            EventPayload::RunInterrupted { .. } => "run_interrupted",
            EventPayload::RunResumed => "run_resumed",
            EventPayload::LoopDetected { .. } => "loop_detected",
            EventPayload::ToolModeSwitched { .. } => "tool_mode_switched",
            EventPayload::ContextCompacted { .. } => "context_compacted",
            EventPayload::McpServerStarted { .. } => "mcp_server_started",
            EventPayload::McpServerUnavailable { .. } => "mcp_server_unavailable",
            EventPayload::CommandStarted { .. } => "command_started",
            EventPayload::CommandFinished { .. } => "command_finished",
            EventPayload::ArtifactReverted { .. } => "artifact_reverted",
            EventPayload::ArtifactReapplied { .. } => "artifact_reapplied",
            EventPayload::ArtifactHunksReverted { .. } => "artifact_hunks_reverted",
            EventPayload::ArtifactKept { .. } => "artifact_kept",
            EventPayload::ArtifactHunksKept { .. } => "artifact_hunks_kept",
            EventPayload::ReviewIntended { .. } => "review_intended",
            EventPayload::ReviewAbandoned { .. } => "review_abandoned",
            EventPayload::RewindStarted { .. } => "rewind_started",
            EventPayload::ArtifactEdited { .. } => "artifact_edited",
            EventPayload::ArtifactRewound { .. } => "artifact_rewound",
            EventPayload::TodoUpdated { .. } => "todo_updated",
            EventPayload::WorktreeApplied { .. } => "worktree_applied",
            EventPayload::WorktreeRemoved { .. } => "worktree_removed",
            EventPayload::WorktreeStep { .. } => "worktree_step",
            EventPayload::HookRan { .. } => "hook_ran",
            EventPayload::HooksNotTrusted { .. } => "hooks_not_trusted",
            EventPayload::WebFetched { .. } => "web_fetched",
            EventPayload::WebFetchFailed { .. } => "web_fetch_failed",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EffectOutcome, ToolResult};

    fn call() -> CallId {
        CallId::new("c1").unwrap()
    }

    #[test]
    fn given_a_writes_events_then_its_receipt_steps_read_intended_then_settled() {
        let intended = EventPayload::EffectIntended {
            call_id: call(),
            path: "a.md".into(),
            before_hash: None,
        };
        assert!(matches!(
            intended.receipt_step(),
            Some(ReceiptStep::Intended { path: "a.md", .. })
        ));
        let verified = EventPayload::EffectVerified {
            call_id: call(),
            outcome: EffectOutcome::NotApplied,
        };
        assert_eq!(
            verified.receipt_step(),
            Some(ReceiptStep::Settled { call_id: &call() })
        );
        let failed = EventPayload::ToolCallFailed {
            result: ToolResult {
                call_id: call(),
                content: "x".into(),
                is_error: true,
                images: Vec::new(),
            },
        };
        assert_eq!(failed.receipt_step(), None);
        assert_eq!(failed.call_id(), Some(&call()));
        assert_eq!(EventPayload::RunStarted.call_id(), None);
    }

    #[test]
    fn given_review_events_then_each_is_a_file_effect_and_run_ends_are_terminal() {
        let kept = EventPayload::ArtifactKept { path: "a".into() };
        assert_eq!(kept.file_effect(), Some(FileEffect::Kept { path: "a" }));
        assert!(!kept.is_terminal());
        assert!(EventPayload::RunFailed { reason: "x".into() }.is_terminal());
        assert_eq!(EventPayload::RunStarted.model_spend(), None);
    }
}
