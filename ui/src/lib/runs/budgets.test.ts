import { describe, expect, it } from "vitest";
import { DEFAULT_BUDGETS, budgetMeters, budgetsToForm, parseBudgets, parseMaxCost, parsePositiveInteger, parseUsd } from "./budgets";
import { buildStartRequest, defaultNewRunForm, providerLabel } from "./newRun";
import { projection } from "./testSupport";

describe("budgets", () => {
  it("has the documented defaults", () => {
    expect(DEFAULT_BUDGETS).toEqual({
      max_model_calls: 50, max_tool_calls: 100, max_input_tokens: 2_000_000, max_output_tokens: 200_000, max_wall_time_ms: 1_800_000,
      max_cost_micro_usd: null,
    });
    expect(budgetsToForm(DEFAULT_BUDGETS).wallTimeMinutes).toBe("30");
    expect(budgetsToForm(DEFAULT_BUDGETS).maxCostUsd).toBe("");
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

  it("reads USD amounts as people type them, refusing ambiguous commas", () => {
    expect(parseUsd("0.50")).toBe(0.5);
    expect(parseUsd(" $2 ")).toBe(2);
    expect(parseUsd("2.5")).toBe(2.5);
    expect(parseUsd(".5")).toBe(0.5);
    expect(parseUsd("3 USD")).toBe(3);
    expect(parseUsd("0")).toBe(0);
    for (const bad of ["", "-1", "2,5", "1e3", "ten", "$", "Infinity", "1.2.3"]) expect(parseUsd(bad)).toBeNull();
  });

  it("takes an optional max cost: empty is no limit, else a positive amount in micro-USD", () => {
    expect(parseMaxCost("")).toEqual({ micro: null, error: null });
    expect(parseMaxCost("   ")).toEqual({ micro: null, error: null });
    expect(parseMaxCost("0.50")).toEqual({ micro: 500_000, error: null });
    expect(parseMaxCost("$2")).toEqual({ micro: 2_000_000, error: null });
    expect(parseMaxCost("2.5")).toEqual({ micro: 2_500_000, error: null });
    expect(parseMaxCost("0.1234567").micro).toBe(123_457);
    for (const zeroOrLess of ["0", "0.00", "-1", "$-2", "0.0000001"]) expect(parseMaxCost(zeroOrLess).error).toMatch(/more than \$0/);
    for (const junk of ["cheap", "1,5", "NaN", "1e3"]) expect(parseMaxCost(junk).error).toMatch(/Enter an amount in USD/);
    expect(parseMaxCost("2000000").error).toMatch(/at most/);
  });

  it("round-trips a cost limit and blocks a bad one", () => {
    const capped = { ...DEFAULT_BUDGETS, max_cost_micro_usd: 1_234_567 };
    expect(budgetsToForm(capped).maxCostUsd).toBe("1.234567");
    expect(parseBudgets(budgetsToForm(capped))).toEqual({ budgets: capped, errors: null });
    const result = parseBudgets({ ...budgetsToForm(DEFAULT_BUDGETS), maxCostUsd: "0" });
    expect(result.budgets).toBeNull();
    expect(Object.keys(result.errors ?? {})).toEqual(["maxCostUsd"]);
  });

  it("meters cost only when the run has a cost limit, and never shows an unknown spend as $0", () => {
    expect(budgetMeters(projection({ cost_micro_usd: 12_300 }), 0).map((m) => m.key)).not.toContain("cost");
    const capped = projection({ budgets: { ...DEFAULT_BUDGETS, max_cost_micro_usd: 500_000 }, cost_micro_usd: 412_300 });
    const cost = budgetMeters(capped, 0).find((m) => m.key === "cost");
    expect(cost).toMatchObject({ label: "Cost", used: 412_300, limit: 500_000, text: "$0.4123 / $0.5000", level: "high" });
    const unknown = budgetMeters({ ...capped, cost_micro_usd: null }, 0).find((m) => m.key === "cost");
    expect(unknown).toMatchObject({ text: "unknown / $0.5000", fraction: 0 });
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
      request: { workspaceId: "ws-1", goal: "write docs/plan.md", provider: "openai", approvalMode: "ask_writes", budgets: DEFAULT_BUDGETS, images: [], worktree: null },
    });
  });

  it("sends the worktree choice when the switch is on, and checks its name first", () => {
    const form = { ...defaultNewRunForm("openai"), goal: "fix calc.py" };
    form.worktree = { enabled: true, name: "fix-add", base: "", carryChanges: true };
    expect(buildStartRequest("ws-1", form).request?.worktree).toEqual({ name: "fix-add", base: null, carryChanges: true });
    form.worktree.name = "fix add";
    expect(buildStartRequest("ws-1", form).errors?.worktreeName).toMatch(/letters, digits/);
    // Off: the name is not looked at and nothing is sent.
    form.worktree.enabled = false;
    expect(buildStartRequest("ws-1", form).request?.worktree).toBeNull();
  });

  it("sends Helpers only when the switch is on", () => {
    const form = { ...defaultNewRunForm("openai"), goal: "survey the code" };
    expect(buildStartRequest("ws-1", form).request).not.toHaveProperty("delegate");
    form.delegate = true;
    expect(buildStartRequest("ws-1", form).request?.delegate).toBe(true);
  });

  it("sends the goal's images with it", () => {
    const form = { ...defaultNewRunForm("openai"), goal: "make it look like this" };
    const images = [{ name: "mockup.png", dataBase64: "iVBORw0KGgo=" }];
    expect(buildStartRequest("ws-1", form, true, images).request?.images).toEqual(images);
  });

  it("reports an empty goal and bad budgets without building a request", () => {
    const form = defaultNewRunForm("demo");
    form.budgets.outputTokens = "-1";
    const result = buildStartRequest("ws-1", form);
    expect(result.request).toBeNull();
    expect(result.errors?.goal).toMatch(/Describe/);
    expect(result.errors?.budgets?.outputTokens).toBeDefined();
  });

  it("carries the cost limit, and refuses one the provider cannot price", () => {
    const form = { ...defaultNewRunForm("openai"), goal: "write docs" };
    form.budgets.maxCostUsd = "0.50";
    expect(buildStartRequest("ws-1", form).request?.budgets.max_cost_micro_usd).toBe(500_000);
    const unpriced = buildStartRequest("ws-1", form, false);
    expect(unpriced.request).toBeNull();
    expect(unpriced.errors?.budgets?.maxCostUsd).toMatch(/openai has no price/);
    expect(buildStartRequest("ws-1", { ...form, provider: "demo" }, false).errors?.budgets?.maxCostUsd).toMatch(/demo model has no price/);
    // Without a limit the price does not matter.
    form.budgets.maxCostUsd = "";
    expect(buildStartRequest("ws-1", form, false).request?.budgets.max_cost_micro_usd).toBeNull();
  });

  it("always calls out the demo model", () => {
    expect(providerLabel("demo", "demo-script")).toBe("Offline demo model (scripted)");
    expect(providerLabel("openai", "gpt-4.1")).toBe("openai · gpt-4.1");
  });
});
