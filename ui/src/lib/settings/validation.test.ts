import { describe, expect, it } from "vitest";
import {
  DEFAULT_COMMAND_SETTINGS,
  commandsToForm,
  emptyProfileForm,
  emptyProviderForm,
  parsePrice,
  prefixError,
  profileToForm,
  providerToForm,
  toolchainDirError,
  urlError,
  validateCommands,
  validateProfile,
  validateProvider,
} from "./validation";

describe("provider validation", () => {
  const valid = { ...emptyProviderForm(), name: " openai ", model: " gpt-4.1 " };

  it("accepts a complete provider and trims it", () => {
    expect(validateProvider(valid)).toEqual({
      errors: null,
      input: { name: "openai", protocol: "openai-chat" as const, baseUrl: "https://api.openai.com/v1", model: "gpt-4.1", keySource: { kind: "keychain" }, toolMode: "native", price: null, contextWindow: null, vision: null },
    });
  });

  it("carries the Reads images choice: by model family (null), yes or no", () => {
    expect(validateProvider({ ...valid, vision: "yes" }).input?.vision).toBe(true);
    expect(validateProvider({ ...valid, vision: "no" }).input?.vision).toBe(false);
    const stored = { name: "local", protocol: "openai-chat" as const, baseUrl: "http://localhost:8080/v1", model: "llava", keySource: { kind: "none" as const }, keyPresent: false, toolMode: "native" as const, price: null };
    expect(providerToForm({ ...stored, vision: true }).vision).toBe("yes");
    expect(providerToForm({ ...stored, vision: false }).vision).toBe("no");
    expect(providerToForm(stored).vision).toBe("auto");
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
    const stored = { name: "local", protocol: "openai-chat" as const, baseUrl: "http://localhost:8080/v1", model: "qwen", keySource: { kind: "env" as const, variable: "LOCAL_KEY" }, keyPresent: true, toolMode: "native" as const, price: null };
    expect(providerToForm(stored)).toMatchObject({ name: "local", keyKind: "env", keyVariable: "LOCAL_KEY", toolMode: "native", priceInput: "", priceOutput: "" });
    expect(providerToForm({ ...stored, toolMode: "json-text" }).toolMode).toBe("json-text");
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

  it("takes an optional context window: empty is the model's default, else 1,000 to 10,000,000 tokens", () => {
    expect(validateProvider({ ...valid, contextWindow: " 32,000 " }).input?.contextWindow).toBe(32_000);
    expect(validateProvider({ ...valid, contextWindow: "" }).input?.contextWindow).toBeNull();
    for (const bad of ["999", "10000001", "32k", "1.5", "-4000"]) {
      expect(validateProvider({ ...valid, contextWindow: bad }).errors?.contextWindow, bad).toMatch(/whole number of tokens from 1,000 to 10,000,000/);
    }
  });

  it("round-trips a stored window, and a provider without one stays without", () => {
    const stored = { name: "local", protocol: "openai-chat" as const, baseUrl: "http://localhost:8080/v1", model: "qwen", keySource: { kind: "none" as const }, keyPresent: false, toolMode: "native" as const, price: null };
    expect(providerToForm({ ...stored, contextWindow: 16_000 }).contextWindow).toBe("16000");
    expect(validateProvider(providerToForm({ ...stored, contextWindow: 16_000 })).input?.contextWindow).toBe(16_000);
    expect(validateProvider(providerToForm(stored)).input?.contextWindow).toBeNull();
    expect(validateProvider(providerToForm({ ...stored, contextWindow: null })).input?.contextWindow).toBeNull();
  });

  it("round-trips a stored price through the form", () => {
    const stored = {
      name: "anthropic", protocol: "anthropic" as const, baseUrl: "https://api.anthropic.com", model: "claude-sonnet-4", keySource: { kind: "keychain" as const },
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

  it("keeps a profile's helpers (config delegate) when it is saved from the form, and adds none", () => {
    const plain = validateProfile({ ...emptyProfileForm("openai"), name: "plain" }).profile!;
    expect(plain).not.toHaveProperty("delegation");
    const helped = { ...plain, name: "helped", delegation: { max_depth: 3, share_percent: 40 } };
    expect(validateProfile(profileToForm(helped)).profile).toEqual(helped);
  });

  it("compacts at 0.85 by default; the share is validated only while compaction is on", () => {
    const form = { ...emptyProfileForm("openai"), name: "long" };
    expect(form).toMatchObject({ compaction: true, compactAt: "0.85" });
    expect(validateProfile(form).profile?.contextCaps.compact_at_permille).toBe(850);
    expect(validateProfile({ ...form, compactAt: "0.7" }).profile?.contextCaps.compact_at_permille).toBe(700);
    expect(validateProfile({ ...form, compactAt: "1.2" }).errors?.compactAt).toMatch(/0\.1 to 0\.99/);
    // Off: the profile says null (a request over the window fails the run), whatever the field holds.
    expect(validateProfile({ ...form, compaction: false, compactAt: "nonsense" }).profile?.contextCaps.compact_at_permille).toBeNull();
  });

  it("round-trips compaction settings unchanged: a share, off, and the default when the field is absent", () => {
    const base = validateProfile({ ...emptyProfileForm("openai"), name: "fast" }).profile!;
    for (const permille of [875, 100, 990, null]) {
      const stored = { ...base, contextCaps: { ...base.contextCaps, compact_at_permille: permille } };
      expect(validateProfile(profileToForm(stored)).profile, String(permille)).toEqual(stored);
    }
    const off = profileToForm({ ...base, contextCaps: { ...base.contextCaps, compact_at_permille: null } });
    expect(off).toMatchObject({ compaction: false, compactAt: "0.85" });
    const absent = profileToForm({ ...base, contextCaps: { max_context_bytes: 400_000, max_tool_result_bytes: 16_384 } });
    expect(absent).toMatchObject({ compaction: true, compactAt: "0.85" });
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

describe("command settings validation", () => {
  const form = () => commandsToForm(DEFAULT_COMMAND_SETTINGS);

  it("starts a new profile sandboxed, without network, with the backend's defaults", () => {
    expect(validateProfile({ ...emptyProfileForm(), name: "p" }).profile?.commands).toEqual(DEFAULT_COMMAND_SETTINGS);
  });

  it("takes lists one per line, blank lines ignored, and rules with single-spaced words", () => {
    const result = validateCommands({
      ...form(),
      sandbox: false,
      network: true,
      maxTimeoutSecs: "1,200",
      toolchainDirs: " .cargo \n\n.cache/pip/\n",
      env: "RUST_LOG\n  _TOKEN2 \n",
      rules: [{ prefix: "  cargo   test ", decision: "allow" }, { prefix: "git push", decision: "deny" }],
    });
    expect(result).toEqual({
      errors: null,
      commands: {
        sandbox: false,
        network: true,
        max_timeout_secs: 1200,
        toolchain_dirs: [".cargo", ".cache/pip/"],
        env: ["RUST_LOG", "_TOKEN2"],
        rules: [{ prefix: "cargo test", decision: "allow" }, { prefix: "git push", decision: "deny" }],
      },
    });
  });

  it("requires a whole number of seconds above 0, at most a day", () => {
    for (const bad of ["0", "-5", "1.5", "ten", ""]) expect(validateCommands({ ...form(), maxTimeoutSecs: bad }).errors?.maxTimeoutSecs).toMatch(/greater than 0/);
    expect(validateCommands({ ...form(), maxTimeoutSecs: "86401" }).errors?.maxTimeoutSecs).toMatch(/at most 86,400/);
  });

  it("refuses toolchain folders outside the home folder", () => {
    expect(toolchainDirError(".cargo")).toBeNull();
    expect(toolchainDirError(".local/lib")).toBeNull();
    expect(toolchainDirError("/opt/rust")).toMatch(/absolute/);
    expect(toolchainDirError("../other")).toMatch(/\.\./);
    expect(toolchainDirError(".cache/../../etc")).toMatch(/\.\./);
    expect(toolchainDirError("./.cargo")).toMatch(/“\.”/);
    expect(toolchainDirError("~/.cargo")).toMatch(/leave out ~/);
    expect(toolchainDirError("a//b")).toMatch(/empty part/);
    expect(validateCommands({ ...form(), toolchainDirs: ".cargo\n/usr/local" }).errors?.toolchainDirs).toMatch(/“\/usr\/local” is an absolute path/);
  });

  it("takes only variable names to pass through", () => {
    expect(validateCommands({ ...form(), env: "HOME_DIR\n1PASSWORD" }).errors?.env).toMatch(/“1PASSWORD” is not a variable name/);
    expect(validateCommands({ ...form(), env: "MY-VAR" }).errors?.env).toBeDefined();
    expect(validateCommands({ ...form(), env: "PATH=/bin" }).errors?.env).toBeDefined();
  });

  it("requires each rule's prefix to be plain words, with an error per row", () => {
    expect(prefixError("cargo test")).toBeNull();
    expect(prefixError("npm run lint:fix")).toBeNull();
    expect(prefixError("./scripts/check.sh --fast")).toBeNull();
    expect(prefixError("   ")).toMatch(/Enter the words/);
    for (const bad of ["cargo test; rm -rf /", "cat x | sh", "make && deploy", "echo $HOME", "echo `id`", "(ls)", "ls > out", "cat < in"]) {
      expect(prefixError(bad), bad).toMatch(/shell syntax/);
    }
    expect(prefixError("git commit -m 'x'")).toMatch(/no quotes/);
    expect(prefixError("rm *.tmp")).toMatch(/wildcards/);
    expect(prefixError("FOO=1 make")).toMatch(/variable assignment/);
    const result = validateCommands({ ...form(), rules: [{ prefix: "cargo test", decision: "allow" }, { prefix: "", decision: "ask" }, { prefix: "git push; ls", decision: "deny" }] });
    expect(result.commands).toBeNull();
    expect(Object.keys(result.errors?.rules ?? {})).toEqual(["1", "2"]);
    expect(result.errors?.rules?.[2]).toMatch(/“;” is shell syntax/);
  });

  it("round-trips a stored profile's command settings", () => {
    const stored = validateProfile({ ...emptyProfileForm("openai"), name: "strict" }).profile!;
    stored.commands = { ...stored.commands, sandbox: false, env: ["RUST_LOG"], rules: [{ prefix: "cargo test", decision: "allow" }, { prefix: "git push", decision: "deny" }] };
    expect(validateProfile(profileToForm(stored)).profile).toEqual(stored);
    // Command errors keep the profile from saving and are reported under `commands`.
    const bad = profileToForm(stored);
    bad.commands.rules[0].prefix = "cargo test | tee";
    expect(validateProfile(bad).errors?.commands?.rules?.[0]).toMatch(/shell syntax/);
  });
});
