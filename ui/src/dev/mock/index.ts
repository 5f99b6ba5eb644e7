// Development-only fake of the Rust side, loaded by main.ts for `?mockIpc`
// in `vite dev` (never part of `vite build`). It answers the same commands
// with the same shapes and error codes, and pushes the same events. Every
// run it starts is one the Rust application recorded (scenario.ts), played
// back as the user decides (playback.ts); settings live in memory.
import { emit } from "@tauri-apps/api/event";
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import type { EventPayload, ImageUpload, LiveUpdate, ProjectHookView, StartRunRequest, WorkspaceOpened, WorkspaceView } from "../../bindings";
import { MockArtifacts, untrackedOf } from "./artifacts";
import { MockBundles, REVIEW_COMMANDS, workspaceElsewhere } from "./bundles";
import { compactByHand, eventText } from "./compaction";
import { MockImages, defaultVision, type ImageReader } from "./images";
import { MockLiveFeed } from "./live";
import { adoptAnswers, playBack, SeqMap } from "./playback";
import { MockRunEngine, type MockRun, type NewRun } from "./runEngine";
import { MockReview } from "./review";
import { checkOwnedHere, checkStart, commandOutput, detail, helperRuns, listEvents, modelContext, pendingChange, runOf, search, seedFromSummary, seedRun } from "./runs";
import { createdOf, localise, SCENARIOS, scenarioFor, takesFor, takeToContinue, type RecordedRun, type ScenarioName, type Take } from "./scenario";
import { checkReply, parentsFirst, replySpec, threadOf } from "./threads";
import { priceFromView } from "./projection";
import { MockError, MockSettings, NOT_SETTINGS } from "./settings";
import { localIds as idsOf, MockWorktreeSteps } from "./worktreeSteps";
import { MockRemembered } from "./remembered";
import { MockProjectHooks } from "./hooks";
import { DEFAULT_SEED, type MockHooks, type MockSeed } from "./seed";

export type { MockSeed } from "./seed";

