//! ContextBuilder: each model request is assembled from committed events
//! only, so the same events always give byte-identical context, and "what
//! the model saw" can be rebuilt for any past call.

use bearagent_kernel::{
    ContentHash, ContextCaps, EventEnvelope, EventPayload, EventSeq, HistoryItem, Message, Role,
    ToolResult,
};
use bearagent_providers::{ModelRequest, ToolSchema};
use std::sync::Arc;

use super::context_events::{history_from_events, Flavour, CURRENT};
use super::context_profile::{
    compact_rules, compact_tools, ContextProfile, COMPACT_CONTEXT_VERSION,
    COMPACT_MAX_OUTPUT_TOKENS,
};
pub use super::preview::preview;
use std::borrow::Cow;

/// Bumped whenever the way context is assembled changes. Every version
/// ever recorded stays buildable, so "what the model saw" rebuilds a past
/// call exactly as it was sent.
pub const CONTEXT_VERSION: &str = "context-v3";
/// What a run records at its start of the versions and settings it runs
/// with: the context format, the provider, whether it is scripted, and the
/// tool mode (in native mode the loop reads calls printed as text,
/// `text_calls.rs`).
pub(crate) fn recorded_versions(
    info: &bearagent_providers::ProviderInfo,
    provider: &dyn bearagent_providers::ModelProvider,
    profile: ContextProfile,
) -> std::collections::BTreeMap<String, String> {
    std::collections::BTreeMap::from([
        ("context".to_owned(), profile_version(profile).to_owned()),
        (
            "provider".to_owned(),
            format!("{}:{}", info.name, info.model),
        ),
        ("scripted".to_owned(), info.scripted.to_string()),
        ("tool_mode".to_owned(), provider.tool_mode().to_string()),
    ])
}

/// v3 without the user's reviews of earlier runs' files.
const CONTEXT_V2: &str = "context-v2";
/// Goal, answers, calls and results of this run only.
const CONTEXT_V1: &str = "context-v1";

const RUNTIME_RULES: &str = "You are BearAgent, a careful coding agent working inside one workspace folder. \
Use the tools to inspect and change files; paths are relative to the workspace root. \
Every write may need the user's approval; a denied call comes back as an error result with the user's reason — adapt instead of retrying the same call. \
Tool results may be shortened to a head and tail preview; read narrower ranges when you need the middle. \
When the goal is met, answer with a concise summary of what you did and where.";

#[derive(Debug, Clone, PartialEq)]
pub struct BuiltContext {
    pub request: ModelRequest,
    pub version: &'static str,
    /// Size of the serialised request.
    pub bytes: u64,
    /// SHA-256 over the request: its system prompt, tools and output cap,
    /// then each history item's own SHA-256 (so the loop hashes only what
    /// changed). Recorded on `ModelCallRequested`; a replay compares it.
    pub digest: ContentHash,
}

/// What one model request is built from: committed events only (the
/// run's, its ancestors' up to where it branched) and the texts of the
/// instructions its events reference.
pub struct ContextInput<'a> {
    /// The runs this one continues, oldest first, each cut at the event
    /// the next one branched from.
    pub ancestors: &'a [Vec<EventEnvelope>],
    pub events: &'a [EventEnvelope],
    pub tools: &'a [ToolSchema],
    pub caps: &'a ContextCaps,
    pub workspace: &'a str,
    /// Project instructions in force: (workspace-relative path, text),
    /// shallowest folder first.
    pub instructions: &'a [(String, String)],
    /// The text of the summary of the thread's latest compaction (the blob
    /// [`latest_compaction`] names); None when there is none.
    pub summary: Option<&'a str>,
}

/// Where the thread's latest compaction is: the index of its run among
/// `ancestors` then `events` (so `ancestors.len()` is the run itself), the
/// last seq it replaced, and its summary blob.
pub fn latest_compaction<'a>(
    ancestors: &'a [Vec<EventEnvelope>],
    events: &'a [EventEnvelope],
) -> Option<(usize, EventSeq, &'a ContentHash)> {
    let runs = ancestors
        .iter()
        .map(Vec::as_slice)
        .chain(std::iter::once(events));
    runs.enumerate()
        .filter_map(|(i, run)| {
            run.iter().rev().find_map(|e| {
                if let EventPayload::ContextCompacted {
                    summary,
                    replaced_through_seq,
                    ..
                } = &e.payload
                {
                    Some((i, *replaced_through_seq, summary))
                } else {
                    None
                }
            })
        })
        .last()
}

/// How the summary opens in the history the model sees.
const SUMMARY_HEAD: &str =
    "Summary of the conversation so far (earlier messages were compacted into it):";

pub(super) fn item_bytes(item: &HistoryItem) -> usize {
    match item {
        HistoryItem::Message(m) => m.content.len(),
        HistoryItem::ToolCall(c) => c.arguments.len() * 16 + c.tool_name.as_str().len(),
        HistoryItem::ToolResult(r) => r.content.len(),
    }
}

