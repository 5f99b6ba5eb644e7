// Runs in the page before the app (page.addInitScript): a stand-in for the
// Tauri IPC serving one finished run of `window.__BENCH__.events` events
// (`shape: "soak"`: the soak bench's run of read_file steps).
// Every answer goes through JSON like the real IPC does.
/* eslint-disable */
(() => {
  const config = window.__BENCH__ ?? { events: 20_000 };
  // The soak's run has a real run id (a UUID, in every event).
  const RUN = config.shape === "soak" ? "0193a5c2-7e41-7c3a-9f2b-5d6e8a1b2c3d" : "bench-run";
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
    push(runCreated());
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

  /**
   * The soak's run (tests/desktop/bench/soak.bench.mjs), made one event at
   * a time as pages are asked for, so the page's heap holds only what the
   * app keeps: per step a model call (requested, started, completed with
   * usage) and a read_file call whose result is a 64-line text of ~1 KB.
   * 2 + 6·steps + 4 events, as the real run records.
   */
  function soakEvent(n, seq) {
    const steps = Math.floor((n - 6) / 6);
    // RFC 3339 with nanoseconds, as the store writes it.
    const at = new Date(t0 + seq * 40).toISOString().replace("Z", `${String(seq % 1_000_000).padStart(6, "0")}Z`);
    const envelope = (payload, cause) => ({ schema_version: 1, run_id: RUN, seq, at, cause, payload });
    if (seq === 1) return envelope(runCreated(), null);
    if (seq === 2) return envelope({ type: "run_started" }, 1);
    const step = Math.floor((seq - 3) / 6);
    const k = (seq - 3) % 6;
    const id = `call_${step}`;
    const call = { call_id: id, tool_name: "read_file", arguments: { path: `src/module_${step % 63}.rs` } };
    if (k === 0) return envelope({ type: "model_call_requested", context_version: "context-v3", context_bytes: 2000 + step * 1100, estimated_tokens: 600 + step * 300, context_window: 1000000, request_digest: `${step}`.padStart(64, "a") }, seq - 1);
    if (k === 1) return envelope({ type: "model_call_started", provider: "local", model: "loopback" }, seq - 1);
    const last = step >= steps;
    if (k === 2) {
      const action = last ? { type: "final_answer", content: `Read ${steps} files.` } : { type: "tool_calls", calls: [call] };
      return envelope({ type: "model_call_completed", action, usage: { input: 100, output: 10 }, stop_reason: last ? "end_turn" : "tool_use", text: last ? `Read ${steps} files.` : "", cost_micro_usd: null }, seq - 1);
    }
    if (last) return envelope({ type: "run_succeeded", answer: `Read ${steps} files.` }, seq - 1);
    if (k === 3) return envelope({ type: "tool_call_requested", call }, seq - 1);
    if (k === 4) return envelope({ type: "tool_call_started", call_id: id }, seq - 1);
    const content = Array.from({ length: 64 }, (_, i) => `fn f${step}_${i}() {}`.padEnd(15, " ")).join("\n") + "\n";
    return envelope({ type: "tool_call_completed", result: { call_id: id, content, is_error: false }, receipt: null, truncated: false, original_bytes: content.length }, seq - 1);
  }

  function runCreated() {
    return {
      type: "run_created", goal: "Audit every module of the repository and write outputs/audit.md", workspace_id: WS.id, workspace_path: WS.path,
      profile: "default", budgets, approval_mode: "ask_writes", context_caps: { max_context_bytes: 400000, max_tool_result_bytes: 16384 },
      max_invalid_outputs: 2, provider: "openai", model: "gpt-4.1", config_versions: {},
    };
  }

  const soak = config.shape === "soak";
  const soakCount = 6 + 6 * Math.floor((config.events - 6) / 6);
  const events = soak ? [soakEvent(soakCount, 1), soakEvent(soakCount, soakCount)] : makeEvents(config.events);
  const eventCount = soak ? soakCount : events.length;
  const projection = {
    run_id: RUN, workspace_id: WS.id, workspace_path: WS.path, goal: events[0].payload.goal, profile: "default", budgets,
    approval_mode: "ask_writes", provider: "openai", model: "gpt-4.1", status: { kind: "succeeded" },
    created_at: events[0].at, updated_at: events[events.length - 1].at, last_seq: eventCount,
    model_calls: Math.floor(eventCount / 7), tool_calls: Math.floor(eventCount / 7), usage: { input: 12345678, output: 456789 },
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
        const page = soak
          ? Array.from({ length: Math.max(0, Math.min(args.limit, eventCount - args.afterSeq)) }, (_, i) => soakEvent(eventCount, args.afterSeq + i + 1))
          : events.slice(args.afterSeq, args.afterSeq + args.limit);
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
  window.__benchIpc = { calls, runId: RUN, eventCount };
})();
