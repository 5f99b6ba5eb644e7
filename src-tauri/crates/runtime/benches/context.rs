//! Context build time over a 2 000-step run: rebuilding every request from
//! all events (what "what the model saw" does) against the loop's cache,
//! which maps only each step's new events. Both produce the same bytes
//! (tested in the runtime); this prints their cost, in the same run.
//!
//! Run: `cargo bench -p bearagent-runtime --bench context`
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::expect_used, clippy::unwrap_used)]

use bearagent_kernel::testkit::{at, run_created};
use bearagent_kernel::{
    Action, ContextCaps, EventEnvelope, EventPayload, EventSeq, NewEvent, RunId, StopReason,
    TokenUsage, ToolCall, ToolResult, WorkspaceId,
};
use bearagent_runtime::{build_context, ContextCache, ContextInput};
use std::time::{Duration, Instant};

const STEPS: usize = 2_000;

fn events() -> Vec<EventEnvelope> {
    let run = RunId::new();
    let mut payloads = vec![
        run_created(WorkspaceId::new(), "read everything"),
        EventPayload::RunStarted,
    ];
    let content = "a line of text that a file holds\n".repeat(32);
    for i in 0..STEPS {
        let id = format!("call_{i}");
        let call = ToolCall::new(
            &id,
            "read_file",
            serde_json::json!({"path": format!("f{i}.txt")}),
        )
        .unwrap();
        payloads.push(EventPayload::ModelCallRequested {
            context_version: "context-v2".into(),
            context_bytes: 1,
            estimated_tokens: None,
            context_window: None,
            request_digest: None,
        });
        payloads.push(EventPayload::ModelCallStarted {
            provider: "p".into(),
            model: "m".into(),
        });
        payloads.push(EventPayload::ModelCallCompleted {
            action: Action::ToolCalls {
                calls: vec![call.clone()],
            },
            usage: TokenUsage::default(),
            stop_reason: StopReason::ToolUse,
            text: "Reading the next file.".into(),
            cost_micro_usd: None,
        });
        payloads.push(EventPayload::ToolCallRequested {
            call,
            parsed_from_text: None,
        });
        payloads.push(EventPayload::ToolCallStarted {
            call_id: bearagent_kernel::CallId::new(&id).unwrap(),
        });
        payloads.push(EventPayload::ToolCallCompleted {
            result: ToolResult::new(&id, content.clone(), false).unwrap(),
            receipt: None,
            truncated: false,
            original_bytes: content.len() as u64,
        });
    }
    payloads
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            NewEvent::new(at(i as i64), None, p).into_envelope(run, EventSeq(i as u64 + 1))
        })
        .collect()
}

/// Every step's request, built one way or the other; total time and the
/// last step's time.
fn every_step(events: &[EventEnvelope], cached: bool) -> (Duration, Duration) {
    let caps = ContextCaps::default();
    let mut cache = ContextCache::default();
    let mut total = Duration::ZERO;
    let mut last = Duration::ZERO;
    let mut bytes = 0u64;
    // A step ends at each ToolCallCompleted (every 6 events after the start).
    for end in (2 + 6..=events.len()).step_by(6) {
        let input = ContextInput {
            ancestors: &[],
            events: &events[..end],
            tools: &[],
            caps: &caps,
            workspace: "/w",
            instructions: &[],
            summary: None,
        };
        let began = Instant::now();
        let built = if cached {
            cache.build(&input)
        } else {
            build_context(&input)
        };
        last = began.elapsed();
        total += last;
        bytes = built.bytes;
    }
    assert!(bytes > 0);
    (total, last)
}

fn main() {
    let events = events();
    // Warm-up, then measured.
    every_step(&events[..600], false);
    every_step(&events[..600], true);
    let (scratch_total, scratch_last) = every_step(&events, false);
    let (cached_total, cached_last) = every_step(&events, true);
    println!("context build over {STEPS} steps ({} events)", events.len());
    println!(
        "  from events every step: total {:>8.1} ms, step {STEPS}: {:.3} ms",
        scratch_total.as_secs_f64() * 1e3,
        scratch_last.as_secs_f64() * 1e3
    );
    println!(
        "  the loop's cache:       total {:>8.1} ms, step {STEPS}: {:.3} ms",
        cached_total.as_secs_f64() * 1e3,
        cached_last.as_secs_f64() * 1e3
    );
    println!(
        "  ratio (cache / from events): total {:.2}×, step {STEPS} {:.2}×",
        cached_total.as_secs_f64() / scratch_total.as_secs_f64(),
        cached_last.as_secs_f64() / scratch_last.as_secs_f64()
    );
}
