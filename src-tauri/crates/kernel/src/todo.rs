//! The run's todo list: the steps the model keeps with `update_plan`, each
//! pending, in progress or completed. The latest list is on the run's
//! projection (n of m done) and stays in the model's context after a
//! compaction.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Most steps one list may have.
pub const MAX_TODO_ITEMS: usize = 50;
/// Longest step text, in bytes.
pub const MAX_TODO_STEP_BYTES: usize = 500;

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TodoItem {
    pub step: String,
    pub status: TodoStatus,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TodoError {
    #[error("`plan` must be an array of {{step, status}} objects: {0}")]
    Shape(String),
    #[error("the plan needs 1 to {MAX_TODO_ITEMS} steps, got {0}")]
    Count(usize),
    #[error("step {0} is empty")]
    EmptyStep(usize),
    #[error("step {0} is longer than {MAX_TODO_STEP_BYTES} bytes")]
    LongStep(usize),
    #[error("at most one step may be in_progress; steps {0} and {1} both are")]
    TwoInProgress(usize, usize),
}

/// The list `update_plan`'s arguments give (`{"plan": [{step, status}],
/// "explanation"?: …}`), checked.
pub fn todo_from_arguments(arguments: &Map<String, Value>) -> Result<Vec<TodoItem>, TodoError> {
    let plan = arguments
        .get("plan")
        .cloned()
        .ok_or_else(|| TodoError::Shape("`plan` is missing".into()))?;
    let items: Vec<TodoItem> =
        serde_json::from_value(plan).map_err(|e| TodoError::Shape(e.to_string()))?;
    if items.is_empty() || items.len() > MAX_TODO_ITEMS {
        return Err(TodoError::Count(items.len()));
    }
    let mut in_progress = None;
    for (i, item) in items.iter().enumerate() {
        let n = i + 1;
        if item.step.trim().is_empty() {
            return Err(TodoError::EmptyStep(n));
        }
        if item.step.len() > MAX_TODO_STEP_BYTES {
            return Err(TodoError::LongStep(n));
        }
        if item.status == TodoStatus::InProgress {
            if let Some(first) = in_progress {
                return Err(TodoError::TwoInProgress(first, n));
            }
            in_progress = Some(n);
        }
    }
    Ok(items)
}

/// `2 of 5 done`.
pub fn todo_progress(items: &[TodoItem]) -> String {
    let done = items
        .iter()
        .filter(|i| i.status == TodoStatus::Completed)
        .count();
    format!("{done} of {} done", items.len())
}

/// The list as a checklist, one step a line: `[x]` done, `[>]` in
/// progress, `[ ]` pending.
pub fn todo_checklist(items: &[TodoItem]) -> String {
    items
        .iter()
        .map(|i| {
            let mark = match i.status {
                TodoStatus::Completed => "[x]",
                TodoStatus::InProgress => "[>]",
                TodoStatus::Pending => "[ ]",
            };
            format!("{mark} {}", i.step)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_plan_is_checked_step_by_step() {
        let ok = todo_from_arguments(&args(json!({"plan": [
            {"step": "read calc.py", "status": "completed"},
            {"step": "fix add", "status": "in_progress"},
            {"step": "run the tests", "status": "pending"}
        ]})))
        .unwrap();
        assert_eq!(todo_progress(&ok), "1 of 3 done");
        assert_eq!(
            todo_checklist(&ok),
            "[x] read calc.py\n[>] fix add\n[ ] run the tests"
        );
        let two = json!({"plan": [{"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}]});
        assert_eq!(
            todo_from_arguments(&args(two)),
            Err(TodoError::TwoInProgress(1, 2))
        );
        assert_eq!(
            todo_from_arguments(&args(json!({"plan": []}))),
            Err(TodoError::Count(0))
        );
        let blank = json!({"plan": [{"step": " ", "status": "pending"}]});
        assert_eq!(
            todo_from_arguments(&args(blank)),
            Err(TodoError::EmptyStep(1))
        );
        let bad = json!({"plan": [{"step": "a", "status": "done"}]});
        assert!(matches!(
            todo_from_arguments(&args(bad)),
            Err(TodoError::Shape(_))
        ));
        assert!(matches!(
            todo_from_arguments(&args(json!({}))),
            Err(TodoError::Shape(_))
        ));
    }
}
