use super::*;
use crate::run::context::{build, rebuild, ContextInput, CONTEXT_VERSION};
use crate::run::context_cache::ContextCache;
use bearagent_kernel::testkit::{at, run_created};
use bearagent_kernel::{EventSeq, NewEvent, RunId, WorkspaceId};
use bearagent_tools::Registry;

/// What the model is offered by a default run: the workspace tools.
fn workspace_tools() -> Vec<ToolSchema> {
    Registry::with_workspace_tools()
        .specs()
        .into_iter()
        .map(|s| ToolSchema {
            name: s.name.to_string(),
            description: s.description,
            parameters: s.parameters,
        })
        .collect()
}

/// A run's first events as `create_run` records them for `profile`.
fn started(profile: ContextProfile, goal: &str) -> Vec<EventEnvelope> {
    let mut created = run_created(WorkspaceId::new(), goal);
    if let EventPayload::RunCreated {
        config_versions, ..
    } = &mut created
    {
        let version = crate::run::context::profile_version(profile);
        config_versions.insert("context".into(), version.into());
    }
    vec![NewEvent::new(at(0), None, created).into_envelope(RunId::new(), EventSeq(1))]
}

fn first_request(
    events: &[EventEnvelope],
    tools: &[ToolSchema],
) -> crate::run::context::BuiltContext {
    build(&ContextInput {
        ancestors: &[],
        events,
        tools,
        caps: &ContextCaps::default(),
        workspace: "/home/user/project",
        instructions: &[],
        summary: None,
    })
}

/// Tokens at the runtime's own estimate (3 bytes a token; English and
/// JSON run nearer 4, so this errs high).
fn tokens(bytes: u64) -> u64 {
    bytes.div_ceil(3)
}

#[test]
fn small_windows_get_the_compact_profile() {
    assert_eq!(ContextProfile::for_window(4_096), ContextProfile::Compact);
    assert_eq!(ContextProfile::for_window(16_384), ContextProfile::Compact);
    assert_eq!(ContextProfile::for_window(16_385), ContextProfile::Full);
    assert_eq!(ContextProfile::for_window(200_000), ContextProfile::Full);
}

#[test]
fn a_run_recorded_before_profiles_is_full() {
    let events = started(ContextProfile::Full, "g");
    assert_eq!(ContextProfile::of_run(&events), ContextProfile::Full);
    let compact = started(ContextProfile::Compact, "g");
    assert_eq!(ContextProfile::of_run(&compact), ContextProfile::Compact);
    assert_eq!(ContextProfile::of_run(&[]), ContextProfile::Full);
}

#[test]
fn compact_tools_are_four_with_short_descriptions_and_required_arguments() {
    let compact = compact_tools(&workspace_tools());
    let names: Vec<&str> = compact.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        ["list_dir", "read_file", "run_command", "write_file"]
    );
    for tool in &compact {
        assert!(tool.description.len() < 100, "{}", tool.description);
        let text = tool.parameters.to_string();
        assert!(!text.contains("description"), "{text}");
    }
    let write = &compact[3].parameters;
    assert_eq!(write["required"], serde_json::json!(["path", "content"]));
    assert_eq!(write["properties"]["content"]["type"], "string");
}

#[test]
fn mcp_tools_stay_cut_to_their_first_sentence() {
    let mcp = ToolSchema {
        name: "fs__read_text".into(),
        description: "Read a file. It returns the text; long files are cut.".into(),
        parameters: serde_json::json!({
            "type": "object",
            "properties": {"path": {"type": "string", "description": "where"}, "tail": {"type": "integer"}},
            "required": ["path"],
        }),
    };
    let compact = compact_tools(&[mcp]);
    assert_eq!(compact[0].description, "Read a file.");
    assert_eq!(
        compact[0].parameters,
        serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
    );
}

#[test]
fn a_compact_tool_result_cap_is_a_share_of_the_window() {
    let caps = ContextProfile::Compact.caps(ContextCaps::default(), 8_192);
    assert_eq!(caps.max_tool_result_bytes, 3_072);
    let tiny = ContextProfile::Compact.caps(ContextCaps::default(), 1_000);
    assert_eq!(tiny.max_tool_result_bytes, 1_024);
    assert_eq!(
        ContextProfile::Full.caps(ContextCaps::default(), 8_192),
        ContextCaps::default()
    );
}

/// Issue 53, point 4: the first request of a default compact run fits in
/// 1 000 tokens in both tool modes (JSON-text spells the tools out in the
/// system prompt), and is a fraction of a full one.
#[test]
fn the_first_compact_request_fits_in_a_thousand_tokens() {
    let goal = "Read question.txt and write the answer to answer.txt.";
    let tools = workspace_tools();
    let compact = first_request(&started(ContextProfile::Compact, goal), &tools);
    let full = first_request(&started(ContextProfile::Full, goal), &tools);
    assert_eq!(compact.version, COMPACT_CONTEXT_VERSION);
    assert_eq!(full.version, CONTEXT_VERSION);
    let json_text = bearagent_providers::json_text_system_prompt(&compact.request);
    let json_text_bytes = compact.bytes + json_text.len() as u64;
    eprintln!(
        "first request: full {} tokens, compact {} (native) / {} (JSON-text), at 3 bytes a token",
        tokens(full.bytes),
        tokens(compact.bytes),
        tokens(json_text_bytes)
    );
    assert!(tokens(compact.bytes) <= 1_000, "{}", compact.bytes);
    assert!(tokens(json_text_bytes) <= 1_000, "{json_text_bytes}");
    assert!(
        compact.bytes * 3 < full.bytes,
        "{} vs {}",
        compact.bytes,
        full.bytes
    );
}

#[test]
fn the_loop_cache_and_a_rebuild_give_the_compact_request_exactly() {
    let events = started(ContextProfile::Compact, "g");
    let tools = workspace_tools();
    let caps = ContextCaps::default();
    let input = ContextInput {
        ancestors: &[],
        events: &events,
        tools: &tools,
        caps: &caps,
        workspace: "/w",
        instructions: &[],
        summary: None,
    };
    let built = build(&input);
    let cached = ContextCache::default().build(&input);
    let rebuilt = rebuild(COMPACT_CONTEXT_VERSION, &input).expect("a known version");
    assert_eq!(cached.version, COMPACT_CONTEXT_VERSION);
    assert_eq!((&cached.digest, cached.bytes), (&built.digest, built.bytes));
    assert_eq!(
        (&rebuilt.digest, rebuilt.bytes),
        (&built.digest, built.bytes)
    );
    assert!(built.request.system.starts_with(compact_rules()));
    assert_eq!(
        built.request.max_output_tokens,
        Some(COMPACT_MAX_OUTPUT_TOKENS)
    );
}
