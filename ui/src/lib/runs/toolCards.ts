// What a tool card says: a one-line summary of the call ("Ran python3
// test_calc.py", "Edited calc.py +1 −1", "Searched "fn main" — 4 matches"),
// its status badge, and the diff an edit or a new file makes, read from the
// call's own arguments and result.
import type { DiffHunkView, Value } from "../../bindings";
import { exitInfo, RUN_COMMAND } from "./commands";
import { formatBytes, formatCount } from "./format";
import type { ToolCardItem } from "./conversation";
import { diffLines, parseUnifiedDiff, type LineDiff } from "./lineDiff";
import { argumentsSummary } from "./timeline";

/** The backend's web tool (tools/src/tools/web_fetch.rs). */
export const WEB_FETCH = "web_fetch";

export type CardStatus =
  | { kind: "queued" }
  | { kind: "asking" }
  | { kind: "running"; since: string }
  | { kind: "ok" }
  | { kind: "failed"; label: string }
  | { kind: "denied"; reason: string | null }
  | { kind: "refused"; reason: string }
  /** No result: the run ended or stopped while the call was open. */
  | { kind: "stopped" };

const str = (v: Value | undefined): string | null => (typeof v === "string" ? v : null);

/** What the runtime writes as a failed call's result when it refused it. */
const REFUSED = /^(refused by policy|refused by a PreToolUse hook|not run): /;
const USER_DENIED = /^the user denied /;

/** Whether the run can still give an open call its result. */
export type RunPhase = "live" | "interrupted" | "ended";

/** The card's status in a run at `phase`: a call open when the run stopped has no result, but an interrupted run's open request still answers. */
export function cardStatus(card: ToolCardItem, phase: RunPhase): CardStatus {
  if (card.decision && !card.decision.approved) return { kind: "denied", reason: card.decision.reason };
  const result = card.result;
  if (result && card.failed) {
    if (card.loopRepeats !== null) return { kind: "refused", reason: `repeated ${card.loopRepeats}× with the same result` };
    const refused = REFUSED.exec(result.content);
    if (refused) return { kind: "refused", reason: result.content.slice(refused[0].length).split("\n", 1)[0] };
    if (USER_DENIED.test(result.content)) return { kind: "denied", reason: null };
    return { kind: "failed", label: card.commandEnd ? exitInfo(card.commandEnd).label : "failed" };
  }
  if (result) return result.is_error ? { kind: "failed", label: "error" } : { kind: "ok" };
  if (card.startedAt !== null) return phase === "live" ? { kind: "running", since: card.startedAt } : { kind: "stopped" };
  if (card.approvalSeq !== null && card.decision === null && phase !== "ended") return { kind: "asking" };
  return phase === "live" ? { kind: "queued" } : { kind: "stopped" };
}

/** `server__tool` → `server › tool`; null for a workspace tool. */
export function mcpLabel(name: string): string | null {
  const at = name.indexOf("__");
  return at > 0 ? `${name.slice(0, at)} › ${name.slice(at + 2)}` : null;
}

/** Past tense once the call ran, present before (a request, an approval). */
function verb(card: ToolCardItem, past: string, present: string): string {
  return card.startedAt !== null || card.result !== null ? past : present;
}

function plural(n: number, one: string, many: string): string {
  return `${formatCount(n, "en-US")} ${n === 1 ? one : many}`;
}

/** Lines of a read's result, without the tool's closing `[…]` notes. */
function readLines(content: string): number {
  const lines = content.replace(/\n$/, "").split("\n");
  while (lines.length > 0 && /^\[.*\]$/.test(lines[lines.length - 1])) lines.pop();
  return lines.length === 1 && lines[0] === "" ? 0 : lines.length;
}

