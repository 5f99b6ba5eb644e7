//! One tool call's path: exact lookup (which also decides the route) →
//! prepare → loop guard → policy → approval → the route's room (file tool,
//! command, MCP). Floor 3 of `run/`: it sits above the rooms and below the
//! driver.

use super::approvals::Decision;
use super::asking::{approval_summary, approved, record_decision, Asked};
use super::deps::{LoopDeps, Route, RunGrants};
use super::outcome::{denied, fail, ToolStepEnd};
use super::receipts::remember_prepared;
use super::recorder::Recorder;
use super::requested::{ask_after, Requested, StartAfter};
use super::stop::stop_if_needed;
use super::{
    command_step, file_step, hook_step, instructions, loops, mcp_step, replay_room, task_step,
    web_step,
};
use crate::AppError;
use bearagent_kernel::{EventSeq, NextCall, TextCallDialect, ToolCall};
use bearagent_tools::{
    ApprovalRequest, Authority, AuthorizedCall, FirmAsk, PolicyDecision, PreparedCall,
};

/// The call prepared against the workspace, or why its arguments are
/// refused (a replay prepares on its stage).
fn prepare(
    rec: &Recorder,
    deps: &LoopDeps,
    route: &Route,
    call: &ToolCall,
) -> Result<PreparedCall, String> {
    match rec.tape() {
        Some(tape) => replay_room::prepare(tape, deps, route, call),
        None => (route.tool().prepare(&call.arguments, &deps.workspace))
            .map_err(|e| format!("invalid arguments: {e}")),
    }
}

/// What the policy and the user made of a call.
#[allow(
    clippy::large_enum_variant,
    reason = "lives for one call's path and is moved twice; boxing would add nothing"
)]
enum Authorized {
    Run(AuthorizedCall),
    Ended(ToolStepEnd),
}

pub(crate) async fn run_tool_call(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    completed: EventSeq,
    call: ToolCall,
    parsed_from_text: Option<TextCallDialect>,
) -> Result<ToolStepEnd, AppError> {
    if stop_if_needed(rec, deps, NextCall::Tool)? {
        return Ok(ToolStepEnd::RunEnded);
    }
    let mut requested = Requested::new(completed, call.clone(), parsed_from_text);
    let Some(route) = deps.route(call.tool_name.as_str()) else {
        let requested = requested.seq(rec)?;
        return fail(
            rec,
            requested,
            &call.call_id,
            unknown_tool(deps, rec, &call),
        );
    };
    let prepared = match prepare(rec, deps, &route, &call) {
        Ok(p) => p,
        Err(why) => {
            let requested = requested.seq(rec)?;
            return fail(rec, requested, &call.call_id, why);
        }
    };
    remember_prepared(grants, &prepared);
    // The folder's own AGENTS.md (nearest wins) informs the turns after it.
    if let Some(target) = prepared.write_target() {
        requested.seq(rec)?;
        let root = deps.workspace.path().to_path_buf();
        instructions::load_nested_for(rec, &root, &target.rel_path)?;
    }
    let user_approval =
        match loops::guard(rec, deps, grants, &mut requested, &call, &prepared).await? {
            loops::Guarded::Proceed { user_approval } => user_approval,
            loops::Guarded::Ended(end) => return Ok(end),
        };
    let decision = deps
        .policy_with(&grants.command_rules)
        .decide(route.tool().spec(), prepared);
    // The web checks tighten before the hooks see the decision, so a
    // hook's allow never answers a firm web question.
    let decision = web_step::gate(rec, deps, &route, decision);
    let decision =
        match hook_step::pre_tool_use(rec, deps, grants, &mut requested, &call, decision).await? {
            hook_step::PreTool::Decided(decision) => decision,
            hook_step::PreTool::Ended(end) => return Ok(end),
        };
    let authorized = match authorize(
        rec,
        deps,
        grants,
        &mut requested,
        &call,
        decision,
        user_approval,
    )
    .await?
    {
        Authorized::Run(authorized) => authorized,
        Authorized::Ended(end) => return Ok(end),
    };
    // Not recorded yet: nothing happened since, and an approval from
    // before (for the run, or the turn) is older than the request.
    let after = match (requested.seq, authorized.authority()) {
        (Some(requested), Authority::User { approval }) if approval > requested => {
            StartAfter::Event(approval)
        }
        (Some(_), Authority::Hook { decision }) => StartAfter::Event(decision),
        (Some(requested), _) => StartAfter::Event(requested),
        (None, _) => StartAfter::Request(requested),
    };
    executed(rec, deps, grants, route, &call, authorized, after).await
}

