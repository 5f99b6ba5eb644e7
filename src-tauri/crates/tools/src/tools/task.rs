//! `task`: the model hands a piece of work to a child run (delegation,
//! issue 54). The tool only reads and checks its arguments; the runtime
//! starts the child, whose own calls walk their own policy. Its effect is
//! read-only for this workspace: a child gets read tools only, and a child
//! with `write: true` writes in its own git worktree, never here (its
//! changes reach the workspace only when the user applies them).

use super::common::make_spec;
use crate::args::Args;
use crate::error::ArgumentError;
use crate::spec::{Effect, PreparedCall, Tool, ToolSpec};
use crate::workspace::WorkspaceRoot;
use serde_json::{json, Map, Value};

pub const NAME: &str = bearagent_kernel::TASK_TOOL;

/// The longest description shown for a child (a label, not a prompt).
pub const MAX_DESCRIPTION_CHARS: usize = 120;

pub struct Task {
    spec: ToolSpec,
}

impl Default for Task {
    fn default() -> Self {
        Self::new()
    }
}

impl Task {
    pub fn new() -> Self {
        let parameters = json!({
            "type": "object",
            "properties": {
                "description": {"type": "string", "description": "A short label for the task (a few words), shown to the user."},
                "prompt": {"type": "string", "description": "Everything the helper needs: it sees this prompt and the workspace's instructions, nothing of your conversation."},
                "profile": {"type": "string", "description": "The profile the helper runs with (default: yours)."},
                "write": {"type": "boolean", "description": "Whether the helper may change files (default false: it only reads). A writing helper works in its own copy of the repository (a git worktree); its changes reach the workspace only when the user applies them."}
            },
            "required": ["description", "prompt"],
            "additionalProperties": false
        });
        Self {
            spec: make_spec(
                NAME,
                "Hand a self-contained piece of work to a helper agent that reads the workspace and \
                 answers. Several task calls in one turn run at the same time. The result is the \
                 helper's final answer, its status, its cost and the files it read.",
                parameters,
                Effect::ReadOnly,
            ),
        }
    }
}

impl Tool for Task {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn prepare(
        &self,
        args: &Map<String, Value>,
        _ws: &WorkspaceRoot,
    ) -> Result<PreparedCall, ArgumentError> {
        let a = Args::new(args, &["description", "prompt", "profile", "write"])?;
        let description = a.required_str("description")?.trim();
        let prompt = a.required_str("prompt")?.trim();
        if description.is_empty() {
            return Err(ArgumentError::invalid("description", "must not be blank"));
        }
        if description.chars().count() > MAX_DESCRIPTION_CHARS {
            return Err(ArgumentError::invalid(
                "description",
                format!("at most {MAX_DESCRIPTION_CHARS} characters: a label, the details go in `prompt`"),
            ));
        }
        if prompt.is_empty() {
            return Err(ArgumentError::invalid("prompt", "must not be blank"));
        }
        let profile = a.optional_str("profile")?;
        let write = a.bool_or("write", false)?;
        let normalised = json!({
            "description": description,
            "prompt": prompt,
            "profile": profile,
            "write": write,
        });
        let summary = match write {
            true => format!("start a helper that writes in its own worktree: {description}"),
            false => format!("start a read-only helper: {description}"),
        };
        Ok(PreparedCall::read_only(
            self.spec.name.clone(),
            summary,
            normalised,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prepare(args: Value) -> Result<PreparedCall, ArgumentError> {
        let dir = tempfile::tempdir().unwrap();
        let ws = WorkspaceRoot::new(dir.path()).unwrap();
        Task::new().prepare(args.as_object().unwrap(), &ws)
    }

    #[test]
    fn a_task_is_prepared_read_only_with_its_arguments_normalised() {
        let p = prepare(json!({"description": " look ", "prompt": "read a.md"})).unwrap();
        assert_eq!(p.effect(), Effect::ReadOnly);
        assert_eq!(p.args()["description"], "look");
        assert_eq!(p.args()["write"], false);
        assert!(p.summary().contains("look"));
    }

    #[test]
    fn bad_tasks_are_refused_with_the_fix() {
        assert!(prepare(json!({"description": "x"})).is_err());
        assert!(prepare(json!({"description": " ", "prompt": "p"})).is_err());
        assert!(prepare(json!({"description": "x", "prompt": "p", "extra": 1})).is_err());
        assert!(prepare(json!({"description": "x", "prompt": "p", "write": "yes"})).is_err());
    }

    #[test]
    fn a_writing_task_says_it_writes_in_its_own_worktree() {
        let p =
            prepare(json!({"description": "fix", "prompt": "fix a.md", "write": true})).unwrap();
        assert_eq!(p.args()["write"], true);
        assert!(p.summary().contains("own worktree"), "{}", p.summary());
    }
}
