//! BearAgent kernel: the pure vocabulary of a run — ids, messages, actions,
//! events and the reducer that folds events into a run projection. No IO.
#![cfg_attr(
    test,
    allow(
        clippy::disallowed_methods,
        reason = "tests write their own fixtures; the effect rule is for shipped code"
    )
)]

pub mod budget;
pub mod clock;
pub mod commands;
pub mod cost;
pub mod event;
pub mod facets;
pub mod history;
pub mod hook;
mod hook_text;
pub mod ids;
pub mod image;
pub mod learned;
pub mod mcp;
pub mod message;
pub mod projection;
pub mod reducer;
pub mod review;
pub mod settings;
mod task_children;
pub mod thread;
pub mod todo;
pub mod tool_mode;
pub mod units;
pub mod web;
pub mod worktree;

pub use budget::{BudgetKind, Budgets, NextCall, Spent, TokenUsage};
pub use clock::{Clock, FixedClock, Timestamp};
pub use commands::{
    not_tracked_note, CommandRule, CommandSettings, NotTracked, NotTrackedChange, NotTrackedWhy,
    RuleDecision, TreeSize, DEFAULT_TOOLCHAIN_DIRS,
};
pub use cost::{usd_to_micro, Price, PriceError, Usd};
pub use event::{
    ApprovalScope, EffectOutcome, EventEnvelope, EventPayload, ModelErrorClass, NewEvent, Receipt,
    ReviewAction, StopReason, DEFAULT_MAX_REPEATED_CALLS, EVENT_SCHEMA_VERSION,
};
pub use facets::{hunk_list, FileEffect, ModelSpend, ReceiptStep};
pub use history::{validate_history, HistoryViolation};
pub use hook::{HookDecision, HookEvent, HookSource, HOOK_OUTPUT_CAP};
pub use ids::{CallId, ContentHash, EventSeq, IdError, RunId, ToolName, WorkspaceId};
pub use image::{
    check_image, check_image_count, ImageError, ImageRef, ImageType, MAX_IMAGES, MAX_IMAGE_BYTES,
};
pub use learned::LearnedModel;
pub use mcp::{mcp_rule_for, McpRules, McpToolRecord};
pub use message::{
    Action, FinalAnswer, HistoryItem, Message, MessageError, Role, ToolCall, ToolResult,
};
pub use reducer::{apply, fold, ReduceError, RunProjection, RunStatus};
pub use settings::{
    ApprovalMode, ContextCaps, ParseApprovalModeError, DEFAULT_COMPACT_AT_PERMILLE,
};
pub use task_children::task_children;
pub use thread::{DelegatedBy, Delegation, ParentRun, TASK_TOOL};
pub use todo::{
    todo_checklist, todo_from_arguments, todo_progress, TodoError, TodoItem, TodoStatus,
};
pub use tool_mode::{TextCallDialect, ToolMode};
pub use web::{WebFailure, WebFetchRecord, WebRedirect, WebRule, WebRuleDecision, WebUrlOrigin};
pub use worktree::{Worktree, WorktreeFileChange, WorktreeRefusal, WorktreeStep};

#[cfg(any(test, feature = "test-support"))]
pub mod testkit;
