// Runs in the page before the app (page.addInitScript): a stand-in for the
// Tauri IPC serving one finished run of `window.__BENCH__.events` events.
// Every answer goes through JSON like the real IPC does.
/* eslint-disable */
(() => {
  const config = window.__BENCH__ ?? { events: 20_000 };
  const RUN = "bench-run";
  const WS = { id: "ws-bench", path: "/home/dev/projects/big-repo", name: "big-repo", lastOpenedAt: "2025-03-14T09:00:00Z" };
  const t0 = Date.parse("2025-03-14T09:30:00Z");
  const budgets = { max_model_calls: 5000, max_tool_calls: 10000, max_input_tokens: 200000000, max_output_tokens: 2000000, max_wall_time_ms: 36000000 };

  function makeEvents(n) {
    const events = [];
    let seq = 0;
    const push = (payload, cause) => {
      seq += 1;
      events.push({ schema_version: 1, run_id: RUN, seq, at: new Date(t0 + seq * 150).toISOString(), cause: cause ?? (seq > 1 ? seq - 1 : null), payload });
      return seq;
    };
    push({
      type: "run_created", goal: "Audit every module of the repository and write outputs/audit.md", workspace_id: WS.id, workspace_path: WS.path,
      profile: "default", budgets, approval_mode: "ask_writes", context_caps: { max_context_bytes: 400000, max_tool_result_bytes: 16384 },
      max_invalid_outputs: 2, provider: "openai", model: "gpt-4.1", config_versions: {},
    });
    push({ type: "run_started" });
    let call = 0;
    while (seq < n - 1) {
      const requested = push({ type: "model_call_requested", context_version: "c1", context_bytes: 4000 + call * 37 });
      const started = push({ type: "model_call_started", provider: "openai", model: "gpt-4.1" }, requested);
      call += 1;
      const id = `call_${call}`;
      const tool = call % 10 === 0 ? "write_file" : "read_file";
      const args = tool === "write_file" ? { path: `outputs/part_${call}.md`, content: `# Part ${call}\n\nFindings for modules ${call - 9}..${call}.\n` } : { path: `src/module_${call}.rs` };
      const done = push({ type: "model_call_completed", action: { type: "tool_calls", calls: [{ call_id: id, tool_name: tool, arguments: args }] }, usage: { input: 4100 + call, output: 60 }, stop_reason: "tool_use" }, started);
      const asked = push({ type: "tool_call_requested", call: { call_id: id, tool_name: tool, arguments: args } }, done);
      let cause = asked;
      if (tool === "write_file") {
        const approval = push({ type: "approval_requested", call_id: id, tool_name: tool, summary: `write ${args.path}` }, asked);
        cause = push({ type: "approval_granted", call_id: id, by: "user", scope: "once" }, approval);
      }
      const toolStarted = push({ type: "tool_call_started", call_id: id }, cause);
      const lines = call % 7 === 0 ? 120 : 3 + (call % 9);
      const content = Array.from({ length: lines }, (_, i) => `${String(i + 1).padStart(4)} | fn item_${call}_${i}(input: &str) -> Result<(), Error> { todo!() }`).join("\n");
      push({ type: "tool_call_completed", result: { call_id: id, content, is_error: false }, receipt: null, truncated: false, original_bytes: content.length }, toolStarted);
    }
    events.length = n - 1;
    seq = n - 1;
    push({ type: "run_succeeded", answer: "Wrote outputs/audit.md with findings for every module." });
    return events;
  }

  const events = makeEvents(config.events);
  const projection = {
    run_id: RUN, workspace_id: WS.id, workspace_path: WS.path, goal: events[0].payload.goal, profile: "default", budgets,
    approval_mode: "ask_writes", provider: "openai", model: "gpt-4.1", status: { kind: "succeeded" },
    created_at: events[0].at, updated_at: events[events.length - 1].at, last_seq: events.length,
    model_calls: Math.floor(events.length / 7), tool_calls: Math.floor(events.length / 7), usage: { input: 12345678, output: 456789 },
    pending_approval: null, last_error: null, final_answer: "Wrote outputs/audit.md with findings for every module.",
    model_call: null, open_tool_calls: {}, unknown_effects: 0, external_changes: 0,
  };
  const summary = {
    runId: RUN, workspaceId: WS.id, goal: projection.goal, status: "succeeded", statusDetail: null,
    createdAt: projection.created_at, updatedAt: projection.updated_at, modelCalls: projection.model_calls, toolCalls: projection.tool_calls,
    inputTokens: projection.usage.input, outputTokens: projection.usage.output,
  };

  const calls = [];
  function answer(cmd, args) {
    calls.push(cmd);
    switch (cmd) {
      case "current_workspace": return WS;
      case "list_recent_workspaces": return [WS];
      case "get_settings": return { configPath: "/tmp/config.toml", providers: [{ name: "openai", protocol: "openai-chat", baseUrl: "https://api.openai.com/v1", model: "gpt-4.1", keySource: { kind: "keychain" }, keyPresent: true, toolMode: "native" }], profiles: [] };
      case "search_runs": return [summary];
      case "get_run": return { projection, active: false, owner: { kind: "nobody" } };
      case "list_events": {
        const page = events.slice(args.afterSeq, args.afterSeq + args.limit);
        return { events: page, hasMore: page.length >= args.limit };
      }
      case "active_runs": return [];
      case "opened_run_file": return null;
      case "plugin:event|listen": return args.handler;
      case "plugin:event|unlisten": return null;
      default: throw { code: "internal", message: `bench IPC: unknown command ${cmd}` };
    }
  }

  let nextCallback = 1;
  const callbacks = new Map();
  window.__TAURI_INTERNALS__ = {
    metadata: { currentWindow: { label: "main" }, currentWebview: { windowLabel: "main", label: "main" } },
    transformCallback(callback) {
      const id = nextCallback++;
      callbacks.set(id, callback);
      return id;
    },
    unregisterCallback(id) {
      callbacks.delete(id);
    },
    convertFileSrc: (path) => path,
    async invoke(cmd, args) {
      // The live feed: its cursor at once, then nothing more (the run has finished).
      if (cmd === "next_live_updates") {
        calls.push(cmd);
        return args?.cursor == null ? { cursor: 0, skipped: 0, updates: [] } : new Promise(() => {});
      }
      // The real IPC serialises both ways.
      const value = answer(cmd, args ?? {});
      return value === undefined ? null : JSON.parse(JSON.stringify(value));
    },
  };
  window.__TAURI_EVENT_PLUGIN_INTERNALS__ = { unregisterListener() {} };
  window.__benchIpc = { calls, runId: RUN, eventCount: events.length };
})();