fn omitted_marker(bytes: usize) -> String {
    format!("[result omitted to fit the context: {bytes} bytes]")
}

/// [`fit`] for callers outside the builder (the compaction request).
pub fn fit_history(history: &mut [HistoryItem], max_bytes: usize) {
    fit(history, max_bytes);
}

/// Keeps the total under the cap by replacing the oldest tool results'
/// content with a marker, oldest first. The goal and the calls stay.
fn fit(history: &mut [HistoryItem], max_bytes: usize) {
    let mut total: usize = history.iter().map(item_bytes).sum();
    cut_oldest(history, &mut total, &mut 0, max_bytes);
}

/// Replaces results with a marker, from item `*next` on, until `*total`
/// (the history's [`item_bytes`]) fits `max_bytes`. Both are carried
/// over, so the loop's cache can go on where its last step stopped.
pub(super) fn cut_oldest(
    history: &mut [HistoryItem],
    total: &mut usize,
    next: &mut usize,
    max_bytes: usize,
) {
    while *next < history.len() && *total > max_bytes {
        if let HistoryItem::ToolResult(result) = &mut history[*next] {
            let before = result.content.len();
            result.content = omitted_marker(before);
            *total = *total - before + result.content.len();
        }
        *next += 1;
    }
}

/// Length of the JSON encoding, counted without building it.
fn serialized_len(value: &impl serde::Serialize) -> u64 {
    measured(value).0
}

/// Length and SHA-256 of the JSON encoding, without building it.
pub(super) fn measured(value: &impl serde::Serialize) -> (u64, [u8; 32]) {
    use sha2::Digest;
    struct Counter(u64, sha2::Sha256);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len() as u64;
            self.1.update(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0, sha2::Sha256::new());
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => (counter.0, counter.1.finalize().into()),
        Err(_) => (0, [0; 32]),
    }
}

/// The request's digest from its parts: everything but the history, then
/// the digest of each history item in order.
fn request_digest(request: &ModelRequest, item_digests: &[[u8; 32]]) -> ContentHash {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    hasher.update(head_digest(request));
    for digest in item_digests {
        hasher.update(digest);
    }
    ContentHash::from_digest(hasher.finalize().into())
}

/// The SHA-256 of the request's parts other than its history.
pub(super) fn head_digest(request: &ModelRequest) -> [u8; 32] {
    measured(&(&request.system, &request.tools, request.max_output_tokens)).1
}

/// A calls of an ancestor that never got its result (the run stopped, or
/// the fork cut between the call and its result) gets one saying so: every
/// protocol wants each call answered.
fn close_open_calls(history: &mut Vec<HistoryItem>) {
    let answered: std::collections::HashSet<&str> = history
        .iter()
        .filter_map(|i| match i {
            HistoryItem::ToolResult(r) => Some(r.call_id.as_str()),
            HistoryItem::Message(_) | HistoryItem::ToolCall(_) => None,
        })
        .collect();
    let open: Vec<_> = history
        .iter()
        .filter_map(|i| match i {
            HistoryItem::ToolCall(c) if !answered.contains(c.call_id.as_str()) => {
                Some(c.call_id.clone())
            }
            HistoryItem::ToolCall(_) | HistoryItem::Message(_) | HistoryItem::ToolResult(_) => None,
        })
        .collect();
    for call_id in open {
        history.push(HistoryItem::ToolResult(ToolResult {
            call_id,
            content: "not run: that run ended before this call finished".into(),
            is_error: true,
            images: Vec::new(),
        }));
    }
}

/// The context version a run of `profile` builds its requests with.
pub(super) fn profile_version(profile: ContextProfile) -> &'static str {
    match profile {
        ContextProfile::Full => CONTEXT_VERSION,
        ContextProfile::Compact => COMPACT_CONTEXT_VERSION,
    }
}

/// The system prompt and tools a request of `version` carries: a
/// compact request has the short rules and the cut tool list.
pub(super) fn head_parts<'a>(
    version: &str,
    input: &ContextInput<'a>,
) -> (String, Cow<'a, [ToolSchema]>) {
    if version == COMPACT_CONTEXT_VERSION {
        let system = system_prompt(compact_rules(), input.workspace, input.instructions);
        (system, Cow::Owned(compact_tools(input.tools)))
    } else {
        let system = system_prompt(RUNTIME_RULES, input.workspace, input.instructions);
        (system, Cow::Borrowed(input.tools))
    }
}

/// The output cap a request of `version` carries (None: the provider's).
pub(super) fn output_cap(version: &str) -> Option<u32> {
    (version == COMPACT_CONTEXT_VERSION).then_some(COMPACT_MAX_OUTPUT_TOKENS)
}

