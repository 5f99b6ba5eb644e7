// Development-only: turn-grain review in the mock — rewind, redo, edit
// before keep — answered only from what the Rust app recorded (scenario
// `review` steps). A step is played when its request is the one recorded
// and the files it concerns are as they were when it was recorded; it
// appends the recorded events and leaves those files as recorded. Any
// other request fails loudly, naming what is missing.
import type { ArtifactItem, EventPayload } from "../../bindings";
import type { MockArtifacts } from "./artifacts";
import { canonical, type RecordedReviewStep, type ReviewRequest } from "./scenario";
import { MockError } from "./settings";

export type CommitReviewEvent = (runId: string, payload: EventPayload) => void;

interface RunReview {
  steps: RecordedReviewStep[];
  bases: Record<string, string>;
}

export class MockReview {
  readonly #byRun = new Map<string, RunReview>();
  readonly #artifacts: MockArtifacts;
  readonly #commit: CommitReviewEvent;

  constructor(artifacts: MockArtifacts, commit: CommitReviewEvent) {
    this.#artifacts = artifacts;
    this.#commit = commit;
  }

  /** What was recorded for the run (already localised to its ids). */
  record(runId: string, steps: RecordedReviewStep[], bases: Record<string, string>): void {
    this.#byRun.set(runId, { steps, bases });
  }

  has(runId: string): boolean {
    return this.#byRun.has(runId);
  }

  editBase(runId: string, path: string): string {
    const base = this.#byRun.get(runId)?.bases[path];
    if (base === undefined) throw new MockError({ code: "invalid_input", message: `the UI mock has no recorded version of ${path} to edit in run ${runId}: record one in src-tauri/src/scenarios/review.rs` });
    return base;
  }

  /** Plays the step recorded for `request` from the files' current state. */
  play(runId: string, request: ReviewRequest): unknown {
    const steps = this.#byRun.get(runId)?.steps ?? [];
    const step = steps.find((s) => sameRequest(s.request, request) && s.paths.every((p) => sameItem(this.#artifacts.entry(runId, p), s.before[p])));
    if (!step) {
      const what = JSON.stringify({ ...request, content: undefined });
      throw new MockError({ code: "internal", message: `the UI mock has no recording of ${what} from the files' state now in run ${runId}: record it in src-tauri/src/scenarios/review.rs` });
    }
    if ("error" in step.outcome) throw new MockError(step.outcome.error);
    for (const u of step.updates) if (u.kind === "run_event") this.#commit(runId, u.event.payload);
    for (const path of step.paths) {
      const item = step.after.items[path];
      const diff = step.after.diffs[path];
      if (item && diff) this.#artifacts.replace(runId, path, item, diff, step.after.full_diffs[path] ?? null);
    }
    return step.outcome.ok;
  }
}

function sameRequest(a: ReviewRequest, b: ReviewRequest): boolean {
  return canonical(a) === canonical(b);
}

function sameItem(now: ArtifactItem | null, then: ArtifactItem | undefined): boolean {
  if (now === null || then === undefined) return now === null && then === undefined;
  return canonical(now) === canonical(then);
}
