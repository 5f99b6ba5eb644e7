// Development-only fake of the Rust side, loaded by main.ts for `?mockIpc`
// in `vite dev` (never part of `vite build`). It answers the same commands with
// the same shapes and error codes, and emits `workspace-opened` like the app.
import { emit } from "@tauri-apps/api/event";
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import type { ApiError, RunSummaryView, WorkspaceOpened, WorkspaceView } from "../bindings";

/** Optional fixture a test can set with `page.addInitScript` before the app loads. */
export interface MockSeed {
  /** Absolute paths that exist and are folders. */
  directories?: string[];
  /** Absolute paths that exist but are files. */
  files?: string[];
  /** Paths opened earlier, oldest first. */
  recent?: string[];
  /** Path of the workspace open at start. */
  current?: string | null;
  /** What the folder dialog "picks"; `null` = the user cancels. */
  choose?: string | null;
  /** Runs by workspace path. */
  runs?: Record<string, Omit<RunSummaryView, "workspaceId">[]>;
}

declare global {
  interface Window {
    __BEARAGENT_MOCK_SEED__?: MockSeed;
    /** Test hook: open a workspace "from the backend side" (emits the event). */
    __bearagentMock?: { openFromBackend(path: string): Promise<WorkspaceView> };
  }
}

const DEFAULT_SEED: Required<MockSeed> = {
  directories: ["/home/dev/projects/bear-demo", "/home/dev/projects/notes"],
  files: ["/home/dev/projects/README.md"],
  recent: [],
  current: null,
  choose: "/home/dev/projects/bear-demo",
  runs: {},
};

class MockError {
  constructor(readonly error: ApiError) {}
}

export function installMockBackend(seed: MockSeed = window.__BEARAGENT_MOCK_SEED__ ?? {}): void {
  const config = { ...DEFAULT_SEED, ...seed };
  const directories = new Set(config.directories.map(normalise));
  const files = new Set(config.files.map(normalise));
  const workspaces = new Map<string, WorkspaceView>();
  // A fixed clock keeps screenshots and assertions deterministic.
  let clock = Date.parse("2025-03-14T09:30:00Z");
  let current: WorkspaceView | null = null;

  function open(rawPath: string): WorkspaceView {
    const path = normalise(rawPath);
    if (path === "" || !path.startsWith("/")) {
      throw new MockError({ code: "invalid_input", message: `Workspace path must be absolute: "${rawPath}"` });
    }
    if (files.has(path)) {
      throw new MockError({ code: "not_a_directory", message: `Not a directory: ${path}` });
    }
    if (!directories.has(path)) {
      throw new MockError({ code: "not_found", message: `No such folder: ${path}` });
    }
    clock += 60_000;
    const existing = workspaces.get(path);
    const workspace: WorkspaceView = {
      id: existing?.id ?? `ws-${workspaces.size + 1}`,
      path,
      name: path.split("/").filter(Boolean).pop() ?? path,
      lastOpenedAt: new Date(clock).toISOString(),
    };
    workspaces.set(path, workspace);
    current = workspace;
    return workspace;
  }

  async function openAndAnnounce(path: string): Promise<WorkspaceView> {
    const workspace = open(path);
    const payload: WorkspaceOpened = { workspace };
    await emit("workspace-opened", payload);
    return workspace;
  }

  function runsOf(workspaceId: string): RunSummaryView[] {
    const workspace = [...workspaces.values()].find((w) => w.id === workspaceId);
    if (!workspace) throw new MockError({ code: "not_found", message: `Unknown workspace: ${workspaceId}` });
    return (config.runs[workspace.path] ?? []).map((run) => ({ ...run, workspaceId }));
  }

  for (const path of config.recent) open(path);
  current = config.current ? open(config.current) : null;

  mockWindows("main");
  mockIPC(
    async (cmd, args) => {
      const input = (args ?? {}) as Record<string, unknown>;
      try {
        switch (cmd) {
          case "open_workspace":
            return await openAndAnnounce(String(input.path ?? ""));
          case "choose_workspace":
            return config.choose === null ? null : await openAndAnnounce(config.choose);
          case "current_workspace":
            return current;
          case "list_recent_workspaces":
            return [...workspaces.values()].sort((a, b) => b.lastOpenedAt.localeCompare(a.lastOpenedAt));
          case "list_runs":
            return runsOf(String(input.workspaceId ?? ""));
          default:
            throw new MockError({ code: "internal", message: `mock backend: unknown command ${cmd}` });
        }
      } catch (e) {
        // Tauri rejects `invoke` with the serialised error value itself.
        if (e instanceof MockError) throw e.error;
        throw e;
      }
    },
    { shouldMockEvents: true },
  );

  window.__bearagentMock = { openFromBackend: openAndAnnounce };
}

function normalise(path: string): string {
  const trimmed = path.trim();
  return trimmed.length > 1 ? trimmed.replace(/\/+$/, "") : trimmed;
}
