import type { ApiError, CommandSandboxView, PathDropView, PathSourceView, ProfileView } from "../../bindings";

// Settings' "What a command sees": the backend's view of a profile's
// command sandbox (`sandbox_view`), and the words that explain it.

export type CommandSandbox = CommandSandboxView;

export type SandboxViewState =
  | { kind: "idle" }
  | { kind: "loading"; profile: string }
  | { kind: "loaded"; view: CommandSandboxView }
  | { kind: "failed"; profile: string; error: ApiError };

/** The profile a run gets when none is chosen; it exists without being configured. */
export const DEFAULT_PROFILE = "default";

/** The profiles to look at: "default" (always there) and the configured ones, each once. */
export function sandboxProfileNames(profiles: Pick<ProfileView, "name">[]): string[] {
  const names = profiles.map((p) => p.name);
  return names.includes(DEFAULT_PROFILE) ? names : [DEFAULT_PROFILE, ...names];
}

/** `path` with the home folder shown as `~`. */
export function tilde(path: string, home: string): string {
  if (home === "" || home === "/") return path;
  if (path === home) return "~";
  return path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

// Keyed by the generated enums: a reason or source added in Rust is a
// type error here until it has its words.
const DROP_REASONS: Record<PathDropView, string> = {
  not_absolute: "not an absolute path: it would run files of the working folder",
  hidden_folder: "inside BearAgent's own folders, which commands never see",
  home_not_bound: "in your home folder, which commands cannot see; add its folder to the profile's Toolchain folders to pass it in",
};

const PATH_SOURCES: Record<PathSourceView, string> = {
  user: "your PATH",
  user_bound: "your PATH, in a folder passed in read-only",
  toolchain: "added: a toolchain folder's bin",
  system: "added: system folder",
};

/** Why a PATH entry was left out, in a sentence. */
export function dropReason(reason: PathDropView): string {
  return DROP_REASONS[reason];
}

/** Where a PATH entry comes from, in a few words. */
export function pathSource(source: PathSourceView): string {
  return PATH_SOURCES[source];
}
