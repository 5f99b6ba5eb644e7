import type { ApiError, LiveUpdate, LiveUpdates } from "../../bindings";

/** One ask of the shell's `next_live_updates`, as the generated command answers. */
export type NextLiveUpdates = (cursor: number | null) => Promise<{ status: "ok"; data: LiveUpdates } | { status: "error"; error: ApiError }>;

/**
 * Pulls live updates and hands each to `deliver`, in order, until stopped.
 * Pulled, not pushed: every push would be a script evaluation that
 * WebKit's web process keeps memory for; an answer over IPC is not.
 * Resolves with `stop` once the starting cursor is known (nothing after
 * it is missed); rejects if that first ask fails. Later failures are
 * asked again after `retryMs`.
 */
export async function startLivePull(next: NextLiveUpdates, deliver: (update: LiveUpdate) => void, retryMs = 1_000): Promise<() => void> {
  const first = await next(null);
  if (first.status === "error") throw first.error;
  let cursor = first.data.cursor;
  let stopped = false;
  void (async () => {
    while (!stopped) {
      const page = await next(cursor).catch((error: unknown) => ({ status: "error" as const, error: error as ApiError }));
      if (stopped) return;
      if (page.status === "error") {
        console.warn("live updates: asking again", page.error);
        await new Promise((resolve) => setTimeout(resolve, retryMs));
        continue;
      }
      // Missed updates leave gaps in run seqs, which the run views page from the store.
      if (page.data.skipped > 0) console.warn(`live updates: ${page.data.skipped} missed`);
      cursor = page.data.cursor;
      for (const update of page.data.updates) {
        try {
          deliver(update);
        } catch (error) {
          console.error("live update handler failed", error);
        }
      }
    }
  })();
  return () => {
    stopped = true;
  };
}
