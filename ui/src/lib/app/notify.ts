// Desktop notifications for runs in the background: one that needs an
// approval or finished, while the window is hidden or shows another run.
// The Web Notifications API only; where the webview lacks it or the user
// said no, nothing happens.
import type { EventPayload, RunEventPushed } from "../../bindings";

/** The part of the Notification API used here (the constructor and its statics). */
export interface NotificationApi {
  readonly permission: NotificationPermission;
  requestPermission(): Promise<NotificationPermission>;
  new (title: string, options?: NotificationOptions): unknown;
}

export interface NotifyHost {
  Notification: NotificationApi | undefined;
  /** The window is minimised, covered or in another workspace. */
  hidden(): boolean;
}

export interface RunNotice {
  title: string;
  body: string;
}

/** What to tell about an event, or null when it is not worth interrupting for. */
export function runNotice(p: EventPayload, goal: string): RunNotice | null {
  switch (p.type) {
    case "approval_requested":
      return { title: "A run needs your approval", body: `${goal}\n${p.summary}` };
    case "run_succeeded":
      return { title: "Run finished", body: goal };
    case "run_failed":
      return { title: "Run failed", body: `${goal}\n${p.reason}` };
    case "budget_exhausted":
      return { title: "Run stopped: budget reached", body: goal };
    default:
      return null;
  }
}

/** The page's own API, looked up at each use (a webview may add it late). */
function browserHost(): NotifyHost {
  return {
    get Notification() {
      return typeof window !== "undefined" && "Notification" in window ? (window.Notification as NotificationApi) : undefined;
    },
    hidden: () => typeof document !== "undefined" && document.hidden,
  };
}

export class RunNotifier {
  readonly #host: NotifyHost;
  /** Goals by run, from the run_created events seen. */
  readonly #goals = new Map<string, string>();
  /** Events told already: a re-pushed event is not told twice. */
  readonly #told = new Set<string>();
  #permission: Promise<boolean> | null = null;

  constructor(host: NotifyHost = browserHost()) {
    this.#host = host;
  }

  /**
   * A committed event arrived. `viewing`: the run the window shows (none:
   * another screen); `goalOf` names a run whose start was not seen here.
   */
  async onEvent(pushed: RunEventPushed, viewing: string | null, goalOf: (runId: string) => string | null = () => null): Promise<void> {
    const { runId, event } = pushed;
    if (event.payload.type === "run_created") this.#goals.set(runId, event.payload.goal);
    const goal = this.#goals.get(runId) ?? goalOf(runId) ?? `Run ${runId.slice(-8)}`;
    const notice = runNotice(event.payload, goal);
    if (!notice || (!this.#host.hidden() && viewing === runId)) return;
    const key = `${runId}:${event.seq}`;
    if (this.#told.has(key)) return;
    this.#told.add(key);
    const Api = this.#host.Notification;
    if (!Api || !(await this.#allowed(Api))) return;
    try {
      new Api(notice.title, { body: notice.body, tag: `bearagent-${runId}` });
    } catch {
      // Some webviews expose the constructor but refuse to use it.
    }
  }

  /** Asked once, on the first notice; a denial is final for this window. */
  #allowed(Api: NotificationApi): Promise<boolean> {
    if (Api.permission === "granted") return Promise.resolve(true);
    if (Api.permission === "denied") return Promise.resolve(false);
    this.#permission ??= Api.requestPermission().then(
      (answer) => answer === "granted",
      () => false,
    );
    return this.#permission;
  }
}
