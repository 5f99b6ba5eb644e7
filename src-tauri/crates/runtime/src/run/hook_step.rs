//! Firing the run's hooks at their moments: each hook's run is a
//! `HookRan` event (committed before its decision is acted on), and the
//! decisions combine — before a tool call, a deny wins over an ask over
//! an allow; at the end, any block sends the model back (a bounded number
//! of times). Floor 1 of `run/`.

use super::deps::{LoopDeps, RunGrants};
use super::outcome::{fail, ToolStepEnd};
use super::receipts::{copy_hook_changes, record_hook_changes, take_snapshot};
use super::recorder::Recorder;
use super::requested::Requested;
use super::snapshot::Snapshot;
use crate::hooks::runner::{input_json, not_run, run_hook, HookRun, HookSandbox, InputBase};
use crate::hooks::CheckedHook;
use crate::AppError;
use bearagent_kernel::{
    ApprovalMode, EventPayload, EventSeq, HookDecision, HookEvent, ToolCall, ToolResult,
};
use bearagent_tools::sandbox::WorkspaceAccess;
use bearagent_tools::PolicyDecision;
use serde_json::{Map, Value};

/// Most times Stop hooks may send the model back in one run.
pub(crate) const MAX_STOP_BLOCKS: usize = 3;

/// One moment: its event, what a matcher sees, the call it is about, and
/// the event's own input fields.
struct Moment<'a> {
    event: HookEvent,
    subject: Option<&'a str>,
    call: Option<&'a ToolCall>,
    fields: Map<String, Value>,
}

/// A hook's recorded run and what it decided.
struct Fired {
    seq: EventSeq,
    decision: HookDecision,
    reason: Option<String>,
}

/// Runs the moment's hooks in order, recording each; before a tool call
/// it stops at the first deny.
async fn fire(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    cause: EventSeq,
    moment: Moment<'_>,
) -> Result<Vec<Fired>, AppError> {
    if rec.tape().is_some() {
        return fire_recorded(rec, grants, &moment);
    }
    let hooks = deps.hooks.matching(moment.event, moment.subject);
    if hooks.is_empty() {
        return Ok(Vec::new());
    }
    let sandbox = hook_sandbox(deps);
    let base = InputBase {
        event: moment.event,
        run_id: rec.run_id().to_string(),
        cwd: &sandbox.cwd.display().to_string(),
        permission_mode: permission_mode(deps),
    };
    let input = input_json(&base, moment.fields);
    let _writing = deps.hooks.mark_writing();
    let mut fired = Vec::new();
    for (source, hook) in hooks {
        let (mut run, seen) = run_watched(rec, deps, grants, hook, &input, &sandbox).await?;
        let decision = run.verdict.decision;
        let reason = run.verdict.reason.clone();
        let seq = rec.record(
            Some(cause),
            EventPayload::HookRan {
                hook: moment.event,
                source,
                command: hook.command.clone(),
                call_id: moment.call.map(|c| c.call_id.clone()),
                exit_code: run.exit_code,
                timed_out: run.timed_out,
                duration_ms: run.duration_ms,
                decision,
                reason: run.verdict.reason,
                for_model: run.verdict.for_model,
                warning: run.verdict.warning.take(),
                stdout: run.stdout,
                stderr: run.stderr,
            },
        )?;
        if let Some((before, after)) = &seen {
            let call_id = moment.call.map(|c| &c.call_id);
            let snapshots = (before, after);
            record_hook_changes(rec, grants, seq, call_id, &hook.command, snapshots)?;
        }
        fired.push(Fired {
            seq,
            decision,
            reason,
        });
        if decision == HookDecision::Deny {
            break;
        }
    }
    Ok(fired)
}