/** "4 matches", "200+ matches", "no matches" from search_text's closing line. */
function searchCount(content: string): string | null {
  if (/\[no matches for /.test(content)) return "no matches";
  const capped = /\[results capped at ([\d,]+) match/.exec(content);
  if (capped) return `${capped[1]}+ matches`;
  const found = /\[([\d,]+) (match|matches) in /.exec(content);
  return found ? `${found[1]} ${found[2]}` : null;
}

function withStats(text: string, diff: { added: number; removed: number } | null): string {
  return diff ? `${text} +${diff.added} −${diff.removed}` : text;
}

/** The card's one line; `diff`: the change it makes, when known. */
export function cardSummary(card: ToolCardItem, diff: { added: number; removed: number } | null = null): string {
  const a = card.args;
  const path = str(a.path);
  const content = card.result && !card.failed ? card.result.content : null;
  switch (card.name) {
    case RUN_COMMAND:
      return `${verb(card, "Ran", "Run")} ${str(a.command) ?? "a command"}${str(a.cwd) && a.cwd !== "." ? ` in ${a.cwd}` : ""}`;
    case "edit_file":
      return withStats(`${verb(card, "Edited", "Edit")} ${path ?? "a file"}`, diff);
    case "write_file": {
      const bytes = str(a.content);
      const size = bytes === null ? "" : ` (${plural(bytes === "" ? 0 : bytes.replace(/\n$/, "").split("\n").length, "line", "lines")})`;
      return diff ? withStats(`${verb(card, "Wrote", "Write")} ${path ?? "a file"}`, diff) : `${verb(card, "Wrote", "Write")} ${path ?? "a file"}${size}`;
    }
    case "read_file": {
      const range = typeof a.start_line === "number" || typeof a.end_line === "number" ? ` lines ${a.start_line ?? 1}–${a.end_line ?? "end"}` : "";
      const lines = content !== null ? ` (${plural(readLines(content), "line", "lines")})` : "";
      return `${verb(card, "Read", "Read")} ${path ?? "a file"}${range}${lines}`;
    }
    case "search_text": {
      const where = path && path !== "." ? ` in ${path}` : "";
      const count = content !== null ? searchCount(content) : null;
      return `${verb(card, "Searched", "Search")} ${JSON.stringify(str(a.pattern) ?? "")}${where}${count ? ` — ${count}` : ""}`;
    }
    case WEB_FETCH:
      return webSummary(card, str(a.url));
    case "list_dir": {
      const entries = content !== null ? ` (${plural(readLines(content), "entry", "entries")})` : "";
      return `${verb(card, "Listed", "List")} ${path ?? "."}${entries}`;
    }
    default:
      return `${mcpLabel(card.name) ?? card.name} ${argumentsSummary(card.args, 80)}`.trim();
  }
}

/** "Fetched https://… — 200 · 12.3 KB" (the final URL when it moved, "cached" when the cache answered). */
function webSummary(card: ToolCardItem, url: string | null): string {
  const w = card.web;
  if (w) {
    const moved = w.final_url !== w.requested_url ? ` → ${w.final_url}` : "";
    return `Fetched ${w.requested_url}${moved} — ${w.status} · ${formatBytes(w.bytes)}${w.truncated ? " (truncated)" : ""}${w.from_cache ? " · cached" : ""}`;
  }
  if (card.webFailure) return `Fetch ${card.webFailure.url} — ${card.webFailure.code}`;
  return `${verb(card, "Fetched", "Fetch")} ${url ?? "a URL"}`;
}

/** Without line numbers: a snippet's place in the file is not known. */
function unnumbered(diff: LineDiff): LineDiff {
  const hunks: DiffHunkView[] = diff.hunks.map((h) => ({ ...h, lines: h.lines.map((l) => ({ ...l, oldLine: null, newLine: null })) }));
  return { ...diff, hunks };
}

/**
 * The change an edit or a new file makes, computed from the call's
 * arguments (exact: it is what the tool applies); null when the arguments
 * do not say it (a write over an existing file: see the Changes diff).
 * `numbered`: the hunks carry real line numbers.
 */
export function cardDiff(card: ToolCardItem): (LineDiff & { numbered: boolean }) | null {
  const a = card.args;
  if (card.name === "edit_file") {
    const diff = str(a.diff);
    if (diff !== null) {
      const parsed = parseUnifiedDiff(diff);
      return parsed ? { ...parsed, numbered: true } : null;
    }
    const before = str(a.old_string);
    const after = str(a.new_string);
    return before === null || after === null ? null : { ...unnumbered(diffLines(before, after)), numbered: false };
  }
  if (card.name === "write_file" && card.created === true) {
    const content = str(a.content);
    return content === null ? null : { ...diffLines("", content), numbered: true };
  }
  return null;
}
