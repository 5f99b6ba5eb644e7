// How `run_command` calls are shown: the parts of a command approval's
// summary, the prefix suggested for "always allow", a finished command's
// status, and long output cut to its first and last lines.
import type { EventPayload, ToolCall } from "../../bindings";
import type { StatusTone } from "./format";

export const RUN_COMMAND = "run_command";

export type CommandFinished = Extract<EventPayload, { type: "command_finished" }>;
export type CommandStarted = Extract<EventPayload, { type: "command_started" }>;

/** The command line and working folder a run_command call asked for. */
export function commandOfCall(call: ToolCall | null | undefined): { command: string; cwd: string } | null {
  if (!call || call.tool_name !== RUN_COMMAND) return null;
  const { command, cwd } = call.arguments;
  if (typeof command !== "string") return null;
  return { command, cwd: typeof cwd === "string" && cwd.trim() !== "" ? cwd : "." };
}

export interface CommandSummary {
  /** "run `cargo test` in ." */
  what: string;
  /** "sandboxed, no network" or "NOT sandboxed (…)". */
  sandbox: string;
  sandboxed: boolean;
  network: boolean;
  /** "no rule matches `cargo test` → ask" */
  rule: string;
}

/** The sandbox part of a command approval summary, as the runtime writes it. */
const SANDBOX_PART = / · (sandboxed, no network|sandboxed, network on|NOT sandboxed(?: \([^)]*\))?) · /;

/**
 * The backend's command approval summary, "run `x` in . · sandboxed, no
 * network · rule …", split into its parts; `null` for any other summary.
 * Split at the sandbox part: the command (in the first and last parts) may
 * itself contain " · ".
 */
export function parseCommandSummary(summary: string): CommandSummary | null {
  const found = SANDBOX_PART.exec(summary);
  if (!found) return null;
  const sandbox = found[1];
  const what = summary.slice(0, found.index);
  const rule = summary.slice(found.index + found[0].length);
  const sandboxed = !sandbox.startsWith("NOT");
  return { what, sandbox, sandboxed, network: sandboxed && sandbox.endsWith("network on"), rule };
}

/** Tools whose second word names what they do (`cargo test`, `git push`). */
const SUBCOMMAND_TOOLS = new Set([
  "apt", "brew", "bun", "bundle", "cargo", "composer", "deno", "docker", "dotnet", "gh", "git", "go", "gradle", "helm", "just",
  "kubectl", "make", "mix", "mvn", "npm", "npx", "pip", "pip3", "pnpm", "podman", "poetry", "rake", "rustup", "swift", "terraform", "uv", "yarn",
]);
/** A word the backend takes as plain (no quoting, expansion or shell syntax). */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * What "always allow commands starting with …" suggests: the program, and
 * its subcommand for tools like git or cargo (`cargo test`, never all of
 * `cargo`), or `python -m pytest`. Leading variable assignments are
 * skipped; words stop at the first one that is not plain.
 */
export function suggestPrefix(command: string): string {
  const words: string[] = [];
  for (const word of command.trim().split(/\s+/)) {
    if (!PLAIN_WORD.test(word)) break;
    if (words.length === 0 && ASSIGNMENT.test(word)) continue;
    words.push(word);
  }
  const [first, second, third] = words;
  if (first === undefined) return "";
  const program = first.split("/").pop() ?? first;
  if (/^python3?$/.test(program) && second === "-m" && third !== undefined) return `${first} -m ${third}`;
  if (SUBCOMMAND_TOOLS.has(program) && second !== undefined && !second.startsWith("-")) return `${first} ${second}`;
  return first;
}

export interface ExitInfo {
  label: string;
  tone: StatusTone;
  /** Words for the row title: "exited with 1", "timed out". */
  title: string;
}

/** Green for exit 0, red for a failure, amber when it was stopped (timeout, cancel). */
export function exitInfo(f: Pick<CommandFinished, "exit_code" | "signal" | "timed_out" | "cancelled">): ExitInfo {
  if (f.timed_out) return { label: "timed out", tone: "attention", title: "Command timed out" };
  if (f.cancelled) return { label: "cancelled", tone: "attention", title: "Command cancelled" };
  if (f.exit_code === 0) return { label: "exit 0", tone: "success", title: "Command succeeded" };
  if (f.exit_code !== null) return { label: `exit ${f.exit_code}`, tone: "danger", title: `Command failed (exit ${f.exit_code})` };
  if (f.signal !== null) return { label: `signal ${f.signal}`, tone: "danger", title: `Command killed by signal ${f.signal}` };
  return { label: "did not run", tone: "danger", title: "Command did not run" };
}

export const HEAD_LINES = 20;
export const TAIL_LINES = 40;

export interface CollapsedOutput {
  head: string;
  tail: string;
  /** Lines between head and tail not shown. */
  hidden: number;
  lines: number;
}

/**
 * Long output as its first `head` and last `tail` lines; `null` when it is
 * short enough to show whole (hiding a handful of lines helps nobody).
 */
export function collapseOutput(text: string, head = HEAD_LINES, tail = TAIL_LINES): CollapsedOutput | null {
  const lines = text.replace(/\n$/, "").split("\n");
  if (lines.length <= head + tail + 5) return null;
  return {
    head: lines.slice(0, head).join("\n") + "\n",
    tail: lines.slice(lines.length - tail).join("\n") + (text.endsWith("\n") ? "\n" : ""),
    hidden: lines.length - head - tail,
    lines: lines.length,
  };
}

/** The last `count` lines of a text (for output whose start was not kept). */
export function lastLines(text: string, count = TAIL_LINES): string {
  let at = text.length;
  if (text.endsWith("\n")) at -= 1;
  for (let i = 0; i < count; i++) {
    const found = text.lastIndexOf("\n", at - 1);
    if (found < 0) return text;
    at = found;
  }
  return text.slice(at + 1);
}
