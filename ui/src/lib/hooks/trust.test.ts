import { describe, expect, it, vi } from "vitest";
import type { ApiError, ProjectHooksView } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import type { HooksApi } from "./api";
import { awaitsTrust, hooksState, matcherText, timeoutText } from "./trust";
import { ProjectHooksStore } from "./trustStore.svelte";

const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
const err = (code: ApiError["code"], message: string = code): Outcome<never> => ({ ok: false, error: { code, message } });

const FILE: ProjectHooksView = {
  file: "/w/.bearagent/hooks.toml",
  sha256: "a".repeat(64),
  pinned: [".bearagent/hooks.toml", "check.sh"],
  hooks: [{ event: "PreToolUse", matcher: "run_command", command: "./check.sh", timeoutSecs: 60 }],
  trusted: false,
  error: null,
};

/** The file as the fake backend holds it; `trust` refuses another hash with `conflict`, as the backend does. */
function fakeApi(initial: ProjectHooksView | null = FILE) {
  let file = initial;
  const api = {
    read: vi.fn(async () => ok(file)),
    trust: vi.fn(async (_workspace: string, sha256: string): Promise<Outcome<ProjectHooksView>> => {
      if (!file) return err("not_found");
      if (file.error) return err("invalid_input", `cannot be trusted: ${file.error}`);
      if (file.sha256 !== sha256) return err("conflict");
      file = { ...file, trusted: true };
      return ok(file);
    }),
    untrust: vi.fn(async () => {
      const was = file?.trusted ?? false;
      if (file) file = { ...file, trusted: false };
      return ok(was);
    }),
  } satisfies HooksApi;
  return { api, edit: (change: Partial<ProjectHooksView>) => (file = file && { ...file, ...change, trusted: false }) };
}

describe("project hooks' state", () => {
  it("is invalid with an error, else trusted or not", () => {
    expect(hooksState(FILE)).toBe("untrusted");
    expect(hooksState({ ...FILE, trusted: true })).toBe("trusted");
    expect(hooksState({ ...FILE, error: "bad TOML" })).toBe("invalid");
    expect(awaitsTrust(FILE)).toBe(true);
    expect(awaitsTrust({ ...FILE, trusted: true })).toBe(false);
    expect(awaitsTrust(null)).toBe(false);
    expect(awaitsTrust(undefined)).toBe(false);
  });

  it("words a hook's matcher and timeout", () => {
    expect(matcherText({ matcher: "run_command" })).toBe("matcher run_command");
    expect(matcherText({ matcher: null })).toBe("every time");
    expect(matcherText({ matcher: "*" })).toBe("every time");
    expect(timeoutText(60)).toBe("timeout 60 s");
  });
});

describe("ProjectHooksStore", () => {
  it("trusts the sha256 of what the prompt shows, then closes", async () => {
    const { api } = fakeApi();
    const store = new ProjectHooksStore("/w", api);
    await store.review();
    expect(store.open).toBe(true);
    expect(store.shown).toEqual(FILE);
    expect(await store.trust()).toBe(true);
    expect(api.trust).toHaveBeenCalledWith("/w", FILE.sha256);
    expect(store.view?.trusted).toBe(true);
    expect([store.open, store.shown]).toEqual([false, null]);
  });

  it("shows a file changed since the prompt opened again, saying so, and trusts it only when asked again", async () => {
    const { api, edit } = fakeApi();
    const store = new ProjectHooksStore("/w", api);
    await store.review();
    edit({ sha256: "b".repeat(64), hooks: [{ event: "Stop", matcher: null, command: "./new.sh", timeoutSecs: 5 }] });
    expect(await store.trust()).toBe(false);
    expect(store.changed).toBe(true);
    expect(store.open).toBe(true);
    expect(store.shown?.sha256).toBe("b".repeat(64));
    expect(store.shown?.hooks[0].command).toBe("./new.sh");
    expect(await store.trust()).toBe(true);
    expect(api.trust).toHaveBeenLastCalledWith("/w", "b".repeat(64));
  });

  it("keeps the prompt open with the refusal of an invalid file, and says when the file is gone", async () => {
    const { api, edit } = fakeApi();
    const store = new ProjectHooksStore("/w", api);
    await store.review();
    edit({ error: "not plain hooks" });
    expect(await store.trust()).toBe(false);
    expect(store.promptError?.code).toBe("invalid_input");
    expect(store.open).toBe(true);

    const gone = new ProjectHooksStore("/w", fakeApi(null).api);
    await gone.review();
    expect(gone.shown).toBeNull();
    expect(gone.promptError?.code).toBe("not_found");
    gone.close();
    expect([gone.open, gone.promptError]).toEqual([false, null]);
  });

  it("stops trusting and reads the file again", async () => {
    const { api } = fakeApi({ ...FILE, trusted: true });
    const store = new ProjectHooksStore("/w", api);
    await store.load();
    expect(store.view?.trusted).toBe(true);
    await store.untrust();
    expect(api.untrust).toHaveBeenCalledWith("/w");
    expect(store.view?.trusted).toBe(false);
    expect(store.error).toBeNull();
  });
});
