import { describe, expect, it } from "vitest";
import type { EventEnvelope, EventPayload } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import {
  approxTokens,
  compactAtOf,
  compactErrorTitle,
  compactedText,
  compactionTokensText,
  contextMeter,
  replacedText,
  shortTokens,
  summaryErrorTitle,
} from "./compaction";
import { CompactStore, EventTexts } from "./compaction.svelte";
import { RunViewStore } from "./runView.svelte";
import { envelope, fakeRunsApi, ok, projection, settle } from "./testSupport";

const requested = (estimated: number | null, window: number | null): EventPayload => ({
  type: "model_call_requested",
  context_version: "c1",
  context_bytes: 4_096,
  estimated_tokens: estimated,
  context_window: window,
});
const compacted = (before: number, after: number, through: number): EventPayload => ({
  type: "context_compacted",
  summary: "5a".repeat(32),
  replaced_through_seq: through,
  tokens_before: before,
  tokens_after: after,
  usage: { input: before, output: 300 },
  cost_micro_usd: null,
});
const created = (compactAt?: number | null): EventEnvelope =>
  envelope(1, {
    type: "run_created",
    goal: "g",
    workspace_id: "ws-1",
    workspace_path: "/w",
    profile: "default",
    budgets: projection().budgets,
    approval_mode: "ask_writes",
    context_caps: compactAt === undefined ? { max_context_bytes: 1, max_tool_result_bytes: 1 } : { max_context_bytes: 1, max_tool_result_bytes: 1, compact_at_permille: compactAt },
    max_invalid_outputs: 2,
    provider: "openai",
    model: "m",
    config_versions: {},
  }, null);

describe("token formatting", () => {
  it("shortens counts for the meter, switching units when rounding reaches the next", () => {
    expect(shortTokens(850)).toBe("850");
    expect(shortTokens(1_287)).toBe("1.3k");
    expect(shortTokens(12_400)).toBe("12.4k");
    expect(shortTokens(200_000)).toBe("200k");
    expect(shortTokens(999_960)).toBe("1M");
    expect(shortTokens(1_047_576)).toBe("1.05M");
    expect(shortTokens(-1)).toBe("—");
    expect(approxTokens(12_400)).toBe("~12.4k");
  });

  it("writes the row's and the button's texts with exact digits", () => {
    expect(compactionTokensText(171_000, 12_500)).toBe("~171,000 → ~12,500 tokens");
    expect(replacedText(42)).toBe("replaced events #1–#42");
    expect(replacedText(1)).toBe("replaced event #1");
    expect(compactedText({ tokensBefore: 171_000, tokensAfter: 12_500 })).toBe("Compacted: ~171,000 → ~12,500 tokens; your next reply starts from the summary");
  });
});

describe("context meter", () => {
  const reading = { seq: 9, estimated: 12_400, window: 200_000 };

  it("shows the latest request against the window, with where the run compacts", () => {
    const meter = contextMeter(reading, [], 850)!;
    expect(meter).toMatchObject({ text: "~12.4k / 200k tokens", threshold: 0.85, level: "ok", compactions: 0, note: null });
    expect(meter.fraction).toBeCloseTo(0.062);
    expect(meter.title).toMatch(/compacts at 85% of it/);
  });

  it("is hidden without a reading (runs recorded before requests were estimated)", () => {
    expect(contextMeter(null, [], 850)).toBeNull();
    expect(contextMeter({ seq: 2, estimated: 10, window: 0 }, [], 850)).toBeNull();
  });

  it("turns high near the compaction point (or the window, when compaction is off) and full past the window", () => {
    expect(contextMeter({ ...reading, estimated: 160_000 }, [], 850)?.level).toBe("high");
    expect(contextMeter({ ...reading, estimated: 160_000 }, [], null)?.level).toBe("ok");
    expect(contextMeter({ ...reading, estimated: 185_000 }, [], null)?.level).toBe("high");
    expect(contextMeter({ ...reading, estimated: 230_000 }, [], null)).toMatchObject({ level: "full", fraction: 1 });
    expect(contextMeter(reading, [], null)?.title).toMatch(/compaction is off/);
  });

  it("counts compactions, and says what the next request starts from after one by hand", () => {
    const marks = [
      { seq: 5, tokensBefore: 171_000, tokensAfter: 12_500 },
      { seq: 8, tokensBefore: 170_000, tokensAfter: 11_000 },
    ];
    expect(contextMeter(reading, marks, 850)?.note).toBe("compacted 2×");
    expect(contextMeter(reading, [...marks, { seq: 12, tokensBefore: 14_000, tokensAfter: 2_100 }], 850)?.note).toBe("compacted 3× · next request ~2.1k");
  });

  it("takes the run's setting: absent is the default, null is off", () => {
    expect(compactAtOf(undefined)).toBe(850);
    expect(compactAtOf(null)).toBeNull();
    expect(compactAtOf(700)).toBe(700);
  });
});

