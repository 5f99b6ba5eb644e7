//! The runs the UI fixture is made of (see `ui_projection_fixture.rs`):
//! together they use every event type. Split into turns so each reads as
//! one step of a run.

use bearagent_kernel::event::{
    ApprovalScope, EffectOutcome, ModelErrorClass, Receipt, ReviewAction, StopReason,
};
use bearagent_kernel::{
    Action, ApprovalMode, BudgetKind, Budgets, CallId, ContentHash, ContextCaps, EventPayload,
    EventSeq, FinalAnswer, McpToolRecord, ParentRun, Price, TokenUsage, ToolCall, ToolName,
    ToolResult,
};
use serde_json::{json, Value};
use std::collections::BTreeMap;

mod hooks;
mod text_calls;
mod web;
mod worktree;
pub use hooks::hooks_run;
pub use text_calls::text_calls_run;
pub use web::web_run;
pub use worktree::worktree_run;

fn hash(c: char) -> ContentHash {
    ContentHash::parse(&c.to_string().repeat(64)).unwrap()
}

fn id(n: u32) -> CallId {
    CallId::new(format!("call_{n}")).unwrap()
}

fn tool(name: &str) -> ToolName {
    ToolName::new(name).unwrap()
}

fn call(n: u32, name: &str, args: Value) -> ToolCall {
    ToolCall {
        call_id: id(n),
        tool_name: tool(name),
        arguments: args.as_object().cloned().unwrap(),
    }
}

fn result(n: u32, content: &str, is_error: bool) -> ToolResult {
    ToolResult {
        call_id: id(n),
        content: content.into(),
        is_error,
        images: Vec::new(),
    }
}

fn created(
    goal: &str,
    mode: ApprovalMode,
    price: Option<Price>,
    parent: Option<ParentRun>,
) -> EventPayload {
    EventPayload::RunCreated {
        goal: goal.into(),
        workspace_id: "0190a000-0000-7000-8000-000000000001".parse().unwrap(),
        workspace_path: "/home/me/project".into(),
        profile: "default".into(),
        budgets: Budgets::default(),
        approval_mode: mode,
        context_caps: ContextCaps::default(),
        max_invalid_outputs: 2,
        max_repeated_calls: 3,
        provider: "openai".into(),
        model: "gpt-test".into(),
        price,
        commands: Default::default(),
        mcp_rules: Default::default(),
        parent,
        delegated_by: None,
        delegation: None,
        images: Vec::new(),
        worktree: None,
        plan_mode: false,
        learned: None,
        web_rules: Vec::new(),
        config_versions: BTreeMap::from([("context".to_owned(), "2".to_owned())]),
    }
}

fn requested() -> EventPayload {
    EventPayload::ModelCallRequested {
        context_version: "2".into(),
        context_bytes: 2048,
        estimated_tokens: Some(600),
        context_window: Some(128_000),
        request_digest: None,
    }
}

fn started() -> EventPayload {
    EventPayload::ModelCallStarted {
        provider: "openai".into(),
        model: "gpt-test".into(),
    }
}

fn completed(action: Action, usage: TokenUsage, cost: Option<u64>) -> EventPayload {
    let stop_reason = match action {
        Action::FinalAnswer(_) => StopReason::EndTurn,
        Action::ToolCalls { .. } => StopReason::ToolUse,
    };
    EventPayload::ModelCallCompleted {
        action,
        usage,
        stop_reason,
        text: "Let me look.".into(),
        cost_micro_usd: cost,
    }
}

fn answer(text: &str) -> Action {
    Action::FinalAnswer(FinalAnswer {
        content: text.into(),
    })
}

fn usage(input: u64, output: u64, cached: u64) -> TokenUsage {
    TokenUsage {
        cached_input: cached,
        ..TokenUsage::new(input, output)
    }
}

/// Instructions, MCP servers, a read, a write asked about while a file
/// changes outside (granted, recorded, verified), a command, a priced
/// answer; then the user's review.
pub fn reviewed_write_run() -> Vec<EventPayload> {
    let price = Price {
        input_micro_usd_per_mtok: 2_500_000,
        output_micro_usd_per_mtok: 10_000_000,
        cached_input_micro_usd_per_mtok: Some(1_250_000),
    };
    let mut events = vec![
        created(
            "fix the failing test",
            ApprovalMode::AskWrites,
            Some(price),
            None,
        ),
        EventPayload::RunStarted,
    ];
    events.extend(loop_setup());
    events.extend(read_turn());
    events.extend(asked_write_turn());
    events.extend(command_turn());
    events.extend(answer_and_review());
    events
}