/// Runs one hook between two snapshots of the workspace, so what it
/// changes is recorded like a command's changes (none in plan mode: the
/// workspace is read-only to it). A workspace that cannot be snapshotted
/// before: the hook does not run; after: its changes cannot be proven and
/// the run is told in its warning.
async fn run_watched(
    rec: &Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    hook: &CheckedHook,
    input: &Value,
    sandbox: &HookSandbox,
) -> Result<(HookRun, Option<(Snapshot, Snapshot)>), AppError> {
    let cancel = deps.cancel.child_token();
    if sandbox.access == WorkspaceAccess::ReadOnly {
        return Ok((run_hook(hook, input, sandbox, cancel).await, None));
    }
    let before = match take_snapshot(rec, deps, grants).await? {
        Ok(before) => before,
        Err(why) => {
            let why =
                format!("the hook did not run: the workspace could not be snapshotted ({why})");
            return Ok((not_run(hook, &why), None));
        }
    };
    let mut run = run_hook(hook, input, sandbox, cancel).await;
    match take_snapshot(rec, deps, grants).await? {
        Ok(after) => Ok((run, Some((before, after)))),
        Err(why) => {
            let note = format!("the files it changed could not be listed ({why})");
            run.verdict.warning = Some(match run.verdict.warning.take() {
                Some(w) => format!("{w}; {note}"),
                None => note,
            });
            Ok((run, None))
        }
    }
}

/// In a replay no hook runs: its recorded runs at this moment are taken,
/// each with the changes it made (the stage takes them as they pass, and
/// the run has seen the hook's versions).
fn fire_recorded(
    rec: &mut Recorder,
    grants: &mut RunGrants,
    moment: &Moment<'_>,
) -> Result<Vec<Fired>, AppError> {
    let call_id = moment.call.map(|c| &c.call_id);
    let mut fired = Vec::new();
    loop {
        rec.absorb_beside()?;
        let next = rec
            .tape()
            .and_then(|t| t.ahead().first())
            .map(|e| e.payload.clone());
        let Some(EventPayload::HookRan {
            hook,
            call_id: on,
            decision,
            reason,
            ..
        }) = next
        else {
            break;
        };
        if hook != moment.event || on.as_ref() != call_id {
            break;
        }
        if let Some(seq) = rec.copy_recorded()? {
            fired.push(Fired {
                seq,
                decision,
                reason,
            });
        }
        copy_hook_changes(rec, grants)?;
    }
    Ok(fired)
}

/// Whether hooks run at this moment: the run's own, or in a replay the
/// recorded ones (after the call's request, which may come first).
fn has_hooks(
    rec: &mut Recorder,
    deps: &LoopDeps,
    event: HookEvent,
    subject: Option<&str>,
    call: Option<&ToolCall>,
) -> Result<bool, AppError> {
    rec.absorb_beside()?;
    let Some(tape) = rec.tape() else {
        return Ok(!deps.hooks.matching(event, subject).is_empty());
    };
    let call_id = call.map(|c| &c.call_id);
    let requested = |e: &&bearagent_kernel::EventEnvelope| matches!(&e.payload, EventPayload::ToolCallRequested { call, .. } if Some(&call.call_id) == call_id);
    let ran = |e: &bearagent_kernel::EventEnvelope| {
        matches!(&e.payload, EventPayload::HookRan { hook, call_id: on, .. }
            if *hook == event && on.as_ref() == call_id)
    };
    Ok(tape
        .ahead()
        .iter()
        .take(2)
        .find(|e| !requested(e))
        .is_some_and(ran))
}

/// The command sandbox with the network off, in the run's folder, the
/// user's hooks folder readable, and the project folder named as Claude
/// Code's hooks expect.
fn hook_sandbox(deps: &LoopDeps) -> HookSandbox {
    let mut settings = deps.profile.commands.clone();
    settings.network = false;
    let root = deps.workspace.path();
    let mut policy = deps.host.policy(root, &settings);
    // Read whole: the user's own scripts, not configuration to screen for
    // credentials (a script that mentions a secret is still their code).
    if let Some(dir) = &deps.hooks.hooks_dir {
        policy.readable_home_dirs.push(dir.clone());
    }
    let project = root.display().to_string();
    policy
        .env
        .push(("CLAUDE_PROJECT_DIR".into(), project.clone()));
    policy.env.push(("BEARAGENT_PROJECT_DIR".into(), project));
    // Plan mode changes nothing in the workspace, hooks included.
    let access = if deps.profile.plan_mode {
        WorkspaceAccess::ReadOnly
    } else {
        WorkspaceAccess::Writable
    };
    HookSandbox {
        settings,
        access,
        policy,
        cwd: root.to_path_buf(),
    }
}

