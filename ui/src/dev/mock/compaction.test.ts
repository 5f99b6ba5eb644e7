import { describe, expect, it } from "vitest";
import type { EventPayload, WorkspaceView } from "../../bindings";
import { compactByHand, contextSize, defaultContextWindow, eventText, fakeHash } from "./compaction";
import { MockRunEngine, type MockRun } from "./runEngine";
import { modelContext } from "./runs";
import { longScript, providerScript } from "./scripts";
import { MockError } from "./settings";

const workspace: WorkspaceView = { id: "ws-1", path: "/w", name: "w", lastOpenedAt: "2025-03-14T09:30:00Z" };
const budgets = { max_model_calls: 50, max_tool_calls: 100, max_input_tokens: 2_000_000, max_output_tokens: 200_000, max_wall_time_ms: 1_800_000, max_cost_micro_usd: null };

function engine(agents: Record<string, string> = {}) {
  return new MockRunEngine({
    push: () => {},
    stepMs: 0,
    streamMs: 0,
    gateModelCalls: false,
    gateCommands: false,
    onWrite: () => {},
    readInstructions: (root, rel) => agents[`${root}/${rel}`] ?? null,
  });
}

const newRun = (e: MockRunEngine, extra: { contextWindow?: number | null; compactAtPermille?: number | null; parent?: MockRun["projection"]["parent"] } = {}) =>
  e.create({ workspace, goal: "find the flaky build in the long logs", provider: "openai", model: "gpt-4.1", profile: "default", approvalMode: "allow_all", budgets, ...extra });

async function finish(run: MockRun) {
  for (let i = 0; i < 400 && run.active; i++) await new Promise((r) => setTimeout(r, 0));
  expect(run.active).toBe(false);
}

const payloads = (run: MockRun) => run.events.map((e) => e.payload);
const ofType = <T extends EventPayload["type"]>(run: MockRun, type: T) => payloads(run).filter((p): p is Extract<EventPayload, { type: T }> => p.type === type);
const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof MockError ? e.error.code : "thrown";
  }
  return "ok";
};
const provider = { known: () => true, answers: () => true };

