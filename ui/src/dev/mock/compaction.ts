// Development-only: "Compact" on a finished run and the texts its events
// point at, in the mock backend. The compaction itself is the one the
// runtime recorded for the run's take (scenario.ts); only the checks
// before it are made here, in the order the Rust app makes them.
import type { CompactedView, LiveUpdate } from "../../bindings";
import { canReply } from "../../lib/runs/threads";
import { appendRecorded } from "./playback";
import type { MockRunEngine } from "./runEngine";
import { runOf } from "./runs";
import { MockError } from "./settings";

/**
 * Like `compact_run`: a run in progress is `conflict`, a provider that is
 * gone `not_found`, one that does not answer `unavailable`; a run with no
 * recorded compaction cannot be compacted by the mock (`unavailable`).
 */
export function compactByHand(
  engine: MockRunEngine,
  runId: string,
  provider: { known(name: string): boolean; answers(name: string): boolean },
  recorded: (runId: string) => { updates: LiveUpdate[]; texts: Record<string, string> } | null,
): CompactedView {
  const run = runOf(engine, runId);
  if (!canReply(run.projection.status)) {
    throw new MockError({ code: "conflict", message: `run ${runId} is still in progress; it compacts itself when its context nears the window` });
  }
  const name = run.projection.provider;
  if (!provider.known(name)) throw new MockError({ code: "not_found", message: `provider not found: ${name}` });
  if (!provider.answers(name)) throw new MockError({ code: "unavailable", message: "the run could not be compacted: connection refused (transport error, retryable)" });
  const compaction = recorded(runId);
  if (!compaction) throw new MockError({ code: "unavailable", message: `the UI mock has no recorded compaction of run ${runId}` });
  for (const e of appendRecorded(engine, run, compaction)) {
    if (e.payload.type === "context_compacted") return { tokensBefore: e.payload.tokens_before, tokensAfter: e.payload.tokens_after };
  }
  throw new MockError({ code: "internal", message: "the recorded compaction has no context_compacted event" });
}

/** Like `event_text`: only a blob one of the run's events references as a summary or instructions. */
export function eventText(engine: MockRunEngine, runId: string, blob: string): string {
  const run = runOf(engine, runId);
  const referenced = run.events.some((e) => (e.payload.type === "context_compacted" && e.payload.summary === blob) || (e.payload.type === "instructions_loaded" && e.payload.blob === blob));
  const text = referenced ? engine.blobs.get(blob) : undefined;
  if (text === undefined) throw new MockError({ code: "not_found", message: `text not found: ${blob}` });
  return text;
}
