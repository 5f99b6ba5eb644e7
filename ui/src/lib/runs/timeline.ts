import type { Action, EventPayload, ModelErrorClass, Value } from "../../bindings";
import { exitInfo } from "./commands";
import { applyReportText, removedText, worktreeStepText, worktreeStepTone } from "../worktrees/report";
import { hookRowTone, hookTitle, notTrustedTitle } from "../hooks/runs";
import { formatBytes, formatCount, type StatusTone } from "./format";
import { createdTitle } from "./plan";
import { todoSummary } from "./todo";

/** Tool results above this many bytes are collapsed to a preview. */
export const COLLAPSE_BYTES = 2048;
const PREVIEW_CHARS = 600;

export type RowTone = "plain" | "muted" | "info" | "attention" | "success" | "danger";

const encoder = new TextEncoder();

/** What a review is about to do, by its action. */
const REVIEW_INTENT: Record<Extract<EventPayload, { type: "review_intended" }>["action"], string> = {
  revert: "Reverting a file…",
  reapply: "Re-applying a file…",
  revert_hunks: "Reverting some hunks of a file…",
  rewind: "Rewinding a file…",
  redo: "Redoing a rewound file…",
  edit: "Saving your edit of a file…",
};

export function byteLength(text: string): number {
  return encoder.encode(text).length;
}

export interface ResultPreview {
  /** What to show while collapsed (the whole text when small). */
  preview: string;
  bytes: number;
  collapsible: boolean;
}

/** Long results show their first lines and say how much is hidden. */
export function resultPreview(content: string, limit = COLLAPSE_BYTES): ResultPreview {
  const bytes = byteLength(content);
  if (bytes <= limit) return { preview: content, bytes, collapsible: false };
  let cut = content.slice(0, PREVIEW_CHARS);
  const lastBreak = cut.lastIndexOf("\n");
  if (lastBreak > PREVIEW_CHARS / 2) cut = cut.slice(0, lastBreak);
  return { preview: cut, bytes, collapsible: true };
}

/** Readable class of a model failure (transport vs. model vs. test bug). */
export function modelErrorLabel(cls: ModelErrorClass): string {
  if (typeof cls === "object") {
    return cls.provider.retryable ? "Provider error (retryable)" : "Provider error";
  }
  switch (cls) {
    case "invalid_output":
      return "Invalid model output";
    case "script_exhausted":
      return "Script exhausted";
    case "truncated_stream":
      return "Truncated stream";
  }
}

export function formatValue(value: Value | Record<string, Value>): string {
  return JSON.stringify(value, null, 2);
}

/**
 * Tool arguments for reading: one `key: value` per line, multi-line
 * strings (file contents) as an indented block instead of an escaped
 * JSON string.
 */
export function argumentsText(args: Record<string, Value>): string {
  return Object.entries(args)
    .map(([key, value]) => {
      if (typeof value === "string" && value.includes("\n")) {
        const body = value.replace(/\n$/, "").split("\n").map((line) => `  ${line}`).join("\n");
        return `${key}: |\n${body}`;
      }
      return `${key}: ${JSON.stringify(value, null, 2)}`;
    })
    .join("\n");
}

