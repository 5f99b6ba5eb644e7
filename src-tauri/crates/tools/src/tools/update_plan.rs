//! `update_plan`: the model keeps its todo list (steps, each pending, in
//! progress or completed). It touches nothing; the runtime records the
//! list as an event, which every front end shows live.

use super::common::{make_spec, own_args};
use crate::args::Args;
use crate::authorization::AuthorizedCall;
use crate::error::{ArgumentError, ToolError};
use crate::spec::{Effect, PreparedCall, Tool, ToolOutput, ToolSpec, WorkspaceTool};
use crate::workspace::WorkspaceRoot;
use bearagent_kernel::todo::MAX_TODO_ITEMS;
use bearagent_kernel::{todo_from_arguments, todo_progress, TodoItem};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

pub const NAME: &str = "update_plan";

#[derive(Debug, Serialize, Deserialize)]
struct PlanArgs {
    plan: Vec<TodoItem>,
}

pub struct UpdatePlan {
    spec: ToolSpec,
}

impl UpdatePlan {
    pub fn new() -> Self {
        let parameters = json!({
            "type": "object",
            "properties": {
                "plan": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": MAX_TODO_ITEMS,
                    "items": {
                        "type": "object",
                        "properties": {
                            "step": {"type": "string", "description": "One step, a short sentence."},
                            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}
                        },
                        "required": ["step", "status"],
                        "additionalProperties": false
                    },
                    "description": "The whole list, in order; it replaces the last one. At most one step in_progress."
                },
                "explanation": {"type": "string", "description": "Why the list changed, if it did."}
            },
            "required": ["plan"],
            "additionalProperties": false
        });
        Self {
            spec: make_spec(
                NAME,
                "Keep your todo list for this task: the steps and which are pending, in progress or completed. \
                 Send the whole list each time (it replaces the last); the user sees it live. \
                 Use it for work of several steps; mark a step completed as soon as it is done.",
                parameters,
                Effect::ReadOnly,
            ),
        }
    }
}

impl Tool for UpdatePlan {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn prepare(
        &self,
        args: &Map<String, Value>,
        _ws: &WorkspaceRoot,
    ) -> Result<PreparedCall, ArgumentError> {
        Args::new(args, &["plan", "explanation"])?;
        let plan =
            todo_from_arguments(args).map_err(|e| ArgumentError::invalid("plan", e.to_string()))?;
        let summary = format!("update the plan ({})", todo_progress(&plan));
        Ok(PreparedCall::read_only(
            self.spec.name.clone(),
            summary,
            json!(PlanArgs { plan }),
        ))
    }
}

impl WorkspaceTool for UpdatePlan {
    fn execute(
        &self,
        call: &AuthorizedCall,
        _ws: &WorkspaceRoot,
        _cancel: &CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        let args: PlanArgs = own_args(&self.spec, call)?;
        Ok(ToolOutput::new(format!(
            "Plan updated: {}.",
            todo_progress(&args.plan)
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_checked_when_prepared() {
        let dir = tempfile::tempdir().unwrap();
        let ws = WorkspaceRoot::new(dir.path()).unwrap();
        let tool = UpdatePlan::new();
        let ok = json!({"plan": [{"step": "a", "status": "completed"}, {"step": "b", "status": "pending"}]});
        let prepared = tool.prepare(ok.as_object().unwrap(), &ws).unwrap();
        assert_eq!(prepared.effect(), Effect::ReadOnly);
        assert!(
            prepared.summary().contains("1 of 2 done"),
            "{}",
            prepared.summary()
        );
        let bad = json!({"plan": [{"step": "a", "status": "doing"}]});
        assert!(tool.prepare(bad.as_object().unwrap(), &ws).is_err());
        let extra = json!({"plan": [{"step": "a", "status": "pending"}], "force": true});
        assert!(tool.prepare(extra.as_object().unwrap(), &ws).is_err());
    }
}
