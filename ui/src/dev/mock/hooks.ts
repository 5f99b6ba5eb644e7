// Development-only: each workspace's `.bearagent/hooks.toml` as the mock
// keeps it (seeded by `MockSeed.projectHooks`): what `project_hooks` reads,
// the trust `trust_project_hooks` pins to a SHA-256 (refused with
// `conflict` once the file changed, `invalid_input` for an invalid file),
// `untrust_project_hooks`, and the `hooks_not_trusted` a run starts with.
import type { ProjectHookView, ProjectHooksView } from "../../bindings";
import type { HooksNotTrusted } from "../../lib/hooks/runs";
import { fail } from "./errors";

/** A workspace's hooks file in the seed. */
export interface MockProjectHooksSeed {
  hooks: ProjectHookView[];
  /** Trusted as it is (default: not). */
  trusted?: boolean;
  /** Why it never runs (an invalid file). */
  error?: string | null;
}

interface HooksFile {
  hooks: ProjectHookView[];
  error: string | null;
  /** Edits so far: each changes the file's hash. */
  edits: number;
  /** The hash the user trusted (the file may have changed since). */
  trustedSha: string | null;
}

export const HOOKS_FILE = ".bearagent/hooks.toml";

/** A stand-in SHA-256: 64 hex digits that change with the text (FNV-1a, eight seeds). */
export function fakeSha256(text: string): string {
  let out = "";
  for (let seed = 0; seed < 8; seed++) {
    let h = (0x811c9dc5 ^ (seed * 0x9e3779b1)) >>> 0;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
    out += h.toString(16).padStart(8, "0");
  }
  return out;
}

export class MockProjectHooks {
  readonly #files = new Map<string, HooksFile>();

  /** `seed` and every path given later are normalised workspace paths; `folder` says whether one exists. */
  constructor(
    seed: Record<string, MockProjectHooksSeed>,
    readonly folder: (path: string) => boolean,
  ) {
    for (const [path, file] of Object.entries(seed)) {
      const entry: HooksFile = { hooks: structuredClone(file.hooks), error: file.error ?? null, edits: 0, trustedSha: null };
      this.#files.set(path, entry);
      if (file.trusted) entry.trustedSha = this.#sha(path, entry);
    }
  }

  view(workspace: string): ProjectHooksView | null {
    this.#checkFolder(workspace);
    const file = this.#files.get(workspace);
    if (!file) return null;
    const sha256 = this.#sha(workspace, file);
    return { file: `${workspace}/${HOOKS_FILE}`, sha256, pinned: [HOOKS_FILE], hooks: structuredClone(file.hooks), trusted: file.trustedSha === sha256, error: file.error };
  }

  trust(workspace: string, sha256: string): ProjectHooksView {
    const view = this.view(workspace);
    const file = this.#files.get(workspace);
    if (!view || !file) return fail("not_found", `hooks file not found: ${workspace}/${HOOKS_FILE}`);
    if (view.error) return fail("invalid_input", `${view.file} cannot be trusted: ${view.error}`);
    if (view.sha256 !== sha256.trim()) {
      return fail("conflict", `${view.file} changed since it was shown (it is now ${view.sha256}); review it again before trusting it`);
    }
    file.trustedSha = view.sha256;
    return { ...view, trusted: true };
  }

  /** Whether there was a trust to take back (even one the file outgrew). */
  untrust(workspace: string): boolean {
    this.#checkFolder(workspace);
    const file = this.#files.get(workspace);
    const removed = file?.trustedSha != null;
    if (file) file.trustedSha = null;
    return removed;
  }

  /** Someone edited the file (its hooks replaced when given): a new hash, so its trust no longer holds. Returns the new hash. */
  edit(workspace: string, hooks?: ProjectHookView[]): string {
    const file = this.#files.get(workspace) ?? { hooks: [], error: null, edits: 0, trustedSha: null };
    this.#files.set(workspace, file);
    file.edits += 1;
    if (hooks) file.hooks = structuredClone(hooks);
    return this.#sha(workspace, file);
  }

  /** What a run in `workspace` records at its start when the file is there but not trusted as it is (null: nothing). */
  notTrusted(workspace: string): HooksNotTrusted | null {
    const view = this.folder(workspace) ? this.view(workspace) : null;
    if (!view || (view.trusted && view.error === null)) return null;
    return { type: "hooks_not_trusted", file: view.file, content_hash: view.sha256, commands: view.hooks.map((h) => h.command) };
  }

  #sha(workspace: string, file: HooksFile): string {
    return fakeSha256(JSON.stringify([workspace, file.hooks, file.error, file.edits]));
  }

  #checkFolder(workspace: string): void {
    if (!this.folder(workspace)) fail("not_found", `No such folder: ${workspace}`);
  }
}
