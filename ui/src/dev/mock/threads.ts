// Development-only: follow-ups, forks and threads in the mock backend,
// checked in the order the Rust app checks them.
import type { EventEnvelope, EventPayload, ParentRun, RunProjection, ThreadRunView, WorkspaceView } from "../../bindings";
import { canReply } from "../../lib/runs/threads";
import { forkNeedsWorkspaceMessage, readOnlyMessage, withSource } from "./bundles";
import { summary } from "./projection";
import type { MockRun, MockRunEngine, NewRun } from "./runEngine";
import { runOf, type ImportedFrom } from "./runs";
import { MockError } from "./settings";

type RunCreated = Extract<EventPayload, { type: "run_created" }>;

/** Most runs a thread is followed through (a guard against a cycle, like the runtime's). */
const MAX_THREAD_DEPTH = 256;

export interface ReplyCheck {
  parentRun: MockRun;
  created: RunCreated;
  parent: ParentRun;
  goal: string;
  /** Where the new run works when not in its parent's workspace: the one open here, for a fork of an imported run. */
  workspace: WorkspaceView | null;
}

export function createdOf(run: MockRun): RunCreated {
  const first = run.events[0]?.payload;
  if (first?.type !== "run_created") throw new MockError({ code: "internal", message: `run ${run.id} has no RunCreated event` });
  return first;
}

/**
 * Like `reply_to_run`: an unknown run or provider is `not_found`, a run
 * still in progress `conflict`, a fork point that is not one of its
 * events `invalid_input`, a reply to an imported run `conflict`, a
 * workspace folder that is gone `not_found` (an imported run's is never
 * looked for), a fork of an imported run works in the workspace open
 * here (the desktop names none) — `invalid_input` with none open, and
 * `not_found` when its folder is gone —, an empty message `invalid_input`.
 */
export function checkReply(
  engine: MockRunEngine,
  runId: string,
  message: string,
  atSeq: number | null,
  known: { provider(name: string): boolean; folder(path: string): boolean; imported(runId: string): string | null; current(): WorkspaceView | null },
): ReplyCheck {
  const parentRun = runOf(engine, runId);
  const created = createdOf(parentRun);
  if (!known.provider(created.provider)) throw new MockError({ code: "not_found", message: `provider not found: ${created.provider}` });
  const p = parentRun.projection;
  if (!canReply(p.status)) {
    throw new MockError({ code: "conflict", message: `run ${runId} is still in progress; continue it after it ends` });
  }
  if (atSeq !== null && !(Number.isInteger(atSeq) && atSeq >= 1 && atSeq <= p.last_seq)) {
    throw new MockError({ code: "invalid_input", message: `run ${runId} has events 1 to ${p.last_seq}; cannot fork at ${atSeq}` });
  }
  const source = known.imported(runId);
  if (source !== null && atSeq === null) throw new MockError({ code: "conflict", message: readOnlyMessage(runId, source, "continued") });
  if (source === null && !known.folder(created.workspace_path)) throw new MockError({ code: "not_found", message: `path not found: ${created.workspace_path}` });
  // An imported run's own folder is on another machine: its fork works in the workspace open here.
  const here = source === null ? null : known.current();
  if (source !== null && here === null) throw new MockError({ code: "invalid_input", message: forkNeedsWorkspaceMessage(runId) });
  if (here !== null && !known.folder(here.path)) throw new MockError({ code: "not_found", message: `path not found: ${here.path}` });
  const goal = message.trim();
  if (goal === "") throw new MockError({ code: "invalid_input", message: "goal: must not be empty" });
  return { parentRun, created, goal, parent: { run_id: runId, through_seq: atSeq ?? p.last_seq, fork: atSeq !== null }, workspace: here };
}

/** Like `get_thread`: the runs `runId` continues, oldest first, then the run itself (an imported one's summary names its bundle). */
export function threadOf(engine: MockRunEngine, runId: string, imported: ImportedFrom): ThreadRunView[] {
  const chain: ThreadRunView[] = [];
  let next: string | null = runId;
  while (next !== null) {
    if (chain.length >= MAX_THREAD_DEPTH) throw new MockError({ code: "internal", message: `run ${runId}'s thread is deeper than ${MAX_THREAD_DEPTH} runs` });
    const p: RunProjection = runOf(engine, next).projection;
    chain.push({ run: withSource(summary(p), imported(p.run_id)), finalAnswer: p.final_answer, forkedAt: p.parent?.fork ? p.parent.through_seq : null });
    next = p.parent?.run_id ?? null;
  }
  return chain.reverse();
}

/** Orders seeded runs so each parent is created before the runs that continue it. */
export function parentsFirst<T extends { runId: string; parentRunId?: string | null }>(runs: readonly T[]): T[] {
  const ids = new Set(runs.map((r) => r.runId));
  const done = new Set<string>();
  const out: T[] = [];
  let rest = [...runs];
  while (rest.length > 0) {
    const ready = rest.filter((r) => !r.parentRunId || !ids.has(r.parentRunId) || done.has(r.parentRunId));
    // A cycle in the seed: take the rest as they are rather than loop.
    const batch = ready.length > 0 ? ready : rest;
    for (const r of batch) {
      out.push(r);
      done.add(r.runId);
    }
    rest = rest.filter((r) => !done.has(r.runId));
  }
  return out;
}

/** A reply's run: its parent's workspace, provider and settings (a follow-up continues in its parent's worktree). */
export function replySpec(created: RunCreated, workspace: WorkspaceView, goal: string, parent: ParentRun): NewRun {
  return {
    workspace,
    goal,
    provider: created.provider,
    model: created.model,
    profile: created.profile,
    approvalMode: created.approval_mode,
    budgets: created.budgets,
    parent,
    worktree: created.worktree ?? null,
  };
}
