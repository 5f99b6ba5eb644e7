//! Run profiles: budgets, approval mode and context caps for a run.

use bearagent_kernel::Budgets;
use bearagent_tools::ApprovalMode;
use serde::{Deserialize, Serialize};

/// Limits on what each model request may contain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextCaps {
    /// Total bytes of history sent in one request.
    pub max_context_bytes: usize,
    /// A tool result larger than this enters context as head + tail.
    pub max_tool_result_bytes: usize,
}

impl Default for ContextCaps {
    fn default() -> Self {
        Self {
            max_context_bytes: 400_000,
            max_tool_result_bytes: 16_384,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunProfile {
    pub name: String,
    pub budgets: Budgets,
    pub approval_mode: ApprovalMode,
    /// Invalid model replies fed back to the model before the run fails.
    pub max_invalid_outputs: u32,
    pub context: ContextCaps,
}

impl Default for RunProfile {
    fn default() -> Self {
        Self {
            name: "default".into(),
            budgets: Budgets::default(),
            approval_mode: ApprovalMode::AskWrites,
            max_invalid_outputs: 2,
            context: ContextCaps::default(),
        }
    }
}
