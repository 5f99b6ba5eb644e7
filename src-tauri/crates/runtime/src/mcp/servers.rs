//! Starting a run's servers, recording what each offered (or why it is
//! unavailable), the tools the model is offered at any point of a run, and
//! stopping the servers when the run ends.

use super::tool::{mcp_spec, McpToolAdapter};
use crate::run::recorder::Recorder;
use crate::AppError;
use bearagent_kernel::{mcp_rule_for, EventEnvelope, EventPayload, McpRules, McpToolRecord};
use bearagent_mcp::{expose_names, McpConnection, McpTool, ServerConfig};
use bearagent_providers::ToolSchema;
use bearagent_tools::{Registry, ToolRule, ToolSpec};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// The enabled servers of the config, in order: connectable, or why not
/// (e.g. a secret's variable is not set).
pub type McpPlan = Vec<(String, Result<ServerConfig, String>)>;

/// The live servers of one run and their tools by exposed name.
#[derive(Default)]
pub struct RunMcp {
    connections: Vec<(String, Arc<McpConnection>)>,
    tools: BTreeMap<String, Arc<McpToolAdapter>>,
}

struct Started {
    connection: McpConnection,
    startup_ms: u64,
    tools: Vec<McpTool>,
}

impl RunMcp {
    /// Starts every planned server at once and records, in plan order, an
    /// `McpServerStarted` or `McpServerUnavailable` for each. A server that
    /// fails never fails the run. Cancelling the run stops the start (the
    /// processes are killed); store errors are the only errors.
    pub async fn start(
        rec: &mut Recorder,
        plan: McpPlan,
        cancel: &CancellationToken,
    ) -> Result<RunMcp, AppError> {
        if rec.tape().is_some() {
            return Self::recorded(rec);
        }
        let mut run = RunMcp::default();
        if plan.is_empty() {
            return Ok(run);
        }
        let mut starting = JoinSet::new();
        let mut outcomes: Vec<Option<Result<Started, String>>> = Vec::new();
        for (i, (_, config)) in plan.iter().enumerate() {
            outcomes.push(None);
            match config {
                Ok(config) => {
                    let config = config.clone();
                    starting.spawn(async move { (i, start_one(&config).await) });
                }
                Err(why) => outcomes[i] = Some(Err(why.clone())),
            }
        }
        loop {
            tokio::select! {
                biased;
                () = cancel.cancelled() => {
                    // Dropping the set aborts the starts; dropping a
                    // connection kills its process group.
                    starting.abort_all();
                    return Ok(run);
                }
                joined = starting.join_next() => match joined {
                    Some(Ok((i, outcome))) => outcomes[i] = Some(outcome),
                    Some(Err(e)) => tracing::warn!(error = %e, "an MCP server start task failed"),
                    None => break,
                },
            }
        }
        for ((name, _), outcome) in plan.into_iter().zip(outcomes) {
            let outcome = outcome.unwrap_or_else(|| Err("its start was interrupted".to_owned()));
            run.record_start(rec, name, outcome).await?;
        }
        Ok(run)
    }

    /// In a replay: the servers as the record says they started, their
    /// tools known (for routing and the policy) but never called.
    fn recorded(rec: &mut Recorder) -> Result<RunMcp, AppError> {
        let mut run = RunMcp::default();
        loop {
            rec.absorb_beside()?;
            let next = rec
                .tape()
                .and_then(|t| t.ahead().first())
                .map(|e| e.payload.clone());
            match next {
                Some(EventPayload::McpServerStarted { server, tools, .. }) => {
                    for record in &tools {
                        let adapter = McpToolAdapter::recorded(record, &server)
                            .map_err(|e| AppError::Corrupt(format!("recorded MCP tool: {e}")))?;
                        run.tools
                            .insert(adapter.spec_name().to_owned(), Arc::new(adapter));
                    }
                }
                Some(EventPayload::McpServerUnavailable { .. }) => {}
                _ => return Ok(run),
            }
            rec.copy_recorded()?;
        }
    }

    async fn record_start(
        &mut self,
        rec: &mut Recorder,
        server: String,
        outcome: Result<Started, String>,
    ) -> Result<(), AppError> {
        let started = match outcome {
            Ok(started) => started,
            Err(reason) => return record_unavailable(rec, server, reason),
        };
        // Exposed names must be unique across all the run's tools.
        if let Some((theirs, other)) = started.tools.iter().find_map(|t| {
            self.tools
                .get(&t.exposed_name)
                .map(|other| (t, other.clone()))
        }) {
            let reason = format!(
                "its tool `{}` would be shown to the model as `{}`, like tool `{}` of server `{}`; rename one of the servers",
                theirs.name,
                theirs.exposed_name,
                other.tool(),
                other.server()
            );
            started.connection.shutdown().await;
            return record_unavailable(rec, server, reason);
        }
        let records: Vec<McpToolRecord> = started.tools.iter().map(record_of).collect();
        let connection = Arc::new(started.connection);
        let mut adapters = Vec::new();
        for record in &records {
            match McpToolAdapter::new(record, &server, connection.clone()) {
                Ok(a) => adapters.push(Arc::new(a)),
                Err(reason) => {
                    drop(adapters);
                    shutdown(connection).await;
                    return record_unavailable(
                        rec,
                        server,
                        format!("a tool name is unusable: {reason}"),
                    );
                }
            }
        }
        let info = connection.info().clone();
        rec.record(
            rec.last_seq(),
            EventPayload::McpServerStarted {
                server: server.clone(),
                server_name: info.name,
                server_version: info.version,
                protocol_version: info.protocol_version,
                startup_ms: started.startup_ms,
                tools: records,
            },
        )?;
        for adapter in adapters {
            self.tools.insert(adapter.spec_name().to_owned(), adapter);
        }
        self.connections.push((server, connection));
        Ok(())
    }

