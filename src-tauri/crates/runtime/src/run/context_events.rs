//! What the model sees of each event, in each context version: the
//! conversation items an event becomes (most events are facts for the
//! user and become none).

use super::preview::preview;
use bearagent_kernel::{
    Action, ContextCaps, EventEnvelope, EventPayload, HistoryItem, Message, ModelErrorClass, Role,
    ToolResult,
};

/// How a context version reads events.
#[derive(Clone, Copy)]
pub(super) struct Flavour {
    /// The model's own text beside its tool calls is kept (v2).
    pub(super) narration: bool,
    /// What the user reverted or re-applied of a run's files after it
    /// ended is told, where it happened (v3), so a follow-up does not
    /// redo what the user threw away.
    pub(super) reviews: bool,
}

/// The current way of reading events.
pub(super) const CURRENT: Flavour = Flavour {
    narration: true,
    reviews: true,
};

pub(super) fn history_from_events(
    events: &[EventEnvelope],
    caps: &ContextCaps,
    flavour: Flavour,
) -> Vec<HistoryItem> {
    let mut history = Vec::new();
    // What hooks tell the model waits until the turn's tool results are
    // all in: nothing may stand between a turn's calls and their results.
    let mut hook_notes = Vec::new();
    for event in events {
        if let EventPayload::HookRan {
            hook,
            for_model: Some(text),
            ..
        } = &event.payload
        {
            hook_notes.push(user(format!("[{} hook] {text}", hook.name())));
            continue;
        }
        // A file a hook changed: the model's next edit applies to the
        // hook's version, so it is told.
        if let EventPayload::ArtifactRecorded {
            path,
            by_hook: Some(hook),
            ..
        } = &event.payload
        {
            hook_notes.push(user(format!("[hook `{hook}`] changed {path}")));
            continue;
        }
        let at = history.len();
        push_items(&mut history, &event.payload, caps, flavour);
        let added_other = history[at..]
            .iter()
            .any(|item| !matches!(item, HistoryItem::ToolResult(_)));
        if added_other && !hook_notes.is_empty() {
            let added: Vec<HistoryItem> = history.drain(at..).collect();
            history.append(&mut hook_notes);
            history.extend(added);
        }
    }
    history.append(&mut hook_notes);
    history
}

/// What the model sees of one event. Every kind is decided here: most are
/// facts for the user, not the conversation (a fetch, too: the model reads
/// it as the call's result, marked as untrusted web content).
fn push_items(
    history: &mut Vec<HistoryItem>,
    payload: &EventPayload,
    caps: &ContextCaps,
    flavour: Flavour,
) {
    match payload {
        EventPayload::RunCreated { .. } => history.extend(goal_items(payload)),
        EventPayload::ModelCallCompleted { action, text, .. } => {
            push_turn(history, action, text, flavour)
        }
        EventPayload::ModelCallFailed {
            class: ModelErrorClass::InvalidOutput,
            message,
            ..
        } => history.push(unusable_reply(message)),
        EventPayload::RewindStarted { to, redo, paths } if flavour.reviews => {
            history.push(user(rewind_note(*to, *redo, paths)));
        }
        p if flavour.reviews && told_review(p).is_some() => history.extend(told_review(p).map(user)),
        EventPayload::ToolCallCompleted { result, .. }
        | EventPayload::ToolCallFailed { result } => history.push(previewed(result, caps)),
        EventPayload::RunStarted
        | EventPayload::ModelCallRequested { .. }
        | EventPayload::ModelCallStarted { .. }
        | EventPayload::ModelCallRetryScheduled { .. }
        | EventPayload::ModelCallFailed { .. }
        | EventPayload::ToolCallRequested { .. }
        | EventPayload::ApprovalRequested { .. }
        | EventPayload::ApprovalGranted { .. }
        | EventPayload::ApprovalDenied { .. }
        | EventPayload::ToolCallStarted { .. }
        | EventPayload::EffectIntended { .. }
        | EventPayload::ArtifactRecorded { .. }
        | EventPayload::ExternalChangeObserved { .. }
        | EventPayload::EffectVerified { .. }
        | EventPayload::EffectUnknown { .. }
        | EventPayload::RunSucceeded { .. }
        | EventPayload::RunFailed { .. }
        | EventPayload::RunCancelled { .. }
        | EventPayload::BudgetExhausted { .. }
        | EventPayload::RunInterrupted { .. }
        | EventPayload::RunResumed
        | EventPayload::ToolModeSwitched { .. }
        | EventPayload::LoopDetected { .. }
        | EventPayload::McpServerStarted { .. }
        | EventPayload::McpServerUnavailable { .. }
        | EventPayload::InstructionsLoaded { .. }
        | EventPayload::ContextCompacted { .. }
        | EventPayload::CommandStarted { .. }
        | EventPayload::CommandFinished { .. }
        | EventPayload::WebFetched { .. }
        | EventPayload::WebFetchFailed { .. }
        | EventPayload::ArtifactReverted { .. }
        | EventPayload::ArtifactReapplied { .. }
        | EventPayload::ArtifactHunksReverted { .. }
        | EventPayload::ArtifactKept { .. }
        | EventPayload::ArtifactHunksKept { .. }
        | EventPayload::ReviewIntended { .. }
        | EventPayload::RewindStarted { .. }
        | EventPayload::ArtifactRewound { .. }
        | EventPayload::ArtifactEdited { .. }
        | EventPayload::ReviewAbandoned { .. }
        | EventPayload::WorktreeApplied { .. }
        | EventPayload::WorktreeRemoved { .. }
        | EventPayload::WorktreeStep { .. }
        // The update_plan call and its result carry the list already.
        | EventPayload::TodoUpdated { .. }
        // What a hook tells the model is placed by `history_from_events`;
        // a refusal reaches it as the call's failed result.
        | EventPayload::HookRan { .. }
        | EventPayload::HooksNotTrusted { .. } => {}
    }
}

