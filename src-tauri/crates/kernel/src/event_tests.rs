//! Event payload encoding.

use super::*;
use crate::budget::BudgetKind;
use crate::message::ToolCall;
use serde_json::json;

#[test]
fn payload_type_tag_matches_type_name() {
    let payloads = [
        EventPayload::RunStarted,
        EventPayload::RunFailed { reason: "x".into() },
        EventPayload::BudgetExhausted {
            which: BudgetKind::WallTime,
        },
        EventPayload::ToolCallRequested {
            call: ToolCall::new("c", "read_file", json!({"path": "a"})).unwrap(),
            parsed_from_text: None,
        },
    ];
    for p in payloads {
        let v = serde_json::to_value(&p).unwrap();
        assert_eq!(v["type"], p.type_name());
        assert_eq!(serde_json::from_value::<EventPayload>(v).unwrap(), p);
    }
}

#[test]
fn unknown_event_types_do_not_decode() {
    assert!(serde_json::from_value::<EventPayload>(json!({"type": "run_exploded"})).is_err());
}

#[test]
fn command_finished_without_the_newer_fields_reads_and_writes_as_before() {
    let stored = json!({
        "type": "command_finished", "call_id": "c", "exit_code": 0, "signal": null,
        "duration_ms": 5, "output": null, "output_bytes": 0, "output_truncated": false,
        "timed_out": false, "cancelled": false, "changed_files": 0, "unrevertable_files": 0
    });
    let p: EventPayload = serde_json::from_value(stored.clone()).unwrap();
    assert!(matches!(
        &p,
        EventPayload::CommandFinished { network_refused: false, created_dirs, removed_dirs, .. }
            if created_dirs.is_empty() && removed_dirs.is_empty()
    ));
    assert_eq!(serde_json::to_value(&p).unwrap(), stored);
}