describe("mock context and compaction", () => {
  it("knows model families' windows like the runtime, the demo's, and 32,768 otherwise", () => {
    expect(defaultContextWindow("openai", "gpt-4.1-mini")).toBe(1_047_576);
    expect(defaultContextWindow("anthropic", "claude-sonnet-4")).toBe(200_000);
    expect(defaultContextWindow("demo", "demo-script")).toBe(200_000);
    expect(defaultContextWindow("local", "qwen2.5-coder")).toBe(32_768);
    expect(fakeHash("a")).toMatch(/^[0-9a-f]{64}$/);
    expect(fakeHash("a")).not.toBe(fakeHash("b"));
  });

  it("each request carries its estimated tokens and the window (the provider's when configured)", async () => {
    const e = engine();
    const run = newRun(e, { contextWindow: 64_000 });
    e.start(run, providerScript("goal"));
    // allow_all: nothing asks, so the run finishes by itself.
    await finish(run);
    const requests = ofType(run, "model_call_requested");
    expect(requests.length).toBeGreaterThan(1);
    for (const r of requests) {
      expect(r.context_window).toBe(64_000);
      expect(r.estimated_tokens).toBe(Math.ceil(r.context_bytes / 3));
    }
    expect(ofType(run, "context_compacted")).toEqual([]);
  });

  it("a long run compacts twice, keeping its newest turn; each request fits under the share afterwards", async () => {
    const e = engine();
    const run = newRun(e, { contextWindow: 100_000 });
    e.start(run, longScript());
    await finish(run);
    expect(run.projection.status.kind).toBe("succeeded");
    const compactions = run.events.filter((ev) => ev.payload.type === "context_compacted");
    expect(compactions).toHaveLength(2);
    for (const ev of compactions) {
      const p = ev.payload as Extract<EventPayload, { type: "context_compacted" }>;
      expect(p.tokens_before).toBeGreaterThan(85_000);
      expect(p.tokens_after).toBeLessThan(p.tokens_before / 2);
      // The newest turn (its request onwards) stays: the summary replaces what came before it.
      expect(run.events[p.replaced_through_seq].payload.type).toBe("model_call_requested");
      expect(eventText(e, run.id, p.summary)).toMatch(/^Goal: find the flaky build[\s\S]*Done so far:\n- Read logs\/build-1\.log\./);
    }
    for (const r of ofType(run, "model_call_requested")) expect(r.estimated_tokens!).toBeLessThanOrEqual(85_000);
    // Compaction calls count as model calls.
    expect(run.projection.model_calls).toBe(ofType(run, "model_call_started").length + 2);
    // What the model saw after the second compaction: goal, summary, then what followed.
    const lastRequest = run.events.filter((ev) => ev.payload.type === "model_call_requested").at(-1)!;
    const seen = modelContext(e, run.id, lastRequest.seq).history;
    expect(seen[0]).toEqual({ type: "message", role: "user", content: "find the flaky build in the long logs" });
    expect(seen[1]).toMatchObject({ type: "message", role: "user", content: expect.stringMatching(/^Summary of the conversation so far[\s\S]*build-4\.log/) });
    expect(seen.filter((item) => item.type === "tool_result")).toHaveLength(1);
  });

  it("with compaction off, a request over the window fails the run clearly", async () => {
    const e = engine();
    const run = newRun(e, { contextWindow: 100_000, compactAtPermille: null });
    e.start(run, longScript());
    await finish(run);
    expect(run.projection.status).toEqual({ kind: "failed", reason: expect.stringMatching(/larger than the model's window \(100000 tokens\), and compaction is off in profile default/) });
    expect(ofType(run, "context_compacted")).toEqual([]);
  });

  it("compacts a finished run by hand (conflict while in progress); a follow-up starts from the summary", async () => {
    const e = engine();
    const run = newRun(e);
    e.commit(run, { type: "run_started" }, 1, { silent: true });
    expect(codeOf(() => compactByHand(e, run.id, provider))).toBe("conflict");
    e.commit(run, { type: "run_succeeded", answer: "All five builds read." }, 2, { silent: true });
    expect(codeOf(() => compactByHand(e, run.id, { ...provider, known: () => false }))).toBe("not_found");
    expect(codeOf(() => compactByHand(e, run.id, { ...provider, answers: () => false }))).toBe("unavailable");
    expect(codeOf(() => compactByHand(e, "nope", provider))).toBe("not_found");

    const before = contextSize(e, run).tokens;
    const done = compactByHand(e, run.id, provider);
    expect(done.tokensBefore).toBe(before);
    const last = run.events.at(-1)!;
    expect(last.payload).toMatchObject({ type: "context_compacted", replaced_through_seq: 3, tokens_before: before, tokens_after: done.tokensAfter });
    expect(run.projection.model_calls).toBe(1);
    const summary = (last.payload as Extract<EventPayload, { type: "context_compacted" }>).summary;
    expect(eventText(e, run.id, summary)).toMatch(/Answered: All five builds read\./);

    const child = newRun(e, { parent: { run_id: run.id, through_seq: run.projection.last_seq, fork: false } });
    e.commit(child, { type: "run_started" }, 1, { silent: true });
    e.commit(child, { type: "model_call_requested", context_version: "c1", context_bytes: 1 }, 2, { silent: true });
    const history = modelContext(e, child.id, 3).history;
    // The parent's own events are replaced by its summary; the child's goal follows.
    expect(history).toEqual([
      { type: "message", role: "user", content: expect.stringMatching(/^Summary of the conversation so far/) },
      { type: "message", role: "user", content: "find the flaky build in the long logs" },
    ]);
  });

  it("serves only texts the run's events reference: summaries and instructions", async () => {
    const e = engine({ "/w/AGENTS.md": "# Rules\n" });
    const run = newRun(e);
    e.start(run, providerScript("goal"));
    await finish(run);
    const loaded = ofType(run, "instructions_loaded")[0];
    expect(eventText(e, run.id, loaded.blob)).toBe("# Rules\n");
    const other = newRun(e);
    expect(codeOf(() => eventText(e, other.id, loaded.blob))).toBe("not_found");
    expect(codeOf(() => eventText(e, run.id, fakeHash("anything")))).toBe("not_found");
  });
});