fn system_prompt(rules: &str, workspace: &str, instructions: &[(String, String)]) -> String {
    let mut system = format!("{rules}\nWorkspace: {workspace}");
    if !instructions.is_empty() {
        system.push_str(
            "\n\nProject instructions follow. Those in a deeper folder take precedence for files under that folder.",
        );
    }
    for (path, text) in instructions {
        system.push_str(&format!("\n\n--- {path} ---\n{text}"));
    }
    system
}

/// The request for the next model call, in the current version of the
/// run's profile.
pub fn build(input: &ContextInput<'_>) -> BuiltContext {
    let version = profile_version(ContextProfile::of_run(input.events));
    build_flavour(input, CURRENT, version)
}

/// The request as the recorded `version` built it.
pub fn rebuild(version: &str, input: &ContextInput<'_>) -> Option<BuiltContext> {
    match version {
        CONTEXT_VERSION => Some(build_flavour(input, CURRENT, CONTEXT_VERSION)),
        COMPACT_CONTEXT_VERSION => Some(build_flavour(input, CURRENT, COMPACT_CONTEXT_VERSION)),
        CONTEXT_V2 => Some(build_flavour(
            input,
            Flavour {
                reviews: false,
                ..CURRENT
            },
            CONTEXT_V2,
        )),
        CONTEXT_V1 => Some(build_flavour(
            &ContextInput {
                ancestors: &[],
                instructions: &[],
                summary: None,
                ..*input
            },
            Flavour {
                narration: false,
                reviews: false,
            },
            CONTEXT_V1,
        )),
        _ => None,
    }
}

fn build_flavour(
    input: &ContextInput<'_>,
    flavour: Flavour,
    version: &'static str,
) -> BuiltContext {
    finish(input, unfitted_history(input, flavour), version)
}

/// The request from a history: cut to the caps, measured.
fn finish(
    input: &ContextInput<'_>,
    mut history: Vec<HistoryItem>,
    version: &'static str,
) -> BuiltContext {
    fit(&mut history, input.caps.max_context_bytes as usize);
    request_from(input, Arc::new(history), version)
}

/// The request from a history already fitted, measured.
fn request_from(
    input: &ContextInput<'_>,
    history: Arc<Vec<HistoryItem>>,
    version: &'static str,
) -> BuiltContext {
    let (system, tools) = head_parts(version, input);
    let request = ModelRequest {
        system,
        history,
        tools: Arc::new(tools.into_owned()),
        max_output_tokens: output_cap(version),
        images: Default::default(),
    };
    let bytes = serialized_len(&request);
    let items: Vec<[u8; 32]> = request.history.iter().map(|i| measured(i).1).collect();
    let digest = request_digest(&request, &items);
    BuiltContext {
        request,
        version,
        bytes,
        digest,
    }
}

/// Ancestors (or the latest compaction's summary), then the run's own
/// items: everything before fitting.
pub(super) fn unfitted_history(input: &ContextInput<'_>, flavour: Flavour) -> Vec<HistoryItem> {
    let mut history = Vec::new();
    let current = input.ancestors.len();
    // Everything before the latest compaction is its summary; the run's own
    // goal stays first whatever was compacted.
    let compaction = latest_compaction(input.ancestors, input.events);
    if let (Some((at, _, _)), Some(summary)) = (compaction, input.summary) {
        if at == current {
            if let Some(created) = input.events.first() {
                history.extend(super::context_events::goal_items(&created.payload));
            }
        }
        history.push(HistoryItem::Message(Message::new(
            Role::User,
            format!("{SUMMARY_HEAD}\n{summary}"),
        )));
        // The todo list outlives the summary: its calls were summarised.
        if let Some(items) = latest_todo(input) {
            history.push(HistoryItem::Message(Message::new(
                Role::User,
                format!(
                    "[BearAgent] Your todo list so far (keep it with update_plan):\n{}",
                    bearagent_kernel::todo_checklist(items)
                ),
            )));
        }
    }
    let runs = input
        .ancestors
        .iter()
        .map(Vec::as_slice)
        .chain(std::iter::once(input.events));
    for (i, run) in runs.enumerate() {
        let run = match compaction {
            Some((at, _, _)) if i < at => continue,
            Some((at, through, _)) if i == at => {
                let from = run.partition_point(|e| e.seq <= through);
                &run[from..]
            }
            _ => run,
        };
        let mut part = history_from_events(run, input.caps, flavour);
        if i < current {
            close_open_calls(&mut part);
        }
        history.extend(part);
    }
    history
}

/// The thread's latest todo list, newest run first.
fn latest_todo<'a>(input: &'a ContextInput<'_>) -> Option<&'a [bearagent_kernel::TodoItem]> {
    std::iter::once(input.events)
        .chain(input.ancestors.iter().rev().map(Vec::as_slice))
        .flat_map(|run| run.iter().rev())
        .find_map(|e| match &e.payload {
            EventPayload::TodoUpdated { items } => Some(items.as_slice()),
            _ => None,
        })
}

#[cfg(test)]
#[path = "context_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "context_thread_tests.rs"]
mod thread_tests;
