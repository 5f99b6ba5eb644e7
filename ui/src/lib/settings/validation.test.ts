import { describe, expect, it } from "vitest";
import { emptyProfileForm, emptyProviderForm, profileToForm, providerToForm, urlError, validateProfile, validateProvider } from "./validation";

describe("provider validation", () => {
  const valid = { ...emptyProviderForm(), name: " openai ", model: " gpt-4.1 " };

  it("accepts a complete provider and trims it", () => {
    expect(validateProvider(valid)).toEqual({
      errors: null,
      input: { name: "openai", protocol: "openai-chat", baseUrl: "https://api.openai.com/v1", model: "gpt-4.1", keySource: { kind: "keychain" }, toolMode: "native" },
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
    const stored = { name: "local", protocol: "openai-chat", baseUrl: "http://localhost:8080/v1", model: "qwen", keySource: { kind: "env" as const, variable: "LOCAL_KEY" }, keyPresent: true, toolMode: "native" as const };
    expect(providerToForm(stored)).toMatchObject({ name: "local", keyKind: "env", keyVariable: "LOCAL_KEY", toolMode: "native" });
    expect(providerToForm({ ...stored, toolMode: "json-text" }).toolMode).toBe("json-text");
    expect(providerToForm({ ...stored, protocol: "mystery" }).protocol).toBe("openai-chat");
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
    expect(validateProfile(profileToForm(stored)).profile).toEqual(stored);
  });
});