/** A one-line summary of a tool call's arguments, e.g. `path: "docs/notes.md"`. */
export function argumentsSummary(args: Record<string, Value>, max = 120): string {
  const parts = Object.entries(args).map(([key, value]) => {
    const shown = typeof value === "string" ? JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}…` : value) : JSON.stringify(value);
    return `${key}: ${shown}`;
  });
  const line = parts.join(", ");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function actionSummary(action: Action): string {
  if (action.type === "final_answer") return "Final answer";
  const names = action.calls.map((c) => c.tool_name).join(", ");
  return action.calls.length === 1 ? `Tool call: ${names}` : `${action.calls.length} tool calls: ${names}`;
}

/** One project instructions file (`AGENTS.md`) a run loaded for the model. */
export interface LoadedInstructions {
  path: string;
  bytes: number;
  truncated: boolean;
  /** Its `instructions_loaded` event. */
  seq: number;
}

/** "AGENTS.md, 2.1 KB" (and "(cut to fit)" when only the first part went to the model). */
export function instructionsText(f: Pick<LoadedInstructions, "path" | "bytes" | "truncated">): string {
  return `${f.path}, ${formatBytes(f.bytes)}${f.truncated ? " (cut to fit)" : ""}`;
}

/**
 * The run header's line about its instructions: each file once (its
 * latest load), shallowest folder first as the prompt lists them; null
 * when the run loaded none.
 */
export function instructionsLine(files: Iterable<LoadedInstructions>): string | null {
  const latest = new Map<string, LoadedInstructions>();
  for (const f of files) if ((latest.get(f.path)?.seq ?? -1) < f.seq) latest.set(f.path, f);
  if (latest.size === 0) return null;
  const depth = (path: string) => path.split("/").length;
  const sorted = [...latest.values()].sort((a, b) => depth(a.path) - depth(b.path) || a.path.localeCompare(b.path));
  return `Instructions: ${sorted.map(instructionsText).join(" · ")}`;
}

/** A row's colour for a status badge's tone. */
const TONE_ROW: Record<StatusTone, RowTone> = { neutral: "muted", active: "info", attention: "attention", success: "success", danger: "danger" };

interface RowInfo {
  title: string;
  tone: RowTone;
  /** Small rows take one line; the rest have a body. */
  compact: boolean;
}

/** Title, colour and size of the row for an event. */
export function rowInfo(p: EventPayload): RowInfo {
  switch (p.type) {
    case "run_created":
      return { title: createdTitle(p), tone: "plain", compact: false };
    case "run_started":
      return { title: "Run started", tone: "muted", compact: true };
    case "model_call_requested":
      return { title: "Model call requested", tone: "muted", compact: true };
    case "model_call_started":
      return { title: "Model call", tone: "info", compact: false };
    case "model_call_retry_scheduled":
      return { title: `Retry ${p.attempt} scheduled`, tone: "attention", compact: false };
    case "model_call_completed":
      return { title: `Model: ${actionSummary(p.action).toLowerCase()}`, tone: "info", compact: false };
    case "model_call_failed":
      return { title: "Model call failed", tone: "danger", compact: false };
    case "tool_call_requested":
      return { title: toolRequestTitle(p.call.tool_name, p.parsed_from_text ?? null), tone: "plain", compact: false };
    case "approval_requested":
      return { title: `Approval needed: ${p.tool_name}`, tone: "attention", compact: false };
    case "approval_granted":
      return { title: p.scope === "tool_for_run" ? "Approved for the rest of this run" : "Approved", tone: "success", compact: true };
    case "approval_denied":
      return { title: "Denied", tone: "danger", compact: false };
    case "tool_call_started":
      return { title: "Tool call started", tone: "muted", compact: true };
    case "effect_intended":
      return { title: "About to change a file", tone: "muted", compact: true };
    case "tool_call_completed":
      return { title: "Tool result", tone: p.result.is_error ? "danger" : "plain", compact: false };
    case "tool_call_failed":
      return { title: "Tool call failed", tone: "danger", compact: false };
    case "artifact_recorded":
      return { title: p.by_hook ? `File changed by hook ${p.by_hook}` : "File changed", tone: "plain", compact: true };
    case "external_change_observed":
      return { title: "Changed outside the run", tone: "attention", compact: true };
    case "effect_verified":
      return { title: p.outcome === "applied" ? "Effect verified: applied" : "Effect verified: not applied", tone: "muted", compact: true };
    case "effect_unknown":
      return { title: "Effect outcome unknown", tone: "attention", compact: false };
    case "run_succeeded":
      return { title: "Run succeeded", tone: "success", compact: false };
    case "run_failed":
      return { title: "Run failed", tone: "danger", compact: false };
    case "run_cancelled":
      return { title: "Run cancelled", tone: "attention", compact: false };
    case "budget_exhausted":
      return { title: p.which === "cost" ? "Cost limit reached" : "Budget exhausted", tone: "attention", compact: false };
    case "run_interrupted":
      return { title: "Run interrupted", tone: "danger", compact: false };
    case "run_resumed":
      return { title: "Run resumed", tone: "info", compact: true };
    case "loop_detected":
      return { title: `Loop: ${p.tool_name} repeated ${p.repeats}× with the same result — not run`, tone: "attention", compact: false };
    case "artifact_reverted":
      return { title: p.forced ? "File reverted (forced)" : "File reverted", tone: "attention", compact: true };
    case "artifact_reapplied":
      return { title: "File re-applied", tone: "plain", compact: true };
    case "artifact_hunks_reverted":
      return { title: `${p.hunks.length === 1 ? `Hunk ${p.hunks[0]}` : `Hunks ${p.hunks.join(", ")}`} of a file reverted`, tone: "attention", compact: true };
    case "artifact_kept":
      return { title: "File kept", tone: "muted", compact: true };
    case "artifact_hunks_kept":
      return { title: `${p.hunks.length === 1 ? `Hunk ${p.hunks[0]}` : `Hunks ${p.hunks.join(", ")}`} of a file kept`, tone: "muted", compact: true };
    case "artifact_edited":
      return { title: "File edited by you and kept", tone: "plain", compact: true };
    case "review_intended":
      return { title: REVIEW_INTENT[p.action], tone: "muted", compact: true };
    case "review_abandoned":
      return { title: "File not changed back", tone: "attention", compact: true };
    case "rewind_started": {
      const files = p.paths.length === 1 ? "1 file" : `${p.paths.length} files`;
      return { title: p.redo ? `Rewind to #${p.to} redone (${files})` : `Files rewound to #${p.to} (${files})`, tone: "attention", compact: false };
    }
    case "artifact_rewound":
      return { title: p.restored_hash === null ? "File removed by the rewind" : p.redo ? "File back as before the rewind" : `File back as at #${p.to}`, tone: "muted", compact: true };
    case "context_compacted":
      return { title: `Context compacted: ~${formatCount(p.tokens_before, "en-US")} → ~${formatCount(p.tokens_after, "en-US")} tokens`, tone: "info", compact: false };
    case "instructions_loaded":
      return { title: `Instructions: ${instructionsText(p)}`, tone: "muted", compact: true };
    case "mcp_server_started":
      return { title: `MCP server ${p.server} started · ${p.tools.length === 1 ? "1 tool" : `${p.tools.length} tools`}`, tone: "info", compact: false };
    case "mcp_server_unavailable":
      return { title: `MCP server ${p.server} unavailable`, tone: "danger", compact: false };
    case "command_started":
      return { title: "Command", tone: "info", compact: false };
    case "command_finished": {
      const exit = exitInfo(p);
      return { title: exit.title, tone: TONE_ROW[exit.tone], compact: true };
    }
    case "todo_updated":
      return { title: `Todo list: ${todoSummary(p.items)}`, tone: "muted", compact: true };
    case "worktree_applied":
      return { title: applyReportText(p), tone: p.refused.length > 0 ? "attention" : "success", compact: true };
    case "worktree_removed":
      return { title: removedText(p.discarded), tone: p.discarded ? "attention" : "muted", compact: true };
    case "worktree_step":
      return { title: worktreeStepText(p.step), tone: worktreeStepTone(p.step), compact: true };
    case "hook_ran":
      return { title: hookTitle(p), tone: hookRowTone(p), compact: false };
    case "hooks_not_trusted":
      return { title: notTrustedTitle(p), tone: "attention", compact: false };
    case "tool_mode_switched":
      return { title: `Tool mode switched: ${p.from} → ${p.to} (${p.reason})`, tone: "attention", compact: false };
    case "web_fetched":
      return { title: `Fetched ${p.fetch.final_url} · ${p.fetch.status}${p.fetch.from_cache ? " (cached)" : ""}`, tone: p.fetch.status >= 400 ? "danger" : "info", compact: false };
    case "web_fetch_failed":
      return { title: `Fetch failed (${p.failure.code}): ${p.failure.url}`, tone: "danger", compact: false };
  }
}

/** A call the model printed as text says so, and in which dialect. */
function toolRequestTitle(tool: string, dialect: string | null): string {
  const printed = dialect === null ? "" : ` (printed as text, ${dialect.replaceAll("_", " ")})`;
  return `Tool call requested: ${tool}${printed}`;
}