/// What the loop reads and starts first: instructions, one MCP server up
/// and one down.
fn loop_setup() -> Vec<EventPayload> {
    vec![
        EventPayload::InstructionsLoaded {
            path: "AGENTS.md".into(),
            blob: hash('a'),
            bytes: 120,
            truncated: false,
        },
        EventPayload::McpServerStarted {
            server: "everything".into(),
            server_name: "example-servers/everything".into(),
            server_version: "1.0.0".into(),
            protocol_version: "2025-06-18".into(),
            startup_ms: 210,
            tools: vec![McpToolRecord {
                name: "everything__echo".into(),
                tool: "echo".into(),
                title: None,
                description: "Echoes".into(),
                input_schema: json!({"type": "object"}),
                read_only_hint: Some(true),
                destructive_hint: None,
            }],
        },
        EventPayload::McpServerUnavailable {
            server: "broken".into(),
            reason: "command not found".into(),
        },
    ]
}

/// A model call asking for a read, which runs at once.
fn read_turn() -> Vec<EventPayload> {
    let read = call(1, "read_file", json!({"path": "src/lib.rs"}));
    vec![
        requested(),
        started(),
        completed(Action::one_call(read.clone()), usage(1000, 50, 200), None),
        EventPayload::ToolCallRequested {
            call: read,
            parsed_from_text: None,
        },
        EventPayload::ToolCallStarted { call_id: id(1) },
        EventPayload::ToolCallCompleted {
            result: result(1, "fn main() { panic!() }", false),
            receipt: None,
            truncated: false,
            original_bytes: 22,
        },
    ]
}

/// A priced model call asking for a write: asked about while a file
/// changes outside, granted, written, recorded and verified.
fn asked_write_turn() -> Vec<EventPayload> {
    let write = call(
        2,
        "write_file",
        json!({"path": "src/lib.rs", "content": "fn main() {}\n"}),
    );
    vec![
        requested(),
        started(),
        completed(
            Action::one_call(write.clone()),
            usage(1500, 80, 1000),
            Some(9),
        ),
        EventPayload::ToolCallRequested {
            call: write,
            parsed_from_text: None,
        },
        EventPayload::ApprovalRequested {
            call_id: id(2),
            tool_name: tool("write_file"),
            summary: "write src/lib.rs (13 bytes)".into(),
        },
        EventPayload::ExternalChangeObserved {
            path: "README.md".into(),
            hash: Some(hash('e')),
        },
        EventPayload::ApprovalGranted {
            call_id: id(2),
            by: "user".into(),
            scope: ApprovalScope::Once,
            allowed_prefix: None,
            network: false,
        },
        EventPayload::ToolCallStarted { call_id: id(2) },
        EventPayload::EffectIntended {
            call_id: id(2),
            path: "src/lib.rs".into(),
            before_hash: Some(hash('b')),
        },
        EventPayload::ToolCallCompleted {
            result: result(2, "wrote src/lib.rs", false),
            receipt: Some(Receipt {
                path: "src/lib.rs".into(),
                before_hash: Some(hash('b')),
                after_hash: Some(hash('c')),
                bytes_written: 13,
            }),
            truncated: false,
            original_bytes: 16,
        },
        EventPayload::ArtifactRecorded {
            call_id: id(2),
            path: "src/lib.rs".into(),
            before_hash: Some(hash('b')),
            after_hash: Some(hash('c')),
            before_mode: Some(0o644),
            after_mode: Some(0o755),
            by_hook: None,
        },
        EventPayload::EffectVerified {
            call_id: id(2),
            outcome: EffectOutcome::Applied,
        },
    ]
}

/// A model call asking for a command, which runs sandboxed and changes a
/// file; its long output is truncated.
fn command_turn() -> Vec<EventPayload> {
    let cmd = call(3, "run_command", json!({"command": "cargo test"}));
    vec![
        requested(),
        started(),
        completed(Action::one_call(cmd.clone()), usage(1800, 40, 1500), None),
        EventPayload::ToolCallRequested {
            call: cmd,
            parsed_from_text: None,
        },
        EventPayload::ToolCallStarted { call_id: id(3) },
        EventPayload::CommandStarted {
            call_id: id(3),
            command: "cargo test".into(),
            cwd: ".".into(),
            sandboxed: true,
            network: false,
            rule: "command_rules: cargo test = allow".into(),
        },
        EventPayload::CommandFinished {
            call_id: id(3),
            exit_code: Some(0),
            signal: None,
            duration_ms: 1200,
            output: Some(hash('d')),
            output_bytes: 300,
            output_truncated: false,
            timed_out: false,
            cancelled: false,
            changed_files: 1,
            unrevertable_files: 0,
            network_refused: false,
            created_dirs: Vec::new(),
            removed_dirs: Vec::new(),
            not_tracked: vec![bearagent_kernel::NotTracked {
                path: "target/".into(),
                why: bearagent_kernel::NotTrackedWhy::BuildOutput,
                change: bearagent_kernel::NotTrackedChange::Made,
                size: Some(bearagent_kernel::TreeSize {
                    files: 1_200,
                    bytes: 800 * 1024 * 1024,
                    at_least: false,
                }),
            }],
        },
        EventPayload::ToolCallCompleted {
            result: result(3, "test result: ok", false),
            receipt: None,
            truncated: true,
            original_bytes: 70_000,
        },
    ]
}

