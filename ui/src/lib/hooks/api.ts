// The port of a workspace's project hooks: read the file with its trust
// state, trust exactly what was shown, take the trust back.
import { commands, type ProjectHooksView } from "../../bindings";
import { call, type Outcome } from "../ipc/outcome";

export interface HooksApi {
  /** The workspace's hooks file (null: it has none). */
  read(workspace: string): Promise<Outcome<ProjectHooksView | null>>;
  /** Trusts the file whose SHA-256 is `sha256` (`conflict`: it changed since; `invalid_input`: it is invalid). */
  trust(workspace: string, sha256: string): Promise<Outcome<ProjectHooksView>>;
  /** Whether there was a trust to take back. */
  untrust(workspace: string): Promise<Outcome<boolean>>;
}

export const tauriHooksApi: HooksApi = {
  read: (workspace) => call(() => commands.projectHooks(workspace)),
  trust: (workspace, sha256) => call(() => commands.trustProjectHooks(workspace, sha256)),
  untrust: (workspace) => call(() => commands.untrustProjectHooks(workspace)),
};
