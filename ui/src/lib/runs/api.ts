import { commands, events } from "../../bindings";
import type {
  CommandOutputPushed,
  CompactedView,
  DecisionInput,
  EventPage,
  HelperRunView,
  ImageUpload,
  LiveUpdate,
  ModelContextView,
  ModelTextDiscarded,
  ModelTextPushed,
  QuitRequested,
  RunAborted,
  RunDetailView,
  RunEventPushed,
  RunFilterInput,
  RunImageView,
  RunSummaryView,
  StartRunRequest,
  StartedRun,
  ThreadRunView,
  WorkspaceView,
} from "../../bindings";
import { call, type Outcome } from "../ipc/outcome";
import { startLivePull } from "./livePull";

export type Unlisten = () => void;

/** Everything the run screens need from the backend. */
export interface RunsApi {
  start(request: StartRunRequest): Promise<Outcome<StartedRun>>;
  /** Creates the sample workspace and starts the scripted, offline demo run. */
  startDemo(): Promise<Outcome<[WorkspaceView, StartedRun]>>;
  cancel(runId: string): Promise<Outcome<null>>;
  decide(runId: string, callId: string, decision: DecisionInput): Promise<Outcome<null>>;
  search(filter: RunFilterInput): Promise<Outcome<RunSummaryView[]>>;
  /** The run's helpers (child runs its `task` calls started, and theirs), parents first. */
  helpers(runId: string): Promise<Outcome<HelperRunView[]>>;
  get(runId: string): Promise<Outcome<RunDetailView>>;
  listEvents(runId: string, afterSeq: number, limit: number): Promise<Outcome<EventPage>>;
  modelContext(runId: string, requestedSeq: number): Promise<Outcome<ModelContextView>>;
  /** A finished command's stored output (head and tail, ANSI colours kept). */
  commandOutput(runId: string, callId: string): Promise<Outcome<string>>;
  quit(): Promise<Outcome<null>>;
  /**
   * Continues a finished run with `message` (and `images`) as the new run's
   * goal; with `atSeq`, a fork keeping the run's events up to that one.
   */
  reply(runId: string, message: string, atSeq: number | null, images: ImageUpload[]): Promise<Outcome<StartedRun>>;
  /** The runs `runId` continues, oldest first, then the run itself. */
  thread(runId: string): Promise<Outcome<ThreadRunView[]>>;
  /** Summarises a finished run now, so its next follow-up starts from the summary (`conflict` while in progress). */
  compact(runId: string): Promise<Outcome<CompactedView>>;
  /** The text of a blob one of the run's events references (a compaction summary, instructions); `not_found` otherwise. */
  eventText(runId: string, blob: string): Promise<Outcome<string>>;
  /** An image one of the run's events references (the goal's, a tool's), as a `data:` URL; `not_found` otherwise. */
  runImage(runId: string, blob: string): Promise<Outcome<RunImageView>>;
  onRunEvent(handler: (pushed: RunEventPushed) => void): Promise<Unlisten>;
  onModelText(handler: (pushed: ModelTextPushed) => void): Promise<Unlisten>;
  /** Output of a running command as it arrives (not an event: `command_finished` is). */
  onCommandOutput(handler: (pushed: CommandOutputPushed) => void): Promise<Unlisten>;
  /** A run's loop in this process stopped because its events could not be stored. */
  onRunAborted(handler: (aborted: RunAborted) => void): Promise<Unlisten>;
  /** A model call's attempt failed mid-stream and is retried: its streamed text is void. */
  onModelTextDiscarded(handler: (discarded: ModelTextDiscarded) => void): Promise<Unlisten>;
  onQuitRequested(handler: (request: QuitRequested) => void): Promise<Unlisten>;
}

type LiveKind = LiveUpdate["kind"];
type LiveHandler = (update: LiveUpdate) => void;

// Live updates are pulled from the shell, one answer per burst; every handler
// sees each update in the order they happened, whatever its kind — a text
// delta before the completion that ends it.
const liveHandlers = new Set<LiveHandler>();
let liveListening: Promise<Unlisten> | null = null;

function onLive<K extends LiveKind>(kind: K, handler: (update: Extract<LiveUpdate, { kind: K }>) => void): Promise<Unlisten> {
  const forKind: LiveHandler = (update) => {
    if (update.kind === kind) handler(update as Extract<LiveUpdate, { kind: K }>);
  };
  liveHandlers.add(forKind);
  liveListening ??= startLivePull(commands.nextLiveUpdates, (update) => {
    for (const each of liveHandlers) each(update);
  });
  return liveListening.then(
    () => () => void liveHandlers.delete(forKind),
    (error: unknown) => {
      liveHandlers.delete(forKind);
      liveListening = null;
      throw error;
    },
  );
}

/** The real implementation: the generated tauri-specta commands and events. */
export const tauriRunsApi: RunsApi = {
  start: (request) => call(() => commands.startRun(request)),
  startDemo: () => call(() => commands.startDemoRun()),
  cancel: (runId) => call(() => commands.cancelRun(runId)),
  decide: (runId, callId, decision) => call(() => commands.decideApproval(runId, callId, decision)),
  search: (filter) => call(() => commands.searchRuns(filter)),
  helpers: (runId) => call(() => commands.helperRuns(runId)),
  get: (runId) => call(() => commands.getRun(runId)),
  listEvents: (runId, afterSeq, limit) => call(() => commands.listEvents(runId, afterSeq, limit)),
  modelContext: (runId, requestedSeq) => call(() => commands.modelContext(runId, requestedSeq)),
  commandOutput: (runId, callId) => call(() => commands.commandOutput(runId, callId)),
  quit: () => call(() => commands.quitApp()),
  reply: (runId, message, atSeq, images) => call(() => commands.replyToRun(runId, message, atSeq, images)),
  thread: (runId) => call(() => commands.getThread(runId)),
  compact: (runId) => call(() => commands.compactRun(runId)),
  eventText: (runId, blob) => call(() => commands.eventText(runId, blob)),
  runImage: (runId, blob) => call(() => commands.runImage(runId, blob)),
  onRunEvent: (handler) => onLive("run_event", handler),
  onModelText: (handler) => onLive("model_text", handler),
  onCommandOutput: (handler) => onLive("command_output", handler),
  onRunAborted: (handler) => onLive("run_aborted", handler),
  onModelTextDiscarded: (handler) => onLive("model_text_discarded", handler),
  onQuitRequested: (handler) => events.quitRequested.listen((event) => handler(event.payload)),
};
