//! The UI's development mock folds events into run projections itself (it
//! has no kernel). So that it cannot drift from this reducer, this test
//! writes `ui/src/dev/mock/fixtures/kernel-projections.json` — runs that
//! together use every event type, with the projection after each event as
//! this crate computes it — and fails when the file is not what the kernel
//! produces now. The UI's `projection.test.ts` folds the same events with
//! the mock and must get the same projections.
//!
//! After an intended change to events or the reducer:
//!     BEARAGENT_UPDATE_FIXTURES=1 cargo test -p bearagent-kernel --test ui_projection_fixture
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod fixture_runs;

use bearagent_kernel::{
    apply, EventEnvelope, EventPayload, EventSeq, NewEvent, RunId, RunProjection, Timestamp,
};
use fixture_runs::{
    denied_and_exhausted_run, failed_run, hooks_run, interrupted_run, reviewed_write_run,
    text_calls_run, web_run, worktree_run,
};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::PathBuf;

const EVENT_TYPES: usize = 51;

/// A distinct number per event type, with no wildcard: adding a type fails
/// to compile here until a run below uses it.
fn type_index(p: &EventPayload) -> usize {
    match p {
        EventPayload::RunCreated { .. } => 0,
        EventPayload::RunStarted => 1,
        EventPayload::InstructionsLoaded { .. } => 2,
        EventPayload::ModelCallRequested { .. } => 3,
        EventPayload::ModelCallStarted { .. } => 4,
        EventPayload::ModelCallRetryScheduled { .. } => 5,
        EventPayload::ModelCallCompleted { .. } => 6,
        EventPayload::ModelCallFailed { .. } => 7,
        EventPayload::ToolCallRequested { .. } => 8,
        EventPayload::ApprovalRequested { .. } => 9,
        EventPayload::ApprovalGranted { .. } => 10,
        EventPayload::ApprovalDenied { .. } => 11,
        EventPayload::ToolCallStarted { .. } => 12,
        EventPayload::EffectIntended { .. } => 13,
        EventPayload::ToolCallCompleted { .. } => 14,
        EventPayload::ToolCallFailed { .. } => 15,
        EventPayload::ArtifactRecorded { .. } => 16,
        EventPayload::ExternalChangeObserved { .. } => 17,
        EventPayload::EffectVerified { .. } => 18,
        EventPayload::EffectUnknown { .. } => 19,
        EventPayload::RunSucceeded { .. } => 20,
        EventPayload::RunFailed { .. } => 21,
        EventPayload::RunCancelled { .. } => 22,
        EventPayload::BudgetExhausted { .. } => 23,
        EventPayload::RunInterrupted { .. } => 24,
        EventPayload::RunResumed => 25,
        EventPayload::LoopDetected { .. } => 26,
        EventPayload::ContextCompacted { .. } => 27,
        EventPayload::McpServerStarted { .. } => 28,
        EventPayload::McpServerUnavailable { .. } => 29,
        EventPayload::CommandStarted { .. } => 30,
        EventPayload::CommandFinished { .. } => 31,
        EventPayload::ArtifactReverted { .. } => 32,
        EventPayload::ArtifactReapplied { .. } => 33,
        EventPayload::ArtifactKept { .. } => 34,
        EventPayload::ReviewIntended { .. } => 35,
        EventPayload::ReviewAbandoned { .. } => 36,
        EventPayload::ArtifactHunksReverted { .. } => 37,
        EventPayload::RewindStarted { .. } => 38,
        EventPayload::ArtifactRewound { .. } => 39,
        EventPayload::ArtifactEdited { .. } => 40,
        EventPayload::WorktreeApplied { .. } => 41,
        EventPayload::WorktreeRemoved { .. } => 42,
        EventPayload::TodoUpdated { .. } => 43,
        EventPayload::HookRan { .. } => 44,
        EventPayload::HooksNotTrusted { .. } => 45,
        EventPayload::WorktreeStep { .. } => 46,
        EventPayload::ToolModeSwitched { .. } => 47,
        EventPayload::WebFetched { .. } => 48,
        EventPayload::WebFetchFailed { .. } => 49,
        EventPayload::ArtifactHunksKept { .. } => 50,
    }
}

fn envelopes(run: &str, payloads: Vec<EventPayload>) -> Vec<EventEnvelope> {
    let run_id: RunId = run.parse().unwrap();
    payloads
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            let at = Timestamp::from_unix_millis(1_800_000_000_000 + i as i64 * 1_500).unwrap();
            let cause = (i > 0).then_some(EventSeq(i as u64));
            NewEvent::new(at, cause, p).into_envelope(run_id, EventSeq(i as u64 + 1))
        })
        .collect()
}

fn fixture() -> Value {
    let runs = [
        (
            "reviewed write",
            "0190a000-0000-7000-8000-000000000101",
            reviewed_write_run(),
        ),
        (
            "denied and exhausted",
            "0190a000-0000-7000-8000-000000000102",
            denied_and_exhausted_run(),
        ),
        (
            "interrupted",
            "0190a000-0000-7000-8000-000000000103",
            interrupted_run(),
        ),
        (
            "failed",
            "0190a000-0000-7000-8000-000000000104",
            failed_run(),
        ),
        (
            "worktree",
            "0190a000-0000-7000-8000-000000000105",
            worktree_run(),
        ),
        ("hooks", "0190a000-0000-7000-8000-000000000106", hooks_run()),
        (
            "text calls",
            "0190a000-0000-7000-8000-000000000107",
            text_calls_run(),
        ),
        ("web", "0190a000-0000-7000-8000-000000000108", web_run()),
    ];
    let mut seen = BTreeSet::new();
    let runs: Vec<Value> = runs
        .into_iter()
        .map(|(name, run, payloads)| {
            let events = envelopes(run, payloads);
            let mut state: Option<RunProjection> = None;
            let mut projections = Vec::new();
            for e in &events {
                seen.insert(type_index(&e.payload));
                let next = apply(state.as_ref(), e).unwrap_or_else(|err| panic!("{name}: {err}"));
                projections.push(serde_json::to_value(&next).unwrap());
                state = Some(next);
            }
            json!({"name": name, "events": events, "projections": projections})
        })
        .collect();
    let missing: Vec<usize> = (0..EVENT_TYPES).filter(|i| !seen.contains(i)).collect();
    assert!(
        missing.is_empty(),
        "event types no run uses (see type_index): {missing:?}"
    );
    json!({
        "generated_by": "src-tauri/crates/kernel/tests/ui_projection_fixture.rs (BEARAGENT_UPDATE_FIXTURES=1 to refresh)",
        "runs": runs
    })
}

fn fixture_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../ui/src/dev/mock/fixtures/kernel-projections.json")
}

#[test]
fn the_ui_mock_fixture_is_what_the_kernel_folds_now() {
    let text = serde_json::to_string_pretty(&fixture()).unwrap() + "\n";
    let path = fixture_path();
    if std::env::var_os("BEARAGENT_UPDATE_FIXTURES").is_some() {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == text,
        "{} is stale: run BEARAGENT_UPDATE_FIXTURES=1 cargo test -p bearagent-kernel --test ui_projection_fixture, then make the UI mock (ui/src/dev/mock/projection.ts) pass its test",
        path.display()
    );
}
