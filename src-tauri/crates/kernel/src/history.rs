//! Rules across history items: every tool result answers an earlier tool
//! call with the same call id, exactly once, and call ids are unique.

use crate::ids::CallId;
use crate::message::HistoryItem;
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HistoryViolation {
    #[error("item {index}: call id {call_id} was already used by the tool call at item {first}")]
    DuplicateCallId {
        index: usize,
        first: usize,
        call_id: CallId,
    },
    #[error("item {index}: tool result for {call_id} answers no earlier tool call")]
    OrphanResult { index: usize, call_id: CallId },
    #[error("item {index}: tool call {call_id} was already answered at item {first}")]
    DuplicateResult {
        index: usize,
        first: usize,
        call_id: CallId,
    },
}

#[derive(Clone, Copy)]
struct CallState {
    called_at: usize,
    answered_at: Option<usize>,
}

/// Checks the cross-item rules and reports the first violation. Calls that
/// are still unanswered at the end are allowed (they may be in flight).
pub fn validate_history(items: &[HistoryItem]) -> Result<(), HistoryViolation> {
    let mut calls: HashMap<&CallId, CallState> = HashMap::new();
    for (index, item) in items.iter().enumerate() {
        match item {
            HistoryItem::Message(_) => {}
            HistoryItem::ToolCall(call) => {
                if let Some(state) = calls.get(&call.call_id) {
                    return Err(HistoryViolation::DuplicateCallId {
                        index,
                        first: state.called_at,
                        call_id: call.call_id.clone(),
                    });
                }
                calls.insert(
                    &call.call_id,
                    CallState {
                        called_at: index,
                        answered_at: None,
                    },
                );
            }
            HistoryItem::ToolResult(result) => match calls.get_mut(&result.call_id) {
                None => {
                    return Err(HistoryViolation::OrphanResult {
                        index,
                        call_id: result.call_id.clone(),
                    })
                }
                Some(CallState {
                    answered_at: Some(first),
                    ..
                }) => {
                    return Err(HistoryViolation::DuplicateResult {
                        index,
                        first: *first,
                        call_id: result.call_id.clone(),
                    })
                }
                Some(state) => state.answered_at = Some(index),
            },
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Message, Role, ToolCall, ToolResult};
    use serde_json::json;

    fn call(id: &str) -> HistoryItem {
        HistoryItem::ToolCall(ToolCall::new(id, "read_file", json!({})).unwrap())
    }
    fn result(id: &str) -> HistoryItem {
        HistoryItem::ToolResult(ToolResult::new(id, "ok", false).unwrap())
    }
    fn user(text: &str) -> HistoryItem {
        HistoryItem::Message(Message::new(Role::User, text))
    }

    #[test]
    fn a_well_paired_history_is_valid() {
        let items = [user("goal"), call("a"), result("a"), call("b"), result("b")];
        assert_eq!(validate_history(&items), Ok(()));
    }

    #[test]
    fn a_result_before_its_call_is_an_orphan() {
        let items = [user("goal"), result("a"), call("a")];
        assert_eq!(
            validate_history(&items),
            Err(HistoryViolation::OrphanResult {
                index: 1,
                call_id: CallId::new("a").unwrap()
            })
        );
    }

    #[test]
    fn a_second_result_for_the_same_call_is_reported_with_both_positions() {
        let items = [call("a"), result("a"), result("a")];
        assert_eq!(
            validate_history(&items),
            Err(HistoryViolation::DuplicateResult {
                index: 2,
                first: 1,
                call_id: CallId::new("a").unwrap()
            })
        );
    }

    #[test]
    fn duplicate_call_ids_are_rejected() {
        let items = [call("a"), result("a"), call("a")];
        assert!(matches!(
            validate_history(&items),
            Err(HistoryViolation::DuplicateCallId {
                index: 2,
                first: 0,
                ..
            })
        ));
    }

    #[test]
    fn the_first_violation_wins() {
        let items = [result("x"), call("a"), call("a")];
        assert!(matches!(
            validate_history(&items),
            Err(HistoryViolation::OrphanResult { index: 0, .. })
        ));
    }
}