/// Claude Code's name for how the run asks.
fn permission_mode(deps: &LoopDeps) -> &'static str {
    if deps.profile.plan_mode {
        return "plan";
    }
    match deps.profile.approval_mode {
        ApprovalMode::AllowAll => "bypassPermissions",
        ApprovalMode::AskWrites | ApprovalMode::AskAll => "default",
    }
}

fn fields(pairs: Vec<(&str, Value)>) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// At a fresh run's start: untrusted project hooks are told once, then
/// SessionStart and UserPromptSubmit hooks run. `Some(reason)` when a
/// hook blocked the goal (the run then fails with it).
pub(crate) async fn run_start(
    rec: &mut Recorder,
    deps: &LoopDeps,
    goal: &str,
) -> Result<Option<String>, AppError> {
    // Nothing is seen yet at the start; the snapshots' cache is not kept.
    let grants = &mut RunGrants::default();
    rec.absorb_beside()?;
    let mut cause = rec.last_seq().unwrap_or(EventSeq(1));
    let told = rec
        .tape()
        .and_then(|t| t.ahead().first())
        .is_some_and(|e| matches!(e.payload, EventPayload::HooksNotTrusted { .. }));
    if told {
        cause = rec.copy_recorded()?.unwrap_or(cause);
    } else if let Some(untrusted) = &deps.hooks.untrusted {
        cause = rec.record(
            Some(cause),
            EventPayload::HooksNotTrusted {
                file: untrusted.file.clone(),
                content_hash: untrusted.content_hash.clone(),
                commands: untrusted.commands.clone(),
            },
        )?;
    }
    let start = Moment {
        event: HookEvent::SessionStart,
        subject: Some("startup"),
        call: None,
        fields: fields(vec![("source", "startup".into())]),
    };
    fire(rec, deps, grants, cause, start).await?;
    let cause = rec.last_seq().unwrap_or(cause);
    let prompt = Moment {
        event: HookEvent::UserPromptSubmit,
        subject: None,
        call: None,
        fields: fields(vec![("prompt", goal.into())]),
    };
    let fired = fire(rec, deps, grants, cause, prompt).await?;
    Ok(fired
        .into_iter()
        .find(|f| f.decision == HookDecision::Block)
        .map(|f| f.reason.unwrap_or_default()))
}

/// What PreToolUse hooks made of the policy's decision.
#[allow(
    clippy::large_enum_variant,
    reason = "lives for one call's path; boxing would add nothing"
)]
pub(crate) enum PreTool {
    Decided(PolicyDecision),
    Ended(ToolStepEnd),
}

/// PreToolUse: a hook's deny refuses the call (the reason reaches the
/// model), its ask turns an allow into a question, its allow answers the
/// policy's question where the user's own mode or rules asked — never a
/// firm one (`FirmAsk`). A policy deny is never loosened: hooks do not run.
pub(crate) async fn pre_tool_use(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    requested: &mut Requested,
    call: &ToolCall,
    decision: PolicyDecision,
) -> Result<PreTool, AppError> {
    let name = call.tool_name.as_str();
    if matches!(decision, PolicyDecision::Deny { .. })
        || !has_hooks(rec, deps, HookEvent::PreToolUse, Some(name), Some(call))?
    {
        return Ok(PreTool::Decided(decision));
    }
    let cause = requested.seq(rec)?;
    let moment = Moment {
        event: HookEvent::PreToolUse,
        subject: Some(name),
        call: Some(call),
        fields: tool_fields(call),
    };
    let fired = fire(rec, deps, grants, cause, moment).await?;
    let strongest = [HookDecision::Deny, HookDecision::Ask, HookDecision::Allow]
        .into_iter()
        .find_map(|d| fired.iter().find(|f| f.decision == d));
    let Some(hook) = strongest else {
        return Ok(PreTool::Decided(decision));
    };
    Ok(match (hook.decision, decision) {
        (HookDecision::Deny, _) => {
            let why = hook.reason.clone().unwrap_or_default();
            let message = format!("refused by a PreToolUse hook: {why}");
            PreTool::Ended(fail(rec, hook.seq, &call.call_id, message)?)
        }
        (HookDecision::Ask, PolicyDecision::Allow(authorized)) => {
            PreTool::Decided(PolicyDecision::Ask(authorized.into_request()))
        }
        // A fail-closed question (sandbox off, an unprovable command, the
        // project folder) is the user's: a hook may tighten, never loosen.
        (HookDecision::Allow, PolicyDecision::Ask(request)) if request.firm_reason().is_some() => {
            PreTool::Decided(PolicyDecision::Ask(request))
        }
        (HookDecision::Allow, PolicyDecision::Ask(request)) => {
            let recorded = rec.events().iter().rev().find(|e| e.seq == hook.seq);
            match recorded.map(|e| request.allow_by_hook(&call.call_id, e)) {
                Some(Ok(authorized)) => PreTool::Decided(PolicyDecision::Allow(authorized)),
                Some(Err(e)) => {
                    let message = format!("not run: {e}");
                    PreTool::Ended(fail(rec, hook.seq, &call.call_id, message)?)
                }
                None => return Err(AppError::Corrupt("a hook's decision went missing".into())),
            }
        }
        (_, decision) => PreTool::Decided(decision),
    })
}

