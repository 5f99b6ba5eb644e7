//! Running an agent. The floor plan — each floor imports only the floors
//! below it, never one above, and no two files import each other:
//!
//! - Floor 0, facts and records: `recorder` (commits events), `approvals`
//!   (the gate decisions arrive through), `spend`, `context` (requests from
//!   committed events; `context_events`: what the model sees of each
//!   event; `context_profile`: the compact request for small windows), `snapshot` (workspace images around a command),
//!   `loop_guard` (the memory of repeated calls), `preview` (a large
//!   result's head and tail), `images` (image bytes attached to a request,
//!   or described for a model that cannot see), `ledger` (what a run's
//!   children reserved and spent of its budget), `child_report` (a child
//!   run's end as its parent's tool result).
//! - Floor 1, what every step reads: `deps` (the run's dependencies and
//!   grants, and the route a tool name looks up to), `stop` (cancel and
//!   budgets before every call), `outcome` (how a step ends, failed
//!   results), `asking` (approval cards, waiting, recorded decisions),
//!   `receipts` (pre-/post-images, seen versions), `requested` (the lazy
//!   request), `instructions` (AGENTS.md), `loops` (the loop guard in the
//!   run), `hook_step` (the user's hooks at their moments), `text_calls`
//!   (tool calls a model printed as text, and the switch to JSON text).
//! - Floor 2, the rooms, one per route: `file_step` (workspace tools),
//!   `command_step` (`run_command`), `mcp_step` (MCP tools), `web_step`
//!   (`web_fetch`, and the web checks: provenance, rules, taint),
//!   `task_step` (the `task` tool: child runs, see `crate::delegation`);
//!   beside them
//!   `compaction` and `reconcile` (after a crash).
//! - Floor 3: `tool_step`, one call's path from lookup to its room.
//! - Floor 4: `agent_loop`, the driver.

pub mod agent_loop;
pub mod approvals;
pub(crate) mod asking;
pub(crate) mod child_report;
mod command_step;
pub mod compaction;
pub mod context;
pub mod context_cache;
mod context_events;
pub mod context_profile;
pub(crate) mod deps;
mod file_meta;
mod file_step;
pub(crate) mod hook_step;
pub(crate) mod images;
pub(crate) mod instructions;
pub(crate) mod ledger;
mod loop_guard;
pub(crate) mod loops;
mod mcp_step;
mod outcome;
mod preview;
pub(crate) mod receipts;
pub mod reconcile;
pub(crate) mod recorded_texts;
pub mod recorder;
mod replay_room;
mod requested;
pub mod safety_net;
pub mod snapshot;
pub mod spend;
mod stop;
mod task_step;
mod text_calls;
mod tool_step;
pub(crate) mod web_step;
