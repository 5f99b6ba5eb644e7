//! An MCP server's tool as a BearAgent [`Tool`]: its trusted spec comes
//! from the tool list recorded when the server started; `prepare` checks
//! the arguments against the top of its schema; the call goes to the
//! server only as an [`AuthorizedCall`].

use bearagent_kernel::{McpToolRecord, ToolName};
use bearagent_mcp::{McpCallResult, McpConnection, McpError};
use bearagent_tools::{
    ArgumentError, AuthorizedCall, Effect, PreparedCall, Tool, ToolSpec, WorkspaceRoot,
};
use serde_json::{Map, Value};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Longest argument preview in a call's one-line summary.
const SUMMARY_ARGS: usize = 160;

/// The spec the model is shown for a recorded tool. The schema is
/// normalised the same way every time (so a replay rebuilds it exactly):
/// an object schema with `properties`, without `$schema`, which some
/// providers refuse.
pub fn mcp_spec(record: &McpToolRecord) -> Result<ToolSpec, String> {
    let name = ToolName::new(&record.name).map_err(|e| format!("{}: {e}", record.name))?;
    let mut parameters = match &record.input_schema {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    parameters.remove("$schema");
    parameters.insert("type".into(), Value::String("object".into()));
    if !parameters.get("properties").is_some_and(Value::is_object) {
        parameters.insert("properties".into(), Value::Object(Map::new()));
    }
    let description = match (&record.title, record.description.trim()) {
        (Some(title), "") => title.clone(),
        (_, "") => format!("{} (an MCP tool)", record.tool),
        (_, d) => d.to_owned(),
    };
    Ok(ToolSpec {
        name,
        description,
        parameters: Value::Object(parameters),
        effect: if record.read_only_hint == Some(true) {
            Effect::ReadOnly
        } else {
            Effect::External
        },
    })
}

pub struct McpToolAdapter {
    spec: ToolSpec,
    server: String,
    /// The server's own name for the tool.
    tool: String,
    /// None in a replay: the tool is known from the record, never called.
    connection: Option<Arc<McpConnection>>,
}

impl McpToolAdapter {
    pub fn new(
        record: &McpToolRecord,
        server: &str,
        connection: Arc<McpConnection>,
    ) -> Result<Self, String> {
        Ok(Self {
            spec: mcp_spec(record)?,
            server: server.to_owned(),
            tool: record.tool.clone(),
            connection: Some(connection),
        })
    }

    /// The tool as a run's record knows it, with no server behind it (a
    /// replay decides about its calls but never makes one).
    pub fn recorded(record: &McpToolRecord, server: &str) -> Result<Self, String> {
        Ok(Self {
            spec: mcp_spec(record)?,
            server: server.to_owned(),
            tool: record.tool.clone(),
            connection: None,
        })
    }

    /// The exposed name (what the model calls).
    pub fn spec_name(&self) -> &str {
        self.spec.name.as_str()
    }

    pub fn server(&self) -> &str {
        &self.server
    }

    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The one way an MCP tool runs: the authorised call, sent to the
    /// server. `on_progress(progress, total, message)` sees its progress
    /// notifications; a timeout or `cancel` sends the server
    /// `notifications/cancelled`. The authorisation is spent here.
    pub async fn call(
        &self,
        call: AuthorizedCall,
        cancel: CancellationToken,
        on_progress: impl Fn(f64, Option<f64>, Option<String>) + Send + Sync + 'static,
    ) -> Result<McpCallResult, McpError> {
        // Never expected (the route is looked up by the call's name): the
        // server has no tool by the name the call was authorised for.
        if *call.tool() != self.spec.name {
            return Err(McpError::ToolNotFound {
                server: self.server.clone(),
                tool: call.tool().to_string(),
            });
        }
        match &self.connection {
            Some(connection) => {
                connection
                    .call_tool(&self.tool, call, cancel, on_progress)
                    .await
            }
            None => Err(McpError::Exited {
                server: self.server.clone(),
                detail: "a replay has no server to call".into(),
            }),
        }
    }
}

impl Tool for McpToolAdapter {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn prepare(
        &self,
        args: &Map<String, Value>,
        _ws: &WorkspaceRoot,
    ) -> Result<PreparedCall, ArgumentError> {
        check_against_schema(args, &self.spec.parameters)?;
        let args = Value::Object(args.clone());
        let shown = args.to_string();
        let shown = if shown.len() > SUMMARY_ARGS {
            let cut = bearagent_tools::floor_char_boundary(&shown, SUMMARY_ARGS);
            format!("{}…", &shown[..cut])
        } else {
            shown
        };
        let summary = format!("call {} on MCP server {} {shown}", self.tool, self.server);
        Ok(PreparedCall::external(
            self.spec.name.clone(),
            summary,
            args,
            self.spec.effect == Effect::ReadOnly,
        ))
    }
}

/// The top of the schema, checked here so a plainly wrong call never
/// reaches the server: required properties present, declared properties of
/// the declared JSON type, no undeclared ones when the schema forbids them.
/// The server validates the rest.
fn check_against_schema(args: &Map<String, Value>, schema: &Value) -> Result<(), ArgumentError> {
    let props = schema.get("properties").and_then(Value::as_object);
    for name in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !args.contains_key(name) {
            return Err(ArgumentError::Missing {
                name: name.to_owned(),
            });
        }
    }
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    for (name, value) in args {
        let Some(declared) = props.and_then(|p| p.get(name)) else {
            if closed {
                let allowed: Vec<&str> = props
                    .map(|p| p.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                return Err(ArgumentError::Unknown {
                    name: name.clone(),
                    allowed: allowed.join(", "),
                });
            }
            continue;
        };
        let Some(kind) = declared.get("type").and_then(Value::as_str) else {
            continue;
        };
        let expected = match kind {
            "string" if !value.is_string() => "a string",
            "number" if !value.is_number() => "a number",
            "integer" if !(value.is_i64() || value.is_u64()) => "an integer",
            "boolean" if !value.is_boolean() => "a boolean",
            "object" if !value.is_object() => "an object",
            "array" if !value.is_array() => "an array",
            _ => continue,
        };
        return Err(bearagent_tools::wrong_type(name, expected, value));
    }
    Ok(())
}

#[cfg(test)]
#[path = "tool_tests.rs"]
mod tests;
