// Development-only fake of the Rust side, loaded by main.ts for `?mockIpc`
// in `vite dev` (never part of `vite build`). It answers the same commands
// with the same shapes and error codes, and pushes the same events: a fake
// run engine, approvals that continue the run, the demo run (played back
// from what the Rust runtime records: scenario.ts), and settings in memory.
import { emit } from "@tauri-apps/api/event";
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import type { EventPayload, LiveUpdate, McpServerView, StartRunRequest, WorkspaceOpened, WorkspaceView } from "../../bindings";
import type { ProfileSettings, ProviderInput } from "../../lib/settings/types";
import { MockArtifacts } from "./artifacts";
import { compactByHand, eventText } from "./compaction";
import { MockRunEngine, type MockRun } from "./runEngine";
import { checkOwnedHere, checkStart, detail, listEvents, modelContext, runOf, search, seedFromSummary } from "./runs";
import { DEFAULT_AGENTS_MD, commandScript, followUpScript, longScript, mcpScript, providerScript } from "./scripts";
import { adoptCreated, DEMO_RECORDING, localise, playBack } from "./scenario";
import { checkReply, lastWrittenPath, parentsFirst, threadOf } from "./threads";
import { priceFromView } from "./projection";
import { MockError, MockSettings } from "./settings";
import { DEFAULT_SEED, type MockHooks, type MockSeed } from "./seed";

export type { MockSeed } from "./seed";