export function installMockBackend(seed: MockSeed = window.__BEARAGENT_MOCK_SEED__ ?? {}): void {
  const config = { ...DEFAULT_SEED, ...seed };
  const directories = new Set(config.directories.map(normalise));
  const files = new Set(config.files.map(normalise));
  const workspaces = new Map<string, WorkspaceView>();
  const settings = new MockSettings(config.settings, config.localServers);
  const calls: { cmd: string; args: Record<string, unknown> }[] = [];
  // A fixed clock keeps screenshots and assertions deterministic.
  let clock = Date.parse("2025-03-14T09:30:00Z");
  let current: WorkspaceView | null = null;
  let demos = 0;
  let quitCalled = false;

  const live = new MockLiveFeed();
  const pushLive = (update: LiveUpdate) => live.push(update);
  const engine = new MockRunEngine({
    push: pushLive,
    stepMs: config.stepMs,
    streamMs: config.streamMs,
    gateModelCalls: config.gateModelCalls,
    gateCommands: config.gateCommands,
  });
  const artifacts = new MockArtifacts((runId, payload) => {
    engine.commit(runOf(engine, runId), payload, null);
  });
  const review = new MockReview(artifacts, (runId, payload) => {
    engine.commit(runOf(engine, runId), payload, null);
  });
  const images = new MockImages();
  const remembered = new MockRemembered();
  const projectHooks = new MockProjectHooks(
    Object.fromEntries(Object.entries(config.projectHooks).map(([path, file]) => [normalise(path), file])),
    (path) => directories.has(path),
  );
  const commitOn = (runId: string, payload: EventPayload) => void engine.commit(runOf(engine, runId), payload, null);
  const worktrees = new MockWorktreeSteps({ engine, commit: commitOn, repos: new Set(config.repos.map(normalise)), folders: directories, files });

  /** Lists a file a recorded run changed, as the recording lists it; the workspace has it or not. */
  function recordArtifact(run: MockRun, recorded: RecordedRun, payload: Extract<EventPayload, { type: "artifact_recorded" }>): void {
    const item = recorded.artifacts.find((a) => a.path === payload.path);
    const diff = recorded.diffs[payload.path];
    if (!item || !diff) return;
    const full = recorded.full_diffs[payload.path] ?? null;
    const hunkReverts = (run.takes[0]?.hunks_reverted ?? [])
      .filter((r) => r.path === payload.path)
      .map((r) => {
        const local = run.scenario ? localise(SCENARIOS[run.scenario], r, idsOf(run, [run.id])) : r;
        const after = local.changes.artifacts.find((a) => a.path === r.path);
        const events = local.updates.flatMap((u) => (u.kind === "run_event" ? [u.event.payload] : []));
        return after ? [{ hunks: r.hunks, events, item: after, diff: local.changes.diffs[r.path] }] : [];
      })
      .flat();
    artifacts.record(run.id, payload.path, { item, diff, full, beforeHash: payload.before_hash, afterHash: payload.after_hash }, hunkReverts);
    const take = run.takes[0];
    if (take?.review && run.scenario && !review.has(run.id)) {
      const local = localise(SCENARIOS[run.scenario], { steps: take.review, bases: take.edit_bases ?? {} }, idsOf(run, [run.id]));
      review.record(run.id, local.steps, local.bases);
    }
    const path = `${run.projection.workspace_path}/${payload.path}`;
    if (payload.after_hash === null) files.delete(path);
    else files.add(path);
  }


  /** Plays `takes` on `run` from its scenario, `pick` choosing the take's recording (with `runs` as its ids). */
  function play(run: MockRun, name: ScenarioName, takes: Take[], pick: (t: Take) => RecordedRun | undefined, runs: (string | null)[]) {
    const scenario = SCENARIOS[name];
    run.scenario = name;
    const local = (t: Take) => localise(scenario, pick(t) as RecordedRun, idsOf(run, runs));
    engine.drive(run, () => playBack(engine, run, takes, local, { stepMs: config.stepMs, streamMs: config.streamMs, onArtifact: recordArtifact }));
    return { runId: run.id };
  }

  /** A run whose request no recording matches: it fails at once, saying so (and the console says it too). */
  function unrecorded(spec: NewRun, reason: string) {
    const run = engine.create(spec);
    console.error(reason);
    engine.commit(run, { type: "run_started" });
    engine.commit(run, { type: "run_failed", reason });
    return { runId: run.id };
  }

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

  /** Who would read a run's images: the demo does; a provider unknown here is refused for that before its images are looked at. */
  function imageReader(name: string): ImageReader {
    const p = settings.view().providers.find((each) => each.name === name);
    if (!p) return { name, model: "demo-script", vision: true };
    return { name, model: p.model, vision: p.toolMode !== "json-text" && (p.vision ?? defaultVision(p.model)) };
  }

  async function startRun(request: StartRunRequest) {
    const known = request.provider === "demo" || settings.hasProvider(request.provider);
    const provider = settings.view().providers.find((p) => p.name === request.provider);
    const price = priceFromView(provider?.price);
    const workspace = checkStart(request, workspaceById(request.workspaceId), known, price !== null);
    const goalImages = await images.store(request.images, imageReader(request.provider));
    open(workspace.path);
    // Last, like the runtime: a request refused above leaves no worktree behind.
    const inWorktree = request.worktree ? worktrees.start(workspace, engine.nextId(), request.worktree) : null;
    const worktree = typeof inWorktree === "object" ? (inWorktree?.worktree ?? null) : null;
    const profile = settings.view().profiles.find((p) => p.name === request.profile);
    const spec: NewRun = {
      workspace,
      goal: request.goal.trim(),
      provider: request.provider,
      model: provider?.model ?? "demo-script",
      profile: profile?.name ?? "default",
      approvalMode: request.approvalMode,
      budgets: request.budgets,
      price,
      images: goalImages,
      worktree,
    };
    if (typeof inWorktree === "string") return unrecorded(spec, inWorktree);
    const name = inWorktree ? "worktrees" : request.provider === "demo" ? "demo" : scenarioFor(request.goal, request.planMode ?? false);
    const shape = {
      approvalMode: request.approvalMode,
      budgets: request.budgets,
      price,
      instructions: files.has(`${workspace.path}/AGENTS.md`),
      contextWindow: provider?.contextWindow ?? null,
      untrustedHooks: projectHooks.notTrusted(workspace.path) !== null,
      planMode: request.planMode ?? false,
    };
    const takes = takesFor(inWorktree ? { ...SCENARIOS.worktrees, takes: [inWorktree.take] } : SCENARIOS[name], shape);
    if (typeof takes === "string") return unrecorded(spec, takes);
    const run = engine.create({ ...spec, recorded: createdOf(takes[0].run) });
    if (worktree) directories.add(worktree.path);
    return play(run, name, takes, (t) => t.run, [run.id]);
  }

  /** Like `reply_to_run`: a follow-up (or, with `atSeq`, a fork) with the parent's workspace, provider and settings, as its take recorded it. */
  async function replyToRun(runId: string, message: string, atSeq: number | null, uploads: ImageUpload[] | undefined) {
    const checked = checkReply(engine, runId, message, atSeq, {
      provider: (name) => name === "demo" || settings.hasProvider(name),
      folder: (path) => directories.has(path),
      imported: (id) => bundles.sourceOf(id),
      current: () => current,
    });
    const { created, parent, goal, parentRun } = checked;
    const workspace = checked.workspace ?? workspaceById(created.workspace_id) ?? open(created.workspace_path);
    const take = takeToContinue(parentRun.takes, parentRun.decided.length);
    const role = atSeq === null ? "follow_up" : "fork";
    const recorded = take?.[role];
    if (!take || !recorded || !parentRun.scenario) {
      throw new MockError({ code: "internal", message: `the UI mock has no recorded ${role.replace("_", "-")} of run ${runId}: record one in src-tauri/src/scenarios/` });
    }
    const replyImages = await images.store(uploads, imageReader(created.provider));
    const run = engine.create({ ...replySpec(created, workspace, goal, parent), images: replyImages, recorded: createdOf(recorded) });
    run.role = role;
    const runs = role === "follow_up" ? [parentRun.id, run.id] : [parentRun.id, null, run.id];
    return play(run, parentRun.scenario, [take], (t) => t[role], runs);
  }

  /** "Compact" on a finished run: the compaction recorded with its take. */
  function recordedCompaction(runId: string) {
    const run = runOf(engine, runId);
    const take = run.role === "run" && run.scenario ? run.takes[0] : undefined;
    return take?.compacted && run.scenario ? localise(SCENARIOS[run.scenario], take.compacted, idsOf(run, [run.id])) : null;
  }

  /** A finished run the Rust app recorded, stored as if it ran earlier (`MockSeed.recorded`). */
  function seedRecorded(workspace: WorkspaceView, seed: { runId: string; scenario: ScenarioName; take?: number }) {
    const scenario = SCENARIOS[seed.scenario];
    const take = scenario.takes[seed.take ?? 0];
    const recorded = createdOf(take.run);
    const run = engine.create(
      { workspace, goal: recorded.goal, provider: "openai", model: "gpt-4.1", profile: recorded.profile, approvalMode: recorded.approval_mode, budgets: recorded.budgets, recorded },
      take.run.updates[0]?.kind === "run_event" ? take.run.updates[0].event.at : undefined,
      seed.runId,
    );
    Object.assign(run, { scenario: seed.scenario, takes: [take] });
    const local = localise(scenario, take.run, idsOf(run, [run.id]));
    const seqs = new SeqMap();
    for (const u of local.updates) {
      if (u.kind !== "run_event" || u.event.seq === 1) continue;
      const e = engine.commit(run, u.event.payload, u.event.cause === null ? null : seqs.mock(u.event.cause), { silent: true, at: u.event.at });
      seqs.set(u.event.seq, e.seq);
      adoptAnswers(engine, run, local, u.event, e.seq);
      if (u.event.payload.type === "artifact_recorded") recordArtifact(run, local, u.event.payload);
    }
  }

  // Run files: an imported run is stored like a recorded one, in its folder of the other machine
  // (so it is in no workspace here); those imported in an earlier session are stored now.
  const bundles = new MockBundles(config, {
    has: (runId) => engine.runs.has(runId),
    add: (file) => seedRecorded(workspaceElsewhere(file.workspacePath), file),
    thread: (runId) => threadOf(engine, runId, () => null).map((t) => ({ runId: t.run.runId, status: t.run.status })),
  });
  const imported = (runId: string) => bundles.sourceOf(runId);

  /** Like `start_demo_run`: the sample workspace in a temp folder, and the recorded demo run on it. */
  function startDemo() {
    demos += 1;
    const path = `/tmp/bearagent-demo-${String(demos).padStart(2, "0")}`;
    directories.add(path);
    for (const rel of ["README.md", "docs/notes.md", "src/greeter.py"]) files.add(`${path}/${rel}`);
    const workspace = open(path);
    const takes = SCENARIOS.demo.takes;
    const recorded = createdOf(takes[0].run);
    const run = engine.create({
      workspace,
      goal: recorded.goal,
      provider: recorded.provider,
      model: recorded.model,
      profile: recorded.profile,
      approvalMode: recorded.approval_mode,
      budgets: recorded.budgets,
      recorded,
    });
    return [workspace, play(run, "demo", takes, (t) => t.run, [run.id])];
  }

  for (const path of config.recent) open(path);
  for (const [path, runs] of Object.entries(config.runs)) {
    const workspace = workspaces.get(normalise(path)) ?? open(path);
    for (const summary of parentsFirst(runs)) seedFromSummary(engine, workspace, summary);
  }
  for (const [path, seeds] of Object.entries(config.recorded)) {
    const workspace = workspaces.get(normalise(path)) ?? open(path);
    for (const seed of seeds) seedRecorded(workspace, seed);
  }
  current = config.current ? open(config.current) : null;

  mockWindows("main");
  mockIPC(
    async (cmd, args) => {
      const input = (args ?? {}) as Record<string, unknown>;
      // The page's standing ask for live updates is not the user's doing.
      if (cmd === "next_live_updates") return live.next(input.cursor === null || input.cursor === undefined ? null : Number(input.cursor));
      calls.push({ cmd, args: input });
      try {
        if (REVIEW_COMMANDS.has(cmd)) bundles.checkWritable(String(input.runId), "changed");
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
            return search(engine, { workspaceId: String(input.workspaceId ?? ""), status: null, text: null, limit: null }, imported);
          case "start_run":
            return await startRun(input.request as StartRunRequest);
          case "start_demo_run":
            return startDemo();
          case "reply_to_run":
            return await replyToRun(String(input.runId), String(input.message ?? ""), input.atSeq == null ? null : Number(input.atSeq), input.images as ImageUpload[] | undefined);
          case "get_thread":
            return threadOf(engine, String(input.runId), imported);
          case "open_run_file":
          case "import_run_file":
          case "opened_run_file":
          case "pick_bundle_file":
          case "export_run_bundle":
            return bundles.answer(cmd, input);
          case "compact_run":
            bundles.checkWritable(String(input.runId), "compacted");
            return compactByHand(
              engine,
              String(input.runId),
              {
                known: (name) => name === "demo" || settings.hasProvider(name),
                // Like Test connection: a server on port 9 refuses.
                answers: (name) => !/localhost:9\b|127\.0\.0\.1:9\b/.test(settings.view().providers.find((p) => p.name === name)?.baseUrl ?? ""),
              },
              recordedCompaction,
            );
          case "event_text":
            return eventText(engine, String(input.runId), String(input.blob ?? ""));
          case "run_image":
            return images.view(engine, String(input.runId), String(input.blob ?? ""));
          case "list_worktrees":
            return worktrees.list();
          case "apply_worktree":
            return worktrees.play(String(input.runId), { cmd: "apply_worktree", paths: (input.paths as string[] | undefined) ?? [] });
          case "undo_apply":
            return worktrees.play(String(input.runId), { cmd: "undo_apply", force: Boolean(input.force) });
          case "discard_worktree":
            return worktrees.play(String(input.runId), { cmd: "discard_worktree" });
          case "prune_worktrees":
            return worktrees.prune();
          case "cancel_run":
            runOf(engine, String(input.runId));
            if (!engine.cancel(String(input.runId))) throw new MockError({ code: "conflict", message: "the run is not in progress" });
            return null;
          case "decide_approval":
            checkOwnedHere(engine, String(input.runId));
            if (!engine.decide(String(input.runId), String(input.callId), input.decision as never)) {
              throw new MockError({ code: "not_found", message: `pending approval not found: ${String(input.runId)}/${String(input.callId)}` });
            }
            remembered.record(String(input.runId), runOf(engine, String(input.runId)).projection.workspace_path, input.decision as never);
            return null;
          case "project_hooks":
            return projectHooks.view(normalise(String(input.workspace ?? "")));
          case "trust_project_hooks":
            return projectHooks.trust(normalise(String(input.workspace ?? "")), String(input.sha256 ?? ""));
          case "untrust_project_hooks":
            return projectHooks.untrust(normalise(String(input.workspace ?? "")));
          case "remembered_rules":
            return remembered.list();
          case "forget_rule":
            return remembered.forget(String(input.id));
          case "search_runs":
            return search(engine, input.filter as never, imported);
          case "helper_runs":
            return helperRuns(engine, String(input.runId), imported);
          case "get_run":
            return detail(engine, String(input.runId), imported);
          case "list_events":
            return listEvents(engine, String(input.runId), Number(input.afterSeq), Number(input.limit));
          case "model_context":
            return modelContext(engine, String(input.runId), Number(input.requestedSeq));
          case "command_output":
            return commandOutput(engine, String(input.runId), String(input.callId));
          case "list_artifacts":
            runOf(engine, String(input.runId));
            return artifacts.list(String(input.runId));
          case "list_untracked":
            return untrackedOf(runOf(engine, String(input.runId)).events);
          case "pending_change":
            return pendingChange(engine, String(input.runId));
          case "artifact_diff":
            runOf(engine, String(input.runId));
            return artifacts.diff(String(input.runId), String(input.path), Boolean(input.full));
          case "keep_artifact":
            runOf(engine, String(input.runId));
            return artifacts.keep(String(input.runId), String(input.path));
          case "revert_artifact":
            runOf(engine, String(input.runId));
            return artifacts.revert(String(input.runId), String(input.path), Boolean(input.force));
          case "revert_hunks":
            runOf(engine, String(input.runId));
            return artifacts.revertHunks(String(input.runId), String(input.path), (input.hunks as number[]) ?? [], Boolean(input.force));
          case "keep_hunks":
            return artifacts.keepHunks(String(input.runId), String(input.path), (input.hunks as number[]) ?? []);
          case "reapply_artifact":
            runOf(engine, String(input.runId));
            return artifacts.reapply(String(input.runId), String(input.path), Boolean(input.force));
          case "rewind_run":
            runOf(engine, String(input.runId));
            return review.play(String(input.runId), { cmd: "rewind_run", to: Number(input.to), force: Boolean(input.force) });
          case "redo_rewind":
            runOf(engine, String(input.runId));
            return review.play(String(input.runId), { cmd: "redo_rewind", force: Boolean(input.force) });
          case "edit_base":
            runOf(engine, String(input.runId));
            return review.editBase(String(input.runId), String(input.path));
          case "keep_edited":
            runOf(engine, String(input.runId));
            return review.play(String(input.runId), { cmd: "keep_edited", path: String(input.path), content: String(input.content ?? ""), force: Boolean(input.force) });
          case "export_run":
            runOf(engine, String(input.runId));
            return artifacts.exportRun(String(input.runId));
          case "active_runs":
            return [...engine.runs.values()].filter((r) => r.active).map((r) => r.id);
          case "quit_app":
            quitCalled = true;
            return null;
          // The browser has no web process to recycle.
          case "page_ready":
            return config.recycleIdleMs ? { idle_ms: config.recycleIdleMs, off: false } : { idle_ms: 0, off: true };
          case "page_idle":
            return config.recycleIdleMs ? { kind: "recycling", web_kb: 300 * 1024, baseline_kb: 170 * 1024 } : { kind: "unknown" };
          default: {
            const answer = settings.answer(cmd, input);
            if (answer === NOT_SETTINGS) throw new MockError({ code: "internal", message: `mock backend: unknown command ${cmd}` });
            return answer;
          }
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
    storeImage: async (name: string, dataBase64: string) => (await images.store([{ name, dataBase64 }], { name: "test", model: "test", vision: true }))[0],
    releaseCommand: () => engine.releaseCommand(),
    seedRun: (workspacePath: string, goal: string, payloads: EventPayload[], options = {}) =>
      seedRun(engine, workspaces.get(normalise(workspacePath)) ?? open(workspacePath), goal, payloads, options),
    appendEvent(runId: string, payload: EventPayload, options: { silent?: boolean } = {}) {
      const run = runOf(engine, runId);
      return engine.commit(run, payload, run.events.length, options).seq;
    },
    emitStored(runId: string, seq: number) {
      const run = runOf(engine, runId);
      pushLive({ kind: "run_event", runId, event: run.events[seq - 1] });
    },
    emitModelText(runId: string, modelCall: number, text: string) {
      pushLive({ kind: "model_text", runId, modelCall, text });
    },
    emitCommandOutput(runId: string, callId: string, text: string) {
      pushLive({ kind: "command_output", runId, callId, text });
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
      pushLive({ kind: "run_aborted", runId, message });
    },
    editFile: (runId: string, path: string) => artifacts.touch(runId, path),
    removeFolder: (path: string) => void directories.delete(normalise(path)),
    hasFile: (path: string) => files.has(normalise(path)),
    editProjectHooks: (workspacePath: string, hooks?: ProjectHookView[]) => projectHooks.edit(normalise(workspacePath), hooks),
    requestQuit() {
      const active = [...engine.runs.values()].filter((r) => r.active).map((r) => r.id);
      void emit("quit-requested", { activeRuns: active });
    },
  };
  window.__bearagentMock = hooks;
}

function normalise(path: string): string {
  const trimmed = path.trim();
  return trimmed.length > 1 ? trimmed.replace(/\/+$/, "") : trimmed;
}
