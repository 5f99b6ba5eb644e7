//! Running an agent: the serial loop, its tool step, context, approvals,
//! and crash reconciliation.

pub mod agent_loop;
pub mod approvals;
pub mod context;
pub(crate) mod loops;
pub mod reconcile;
pub mod recorder;
pub mod snapshot;
pub mod spend;
pub(crate) mod tool_step;
