import { commands, events } from "../../bindings";
import type { WorkspaceOpened, WorkspaceView } from "../../bindings";
import { call, type Outcome } from "../ipc/outcome";

export type Unlisten = () => void;

/** What the workspace screen needs from the backend. */
export interface WorkspaceApi {
  open(path: string): Promise<Outcome<WorkspaceView>>;
  /** Opens the native folder dialog; `null` means the user cancelled. */
  choose(): Promise<Outcome<WorkspaceView | null>>;
  current(): Promise<Outcome<WorkspaceView | null>>;
  recents(): Promise<Outcome<WorkspaceView[]>>;
  onWorkspaceOpened(handler: (event: WorkspaceOpened) => void): Promise<Unlisten>;
}

/** The real implementation: the generated tauri-specta commands and events. */
export const tauriWorkspaceApi: WorkspaceApi = {
  open: (path) => call(() => commands.openWorkspace(path)),
  choose: () => call(() => commands.chooseWorkspace()),
  current: () => call(() => commands.currentWorkspace()),
  recents: () => call(() => commands.listRecentWorkspaces()),
  onWorkspaceOpened: (handler) =>
    events.workspaceOpened.listen((event) => handler(event.payload)),
};
