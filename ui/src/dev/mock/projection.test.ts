import { describe, expect, it } from "vitest";
import type { EventPayload, Price } from "../../bindings";
import { envelope } from "../../lib/runs/testSupport";
import { costOf, priceFromView, project } from "./projection";

// The same cases as the kernel's cost tests, so the mock prices like Rust.
describe("mock cost", () => {
  const price: Price = { input_micro_usd_per_mtok: 3_000_000, output_micro_usd_per_mtok: 15_000_000, cached_input_micro_usd_per_mtok: 300_000 };

  it("costs follow the price per million tokens, cached input at its own rate, rounded up", () => {
    expect(costOf(price, { input: 1_000_000, output: 0 })).toBe(3_000_000);
    expect(costOf(price, { input: 0, output: 1_000 })).toBe(15_000);
    expect(costOf(price, { input: 2_000, output: 0, cached_input: 1_000 })).toBe(3_300);
    expect(costOf({ ...price, cached_input_micro_usd_per_mtok: null }, { input: 2_000, output: 0, cached_input: 1_000 })).toBe(6_000);
    expect(costOf(priceFromView({ inputPerMtok: 0.1, outputPerMtok: 0.1, cachedInputPerMtok: null })!, { input: 1, output: 0 })).toBe(1);
  });

  it("converts a configured price to micro-USD per MTok", () => {
    expect(priceFromView({ inputPerMtok: 3, outputPerMtok: 15, cachedInputPerMtok: 0.3 })).toEqual(price);
    expect(priceFromView(null)).toBeNull();
  });

  const created = (withPrice: Price | null): EventPayload => ({
    type: "run_created",
    goal: "g",
    workspace_id: "ws-1",
    workspace_path: "/w",
    profile: "default",
    budgets: { max_model_calls: 5, max_tool_calls: 5, max_input_tokens: 1_000_000, max_output_tokens: 100_000, max_wall_time_ms: 60_000, max_cost_micro_usd: null },
    approval_mode: "ask_writes",
    context_caps: { max_context_bytes: 1_000, max_tool_result_bytes: 100 },
    max_invalid_outputs: 2,
    provider: "p",
    model: "m",
    price: withPrice,
    config_versions: {},
  });
  const call = (usage: { input: number; output: number }, cost: number | null): EventPayload[] => [
    { type: "model_call_requested", context_version: "c1", context_bytes: 10 },
    { type: "model_call_started", provider: "p", model: "m" },
    { type: "model_call_completed", action: { type: "final_answer", content: "ok" }, usage, stop_reason: "end_turn", cost_micro_usd: cost },
  ];
  const run = (payloads: EventPayload[]) => project(payloads.map((p, i) => envelope(i + 1, p)));

  it("adds each call's recorded cost to a priced run, and costs a call recorded without one", () => {
    const p = run([created(price), { type: "run_started" }, ...call({ input: 1_000, output: 100 }, 4_500), ...call({ input: 1_000, output: 0 }, null)]);
    expect(p.cost_micro_usd).toBe(4_500 + 3_000);
    expect(p.price).toEqual(price);
  });

  it("keeps an unpriced run's cost unknown, never 0", () => {
    expect(run([created(null), { type: "run_started" }, ...call({ input: 1_000, output: 100 }, null)]).cost_micro_usd).toBeNull();
  });
});

// The kernel writes these runs and its projection after every event
// (src-tauri/crates/kernel/tests/ui_projection_fixture.rs); the mock must
// fold the same events to the same projections, so it cannot drift.
import kernelFixture from "./fixtures/kernel-projections.json";
import { apply, emptyProjection } from "./projection";
import type { EventEnvelope, RunProjection } from "../../bindings";

describe("the mock reducer against the kernel's", () => {
  const runs = kernelFixture.runs as unknown as { name: string; events: EventEnvelope[]; projections: RunProjection[] }[];

  it("covers every run the kernel wrote", () => {
    expect(runs.length).toBeGreaterThanOrEqual(4);
  });

  for (const { name, events, projections } of runs) {
    it(`folds "${name}" event by event to the kernel's projections`, () => {
      const run = emptyProjection(events[0]);
      events.forEach((event, i) => {
        apply(run, event);
        expect(JSON.parse(JSON.stringify(run)), `after seq ${event.seq} (${event.payload.type})`).toEqual(projections[i]);
      });
    });
  }
});