    /// The run's MCP tools by exposed name.
    pub fn tools(&self) -> BTreeMap<String, Arc<McpToolAdapter>> {
        self.tools.clone()
    }

    /// The profile's rules for each of the run's tools.
    pub fn tool_rules(&self, rules: &McpRules) -> BTreeMap<String, ToolRule> {
        self.tools
            .iter()
            .filter_map(|(name, t)| {
                let (key, decision) = mcp_rule_for(rules, t.server(), t.tool())?;
                let rule = ToolRule {
                    decision,
                    rule: format!("rule mcp_rules.{key:?} = {decision}"),
                };
                Some((name.clone(), rule))
            })
            .collect()
    }

    /// Stops every server (gracefully, then by force).
    pub async fn shutdown(self) {
        drop(self.tools);
        let mut stopping = JoinSet::new();
        for (_, connection) in self.connections {
            stopping.spawn(shutdown(connection));
        }
        while stopping.join_next().await.is_some() {}
    }
}

async fn start_one(config: &ServerConfig) -> Result<Started, String> {
    let began = Instant::now();
    let connection = McpConnection::connect(config)
        .await
        .map_err(|e| e.to_string())?;
    let startup_ms = u64::try_from(began.elapsed().as_millis()).unwrap_or(u64::MAX);
    let tools = match connection.list_tools().await.and_then(expose_names) {
        Ok(tools) => tools,
        Err(e) => {
            connection.shutdown().await;
            return Err(e.to_string());
        }
    };
    Ok(Started {
        connection,
        startup_ms,
        tools,
    })
}

/// Graceful when nothing else holds the connection; otherwise dropping the
/// last holder kills the process group.
async fn shutdown(connection: Arc<McpConnection>) {
    if let Ok(connection) = Arc::try_unwrap(connection) {
        connection.shutdown().await;
    }
}

fn record_unavailable(rec: &mut Recorder, server: String, reason: String) -> Result<(), AppError> {
    tracing::warn!(server, reason, "an MCP server is unavailable to the run");
    rec.record(
        rec.last_seq(),
        EventPayload::McpServerUnavailable { server, reason },
    )?;
    Ok(())
}

fn record_of(t: &McpTool) -> McpToolRecord {
    McpToolRecord {
        name: t.exposed_name.clone(),
        tool: t.name.clone(),
        title: t.title.clone(),
        description: t.description.clone(),
        input_schema: t.input_schema.clone(),
        read_only_hint: t.read_only_hint,
        destructive_hint: t.destructive_hint,
    }
}

/// The tools the model is offered after `events`: the workspace tools and,
/// for each server whose last word was `McpServerStarted`, the tools it
/// listed (a server that became unavailable offers none). Built from
/// committed events only, so "what the model saw" rebuilds it exactly.
pub fn model_tools(registry: &Registry, events: &[EventEnvelope]) -> Vec<ToolSchema> {
    OfferedTools::default().after(registry, events).to_vec()
}

/// [`model_tools`] kept up to date as a run's log grows: each call reads
/// only the events since the last one, and the list is rebuilt only after
/// a server started or became unavailable.
#[derive(Default)]
pub struct OfferedTools {
    read: usize,
    servers: BTreeMap<String, Vec<McpToolRecord>>,
    tools: Option<Vec<ToolSchema>>,
}

impl OfferedTools {
    pub fn after(&mut self, registry: &Registry, events: &[EventEnvelope]) -> &[ToolSchema] {
        // Another log than the one read so far: start over.
        if events.len() < self.read {
            *self = Self::default();
        }
        for e in &events[self.read..] {
            if let EventPayload::McpServerStarted { server, tools, .. } = &e.payload {
                self.servers.insert(server.clone(), tools.clone());
                self.tools = None;
            } else if let EventPayload::McpServerUnavailable { server, .. } = &e.payload {
                self.servers.remove(server.as_str());
                self.tools = None;
            }
        }
        self.read = events.len();
        let servers = &self.servers;
        self.tools.get_or_insert_with(|| offered(registry, servers))
    }
}

fn offered(registry: &Registry, servers: &BTreeMap<String, Vec<McpToolRecord>>) -> Vec<ToolSchema> {
    let mut specs: Vec<ToolSpec> = registry.specs();
    specs.extend(
        servers
            .values()
            .flat_map(|tools| tools.iter())
            .filter_map(|r| mcp_spec(r).ok()),
    );
    specs.sort_by(|a, b| a.name.as_str().cmp(b.name.as_str()));
    specs
        .into_iter()
        .map(|s| ToolSchema {
            name: s.name.to_string(),
            description: s.description,
            parameters: s.parameters,
        })
        .collect()
}