/// The call through its room, then the PostToolUse hooks on its result.
async fn executed(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    route: Route,
    call: &ToolCall,
    authorized: AuthorizedCall,
    after: StartAfter,
) -> Result<ToolStepEnd, AppError> {
    let end = execute_routed(rec, deps, grants, route, call, authorized, after).await?;
    if let ToolStepEnd::Continue = end {
        hook_step::post_tool_use(rec, deps, grants, call).await?;
    }
    Ok(end)
}

/// "unknown tool …; available tools: …" — the model gets the list.
fn unknown_tool(deps: &LoopDeps, rec: &Recorder, call: &ToolCall) -> String {
    let known: Vec<String> = crate::mcp::model_tools(&deps.registry, rec.events())
        .into_iter()
        .map(|s| s.name)
        .collect();
    format!(
        "unknown tool {:?}; available tools: {}",
        call.tool_name.as_str(),
        known.join(", ")
    )
}

/// The policy's decision, with an "ask" answered by a decision already
/// recorded ("always for this run", the rest of this turn, the user's "let
/// it go on" after a loop) or by asking the user now.
async fn authorize(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    requested: &mut Requested,
    call: &ToolCall,
    decision: PolicyDecision,
    user_approval: Option<EventSeq>,
) -> Result<Authorized, AppError> {
    let request = match decision {
        PolicyDecision::Allow(authorized) => return Ok(Authorized::Run(authorized)),
        PolicyDecision::Deny { reason } => {
            let requested = requested.seq(rec)?;
            let end = fail(
                rec,
                requested,
                &call.call_id,
                format!("refused by policy: {reason}"),
            )?;
            return Ok(Authorized::Ended(end));
        }
        PolicyDecision::Ask(request) => request,
    };
    let approved_before = match grants.rest_of_turn {
        // A "no" to the rest of the turn refuses it.
        Some((false, denied_at)) => {
            requested.seq(rec)?;
            let why = "the user denied this and the rest of the calls in your turn".into();
            return Ok(Authorized::Ended(fail(rec, denied_at, &call.call_id, why)?));
        }
        Some((true, approved_at)) => Some(approved_at),
        None => None,
    };
    let standing = grants
        .tools
        .get(call.tool_name.as_str())
        .copied()
        .or(approved_before)
        .filter(|_| request.standing_approval_reaches());
    let earlier = standing.or(user_approval);
    if let Some(approved_at) = earlier {
        return by_recorded_approval(rec, requested, call, request, approved_at);
    }
    let mut summary = approval_summary(deps, &grants.command_rules, request.call());
    match request.firm_reason() {
        Some(firm @ FirmAsk::ProjectFolder) => summary = format!("{summary} · {}", firm.reason()),
        Some(firm @ (FirmAsk::WebUrl | FirmAsk::Tainted)) => {
            if let Some(note) = web_step::ask_note(rec, deps, request.call(), firm) {
                summary = format!("{summary} · {note}");
            }
        }
        _ => {}
    }
    match ask_after(rec, deps, requested, call, &summary).await? {
        Asked::Granted {
            seq,
            scope,
            allow_prefix,
            network,
        } => {
            grants.remember_scope(call, scope, true, seq);
            grants.remember_prefix(allow_prefix, network);
            by_recorded_approval(rec, requested, call, request, seq)
        }
        Asked::Denied { seq, reason, scope } => {
            grants.remember_scope(call, scope, false, seq);
            Ok(Authorized::Ended(denied(rec, seq, &call.call_id, reason)?))
        }
        Asked::Cancelled => Ok(Authorized::Ended(ToolStepEnd::RunEnded)),
    }
}

/// The request answered by the recorded `ApprovalGranted` at `granted`.
fn by_recorded_approval(
    rec: &mut Recorder,
    requested: &mut Requested,
    call: &ToolCall,
    request: ApprovalRequest,
    granted: EventSeq,
) -> Result<Authorized, AppError> {
    match approved(rec, request, &call.call_id, granted) {
        Ok(authorized) => Ok(Authorized::Run(authorized)),
        Err(why) => {
            let requested = requested.seq(rec)?;
            let end = fail(rec, requested, &call.call_id, format!("not run: {why}"))?;
            Ok(Authorized::Ended(end))
        }
    }
}

