//! Token-aware context: every request is estimated in tokens against the
//! model's window. Past the profile's share of it, a compaction call
//! summarises the conversation, recorded as `ContextCompacted`; later
//! requests are the goal, the summary and what followed. With compaction
//! off, a request over the window fails the run clearly. Nothing is ever
//! dropped silently.

use super::context::{self, BuiltContext, ContextInput};
use super::context_cache::ContextCache;
use super::deps::LoopDeps;
use super::recorded_texts;
use super::recorder::Recorder;
use super::stop::stop_if_needed;
use super::{images, instructions};
use crate::AppError;
use bearagent_kernel::{
    EventEnvelope, EventPayload, EventSeq, HistoryItem, Message, NewEvent, NextCall, Role,
    TokenUsage,
};
use bearagent_providers::{complete, ModelRequest, ToolSchema, COMPACTION_PROMPT};

/// Bytes per token when no call of the run has reported its usage yet
/// (the conservative end for code and prose).
const BYTES_PER_TOKEN: f64 = 3.0;
/// The newest turn stays verbatim unless it alone is over this share of
/// the window.
const VERBATIM_TAIL_SHARE: f64 = 0.25;
/// Attempts at a usable (non-empty) summary before the run fails.
const SUMMARY_ATTEMPTS: u32 = 2;
/// Longest summary asked for.
const SUMMARY_MAX_TOKENS: u32 = 2_000;

const INSTRUCTIONS: &str = "Write a handoff summary another engineer could continue from, as plain text: \
the goal; decisions made and why; progress so far; files read, created or changed; open problems; the next steps. \
Be specific (paths, names, numbers). Do not call tools.";

/// The next request as the run's events give it (with the loop's cache,
/// only the new events are mapped).
pub(super) fn build_request(
    rec: &Recorder,
    deps: &LoopDeps,
    tools: &[ToolSchema],
    events: &[EventEnvelope],
    mut cache: Option<&mut ContextCache>,
) -> Result<BuiltContext, AppError> {
    let (instructions, summary) = match cache.as_deref_mut() {
        Some(cache) => cache.texts.read(rec.store(), &deps.ancestors, events)?,
        None => (
            recorded_texts::instructions_in(rec.store(), events)?.into(),
            recorded_texts::summary_text(rec.store(), &deps.ancestors, events)?.map(Into::into),
        ),
    };
    let input = ContextInput {
        ancestors: &deps.ancestors,
        events,
        tools,
        caps: &deps.profile.context,
        workspace: &shown_workspace(rec, deps),
        instructions: &instructions,
        summary: summary.as_deref(),
    };
    let mut built = match cache {
        Some(cache) => cache.build(&input),
        None => context::build(&input),
    };
    let vision = deps.provider.info().vision;
    built.request = images::attach(rec.store(), vision, built.request)?;
    Ok(built)
}

/// Tokens a request of `bytes` is estimated at: calibrated by the run's
/// last call whose provider reported its input tokens, else 1 per 3 bytes.
pub fn estimate_tokens(events: &[EventEnvelope], bytes: u64) -> u64 {
    let per_byte = calibration(events).unwrap_or(1.0 / BYTES_PER_TOKEN);
    (bytes as f64 * per_byte).ceil() as u64
}

/// Tokens per byte of the latest completed call that reported its input,
/// over the bytes of the request before it. Read from the end: a step
/// looks back one call, not over the whole run.
fn calibration(events: &[EventEnvelope]) -> Option<f64> {
    // The latest reported input not yet matched with its request.
    let mut input = None;
    for e in events.iter().rev() {
        match &e.payload {
            EventPayload::ModelCallCompleted { usage, .. } if usage.input > 0 => {
                input.get_or_insert(usage.input);
            }
            EventPayload::ModelCallRequested { context_bytes, .. } => match input.take() {
                // Bounded: a provider's odd report must not make the
                // estimate absurd either way.
                Some(tokens) if *context_bytes > 0 => {
                    return Some((tokens as f64 / *context_bytes as f64).clamp(1.0 / 6.0, 1.0))
                }
                _ => {}
            },
            _ => {}
        }
    }
    None
}

