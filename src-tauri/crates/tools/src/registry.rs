//! The registry of tools, looked up by exact name. What a lookup returns
//! says how the tool runs, so dispatch is decided once, here.

use crate::spec::{Tool, ToolSpec, WorkspaceTool};
use crate::tools::run_command::RunCommand;
use crate::tools::task::Task;
use crate::tools::web_fetch::WebFetch;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A registered tool, by how it executes.
#[derive(Clone)]
pub enum Registered {
    /// A workspace tool: the bounded executor runs it.
    Workspace(Arc<dyn WorkspaceTool>),
    /// `run_command`: [`RunCommand::run`] runs it in the sandbox with the
    /// run's command settings.
    Command(Arc<RunCommand>),
    /// `web_fetch`: [`WebFetch::run`] fetches through the run's fetcher,
    /// after the runtime applied the URL's provenance and domain rules.
    Web(Arc<WebFetch>),
    /// `task`: the runtime starts a child run (delegation).
    Task(Arc<Task>),
}

impl Registered {
    /// The spec and `prepare`, the same for every kind.
    pub fn tool(&self) -> &dyn Tool {
        match self {
            Registered::Workspace(tool) => tool.as_ref(),
            Registered::Command(tool) => tool.as_ref(),
            Registered::Web(tool) => tool.as_ref(),
            Registered::Task(tool) => tool.as_ref(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    #[error("a tool named {name} is already registered")]
    Duplicate { name: String },
}

#[derive(Clone, Default)]
pub struct Registry {
    tools: BTreeMap<String, Registered>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// The workspace tools (`list_dir`, `read_file`, `search_text`,
    /// `write_file`, `edit_file`, `update_plan`), `run_command` and
    /// `web_fetch` (whose runtime route applies provenance first).
    pub fn with_workspace_tools() -> Self {
        let mut registry = Self::new();
        for tool in crate::tools::workspace_tools() {
            registry.insert(Registered::Workspace(tool));
        }
        registry.insert(Registered::Command(Arc::new(RunCommand::new())));
        registry.insert(Registered::Web(Arc::new(WebFetch::new())));
        registry
    }

    fn insert(&mut self, tool: Registered) {
        let name = tool.tool().spec().name.as_str().to_owned();
        self.tools.insert(name, tool);
    }

    /// Adds a workspace tool (run by the executor).
    pub fn register(&mut self, tool: Arc<dyn WorkspaceTool>) -> Result<(), RegistryError> {
        let name = tool.spec().name.as_str().to_owned();
        if self.tools.contains_key(&name) {
            return Err(RegistryError::Duplicate { name });
        }
        self.insert(Registered::Workspace(tool));
        Ok(())
    }

    /// What a read-only child run gets: the tools whose trusted spec only
    /// reads, without `task` (a child that may delegate gets it back with
    /// [`Registry::with_task`]).
    pub fn read_only(&self) -> Self {
        let mut registry = self.for_writing_child();
        registry
            .tools
            .retain(|_, t| t.tool().spec().effect == crate::spec::Effect::ReadOnly);
        registry
    }

    /// The tools of a child that writes in its own worktree: the workspace
    /// tools, without `task` (added back while its depth allows) or
    /// `web_fetch` (a child's prompt is the parent model's words, so a URL
    /// in it is nobody's the user wrote).
    pub fn for_writing_child(&self) -> Self {
        let tools = self
            .tools
            .iter()
            .filter(|(_, t)| !matches!(t, Registered::Task(_) | Registered::Web(_)))
            .map(|(name, t)| (name.clone(), t.clone()))
            .collect();
        Self { tools }
    }

    /// The same tools plus `task`, for a run that may start child runs.
    pub fn with_task(&self) -> Self {
        let mut registry = self.clone();
        registry.insert(Registered::Task(Arc::new(Task::new())));
        registry
    }

    /// Exact, case-sensitive lookup. No fuzzy matching: an unknown name is
    /// the caller's error to report.
    pub fn get(&self, name: &str) -> Option<Registered> {
        self.tools.get(name).cloned()
    }

    /// Specs of all tools, sorted by name (stable across calls).
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools
            .values()
            .map(|t| t.tool().spec().clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::list_dir::ListDir;

    #[test]
    fn workspace_tools_are_registered_and_sorted() {
        let registry = Registry::with_workspace_tools();
        let names: Vec<String> = registry
            .specs()
            .into_iter()
            .map(|s| s.name.as_str().to_owned())
            .collect();
        assert_eq!(
            names,
            [
                "edit_file",
                "list_dir",
                "read_file",
                "run_command",
                "search_text",
                "update_plan",
                "web_fetch",
                "write_file"
            ]
        );
        for spec in registry.specs() {
            assert_eq!(spec.parameters["type"], "object");
            assert_eq!(spec.parameters["additionalProperties"], false);
            assert!(!spec.description.is_empty());
        }
    }

    #[test]
    fn a_read_only_child_gets_only_reading_tools_and_task_on_request() {
        let full = Registry::with_workspace_tools().with_task();
        let names = |r: &Registry| -> Vec<String> {
            r.specs()
                .into_iter()
                .map(|s| s.name.as_str().to_owned())
                .collect()
        };
        assert!(names(&full).contains(&"task".to_owned()));
        let read = full.read_only();
        assert_eq!(
            names(&read),
            ["list_dir", "read_file", "search_text", "update_plan"]
        );
        assert!(names(&read.with_task()).contains(&"task".to_owned()));
    }

    #[test]
    fn lookup_is_exact() {
        let registry = Registry::with_workspace_tools();
        assert!(registry.get("read_file").is_some());
        assert!(registry.get("Read_File").is_none());
        assert!(registry.get("read_file ").is_none());
        assert!(registry.get("read").is_none());
    }

    #[test]
    fn duplicates_are_refused() {
        let mut registry = Registry::new();
        registry.register(Arc::new(ListDir::new())).unwrap();
        assert_eq!(
            registry.register(Arc::new(ListDir::new())),
            Err(RegistryError::Duplicate {
                name: "list_dir".into()
            })
        );
        assert_eq!(registry.specs().len(), 1);
    }
}
