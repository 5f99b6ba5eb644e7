import type { ErrorCode } from "../../bindings";

const TITLES: Record<ErrorCode, string> = {
  invalid_input: "Invalid input",
  // Runs, files, providers, texts…: the message names what is missing.
  not_found: "Not found",
  not_a_directory: "Not a folder",
  storage: "Storage error",
  conflict: "Conflict",
  unavailable: "Not available",
  dialog: "Folder picker unavailable",
  internal: "Unexpected error",
};

/** A short, human title for an error code; unknown codes still get one. */
export function errorTitle(code: string): string {
  return Object.hasOwn(TITLES, code) ? TITLES[code as ErrorCode] : `Error (${code})`;
}