/// An invalid reply fed back, asking for another.
fn unusable_reply(message: &str) -> HistoryItem {
    user(format!(
        "Your previous reply could not be used: {message}. Reply again with one valid action."
    ))
}

/// A tool's result as the model sees it: a large one previewed.
fn previewed(result: &ToolResult, caps: &ContextCaps) -> HistoryItem {
    HistoryItem::ToolResult(ToolResult {
        call_id: result.call_id.clone(),
        content: preview(&result.content, caps.max_tool_result_bytes as usize),
        is_error: result.is_error,
        images: result.images.clone(),
    })
}

/// The goal (with its images), and in plan mode what the model is told
/// after it.
pub(super) fn goal_items(created: &EventPayload) -> Vec<HistoryItem> {
    let EventPayload::RunCreated {
        goal,
        images,
        plan_mode,
        ..
    } = created
    else {
        return Vec::new();
    };
    let mut items = vec![HistoryItem::Message(
        Message::new(Role::User, goal.clone()).with_images(images.clone()),
    )];
    if *plan_mode {
        items.push(user(PLAN_MODE_NOTE.into()));
    }
    items
}

/// What a plan-mode run's model is told after the goal.
pub(super) const PLAN_MODE_NOTE: &str = "[BearAgent] Plan mode: first make a plan, do not change anything. \
You may read files, list folders and search; writes, edits, commands and tools that act are refused. \
When you know enough, give your plan as the final answer, in Markdown: the steps, the files each touches, \
and how you will check the result. The user approves, edits or comments on it; then it is carried out.";

fn user(text: String) -> HistoryItem {
    HistoryItem::Message(Message::new(Role::User, text))
}

/// What the model is told of a rewind of the files after the run.
fn rewind_note(to: bearagent_kernel::EventSeq, redo: bool, paths: &[String]) -> String {
    let mut listed: Vec<String> = paths.iter().take(20).map(|p| format!("`{p}`")).collect();
    if paths.len() > listed.len() {
        listed.push(format!("and {} more", paths.len() - listed.len()));
    }
    let listed = listed.join(", ");
    if redo {
        format!("[BearAgent] After that, the user undid their rewind: {listed} hold your changes again.")
    } else {
        format!(
            "[BearAgent] After that, the user rewound the files to how they were at event {} of the run: \
             {listed} no longer hold what you did after that point. Do not redo it unless asked.",
            to.0
        )
    }
}

/// What the model is told of the user's review of a file after the run
/// (None: a review it is not told of, or no review).
fn told_review(payload: &EventPayload) -> Option<String> {
    match payload {
        EventPayload::ArtifactReverted { path, .. }
        | EventPayload::ArtifactReapplied { path, .. }
        | EventPayload::ArtifactHunksReverted { path, .. }
        | EventPayload::ArtifactHunksKept { path, .. }
        | EventPayload::ArtifactEdited { path, .. } => Some(review_note(path, payload)),
        _ => None,
    }
}

fn review_note(path: &str, payload: &EventPayload) -> String {
    match payload {
        EventPayload::ArtifactReapplied { .. } => {
            format!("[BearAgent] After that, the user re-applied your change to `{path}`.")
        }
        EventPayload::ArtifactEdited { diff, .. } => format!(
            "[BearAgent] After that, the user edited your change to `{path}` and kept their version. \
             Build on it; do not undo it unless asked. Lines marked - were yours, + are the user's:\n{diff}"
        ),
        EventPayload::ArtifactHunksKept { hunks, diff, .. } => format!(
            "[BearAgent] After that, the user reviewed {} of your change to `{path}` and kept {}. \
             Build on it; do not undo it unless asked. Lines marked + are yours and stay:\n{diff}",
            bearagent_kernel::hunk_list(hunks),
            if hunks.len() == 1 { "it" } else { "them" }
        ),
        EventPayload::ArtifactHunksReverted { hunks, diff, .. } => format!(
            "[BearAgent] After that, the user reverted {} of your change to `{path}` (the rest stays). \
             Do not make it again unless asked. Lines marked + were yours and are gone:\n{diff}",
            bearagent_kernel::hunk_list(hunks)
        ),
        _ => format!(
            "[BearAgent] After that, the user reverted your change to `{path}`: it holds what it held before. \
             Do not make that change again unless asked."
        ),
    }
}

/// A model turn: all of its calls first, then their results as they come
/// (the shape every protocol wants for parallel calls); or its answer.
fn push_turn(history: &mut Vec<HistoryItem>, action: &Action, text: &str, flavour: Flavour) {
    match action {
        Action::ToolCalls { calls } => {
            if flavour.narration && !text.trim().is_empty() {
                history.push(HistoryItem::Message(Message::new(
                    Role::Assistant,
                    text.to_owned(),
                )));
            }
            history.extend(calls.iter().cloned().map(HistoryItem::ToolCall))
        }
        Action::FinalAnswer(answer) => history.push(HistoryItem::Message(Message::new(
            Role::Assistant,
            answer.content.clone(),
        ))),
    }
}