export function installMockBackend(seed: MockSeed = window.__BEARAGENT_MOCK_SEED__ ?? {}): void {
  const config = { ...DEFAULT_SEED, ...seed };
  const directories = new Set(config.directories.map(normalise));
  const files = new Set(config.files.map(normalise));
  const workspaces = new Map<string, WorkspaceView>();
  const settings = new MockSettings(config.settings);
  const calls: { cmd: string; args: Record<string, unknown> }[] = [];
  // A fixed clock keeps screenshots and assertions deterministic.
  let clock = Date.parse("2025-03-14T09:30:00Z");
  let current: WorkspaceView | null = null;
  let demos = 0;
  let quitCalled = false;

  const engine = new MockRunEngine({
    push: (update: LiveUpdate) => void pushLive(update),
    stepMs: config.stepMs,
    streamMs: config.streamMs,
    gateModelCalls: config.gateModelCalls,
    gateCommands: config.gateCommands,
    onWrite: (workspacePath, relPath, content, runId, before) => {
      const full = `${workspacePath}/${relPath}`;
      artifacts.record(runId, relPath, before ?? contents.get(full) ?? null, content);
      files.add(full);
      contents.set(full, content);
    },
    // A workspace's AGENTS.md is read when the seed lists it among the files.
    readInstructions: (workspacePath, relPath) => {
      const full = `${workspacePath}/${relPath}`;
      return files.has(full) ? (contents.get(full) ?? DEFAULT_AGENTS_MD) : null;
    },
  });
  // What the mock's files hold, where it matters for a diff.
  const contents = new Map<string, string>();
  const artifacts = new MockArtifacts((runId, payload) => {
    engine.commit(runOf(engine, runId), payload, null);
  });

  function open(rawPath: string): WorkspaceView {
    const path = normalise(rawPath);
    if (path === "" || !path.startsWith("/")) {
      throw new MockError({ code: "invalid_input", message: `Workspace path must be absolute: "${rawPath}"` });
    }
    if (files.has(path)) throw new MockError({ code: "not_a_directory", message: `Not a directory: ${path}` });
    if (!directories.has(path)) throw new MockError({ code: "not_found", message: `No such folder: ${path}` });
    clock += 60_000;
    const existing = workspaces.get(path);
    const workspace: WorkspaceView = {
      id: existing?.id ?? `ws-${workspaces.size + 1}`,
      path,
      name: path.split("/").filter(Boolean).pop() ?? path,
      lastOpenedAt: new Date(clock).toISOString(),
    };
    workspaces.set(path, workspace);
    current = workspace;
    return workspace;
  }

  async function openAndAnnounce(path: string): Promise<WorkspaceView> {
    const workspace = open(path);
    const payload: WorkspaceOpened = { workspace };
    await emit("workspace-opened", payload);
    return workspace;
  }

  const workspaceById = (id: string) => [...workspaces.values()].find((w) => w.id === id);

  function startRun(request: StartRunRequest) {
    const known = request.provider === "demo" || settings.hasProvider(request.provider);
    const provider = settings.view().providers.find((p) => p.name === request.provider);
    const price = priceFromView(provider?.price);
    const workspace = checkStart(request, workspaceById(request.workspaceId), known, price !== null);
    open(workspace.path);
    // The run takes its profile's compaction setting (the form already filled in the rest).
    const profile = settings.view().profiles.find((p) => p.name === request.profile);
    const run = engine.create({
      workspace,
      goal: request.goal.trim(),
      provider: request.provider,
      model: provider?.model ?? "demo-script",
      profile: profile?.name ?? "default",
      approvalMode: request.approvalMode,
      budgets: request.budgets,
      price,
      contextWindow: provider?.contextWindow ?? null,
      compactAtPermille: profile?.contextCaps.compact_at_permille,
    });
    // Like the runtime: each enabled MCP server starts with the run.
    // The demo model's run is the one the runtime recorded (with this run's own run_created).
    if (request.provider === "demo") return playDemo(run, false);
    const servers = settings.mcp.startups();
    // A goal about tests gets a run that uses run_command; one naming MCP calls the servers' tools;
    // one about long files reads logs that fill the window, so it compacts.
    const script = /\btests?\b/i.test(request.goal)
      ? commandScript()
      : /\blong\b/i.test(request.goal)
        ? longScript()
        : ((/\bmcp\b/i.test(request.goal) ? mcpScript(servers) : null) ?? providerScript(request.goal));
    engine.start(run, script, servers);
    return { runId: run.id };
  }

  /** Like `reply_to_run`: a follow-up (or, with `atSeq`, a fork) with the parent's workspace, provider and settings. */
  function replyToRun(runId: string, message: string, atSeq: number | null) {
    const { created, parent, goal } = checkReply(engine, runId, message, atSeq, {
      provider: (name) => name === "demo" || settings.hasProvider(name),
      folder: (path) => directories.has(path),
    });
    const workspace = workspaceById(created.workspace_id) ?? open(created.workspace_path);
    const run = engine.create({
      workspace,
      goal,
      provider: created.provider,
      model: created.model,
      profile: created.profile,
      approvalMode: created.approval_mode,
      budgets: created.budgets,
      price: created.price ?? null,
      commands: created.commands,
      parent,
      // Like the runtime: the provider's window as configured now, the parent's compaction setting.
      contextWindow: settings.view().providers.find((p) => p.name === created.provider)?.contextWindow ?? null,
      compactAtPermille: created.context_caps.compact_at_permille,
    });
    const demo = created.provider === "demo";
    const path = demo ? "docs/plan.md" : (lastWrittenPath(engine, parent) ?? "README.md");
    const full = `${created.workspace_path}/${path}`;
    const content = files.has(full) ? (contents.get(full) ?? `# ${path}\n`) : null;
    engine.start(run, followUpScript(demo, goal, path, content), settings.mcp.startups());
    return { runId: run.id };
  }

  /** Plays the recorded demo back on `run` (`adopt`: with the recorded run_created, as "Try the demo" starts it). */
  function playDemo(run: MockRun, adopt: boolean) {
    const ids = { workspacePath: run.projection.workspace_path, workspaceId: run.projection.workspace_id, runId: run.id };
    const approved = localise(DEMO_RECORDING.approved, ids);
    const denied = localise(DEMO_RECORDING.denied, ids);
    if (adopt) adoptCreated(run, approved);
    engine.drive(run, () =>
      playBack(engine, run, approved, denied, {
        stepMs: config.stepMs,
        streamMs: config.streamMs,
        onArtifact: (r, relPath, content, item, diff) => {
          const full = `${r.projection.workspace_path}/${relPath}`;
          artifacts.recordRecorded(r.id, relPath, contents.get(full) ?? null, content, item, diff);
          if (content === null) {
            files.delete(full);
            contents.delete(full);
          } else {
            files.add(full);
            contents.set(full, content);
          }
        },
      }),
    );
    return { runId: run.id };
  }

  /** Like `start_demo_run`: the sample workspace in a temp folder, and the recorded demo run on it. */
  function startDemo() {
    demos += 1;
    const path = `/tmp/bearagent-demo-${String(demos).padStart(2, "0")}`;
    directories.add(path);
    for (const rel of ["README.md", "docs/notes.md", "src/greeter.py"]) files.add(`${path}/${rel}`);
    const workspace = open(path);
    const created = DEMO_RECORDING.approved.events[0].payload;
    if (created.type !== "run_created") throw new Error("the recorded demo does not start with run_created");
    const run = engine.create({
      workspace,
      goal: created.goal,
      provider: created.provider,
      model: created.model,
      profile: created.profile,
      approvalMode: created.approval_mode,
      budgets: created.budgets,
    });
    return [workspace, playDemo(run, true)];
  }

  for (const path of config.recent) open(path);
  for (const [path, runs] of Object.entries(config.runs)) {
    const workspace = workspaces.get(normalise(path)) ?? open(path);
    for (const summary of parentsFirst(runs)) seedFromSummary(engine, workspace, summary);
  }
  for (const [runId, seeds] of Object.entries(config.artifacts)) artifacts.seed(runId, seeds);
  current = config.current ? open(config.current) : null;

  mockWindows("main");
  mockIPC(
    async (cmd, args) => {
      const input = (args ?? {}) as Record<string, unknown>;
      calls.push({ cmd, args: input });
      try {
        switch (cmd) {
          case "open_workspace":
            return await openAndAnnounce(String(input.path ?? ""));
          case "choose_workspace":
            return config.choose === null ? null : await openAndAnnounce(config.choose);
          case "current_workspace":
            return current;
          case "list_recent_workspaces":
            return [...workspaces.values()].sort((a, b) => b.lastOpenedAt.localeCompare(a.lastOpenedAt));
          case "list_runs":
            return search(engine, { workspaceId: String(input.workspaceId ?? ""), status: null, text: null, limit: null });
          case "start_run":
            return startRun(input.request as StartRunRequest);
          case "start_demo_run":
            return startDemo();
          case "reply_to_run":
            return replyToRun(String(input.runId), String(input.message ?? ""), input.atSeq == null ? null : Number(input.atSeq));
          case "get_thread":
            return threadOf(engine, String(input.runId));
          case "compact_run":
            return compactByHand(engine, String(input.runId), {
              known: (name) => name === "demo" || settings.hasProvider(name),
              // Like Test connection: a server on port 9 refuses.
              answers: (name) => !/localhost:9\b|127\.0\.0\.1:9\b/.test(settings.view().providers.find((p) => p.name === name)?.baseUrl ?? ""),
            });
          case "event_text":
            return eventText(engine, String(input.runId), String(input.blob ?? ""));
          case "cancel_run":
            runOf(engine, String(input.runId));
            if (!engine.cancel(String(input.runId))) throw new MockError({ code: "conflict", message: "the run is not in progress" });
            return null;
          case "decide_approval":
            checkOwnedHere(engine, String(input.runId));
            if (!engine.decide(String(input.runId), String(input.callId), input.decision as never)) {
              throw new MockError({ code: "not_found", message: `pending approval not found: ${String(input.runId)}/${String(input.callId)}` });
            }
            return null;
          case "search_runs":
            return search(engine, input.filter as never);
          case "get_run":
            return detail(engine, String(input.runId));
          case "list_events":
            return listEvents(engine, String(input.runId), Number(input.afterSeq), Number(input.limit));
          case "model_context":
            return modelContext(engine, String(input.runId), Number(input.requestedSeq));
          case "command_output": {
            const output = runOf(engine, String(input.runId)).outputs.get(String(input.callId));
            if (output === undefined) throw new MockError({ code: "not_found", message: `command output not found: ${String(input.runId)}/${String(input.callId)}` });
            return output;
          }
          case "list_artifacts":
            runOf(engine, String(input.runId));
            return artifacts.list(String(input.runId));
          case "artifact_diff":
            runOf(engine, String(input.runId));
            return artifacts.diff(String(input.runId), String(input.path), Boolean(input.full));
          case "keep_artifact":
            runOf(engine, String(input.runId));
            return artifacts.keep(String(input.runId), String(input.path));
          case "revert_artifact":
            runOf(engine, String(input.runId));
            return artifacts.revert(String(input.runId), String(input.path), Boolean(input.force));
          case "reapply_artifact":
            runOf(engine, String(input.runId));
            return artifacts.reapply(String(input.runId), String(input.path), Boolean(input.force));
          case "export_run":
            runOf(engine, String(input.runId));
            return artifacts.exportRun(String(input.runId));
          case "active_runs":
            return [...engine.runs.values()].filter((r) => r.active).map((r) => r.id);
          case "quit_app":
            quitCalled = true;
            return null;
          case "get_settings":
            return settings.view();
          case "save_provider":
            return settings.saveProvider(input.provider as ProviderInput);
          case "delete_provider":
            return settings.deleteProvider(String(input.name));
          case "set_provider_key":
            return settings.setKey(String(input.name), String(input.key ?? ""));
          case "test_provider":
            return settings.test(String(input.name));
          case "save_profile":
            return settings.saveProfile(input.profile as ProfileSettings);
          case "delete_profile":
            return settings.deleteProfile(String(input.name));
          case "save_mcp_server":
            return settings.mcp.save(input.server as McpServerView);
          case "delete_mcp_server":
            return settings.mcp.delete(String(input.name));
          case "set_mcp_secret":
            return settings.mcp.setSecret(String(input.server), String(input.name), String(input.value ?? ""));
          case "test_mcp_server":
            return settings.mcp.test(String(input.name));
          default:
            throw new MockError({ code: "internal", message: `mock backend: unknown command ${cmd}` });
        }
      } catch (e) {
        // Tauri rejects `invoke` with the serialised error value itself.
        if (e instanceof MockError) throw e.error;
        throw e;
      }
    },
    { shouldMockEvents: true },
  );

  const hooks: MockHooks = {
    openFromBackend: openAndAnnounce,
    calls,
    get quitCalled() {
      return quitCalled;
    },
    releaseModelCall: () => engine.releaseModelCall(),
    releaseCommand: () => engine.releaseCommand(),
    seedRun(workspacePath: string, goal: string, payloads: EventPayload[], options = {}) {
      const workspace = workspaces.get(normalise(workspacePath)) ?? open(workspacePath);
      const run = engine.create({
        workspace,
        goal,
        provider: "openai",
        model: "gpt-4.1",
        profile: "default",
        approvalMode: "ask_writes",
        budgets: { max_model_calls: 50, max_tool_calls: 100, max_input_tokens: 2_000_000, max_output_tokens: 200_000, max_wall_time_ms: 1_800_000, max_cost_micro_usd: null },
        commands: options.commands,
      });
      for (const payload of payloads) engine.commit(run, payload, run.events.length, { silent: true });
      for (const [callId, output] of Object.entries(options.outputs ?? {})) run.outputs.set(callId, output);
      return run.id;
    },
    appendEvent(runId: string, payload: EventPayload, options: { silent?: boolean } = {}) {
      const run = runOf(engine, runId);
      return engine.commit(run, payload, run.events.length, options).seq;
    },
    emitStored(runId: string, seq: number) {
      const run = runOf(engine, runId);
      void pushLive({ kind: "run_event", runId, event: run.events[seq - 1] });
    },
    emitModelText(runId: string, modelCall: number, text: string) {
      void pushLive({ kind: "model_text", runId, modelCall, text });
    },
    emitCommandOutput(runId: string, callId: string, text: string) {
      void pushLive({ kind: "command_output", runId, callId, text });
    },
    eventCount: (runId: string) => runOf(engine, runId).events.length,
    interrupt: (runId: string) => engine.interrupt(runId),
    runElsewhere(runId: string, pid: number, program: string) {
      runOf(engine, runId).owner = { kind: "elsewhere", pid, program };
    },
    abortRun(runId: string, message: string) {
      // Like the backend: the run is marked failed, then the loop's end is announced.
      const run = runOf(engine, runId);
      engine.commit(run, { type: "run_failed", reason: message }, null);
      run.active = false;
      run.owner = { kind: "nobody" };
      void pushLive({ kind: "run_aborted", runId, message });
    },
    editFile: (runId: string, path: string, content: string | null) => artifacts.touch(runId, path, content),
    removeFolder: (path: string) => void directories.delete(normalise(path)),
    requestQuit() {
      const active = [...engine.runs.values()].filter((r) => r.active).map((r) => r.id);
      void emit("quit-requested", { activeRuns: active });
    },
  };
  window.__bearagentMock = hooks;
}

/** A live update as the shell pushes it: a `live-updates` batch (of one here). */
function pushLive(update: LiveUpdate): Promise<void> {
  return emit("live-updates", { updates: [update] });
}

function normalise(path: string): string {
  const trimmed = path.trim();
  return trimmed.length > 1 ? trimmed.replace(/\/+$/, "") : trimmed;
}