describe("error titles by code", () => {
  it("never use the message", () => {
    expect(compactErrorTitle("conflict")).toMatch(/still in progress/);
    expect(compactErrorTitle("unavailable")).toMatch(/could not summarise/);
    expect(compactErrorTitle("not_found")).toMatch(/gone/);
    expect(compactErrorTitle("storage")).toBe("Storage error");
    expect(summaryErrorTitle("not_found")).toMatch(/not stored/);
    expect(summaryErrorTitle("internal")).toBe("Unexpected error");
  });
});

describe("RunViewStore: context use", () => {
  it("follows the latest request that has the fields and the run's compactions", async () => {
    const fake = fakeRunsApi([created(700), envelope(2), envelope(3, requested(8_000, 32_768)), envelope(4, requested(null, null))]);
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();
    expect(store.contextUse).toMatchObject({ estimated: 8_000, window: 32_768, threshold: 0.7, compactions: 0 });

    const compaction = envelope(5, compacted(23_000, 3_000, 4));
    fake.store(compaction);
    fake.push(compaction);
    expect(store.contextUse).toMatchObject({ compactions: 1, note: "compacted 1× · next request ~3k" });
    const next = envelope(6, requested(3_100, 32_768));
    fake.store(next);
    fake.push(next);
    expect(store.contextUse).toMatchObject({ estimated: 3_100, note: "compacted 1×" });
    store.close();
  });

  it("has no meter for a run whose requests say nothing about tokens", async () => {
    const fake = fakeRunsApi([created(), envelope(2), envelope(3, { type: "model_call_requested", context_version: "c1", context_bytes: 10 })]);
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();
    expect(store.contextUse).toBeNull();
    store.close();
  });

  it("reads a summary once, through the run's eventText", async () => {
    const fake = fakeRunsApi([created()]);
    const store = new RunViewStore(fake.api, "run-1");
    await store.texts.load("ab");
    await store.texts.load("ab");
    expect(fake.api.eventText).toHaveBeenCalledExactlyOnceWith("run-1", "ab");
    expect(store.texts.get("ab")).toEqual({ kind: "ready", text: "Summary: the plan is written." });
  });
});

describe("EventTexts", () => {
  it("shows loading, keeps a failure by code, and reads again only after a failure", async () => {
    let answer: (value: Outcome<string>) => void = () => {};
    const fetch = () => new Promise<Outcome<string>>((resolve) => (answer = resolve));
    const texts = new EventTexts(fetch);
    const loading = texts.load("b1");
    expect(texts.get("b1")).toEqual({ kind: "loading" });
    answer({ ok: false, error: { code: "not_found", message: "text not found: b1" } });
    await loading;
    expect(texts.get("b1")).toEqual({ kind: "failed", error: { code: "not_found", message: "text not found: b1" } });
    const again = texts.load("b1");
    answer(ok("the summary"));
    await again;
    expect(texts.get("b1")).toEqual({ kind: "ready", text: "the summary" });
  });
});

describe("CompactStore", () => {
  it("keeps what the call said, one call at a time", async () => {
    const fake = fakeRunsApi();
    const store = new CompactStore(fake.api, "run-1");
    const first = store.compact();
    expect(store.sending).toBe(true);
    await expect(store.compact()).resolves.toBe(false);
    await expect(first).resolves.toBe(true);
    expect(fake.api.compact).toHaveBeenCalledExactlyOnceWith("run-1");
    expect(store.result).toEqual({ tokensBefore: 171_000, tokensAfter: 12_500 });
    expect(store.sending).toBe(false);
  });

  it("replaces an earlier result with the error of a later call (by code)", async () => {
    const fake = fakeRunsApi();
    const store = new CompactStore(fake.api, "run-1");
    await store.compact();
    fake.api.compact.mockResolvedValueOnce({ ok: false, error: { code: "conflict", message: "run run-1 is still in progress" } });
    await expect(store.compact()).resolves.toBe(false);
    await settle();
    expect(store.result).toBeNull();
    expect(store.error?.code).toBe("conflict");
    store.dismissError();
    expect(store.error).toBeNull();
  });
});
