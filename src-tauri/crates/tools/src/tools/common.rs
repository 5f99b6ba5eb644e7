//! Helpers every workspace tool shares: its spec, its own arguments back
//! from a prepared call, and its write target checked again. Apart from
//! `mod.rs` so the tools import a sibling, not the folder's door.

use crate::error::ToolError;
use crate::spec::{Effect, PreparedCall, ToolSpec, WriteTarget};
use crate::workspace::WorkspaceRoot;
use bearagent_kernel::ToolName;
use serde::Deserialize;
use serde_json::Value;

/// Build a spec for one of our own tools. Names are non-blank constants.
#[allow(
    clippy::expect_used,
    reason = "tool names are non-blank string constants; covered by the registry tests"
)]
pub(super) fn make_spec(
    name: &'static str,
    description: &str,
    parameters: Value,
    effect: Effect,
) -> ToolSpec {
    ToolSpec {
        name: ToolName::new(name).expect("tool names are non-blank constants"),
        description: description.to_owned(),
        parameters,
        effect,
    }
}

/// Decode the normalised arguments of a call prepared by the tool owning
/// `spec`. A call prepared by another tool, or with mangled arguments, is a
/// `BadCall`.
pub(super) fn own_args<'a, T: Deserialize<'a>>(
    spec: &ToolSpec,
    call: &'a PreparedCall,
) -> Result<T, ToolError> {
    if *call.tool() != spec.name {
        return Err(ToolError::bad_call(format!(
            "{} cannot execute a call prepared for {}",
            spec.name,
            call.tool()
        )));
    }
    T::deserialize(call.args()).map_err(|e| ToolError::bad_call(e.to_string()))
}

/// The write target of a prepared call, checked again just before writing:
/// it must still resolve, inside the workspace, to the same absolute path
/// that was prepared (and approved).
pub(super) fn checked_target(
    call: &PreparedCall,
    ws: &WorkspaceRoot,
) -> Result<WriteTarget, ToolError> {
    let target = call
        .write_target()
        .ok_or_else(|| ToolError::bad_call("a writing call without a write target"))?;
    let now = ws.resolve_for_write(&target.rel_path)?;
    if now != target.abs_path {
        return Err(ToolError::TargetChanged {
            path: target.rel_path.clone(),
        });
    }
    Ok(target.clone())
}
