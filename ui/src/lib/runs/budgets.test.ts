import { describe, expect, it } from "vitest";
import { DEFAULT_BUDGETS, budgetMeters, budgetsToForm, parseBudgets, parsePositiveInteger } from "./budgets";
import { buildStartRequest, defaultNewRunForm, providerLabel } from "./newRun";
import { projection } from "./testSupport";

describe("budgets", () => {
  it("has the documented defaults", () => {
    expect(DEFAULT_BUDGETS).toEqual({
      max_model_calls: 50, max_tool_calls: 100, max_input_tokens: 2_000_000, max_output_tokens: 200_000, max_wall_time_ms: 1_800_000,
    });
    expect(budgetsToForm(DEFAULT_BUDGETS).wallTimeMinutes).toBe("30");
  });

  it("accepts positive whole numbers only", () => {
    expect(parsePositiveInteger("42")).toBe(42);
    expect(parsePositiveInteger(" 2,000,000 ")).toBe(2_000_000);
    expect(parsePositiveInteger("2 000")).toBe(2000);
    for (const bad of ["", "0", "-3", "1.5", "1e3", "ten", "99999999999999999999"]) expect(parsePositiveInteger(bad)).toBeNull();
  });

  it("round-trips and names every bad field", () => {
    expect(parseBudgets(budgetsToForm(DEFAULT_BUDGETS))).toEqual({ budgets: DEFAULT_BUDGETS, errors: null });
    const result = parseBudgets({ ...budgetsToForm(DEFAULT_BUDGETS), modelCalls: "0", wallTimeMinutes: "soon" });
    expect(result.budgets).toBeNull();
    expect(Object.keys(result.errors ?? {})).toEqual(["modelCalls", "wallTimeMinutes"]);
    expect(result.errors?.modelCalls).toMatch(/whole number greater than 0/);
  });

  it("meters usage against each budget", () => {
    const meters = budgetMeters(projection({ model_calls: 45, tool_calls: 100, usage: { input: 1_000, output: 10 } }), 60_000);
    const byKey = Object.fromEntries(meters.map((m) => [m.key, m]));
    expect(byKey.model_calls).toMatchObject({ used: 45, limit: 50, level: "high", text: "45 / 50" });
    expect(byKey.tool_calls.level).toBe("full");
    expect(byKey.input_tokens.text).toBe("1,000 / 2M");
    expect(byKey.wall_time).toMatchObject({ text: "1 min 00 s / 30 min 00 s", level: "ok" });
    expect(byKey.wall_time.fraction).toBeCloseTo(1 / 30);
  });
});

describe("new run form", () => {
  it("builds the start request from a valid form", () => {
    const form = { ...defaultNewRunForm("openai"), goal: "  write docs/plan.md  " };
    expect(buildStartRequest("ws-1", form)).toEqual({
      errors: null,
      request: { workspaceId: "ws-1", goal: "write docs/plan.md", provider: "openai", approvalMode: "ask_writes", budgets: DEFAULT_BUDGETS },
    });
  });

  it("reports an empty goal and bad budgets without building a request", () => {
    const form = defaultNewRunForm("demo");
    form.budgets.outputTokens = "-1";
    const result = buildStartRequest("ws-1", form);
    expect(result.request).toBeNull();
    expect(result.errors?.goal).toMatch(/Describe/);
    expect(result.errors?.budgets?.outputTokens).toBeDefined();
  });

  it("always calls out the demo model", () => {
    expect(providerLabel("demo", "demo-script")).toBe("Offline demo model (scripted)");
    expect(providerLabel("openai", "gpt-4.1")).toBe("openai · gpt-4.1");
  });
});
