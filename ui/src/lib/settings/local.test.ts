import { describe, expect, it, vi } from "vitest";
import type { ApiError } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import { firstOffer, localProviderName, nothingFoundText, offerText, serverKindLabel, toolsText, windowText, type AddedLocalProvider, type LocalDetection, type LocalModel, type LocalServer, type LocalServersApi } from "./local";
import { LocalServersStore } from "./localStore.svelte";

const model = (id: string, extra: Partial<LocalModel> = {}): LocalModel => ({ id, contextWindow: null, trainedWindow: null, tools: null, notLearned: [], ...extra });
const server = (baseUrl: string, models: LocalModel[], kind: LocalServer["kind"] = "llama.cpp"): LocalServer => ({ kind, baseUrl, models });
const found = (...servers: LocalServer[]): LocalDetection => ({ servers, failures: [], elapsedMs: 6 });

describe("localProviderName", () => {
  it("is local, then local-2, local-3 … the first one free", () => {
    expect(localProviderName([])).toBe("local");
    expect(localProviderName(["openai"])).toBe("local");
    expect(localProviderName(["local"])).toBe("local-2");
    expect(localProviderName(["local", "local-2", "local-4"])).toBe("local-3");
    expect(localProviderName(["local-2"])).toBe("local");
  });
});

describe("firstOffer", () => {
  it("is the first server's first model", () => {
    const a = server("http://127.0.0.1:8080", [model("qwen"), model("llama")]);
    const b = server("http://127.0.0.1:11434", [model("mistral")], "ollama");
    expect(firstOffer(found(a, b))).toEqual({ server: a, model: a.models[0] });
  });

  it("skips a server listing no models; nothing found offers nothing", () => {
    const empty = server("http://127.0.0.1:8000", [], "vllm");
    const b = server("http://127.0.0.1:1234", [model("phi")], "lm-studio");
    expect(firstOffer(found(empty, b))?.model.id).toBe("phi");
    expect(firstOffer(found(empty))).toBeNull();
    expect(firstOffer(found())).toBeNull();
    expect(firstOffer(null)).toBeNull();
  });

  it("names the address and the model", () => {
    const offer = { server: server("http://127.0.0.1:8080", []), model: model("qwen2.5-coder") };
    expect(offerText(offer)).toBe("Use the local model found at http://127.0.0.1:8080 (qwen2.5-coder)");
  });
});

describe("what a model says", () => {
  it("its window, and the trained one when it differs", () => {
    expect(windowText(model("m", { contextWindow: 16_384, trainedWindow: 32_768 }))).toBe("window 16,384 tokens (trained 32,768 tokens)");
    expect(windowText(model("m", { contextWindow: 8_192, trainedWindow: 8_192 }))).toBe("window 8,192 tokens");
    expect(windowText(model("m", { trainedWindow: 131_072 }))).toBe("window unknown (trained 131,072 tokens)");
    expect(windowText(model("m"))).toBe("window unknown");
  });

  it("its tool support; without it runs use JSON text", () => {
    expect(toolsText(model("m", { tools: true }))).toBe("tools: yes");
    expect(toolsText(model("m", { tools: false }))).toBe("tools: no (JSON-text mode)");
    expect(toolsText(model("m"))).toBe("tools: unknown (JSON-text mode)");
  });

  it("labels kinds and the ports looked at", () => {
    expect(serverKindLabel("lm-studio")).toBe("LM Studio");
    expect(serverKindLabel("openai-compatible")).toBe("OpenAI-compatible server");
    expect(nothingFoundText()).toContain("8080 (llama.cpp), 11434 (Ollama), 1234 (LM Studio), 8000 (vLLM)");
  });
});

function fakeApi(detection: LocalDetection, addResult?: Outcome<AddedLocalProvider>) {
  const api = {
    detect: vi.fn(async (): Promise<Outcome<LocalDetection>> => ({ ok: true, value: detection })),
    add: vi.fn(async (name: string, baseUrl: string, modelId: string | null): Promise<Outcome<AddedLocalProvider>> => {
      return addResult ?? { ok: true, value: { name, kind: "llama.cpp", baseUrl, model: modelId ?? "", contextWindow: 16_384, toolMode: "native" } };
    }),
  } satisfies LocalServersApi;
  return api;
}

function fakeSettings(names: string[]) {
  return { providers: names.map((name) => ({ name })), load: vi.fn(async () => {}) };
}

describe("LocalServersStore", () => {
  const llama = server("http://127.0.0.1:8080", [model("qwen")]);

  it("probes once for the Welcome screen and offers the first model", async () => {
    const api = fakeApi(found(llama));
    const store = new LocalServersStore(api, fakeSettings([]));
    expect(store.offer).toBeNull();
    await store.detectOnce();
    await store.detectOnce();
    expect(api.detect).toHaveBeenCalledTimes(1);
    expect(store.offer?.model.id).toBe("qwen");
  });

  it("adds with the first free local name, reloads the settings and chooses it", async () => {
    const api = fakeApi(found(llama));
    const settings = fakeSettings(["local"]);
    const store = new LocalServersStore(api, settings);
    await store.detect();
    const added = await store.add(llama, llama.models[0]);
    expect(api.add).toHaveBeenCalledWith("local-2", "http://127.0.0.1:8080", "qwen");
    expect(added?.name).toBe("local-2");
    expect(settings.load).toHaveBeenCalledTimes(1);
    expect(store.chosen).toBe("local-2");
    expect(store.added.get("http://127.0.0.1:8080 qwen")?.name).toBe("local-2");
    expect(store.adding).toBeNull();
  });

  it("keeps a refusal for the offer that caused it; nothing is chosen", async () => {
    const error: ApiError = { code: "invalid_input", message: "a provider named local exists already: choose another name or remove it first" };
    const api = fakeApi(found(llama), { ok: false, error });
    const settings = fakeSettings([]);
    const store = new LocalServersStore(api, settings);
    expect(await store.add(llama, llama.models[0])).toBeNull();
    expect(store.addError).toEqual({ key: "http://127.0.0.1:8080 qwen", error });
    expect(store.chosen).toBeNull();
    expect(settings.load).not.toHaveBeenCalled();
  });

  it("says when the probe itself failed", async () => {
    const api = fakeApi(found());
    api.detect.mockResolvedValueOnce({ ok: false, error: { code: "storage", message: "cannot open BearAgent's data" } });
    const store = new LocalServersStore(api, fakeSettings([]));
    await store.detect();
    expect(store.state).toEqual({ kind: "failed", error: { code: "storage", message: "cannot open BearAgent's data" } });
    expect(store.offer).toBeNull();
  });
});