/// Makes sure `built` fits the window: compacts when it passes the
/// profile's share. Returns the request to send and its estimated tokens;
/// `None`: the run ended (failed, cancelled or out of budget) and its
/// terminal event is recorded.
pub(super) async fn fit_window(
    rec: &mut Recorder,
    deps: &LoopDeps,
    grants: &mut super::deps::RunGrants,
    tools: &[ToolSchema],
    built: BuiltContext,
) -> Result<Option<(BuiltContext, u64)>, AppError> {
    let window = deps.provider.info().context_window;
    let before =
        estimate_tokens(rec.events(), built.bytes) + images::estimated_tokens(&built.request);
    let limit = deps
        .profile
        .context
        .compact_at_permille
        .map_or(window, |p| window.saturating_mul(u64::from(p)) / 1000);
    if before > limit {
        if let Some(why) = fixed_part_overflow(rec.events(), &built, window) {
            fail(rec, why)?;
            return Ok(None);
        }
    }
    let Some(permille) = deps.profile.context.compact_at_permille else {
        if before > window {
            fail(rec, format!(
                "the next request (~{before} tokens) is larger than the model's window ({window} tokens), and compaction is off in profile {} (compact = false)",
                deps.profile.name
            ))?;
            return Ok(None);
        }
        return Ok(Some((built, before)));
    };
    let threshold = window.saturating_mul(u64::from(permille)) / 1000;
    if before <= threshold {
        return Ok(Some((built, before)));
    }
    if stop_if_needed(rec, deps, NextCall::Model)? {
        return Ok(None);
    }
    let through = replaced_through(rec.events(), window);
    let already = context::latest_compaction(&deps.ancestors, rec.events())
        .filter(|(at, _, _)| *at == deps.ancestors.len())
        .map(|(_, seq, _)| seq);
    if already.is_some_and(|seq| seq >= through) {
        fail(rec, format!(
            "the context (~{before} tokens) still passes {permille}‰ of the model's window ({window} tokens) right after a compaction; nothing more can be summarised"
        ))?;
        return Ok(None);
    }
    super::hook_step::pre_compact(rec, deps, grants, "auto").await?;
    let (summary, usage) = match summarise(
        deps.provider.as_ref(),
        &deps.cancel,
        &built.request,
        window,
    )
    .await
    {
        Ok(done) => done,
        Err(why) => {
            fail(rec, format!("the context could not be compacted, so the run stops with its history intact: {why}"))?;
            return Ok(None);
        }
    };
    let compacted = Compacted {
        before,
        through,
        summary,
        usage,
    };
    record_compaction(rec, deps, tools, compacted)
}

/// Why no request can fit the window whatever is compacted: the part
/// every request repeats (the system prompt with the project's
/// instructions, and the tool schemas) is already as large as it.
fn fixed_part_overflow(
    events: &[EventEnvelope],
    built: &BuiltContext,
    window: u64,
) -> Option<String> {
    let system = estimate_tokens(events, context::measured(&built.request.system).0);
    let tools = estimate_tokens(events, context::measured(&built.request.tools).0);
    let fixed = system + tools;
    (fixed >= window).then(|| {
        format!(
            "the fixed part of every request (~{fixed} tokens: system prompt with project instructions ~{system}, \
             {} tool schemas ~{tools}) does not fit the model's window ({window} tokens), so nothing was sent; \
             use a model or server with a larger window (context_window, llama-server -c, Ollama's num_ctx), \
             or shorten AGENTS.md, or turn MCP servers off",
            built.request.tools.len()
        )
    })
}

/// Whether the run checks its usage reports for a silent cut: a run on a
/// declared local server (its `RunCreated` records what was learned).
/// Runs recorded before the check have none, so they replay unchanged.
pub(super) fn judges_usage(events: &[EventEnvelope]) -> bool {
    matches!(
        events.first().map(|e| &e.payload),
        Some(EventPayload::RunCreated {
            learned: Some(_),
            ..
        })
    )
}

/// Requests smaller than this are not judged for a silent cut: a
/// tokenizer's overhead and the estimate's slack dominate them.
const MIN_JUDGED_TOKENS: u64 = 2_048;

/// Why a reply cannot be trusted: the server says it read less than half
/// of a request estimated at `estimated` tokens (the estimate assumes 3
/// bytes a token; no text runs at 6), so it cut the prompt silently — as
/// Ollama does past its num_ctx.
pub(super) fn silent_cut(estimated: u64, reported: u64, window: u64) -> Option<String> {
    if estimated < MIN_JUDGED_TOKENS || reported == 0 || reported.saturating_mul(2) >= estimated {
        return None;
    }
    Some(format!(
        "the server reported {reported} prompt tokens for a request estimated at ~{estimated} tokens \
         (window {window}): it most likely cut the prompt silently to a smaller context than BearAgent \
         was told (Ollama's num_ctx, a llama-server started with a small -c), so the run stops rather \
         than go on blind; start the server with a larger context, or set context_window to the one it runs"
    ))
}

/// A compaction call's result, before it is recorded.
struct Compacted {
    before: u64,
    through: EventSeq,
    summary: String,
    usage: TokenUsage,
}