/// The final answer, then the user's review of the written file: kept,
/// reverted, re-applied.
fn answer_and_review() -> Vec<EventPayload> {
    vec![
        requested(),
        started(),
        completed(answer("Fixed the test."), usage(2000, 30, 1800), None),
        EventPayload::RunSucceeded {
            answer: "Fixed the test.".into(),
        },
        EventPayload::ArtifactKept {
            path: "src/lib.rs".into(),
        },
        EventPayload::ReviewIntended {
            path: "src/lib.rs".into(),
            action: ReviewAction::Revert,
            restored_hash: Some(hash('b')),
            replaced_hash: Some(hash('c')),
            forced: false,
            hunks: vec![],
            rewound_to: None,
        },
        EventPayload::ArtifactReverted {
            path: "src/lib.rs".into(),
            restored_hash: Some(hash('b')),
            replaced_hash: Some(hash('c')),
            forced: false,
        },
        EventPayload::ReviewIntended {
            path: "src/lib.rs".into(),
            action: ReviewAction::Reapply,
            restored_hash: Some(hash('c')),
            replaced_hash: Some(hash('b')),
            forced: false,
            hunks: vec![],
            rewound_to: None,
        },
        EventPayload::ReviewAbandoned {
            path: "src/lib.rs".into(),
            reason: "could not write src/lib.rs: permission denied".into(),
        },
        EventPayload::ReviewIntended {
            path: "src/lib.rs".into(),
            action: ReviewAction::Reapply,
            restored_hash: Some(hash('c')),
            replaced_hash: Some(hash('b')),
            forced: false,
            hunks: vec![],
            rewound_to: None,
        },
        EventPayload::ArtifactReapplied {
            path: "src/lib.rs".into(),
            restored_hash: Some(hash('c')),
            replaced_hash: Some(hash('b')),
        },
        EventPayload::ReviewIntended {
            path: "src/lib.rs".into(),
            action: ReviewAction::RevertHunks,
            restored_hash: Some(hash('d')),
            replaced_hash: Some(hash('c')),
            forced: false,
            hunks: vec![2],
            rewound_to: None,
        },
        EventPayload::ArtifactHunksKept {
            path: "src/lib.rs".into(),
            hunks: vec![1],
            diff: "@@ -2,1 +2,1 @@\n-    x\n+    y\n".into(),
        },
        EventPayload::ArtifactHunksReverted {
            path: "src/lib.rs".into(),
            hunks: vec![2],
            diff: "@@ -9,1 +9,1 @@\n-    a\n+    b\n".into(),
            restored_hash: Some(hash('d')),
            replaced_hash: Some(hash('c')),
        },
        EventPayload::RewindStarted {
            to: EventSeq(2),
            redo: false,
            paths: vec!["src/lib.rs".into()],
        },
        EventPayload::ReviewIntended {
            path: "src/lib.rs".into(),
            action: ReviewAction::Rewind,
            restored_hash: Some(hash('b')),
            replaced_hash: Some(hash('d')),
            forced: false,
            hunks: vec![],
            rewound_to: Some(EventSeq(2)),
        },
        EventPayload::ArtifactRewound {
            path: "src/lib.rs".into(),
            to: EventSeq(2),
            redo: false,
            restored_hash: Some(hash('b')),
            replaced_hash: Some(hash('d')),
            forced: false,
        },
        EventPayload::ReviewIntended {
            path: "src/lib.rs".into(),
            action: ReviewAction::Edit,
            restored_hash: Some(hash('e')),
            replaced_hash: Some(hash('b')),
            forced: false,
            hunks: vec![],
            rewound_to: None,
        },
        EventPayload::ArtifactEdited {
            path: "src/lib.rs".into(),
            diff: "@@ -1,1 +1,1 @@\n-    b\n+    e\n".into(),
            restored_hash: Some(hash('e')),
            replaced_hash: Some(hash('b')),
        },
    ]
}

