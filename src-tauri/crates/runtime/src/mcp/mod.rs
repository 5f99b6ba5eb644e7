//! MCP servers in a run: started with the run (eagerly, in parallel),
//! recorded as events, their tools offered to the model under `server__tool`
//! names and called through the same policy, approvals and record as every
//! other tool; stopped with the run.

mod servers;
mod tool;

pub use servers::{model_tools, McpPlan, OfferedTools, RunMcp};
pub use tool::{mcp_spec, McpToolAdapter};
