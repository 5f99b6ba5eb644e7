//! One prompt of a session: a BearAgent run (the session's first run, or a
//! follow-up of its newest), followed live and told to the editor as
//! `session/update`s; its approvals asked as `session/request_permission`;
//! its end as the prompt's stop reason.

use super::ctx::{app_error, invalid, Ctx};
use super::permission;
use super::sessions::Session;
use super::updates::{self, text_content};
use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, RequestPermissionRequest, SessionNotification, SessionUpdate,
    StopReason, TextContent, ToolCallStatus,
};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{Client, Error};
use bearagent_kernel::{
    BudgetKind, CallId, EventEnvelope, EventPayload, EventSeq, HookDecision, HookEvent, RunId,
    RunStatus, ToolCall,
};
use bearagent_runtime::{LiveEvent, ProposedChange, StartRun, ThreadStart};
use std::collections::HashMap;
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

/// Starts the prompt's run; `None` with the error when it could not start.
pub fn start(ctx: &Ctx, session: &Session, prompt: super::prompt::Prompt) -> Result<RunId, Error> {
    let (profile, provider) = ctx
        .choice
        .for_run(&ctx.app, session.mode)
        .map_err(invalid)?;
    let start = StartRun {
        workspace: session.workspace.clone(),
        goal: prompt.goal,
        profile,
        provider,
        images: prompt.images,
    };
    let started = match session.last_run {
        None => ctx.app.start_run_as(start, session.first_run),
        Some(parent) => ctx.app.start_follow_up(
            start,
            ThreadStart {
                run_id: parent,
                at: None,
            },
        ),
    };
    started.map_err(|e| app_error(&e))
}

/// What the editor has been told of the run so far.
struct Follower<'a> {
    ctx: &'a Ctx,
    conn: &'a ConnectionTo<Client>,
    session_id: &'a str,
    workspace: &'a str,
    run: RunId,
    cancel: &'a CancellationToken,
    next: EventSeq,
    calls: HashMap<CallId, ToolCall>,
    changes: HashMap<CallId, ProposedChange>,
    outputs: HashMap<CallId, String>,
}

/// Follows `run` until it settles, telling the editor; the stop reason.
pub async fn follow(
    ctx: &Ctx,
    conn: &ConnectionTo<Client>,
    session_id: &str,
    session: &Session,
    run: RunId,
    mut live: tokio::sync::broadcast::Receiver<LiveEvent>,
    cancel: &CancellationToken,
) -> Result<StopReason, Error> {
    let mut f = Follower {
        ctx,
        conn,
        session_id,
        workspace: &session.workspace,
        run,
        cancel,
        next: EventSeq::FIRST,
        calls: HashMap::new(),
        changes: HashMap::new(),
        outputs: HashMap::new(),
    };
    let mut cancel_sent = false;
    // Subscribed before the run started: the bus has all of it, in order,
    // text between the events it belongs between. The store fills gaps.
    loop {
        if f.settled() {
            break;
        }
        let event = tokio::select! {
            e = live.recv() => e,
            _ = cancel.cancelled(), if !cancel_sent => {
                cancel_sent = true;
                let _ = ctx.app.cancel_run(run);
                continue;
            }
        };
        match event {
            Ok(LiveEvent::Committed(e)) if e.run_id == run => {
                if e.seq > f.next {
                    f.catch_up(Some(e.seq)).await?;
                }
                if e.seq == f.next {
                    f.committed(&e).await?;
                }
            }
            Ok(e) if e.run_id() == run => f.transient(e)?,
            Ok(_) => {}
            Err(RecvError::Lagged(n)) => {
                tracing::warn!(
                    missed = n,
                    "the ACP follower fell behind; reading the store"
                );
                f.catch_up(None).await?;
            }
            Err(RecvError::Closed) => break,
        }
    }
    stop_reason(ctx, run)
}