/// A fork: a retried then failed model call, a denied write, a
/// compaction, a loop and a budget stop.
pub fn denied_and_exhausted_run() -> Vec<EventPayload> {
    let parent = ParentRun {
        run_id: "0190a000-0000-7000-8000-0000000000aa".parse().unwrap(),
        through_seq: EventSeq(12),
        fork: true,
    };
    let write = call(1, "write_file", json!({"path": "a.txt", "content": "x"}));
    let read = call(2, "read_file", json!({"path": "a.txt"}));
    vec![
        created("and now the docs", ApprovalMode::AskAll, None, Some(parent)),
        EventPayload::RunStarted,
        requested(),
        started(),
        EventPayload::ModelCallRetryScheduled {
            attempt: 1,
            delay_ms: 500,
            class: ModelErrorClass::Provider { retryable: true },
            message: "429 Too Many Requests".into(),
            usage: usage(10, 0, 0),
            discarded_partial: true,
            cost_micro_usd: None,
        },
        EventPayload::ModelCallFailed {
            class: ModelErrorClass::InvalidOutput,
            message: "the reply was not JSON".into(),
            usage: usage(300, 20, 0),
            cost_micro_usd: None,
        },
        requested(),
        started(),
        completed(Action::one_call(write.clone()), usage(400, 20, 0), None),
        EventPayload::ToolCallRequested {
            call: write,
            parsed_from_text: None,
        },
        EventPayload::ApprovalRequested {
            call_id: id(1),
            tool_name: tool("write_file"),
            summary: "write a.txt (1 byte)".into(),
        },
        EventPayload::ApprovalDenied {
            call_id: id(1),
            by: "user".into(),
            scope: ApprovalScope::RestOfTurn,
            reason: Some("not that file".into()),
        },
        EventPayload::ToolCallFailed {
            result: result(1, "denied by the user: not that file", true),
        },
        EventPayload::ContextCompacted {
            summary: hash('f'),
            replaced_through_seq: EventSeq(13),
            tokens_before: 100_000,
            tokens_after: 9_000,
            usage: usage(100_000, 900, 0),
            cost_micro_usd: None,
        },
        requested(),
        started(),
        completed(Action::one_call(read.clone()), usage(500, 10, 0), None),
        EventPayload::ToolCallRequested {
            call: read,
            parsed_from_text: None,
        },
        EventPayload::LoopDetected {
            call_id: id(2),
            tool_name: tool("read_file"),
            repeats: 3,
        },
        EventPayload::ToolCallFailed {
            result: result(2, "the same call again: try something else", true),
        },
        EventPayload::BudgetExhausted {
            which: BudgetKind::ModelCalls,
        },
    ]
}

/// Interrupted while asking, a write whose outcome could not be known,
/// resumed (the question comes back), cancelled.
pub fn interrupted_run() -> Vec<EventPayload> {
    let edit = call(
        1,
        "edit_file",
        json!({"path": "b.txt", "old": "a", "new": "b"}),
    );
    vec![
        created("rename things", ApprovalMode::AskWrites, None, None),
        EventPayload::RunStarted,
        requested(),
        started(),
        completed(Action::one_call(edit.clone()), usage(100, 10, 0), None),
        EventPayload::ToolCallRequested {
            call: edit,
            parsed_from_text: None,
        },
        EventPayload::ApprovalRequested {
            call_id: id(1),
            tool_name: tool("edit_file"),
            summary: "edit b.txt".into(),
        },
        EventPayload::RunInterrupted {
            reason: "BearAgent stopped (pid 4242)".into(),
        },
        EventPayload::EffectUnknown {
            call_id: id(1),
            path: "b.txt".into(),
            detail: "the file changed and matches neither version".into(),
        },
        EventPayload::RunResumed,
        EventPayload::RunCancelled {
            reason: Some("cancelled by the user".into()),
        },
    ]
}

pub fn failed_run() -> Vec<EventPayload> {
    vec![
        created("quick question", ApprovalMode::AllowAll, None, None),
        EventPayload::RunStarted,
        requested(),
        started(),
        EventPayload::ModelCallFailed {
            class: ModelErrorClass::Provider { retryable: false },
            message: "401 Unauthorized".into(),
            usage: TokenUsage::default(),
            cost_micro_usd: None,
        },
        EventPayload::RunFailed {
            reason: "the provider refused the key".into(),
        },
    ]
}
