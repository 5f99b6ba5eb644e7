//! The workspace tools and what they share.

mod common;
pub mod edit_file;
pub mod list_dir;
pub mod proposal;
pub mod read_file;
pub mod run_command;
pub mod search_text;
pub mod task;
pub mod update_plan;
mod walk;
pub mod web_fetch;
pub mod write_file;

use crate::spec::WorkspaceTool;
use std::sync::Arc;

/// Each tool's `Default` is its `new()` (one place instead of six).
macro_rules! default_is_new {
    ($($tool:ty),* $(,)?) => {
        $(impl Default for $tool {
            fn default() -> Self {
                Self::new()
            }
        })*
    };
}

default_is_new!(
    list_dir::ListDir,
    read_file::ReadFile,
    search_text::SearchText,
    write_file::WriteFile,
    edit_file::EditFile,
    run_command::RunCommand,
    update_plan::UpdatePlan,
);

/// The workspace tools (run by the executor).
pub(crate) fn workspace_tools() -> Vec<Arc<dyn WorkspaceTool>> {
    vec![
        Arc::new(list_dir::ListDir::new()),
        Arc::new(read_file::ReadFile::new()),
        Arc::new(search_text::SearchText::new()),
        Arc::new(write_file::WriteFile::new()),
        Arc::new(edit_file::EditFile::new()),
        Arc::new(update_plan::UpdatePlan::new()),
    ]
}
