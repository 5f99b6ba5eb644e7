//! One prompt of a session: a BearAgent run (the session's first run, or a
//! follow-up of its newest), followed live and told to the editor as
//! `session/update`s; its approvals asked as `session/request_permission`;
//! its end as the prompt's stop reason.

use super::ctx::{app_error, invalid, Ctx};
use super::sessions::Session;
use super::updates::{self, text_content};
use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, SessionNotification, SessionUpdate, StopReason, TextContent,
    ToolCallStatus,
};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{Client, Error};
use bearagent_kernel::{
    BudgetKind, CallId, DelegatedBy, EventEnvelope, EventPayload, EventSeq, HookDecision,
    HookEvent, RunId, RunStatus, ToolCall, TASK_TOOL,
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

/// What the editor has been told of the run and its helpers so far.
pub(super) struct Follower<'a> {
    pub(super) ctx: &'a Ctx,
    pub(super) conn: &'a ConnectionTo<Client>,
    pub(super) session_id: &'a str,
    pub(super) workspace: &'a str,
    run: RunId,
    pub(super) cancel: &'a CancellationToken,
    /// The prompt's run and its helper runs at any depth (delegation):
    /// each with the next event the editor has not been told of.
    followed: HashMap<RunId, Followed>,
    pub(super) calls: HashMap<(RunId, CallId), ToolCall>,
    pub(super) changes: HashMap<(RunId, CallId), ProposedChange>,
    outputs: HashMap<CallId, String>,
}

/// A run the prompt follows: its next event, and for a helper its label.
struct Followed {
    next: EventSeq,
    label: Option<String>,
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
        followed: HashMap::from([(
            run,
            Followed {
                next: EventSeq::FIRST,
                label: None,
            },
        )]),
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
            Ok(LiveEvent::Committed(e)) => {
                let Some(next) = f.next_of(e.run_id) else {
                    continue;
                };
                if e.seq > next {
                    f.catch_up(e.run_id, Some(e.seq)).await?;
                }
                if f.next_of(e.run_id) == Some(e.seq) {
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
                f.catch_up_all().await?;
            }
            Err(RecvError::Closed) => break,
        }
    }
    stop_reason(ctx, run)
}

impl Follower<'_> {
    /// The run has ended and the editor was told all of it.
    fn settled(&self) -> bool {
        let next = self.next_of(self.run).unwrap_or(EventSeq::FIRST);
        self.ctx.app.get_run(self.run).is_ok_and(|p| {
            let ended = p.status.is_terminal() || p.status == RunStatus::Interrupted;
            ended && p.last_seq.get() < next.get()
        })
    }

    /// The next event of `run` the editor has not been told of; None for a
    /// run this prompt does not follow.
    fn next_of(&self, run: RunId) -> Option<EventSeq> {
        self.followed.get(&run).map(|f| f.next)
    }

    /// A helper a followed run's `task` call starts: its id is derived
    /// from the call's, so it is known before its first event (and after
    /// a lag that lost its `run_created`).
    fn follow_helper(&mut self, run: RunId, call: &ToolCall) {
        if call.tool_name.as_str() != TASK_TOOL {
            return;
        }
        let label = call
            .arguments
            .get("description")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("helper");
        let child = DelegatedBy::child_run_id(run, &call.call_id);
        self.followed.entry(child).or_insert(Followed {
            next: EventSeq::FIRST,
            label: Some(format!("helper \"{label}\"")),
        });
    }

    /// A call's title in the editor: a helper's calls are labelled with it.
    pub(super) fn title(&self, run: RunId, headline: String) -> String {
        match self.followed.get(&run).and_then(|f| f.label.as_deref()) {
            Some(label) => format!("{label}: {headline}"),
            None => headline,
        }
    }

    /// Catches up every followed run from the store (after a lag).
    async fn catch_up_all(&mut self) -> Result<(), Error> {
        let mut done = std::collections::HashSet::new();
        // Catching up may find new helpers; go until none is left.
        while let Some(run) = self.followed.keys().find(|r| !done.contains(*r)).copied() {
            done.insert(run);
            self.catch_up(run, None).await?;
        }
        Ok(())
    }

    /// Tells the editor the stored events of `run` it has not been told
    /// yet, up to `through` (all of them without).
    async fn catch_up(&mut self, run: RunId, through: Option<EventSeq>) -> Result<(), Error> {
        loop {
            let Some(next) = self.next_of(run) else {
                return Ok(());
            };
            let after = EventSeq(next.get() - 1);
            let limit = through.map_or(500, |t| t.get().saturating_sub(after.get()).min(500));
            if limit == 0 {
                return Ok(());
            }
            let limit = u32::try_from(limit).unwrap_or(500);
            let events = self
                .ctx
                .app
                .list_events(run, after, limit)
                .map_err(|e| app_error(&e))?;
            if events.is_empty() {
                return Ok(());
            }
            for e in &events {
                self.committed(e).await?;
            }
        }
    }

    pub(super) fn send(&self, update: SessionUpdate) -> Result<(), Error> {
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
        let run = e.run_id;
        match self.followed.get_mut(&run) {
            Some(f) if e.seq >= f.next => f.next = e.seq.next(),
            _ => return Ok(()),
        }
        match &e.payload {
            EventPayload::ToolCallRequested { call, .. } => {
                self.follow_helper(run, call);
                let key = (run, call.call_id.clone());
                if let Ok(Some(change)) = self.ctx.app.proposed_change(run, call) {
                    self.changes.insert(key.clone(), change);
                }
                self.calls.insert(key, call.clone());
                let mut shown = updates::tool_call(run, call, self.workspace);
                shown.title = self.title(run, shown.title);
                self.send(SessionUpdate::ToolCall(shown))
            }
            EventPayload::ApprovalRequested { call_id, .. } => self.ask(run, call_id).await,
            EventPayload::ToolCallStarted { call_id } => {
                let id = updates::call_id(run, call_id);
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
                let asked = self.changes.remove(&(run, id.clone()));
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
                    &updates::call_id(run, id),
                    ToolCallStatus::Completed,
                    content,
                );
                self.send(SessionUpdate::ToolCallUpdate(update))
            }
            EventPayload::ToolCallFailed { result } => {
                let content = vec![text_content(&result.content)];
                let id = updates::call_id(run, &result.call_id);
                let update = updates::status(&id, ToolCallStatus::Failed, content);
                self.send(SessionUpdate::ToolCallUpdate(update))
            }
            // The fetch's facts (URLs, status, size, digest) while its
            // result, the page's text, follows as the completion.
            EventPayload::WebFetched { call_id, fetch } => {
                self.progress(run, call_id, &fetch.line())
            }
            EventPayload::WebFetchFailed { call_id, failure } => {
                self.progress(run, call_id, &failure.line())
            }
            // The editor's plan is the prompt's run's, not a helper's.
            EventPayload::TodoUpdated { items } if run == self.run => {
                self.send(SessionUpdate::Plan(updates::plan(items)))
            }
            _ => Ok(()),
        }
    }

    /// An in-progress update of a call with one line of text.
    fn progress(&self, run: RunId, call_id: &CallId, text: &str) -> Result<(), Error> {
        let id = updates::call_id(run, call_id);
        let update = updates::status(&id, ToolCallStatus::InProgress, vec![text_content(text)]);
        self.send(SessionUpdate::ToolCallUpdate(update))
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