impl Follower<'_> {
    /// The run has ended and the editor was told all of it.
    fn settled(&self) -> bool {
        self.ctx.app.get_run(self.run).is_ok_and(|p| {
            let ended = p.status.is_terminal() || p.status == RunStatus::Interrupted;
            ended && p.last_seq.get() < self.next.get()
        })
    }

    /// Tells the editor the stored events it has not been told yet, up to
    /// `through` (all of them without).
    async fn catch_up(&mut self, through: Option<EventSeq>) -> Result<(), Error> {
        loop {
            let after = EventSeq(self.next.get() - 1);
            let limit = through.map_or(500, |t| t.get().saturating_sub(after.get()).min(500));
            if limit == 0 {
                return Ok(());
            }
            let limit = u32::try_from(limit).unwrap_or(500);
            let events = self
                .ctx
                .app
                .list_events(self.run, after, limit)
                .map_err(|e| app_error(&e))?;
            if events.is_empty() {
                return Ok(());
            }
            for e in &events {
                self.committed(e).await?;
            }
        }
    }

    fn send(&self, update: SessionUpdate) -> Result<(), Error> {
        self.conn
            .send_notification(SessionNotification::new(self.session_id.to_owned(), update))
    }

    /// Model text and command output as they stream.
    fn transient(&mut self, e: LiveEvent) -> Result<(), Error> {
        match e {
            LiveEvent::TextDelta { text, .. } => self.send(SessionUpdate::AgentMessageChunk(
                ContentChunk::new(ContentBlock::Text(TextContent::new(text))),
            )),
            LiveEvent::CommandOutput { call_id, text, .. } => {
                let output = self.outputs.entry(call_id.clone()).or_default();
                output.push_str(&text);
                let content = vec![text_content(output)];
                let update = updates::status(
                    &updates::call_id(self.run, &call_id),
                    ToolCallStatus::InProgress,
                    content,
                );
                self.send(SessionUpdate::ToolCallUpdate(update))
            }
            LiveEvent::Committed(_) | LiveEvent::TextDiscarded { .. } => Ok(()),
            LiveEvent::RunAborted { message, .. } => Err(Error::internal_error().data(message)),
        }
    }

    async fn committed(&mut self, e: &EventEnvelope) -> Result<(), Error> {
        if e.seq < self.next {
            return Ok(());
        }
        self.next = e.seq.next();
        match &e.payload {
            EventPayload::ToolCallRequested { call, .. } => {
                if let Ok(Some(change)) = self.ctx.app.proposed_change(self.run, call) {
                    self.changes.insert(call.call_id.clone(), change);
                }
                self.calls.insert(call.call_id.clone(), call.clone());
                let shown = updates::tool_call(self.run, call, self.workspace);
                self.send(SessionUpdate::ToolCall(shown))
            }
            EventPayload::ApprovalRequested { call_id, .. } => self.ask(call_id).await,
            EventPayload::ToolCallStarted { call_id } => {
                let id = updates::call_id(self.run, call_id);
                let update = updates::status(&id, ToolCallStatus::InProgress, vec![]);
                self.send(SessionUpdate::ToolCallUpdate(update))
            }
            EventPayload::ToolCallCompleted {
                result, receipt, ..
            } => {
                let id = &result.call_id;
                // What the write did, from its receipt: the diff computed
                // when it was requested may already see the write itself
                // (a call not asked about runs before we look).
                let asked = self.changes.remove(id);
                let done = receipt
                    .as_ref()
                    .and_then(|r| self.ctx.app.recorded_change(id, r).ok())
                    .or(asked);
                let mut content: Vec<_> = done
                    .map(|c| updates::diff_content(&c, self.workspace))
                    .into_iter()
                    .collect();
                content.push(text_content(&result.content));
                let update = updates::status(
                    &updates::call_id(self.run, id),
                    ToolCallStatus::Completed,
                    content,
                );
                self.send(SessionUpdate::ToolCallUpdate(update))
            }
            EventPayload::ToolCallFailed { result } => {
                let content = vec![text_content(&result.content)];
                let id = updates::call_id(self.run, &result.call_id);
                let update = updates::status(&id, ToolCallStatus::Failed, content);
                self.send(SessionUpdate::ToolCallUpdate(update))
            }
            // The fetch's facts (URLs, status, size, digest) while its
            // result, the page's text, follows as the completion.
            EventPayload::WebFetched { call_id, fetch } => self.progress(call_id, &fetch.line()),
            EventPayload::WebFetchFailed { call_id, failure } => {
                self.progress(call_id, &failure.line())
            }
            EventPayload::TodoUpdated { items } => {
                self.send(SessionUpdate::Plan(updates::plan(items)))
            }
            _ => Ok(()),
        }
    }

    /// An in-progress update of a call with one line of text.
    fn progress(&self, call_id: &CallId, text: &str) -> Result<(), Error> {
        let id = updates::call_id(self.run, call_id);
        let update = updates::status(&id, ToolCallStatus::InProgress, vec![text_content(text)]);
        self.send(SessionUpdate::ToolCallUpdate(update))
    }

    /// Asks the editor about a call and records its answer; a cancelled
    /// prompt stops waiting (the run's cancellation answers it).
    async fn ask(&mut self, call_id: &CallId) -> Result<(), Error> {
        let Some(call) = self.calls.get(call_id) else {
            return Ok(());
        };
        let mut content = Vec::new();
        if let Some(change) = self.changes.get(call_id) {
            content.push(updates::diff_content(change, self.workspace));
        }
        let shown = updates::tool_call(self.run, call, self.workspace);
        let id = updates::call_id(self.run, call_id);
        let update = updates::status(&id, ToolCallStatus::Pending, content);
        let mut fields = update.fields;
        fields.title = Some(shown.title);
        fields.kind = Some(shown.kind);
        fields.raw_input = shown.raw_input;
        let request = RequestPermissionRequest::new(
            self.session_id.to_owned(),
            agent_client_protocol::v1::schema::ToolCallUpdate::new(id, fields),
            permission::options(),
        );
        let answer = tokio::select! {
            a = self.conn.send_request(request).block_task() => a,
            _ = self.cancel.cancelled() => return Ok(()),
        };
        let decision = match answer {
            Ok(response) => permission::decision(&response.outcome),
            Err(e) => {
                tracing::warn!(error = ?e, "the editor did not answer a permission request");
                permission::decision(
                    &agent_client_protocol::v1::schema::RequestPermissionOutcome::Cancelled,
                )
            }
        };
        if let Err(e) = self
            .ctx
            .app
            .decide_approval(self.run, call_id.as_str(), decision)
        {
            tracing::warn!(error = %e, "a permission answer came too late");
        }
        Ok(())
    }
}