/// Records the compaction and builds the next request from it; the run
/// fails if even that is larger than the window.
fn record_compaction(
    rec: &mut Recorder,
    deps: &LoopDeps,
    tools: &[ToolSchema],
    done: Compacted,
) -> Result<Option<(BuiltContext, u64)>, AppError> {
    let Compacted {
        before,
        through,
        summary,
        usage,
    } = done;
    let window = deps.provider.info().context_window;
    let blob = rec
        .store()
        .put_blob(summary.as_bytes(), rec.clock().now())?;
    // The instructions are read again: what the model works from after a
    // compaction is the summary and the project's current rules.
    let root = deps.workspace.path().to_path_buf();
    instructions::load_instructions(rec, &root, "")?;
    // The next request, built with the event about to be recorded (its
    // size goes into the event; nothing the builder reads differs).
    let compacted = |tokens_after, cost_micro_usd| EventPayload::ContextCompacted {
        summary: blob.clone(),
        replaced_through_seq: through,
        tokens_before: before,
        tokens_after,
        usage,
        cost_micro_usd,
    };
    let next_seq = rec.last_seq().map_or(EventSeq(1), EventSeq::next);
    let mut events = rec.events().to_vec();
    events.push(
        NewEvent::new(rec.clock().now(), None, compacted(0, None))
            .into_envelope(rec.run_id(), next_seq),
    );
    let rebuilt = build_request(rec, deps, tools, &events, None)?;
    let after =
        estimate_tokens(rec.events(), rebuilt.bytes) + images::estimated_tokens(&rebuilt.request);
    let cost = super::spend::cost_of(rec, usage);
    rec.record(rec.last_seq(), compacted(after, cost))?;
    if after > window {
        fail(rec, format!(
            "even compacted, the next request (~{after} tokens) is larger than the model's window ({window} tokens)"
        ))?;
        return Ok(None);
    }
    Ok(Some((rebuilt, after)))
}

/// The last seq the compaction replaces: everything before the newest
/// model turn, which stays verbatim unless it alone is too large.
fn replaced_through(events: &[EventEnvelope], window: u64) -> EventSeq {
    let last = events.last().map_or(EventSeq(1), |e| e.seq);
    let Some(turn) = events
        .iter()
        .rev()
        .find(|e| matches!(e.payload, EventPayload::ModelCallCompleted { .. }))
    else {
        return last;
    };
    let tail_bytes: u64 = events
        .iter()
        .filter(|e| e.seq >= turn.seq)
        .map(|e| serde_json::to_vec(&e.payload).map_or(0, |v| v.len() as u64))
        .sum();
    let tail_tokens = (tail_bytes as f64 / BYTES_PER_TOKEN) as u64;
    if tail_tokens as f64 > window as f64 * VERBATIM_TAIL_SHARE || turn.seq.0 <= 1 {
        last
    } else {
        EventSeq(turn.seq.0 - 1)
    }
}

/// The compaction call: the conversation as it stands (oldest results cut
/// to fit the window), then the request for a summary; no tools.
pub(crate) async fn summarise(
    provider: &dyn bearagent_providers::ModelProvider,
    cancel: &tokio_util::sync::CancellationToken,
    request: &ModelRequest,
    window: u64,
) -> Result<(String, bearagent_kernel::TokenUsage), String> {
    let mut history = request.history.to_vec();
    // The summary request must fit too: its history gets what the window
    // leaves after the system prompt, the ask and room for the answer.
    let room = ((window as f64 * 0.75 * BYTES_PER_TOKEN) as usize)
        .saturating_sub(request.system.len() + INSTRUCTIONS.len() + COMPACTION_PROMPT.len());
    context::fit_history(&mut history, room);
    history.push(HistoryItem::Message(Message::new(
        Role::User,
        format!("{COMPACTION_PROMPT}\n{INSTRUCTIONS}"),
    )));
    let ask = ModelRequest {
        system: request.system.clone(),
        history: history.into(),
        tools: Default::default(),
        max_output_tokens: Some(SUMMARY_MAX_TOKENS),
        images: request.images.clone(),
    };
    let mut spent = bearagent_kernel::TokenUsage::default();
    let mut last_problem = String::new();
    for _ in 0..SUMMARY_ATTEMPTS {
        let call = complete(provider, ask.clone(), |_| {});
        let reply = tokio::select! {
            r = call => r,
            _ = cancel.cancelled() => return Err("cancelled by the user".into()),
        };
        match reply {
            Ok(response) => {
                spent = spent.saturating_add(response.usage);
                let text = response.text.trim();
                if !text.is_empty() {
                    return Ok((text.to_owned(), spent));
                }
                last_problem = "the model returned an empty summary".into();
            }
            Err(e) => last_problem = e.to_string(),
        }
    }
    Err(last_problem)
}

fn fail(rec: &mut Recorder, reason: String) -> Result<(), AppError> {
    rec.record(rec.last_seq(), EventPayload::RunFailed { reason })?;
    Ok(())
}

#[cfg(test)]
#[path = "compaction_tests.rs"]
mod tests;

/// The workspace folder the model is told of: a replay, which prepares
/// calls on a scratch stage, tells it the recorded one.
fn shown_workspace(rec: &Recorder, deps: &LoopDeps) -> String {
    match rec.tape().and_then(|t| t.stage()) {
        Some(stage) => stage.recorded_root().display().to_string(),
        None => deps.workspace.path().display().to_string(),
    }
}
