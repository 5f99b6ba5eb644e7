//! Running an agent: the serial loop, its tool step, context, approvals,
//! and crash reconciliation.

pub mod agent_loop;
pub mod approvals;
mod command_step;
pub mod compaction;
pub mod context;
pub(crate) mod loops;
mod mcp_step;
pub mod reconcile;
pub mod recorder;
mod requested;
pub mod snapshot;
pub mod spend;
pub(crate) mod tool_step;