/// Hands the authorised call to its route's room: the one way each kind
/// of tool runs.
async fn execute_routed(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    route: Route,
    call: &ToolCall,
    authorized: AuthorizedCall,
    mut after: StartAfter,
) -> Result<ToolStepEnd, AppError> {
    let call_id = call.call_id.clone();
    // A task's room is the same live and in a replay: the record of its
    // child, not the tape, gives its result (after the turn's calls).
    if let Route::Task(_) = route {
        return task_step::start_task(rec, deps, grants, call_id, &authorized, after);
    }
    if rec.tape().is_some() {
        return replay_room::replay_room(rec, deps, grants, &route, &call_id, &authorized, after);
    }
    match route {
        Route::Workspace(tool) => {
            file_step::execute_file_tool(rec, deps, grants, tool, call_id, authorized, after).await
        }
        Route::Command(tool) => {
            let cause = after.seq(rec)?;
            command_step::execute_command(rec, deps, grants, tool, call_id, authorized, cause).await
        }
        Route::Mcp(tool) => {
            let cause = after.seq(rec)?;
            mcp_step::execute_mcp(rec, deps, grants, call_id, tool, authorized, cause).await
        }
        Route::Web(tool) => {
            let cause = after.seq(rec)?;
            web_step::execute_web(rec, deps, grants, tool, call_id, authorized, cause).await
        }
        Route::Task(_) => task_step::start_task(rec, deps, grants, call_id, &authorized, after),
    }
}

/// Continues a run resumed after a restart at its pending approval: the
/// call is prepared again (prepare is pure), the user's decision recorded,
/// and the call executed or the denial fed back. Nothing ran before.
pub(crate) async fn resume_decided(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut RunGrants,
    asked: EventSeq,
    call: ToolCall,
    decision: Decision,
) -> Result<ToolStepEnd, AppError> {
    let call_id = call.call_id.clone();
    let route = deps.route(call.tool_name.as_str());
    // An MCP tool whose server did not start again after the restart: the
    // decision is recorded, then the call fails and the model is told.
    let prepared = route
        .as_ref()
        .map(|route| route.tool().prepare(&call.arguments, &deps.workspace));
    if let Some(Ok(p)) = &prepared {
        remember_prepared(grants, p);
    }
    let seq = match record_decision(rec, asked, &call, decision)? {
        Asked::Granted {
            seq,
            scope,
            allow_prefix,
            network,
        } => {
            grants.remember_prefix(allow_prefix, network);
            grants.remember_scope(&call, scope, true, seq);
            seq
        }
        Asked::Denied { seq, reason, scope } => {
            grants.remember_scope(&call, scope, false, seq);
            return denied(rec, seq, &call_id, reason);
        }
        Asked::Cancelled => return Ok(ToolStepEnd::RunEnded),
    };
    let (route, prepared) = match (route, prepared) {
        (Some(route), Some(Ok(prepared))) => (route, prepared),
        (_, Some(Err(e))) => return fail(rec, seq, &call_id, format!("invalid arguments: {e}")),
        (_, None) | (None, _) => return fail(rec, seq, &call_id, not_available(&call)),
    };
    match redecide(rec, deps, grants, &route, &call, prepared, seq)? {
        Authorized::Run(authorized) => {
            let after = StartAfter::Event(seq);
            execute_routed(rec, deps, grants, route, &call, authorized, after).await
        }
        Authorized::Ended(end) => Ok(end),
    }
}

fn not_available(call: &ToolCall) -> String {
    format!(
        "tool {} is not available since the restart (its MCP server did not start)",
        call.tool_name
    )
}

/// The same path as before the restart: the policy decides again, and the
/// recorded approval answers its "ask".
fn redecide(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &RunGrants,
    route: &Route,
    call: &ToolCall,
    prepared: PreparedCall,
    granted: EventSeq,
) -> Result<Authorized, AppError> {
    let decision = deps
        .policy_with(&grants.command_rules)
        .decide(route.tool().spec(), prepared);
    match web_step::gate(rec, deps, route, decision) {
        PolicyDecision::Allow(authorized) => Ok(Authorized::Run(authorized)),
        PolicyDecision::Ask(request) => match approved(rec, request, &call.call_id, granted) {
            Ok(authorized) => Ok(Authorized::Run(authorized)),
            Err(why) => Ok(Authorized::Ended(fail(
                rec,
                granted,
                &call.call_id,
                format!("not run: {why}"),
            )?)),
        },
        PolicyDecision::Deny { reason } => Ok(Authorized::Ended(fail(
            rec,
            granted,
            &call.call_id,
            format!("refused by policy: {reason}"),
        )?)),
    }
}
