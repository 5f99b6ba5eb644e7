import { describe, expect, it, vi } from "vitest";
import type { ApiError } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import { EditStore } from "./edit.svelte";

const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
const fail = (code: ApiError["code"], message: string): Outcome<never> => ({ ok: false, error: { code, message } });

function setup() {
  const api = {
    editBase: vi.fn(async (): Promise<Outcome<string>> => ok("run line\n")),
    keepEdited: vi.fn(async (_r: string, _p: string, _c: string, force: boolean): Promise<Outcome<null>> =>
      force ? ok(null) : fail("conflict", "plan.md changed since the run wrote it"),
    ),
  };
  const saved = vi.fn();
  return { api, saved, store: new EditStore(api, "run-1", saved) };
}

describe("EditStore", () => {
  it("opens the run's version; cancel sends nothing and clears it", async () => {
    const { api, store } = setup();
    await store.start("plan.md");
    expect(store.path).toBe("plan.md");
    expect(store.draft).toBe("run line\n");
    expect(store.changed).toBe(false);
    store.draft = "mine\n";
    expect(store.changed).toBe(true);
    store.cancel();
    expect(store.path).toBeNull();
    expect(api.keepEdited).not.toHaveBeenCalled();
  });

  it("a conflict is kept for Save anyway; the forced save closes the editor and reports the path", async () => {
    const { api, saved, store } = setup();
    await store.start("plan.md");
    store.draft = "mine\n";
    expect(await store.save()).toBe(false);
    expect(store.conflict).toBe(true);
    expect(store.path).toBe("plan.md");
    expect(await store.save(true)).toBe(true);
    expect(api.keepEdited).toHaveBeenLastCalledWith("run-1", "plan.md", "mine\n", true);
    expect(saved).toHaveBeenCalledWith("plan.md");
    expect(store.path).toBeNull();
  });

  it("a base that cannot be read is an error, and a late answer for a closed editor is dropped", async () => {
    const { api, store } = setup();
    api.editBase.mockResolvedValueOnce(fail("invalid_input", "flags.png is not text: it cannot be edited here"));
    await store.start("flags.png");
    expect(store.error?.code).toBe("invalid_input");
    expect(store.base).toBeNull();
    const pending = store.start("plan.md");
    store.cancel();
    await pending;
    expect(store.base).toBeNull();
    expect(store.path).toBeNull();
  });
});