fn tool_fields(call: &ToolCall) -> Map<String, Value> {
    fields(vec![
        ("tool_name", call.tool_name.as_str().into()),
        ("tool_input", Value::Object(call.arguments.clone())),
        ("tool_use_id", call.call_id.as_str().into()),
    ])
}

/// PostToolUse, after a call that succeeded: the hooks see its result;
/// what they say reaches the model after the turn's results.
pub(crate) async fn post_tool_use(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    call: &ToolCall,
) -> Result<(), AppError> {
    let name = call.tool_name.as_str();
    if !has_hooks(rec, deps, HookEvent::PostToolUse, Some(name), Some(call))? {
        return Ok(());
    }
    let Some((seq, result)) = completion_of(rec, call) else {
        return Ok(());
    };
    let mut fields = tool_fields(call);
    fields.insert(
        "tool_response".into(),
        serde_json::json!({ "content": result.content, "is_error": result.is_error }),
    );
    let moment = Moment {
        event: HookEvent::PostToolUse,
        subject: Some(name),
        call: Some(call),
        fields,
    };
    fire(rec, deps, grants, seq, moment).await?;
    Ok(())
}

/// The call's `ToolCallCompleted`, when it succeeded.
fn completion_of(rec: &Recorder, call: &ToolCall) -> Option<(EventSeq, ToolResult)> {
    rec.events().iter().rev().find_map(|e| match &e.payload {
        EventPayload::ToolCallCompleted { result, .. } if result.call_id == call.call_id => {
            Some((e.seq, result.clone()))
        }
        _ => None,
    })
}

/// Stop, after the model's final answer: true when a hook sent the model
/// back to work (at most [`MAX_STOP_BLOCKS`] times a run).
pub(crate) async fn stop(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    completed: EventSeq,
) -> Result<bool, AppError> {
    if !has_hooks(rec, deps, HookEvent::Stop, None, None)? {
        return Ok(false);
    }
    let blocks = stop_blocks(rec);
    let moment = Moment {
        event: HookEvent::Stop,
        subject: None,
        call: None,
        fields: fields(vec![("stop_hook_active", (blocks > 0).into())]),
    };
    let fired = fire(rec, deps, grants, completed, moment).await?;
    let blocked = fired.iter().any(|f| f.decision == HookDecision::Block);
    Ok(blocked && blocks < MAX_STOP_BLOCKS)
}

/// How many times Stop hooks sent this run's model back.
fn stop_blocks(rec: &Recorder) -> usize {
    rec.events()
        .iter()
        .filter(|e| {
            matches!(
                e.payload,
                EventPayload::HookRan {
                    hook: HookEvent::Stop,
                    decision: HookDecision::Block,
                    ..
                }
            )
        })
        .count()
}

/// PreCompact, before the context is compacted (`trigger`: auto).
pub(crate) async fn pre_compact(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    trigger: &str,
) -> Result<(), AppError> {
    if !has_hooks(rec, deps, HookEvent::PreCompact, Some(trigger), None)? {
        return Ok(());
    }
    let cause = rec.last_seq().unwrap_or(EventSeq(1));
    let moment = Moment {
        event: HookEvent::PreCompact,
        subject: Some(trigger),
        call: None,
        fields: fields(vec![
            ("trigger", trigger.into()),
            ("custom_instructions", "".into()),
        ]),
    };
    fire(rec, deps, grants, cause, moment).await?;
    Ok(())
}
