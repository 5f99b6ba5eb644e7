import { errorTitle } from "../ipc/errors";

/** The title over a run file that could not be opened, by error code only (the message says the rest). */
export function runFileErrorTitle(code: string): string {
  switch (code) {
    case "invalid_input":
      return "This run file cannot be opened";
    case "conflict":
      return "A different run with this id is already here";
    case "dialog":
      return "File picker unavailable";
    default:
      return errorTitle(code);
  }
}

/** The title over an export that failed, by error code only. */
export function exportErrorTitle(code: string): string {
  switch (code) {
    case "conflict":
      return "The run cannot be exported yet";
    case "dialog":
      return "Save dialog unavailable";
    default:
      return errorTitle(code);
  }
}