/// The prompt's stop reason from how the run ended: a goal a
/// UserPromptSubmit hook blocked is a refusal (the editor shows it as
/// such, not as a crash); any other failed or interrupted run is an error
/// naming why.
fn stop_reason(ctx: &Ctx, run: RunId) -> Result<StopReason, Error> {
    let p = ctx.app.get_run(run).map_err(|e| app_error(&e))?;
    if matches!(p.status, RunStatus::Failed { .. }) && goal_refused(ctx, run)? {
        return Ok(StopReason::Refusal);
    }
    match p.status {
        RunStatus::Succeeded => Ok(StopReason::EndTurn),
        RunStatus::Cancelled => Ok(StopReason::Cancelled),
        RunStatus::BudgetExhausted {
            which: BudgetKind::InputTokens | BudgetKind::OutputTokens,
        } => Ok(StopReason::MaxTokens),
        RunStatus::BudgetExhausted { .. } => Ok(StopReason::MaxTurnRequests),
        RunStatus::Failed { reason } => {
            Err(Error::internal_error().data(format!("the run failed: {reason}")))
        }
        other => Err(Error::internal_error().data(format!("the run ended {}", other.name()))),
    }
}

/// Whether a UserPromptSubmit hook blocked the run's goal (recorded as its
/// `hook_ran`, before any model call).
fn goal_refused(ctx: &Ctx, run: RunId) -> Result<bool, Error> {
    let events = ctx
        .app
        .list_events(run, EventSeq(0), 10_000)
        .map_err(|e| app_error(&e))?;
    Ok(events.iter().any(|e| {
        matches!(
            e.payload,
            EventPayload::HookRan {
                hook: HookEvent::UserPromptSubmit,
                decision: HookDecision::Block,
                ..
            }
        )
    }))
}
