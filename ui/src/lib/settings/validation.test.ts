import { describe, expect, it } from "vitest";
import { emptyProfileForm, emptyProviderForm, parsePrice, profileToForm, providerToForm, urlError, validateProfile, validateProvider } from "./validation";

describe("provider validation", () => {
  const valid = { ...emptyProviderForm(), name: " openai ", model: " gpt-4.1 " };

  it("accepts a complete provider and trims it", () => {
    expect(validateProvider(valid)).toEqual({
      errors: null,
      input: { name: "openai", protocol: "openai-chat", baseUrl: "https://api.openai.com/v1", model: "gpt-4.1", keySource: { kind: "keychain" }, toolMode: "native", price: null },
    });
  });

  it("carries the tool mode, so a json-text provider stays json-text when edited", () => {
    expect(validateProvider({ ...valid, toolMode: "json-text" }).input?.toolMode).toBe("json-text");
  });

  it("requires a name, a model and an http(s) URL, with a message per field", () => {
    const result = validateProvider({ ...emptyProviderForm(), baseUrl: "ftp://example.com" });
    expect(result.input).toBeNull();
    expect(result.errors).toEqual({
      name: "Give the provider a name.",
      baseUrl: "The URL must start with http:// or https://.",
      model: expect.stringMatching(/model name/),
    });
  });

  it("checks URLs", () => {
    expect(urlError("http://localhost:11434/v1")).toBeNull();
    expect(urlError("https://api.anthropic.com")).toBeNull();
    expect(urlError("")).toMatch(/Enter the base URL/);
    expect(urlError("localhost:8080")).toMatch(/http/);
    expect(urlError("not a url")).toMatch(/full URL/);
  });

  it("reserves the demo name and validates env variable names", () => {
    expect(validateProvider({ ...valid, name: "Demo" }).errors?.name).toMatch(/reserved/);
    expect(validateProvider({ ...valid, keyKind: "env", keyVariable: "1BAD" }).errors?.keyVariable).toBeDefined();
    expect(validateProvider({ ...valid, keyKind: "env", keyVariable: "OPENAI_API_KEY" }).input?.keySource).toEqual({ kind: "env", variable: "OPENAI_API_KEY" });
    expect(validateProvider({ ...valid, keyKind: "none" }).input?.keySource).toEqual({ kind: "none" });
  });

  it("round-trips a stored provider into the form", () => {
    const stored = { name: "local", protocol: "openai-chat", baseUrl: "http://localhost:8080/v1", model: "qwen", keySource: { kind: "env" as const, variable: "LOCAL_KEY" }, keyPresent: true, toolMode: "native" as const, price: null };
    expect(providerToForm(stored)).toMatchObject({ name: "local", keyKind: "env", keyVariable: "LOCAL_KEY", toolMode: "native", priceInput: "", priceOutput: "" });
    expect(providerToForm({ ...stored, toolMode: "json-text" }).toolMode).toBe("json-text");
    expect(providerToForm({ ...stored, protocol: "mystery" }).protocol).toBe("openai-chat");
  });

  it("has no price when all price fields are empty: cost unknown", () => {
    expect(parsePrice({ priceInput: "", priceOutput: " ", priceCachedInput: "" })).toEqual({ price: null, errors: null });
  });

  it("takes a price in USD per million tokens, cached input optional", () => {
    expect(validateProvider({ ...valid, priceInput: "2", priceOutput: "$8.00", priceCachedInput: "0.5" }).input?.price).toEqual({
      inputPerMtok: 2,
      outputPerMtok: 8,
      cachedInputPerMtok: 0.5,
    });
    expect(parsePrice({ priceInput: "0", priceOutput: "0", priceCachedInput: "" }).price).toEqual({ inputPerMtok: 0, outputPerMtok: 0, cachedInputPerMtok: null });
  });

  it("needs both input and output once any price is given, each a number of USD ≥ 0", () => {
    expect(parsePrice({ priceInput: "", priceOutput: "", priceCachedInput: "0.3" }).errors).toEqual({
      priceInput: expect.stringMatching(/needed too/),
      priceOutput: expect.stringMatching(/needed too/),
    });
    const bad = validateProvider({ ...valid, priceInput: "-1", priceOutput: "cheap", priceCachedInput: "1,5" });
    expect(bad.input).toBeNull();
    expect(Object.keys(bad.errors ?? {}).sort()).toEqual(["priceCachedInput", "priceInput", "priceOutput"]);
    expect(bad.errors?.priceInput).toMatch(/0 or more/);
    expect(parsePrice({ priceInput: "2000000", priceOutput: "1", priceCachedInput: "" }).errors?.priceInput).toMatch(/at most/);
  });

  it("round-trips a stored price through the form", () => {
    const stored = {
      name: "anthropic", protocol: "anthropic", baseUrl: "https://api.anthropic.com", model: "claude-sonnet-4", keySource: { kind: "keychain" as const },
      keyPresent: true, toolMode: "native" as const, price: { inputPerMtok: 3, outputPerMtok: 15, cachedInputPerMtok: 0.3 },
    };
    const form = providerToForm(stored);
    expect(form).toMatchObject({ priceInput: "3", priceOutput: "15", priceCachedInput: "0.3" });
    expect(validateProvider(form).input?.price).toEqual(stored.price);
  });
});

describe("profile validation", () => {
  it("accepts a profile; an empty provider means the run chooses", () => {
    const result = validateProfile({ ...emptyProfileForm(), name: "careful" });
    expect(result.errors).toBeNull();
    expect(result.profile).toMatchObject({ name: "careful", provider: null, approvalMode: "ask_writes", contextCaps: { max_context_bytes: 400_000, max_tool_result_bytes: 16_384 } });
  });

  it("requires positive whole budgets and context sizes", () => {
    const form = { ...emptyProfileForm("openai"), name: "", maxContextBytes: "0", maxToolResultBytes: "12.5" };
    form.budgets.toolCalls = "-4";
    const result = validateProfile(form);
    expect(result.profile).toBeNull();
    expect(Object.keys(result.errors ?? {}).sort()).toEqual(["budgets", "maxContextBytes", "maxToolResultBytes", "name"]);
    expect(result.errors?.budgets?.toolCalls).toMatch(/greater than 0/);
  });

  it("round-trips a stored profile", () => {
    const stored = validateProfile({ ...emptyProfileForm("openai"), name: "fast" }).profile!;
    expect(stored.budgets.max_cost_micro_usd).toBeNull();
    expect(validateProfile(profileToForm(stored)).profile).toEqual(stored);
  });

  it("takes an optional max cost in USD and round-trips it", () => {
    const form = { ...emptyProfileForm("openai"), name: "capped" };
    form.budgets.maxCostUsd = "2.5";
    const stored = validateProfile(form).profile!;
    expect(stored.budgets.max_cost_micro_usd).toBe(2_500_000);
    expect(profileToForm(stored).budgets.maxCostUsd).toBe("2.5");
    expect(validateProfile(profileToForm(stored)).profile).toEqual(stored);
    form.budgets.maxCostUsd = "0";
    expect(validateProfile(form).errors?.budgets?.maxCostUsd).toMatch(/more than \$0/);
  });
});
