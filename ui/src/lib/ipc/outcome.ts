import type { ApiError } from "../../bindings";

/**
 * The result of one backend call as the UI sees it. Every failure — a typed
 * `ApiError` from Rust or a thrown transport error — ends up as an `ApiError`,
 * so components only ever branch on `error.code`.
 */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ApiError };

/** The shape tauri-specta gives a command that returns `Result<T, ApiError>`. */
export type CommandResult<T> = { status: "ok"; data: T } | { status: "error"; error: ApiError };

export function toApiError(raw: unknown): ApiError {
  if (typeof raw === "object" && raw !== null) {
    const { code, message } = raw as Record<string, unknown>;
    if (typeof code === "string" && typeof message === "string") {
      return { code, message } as ApiError;
    }
  }
  const message = raw instanceof Error ? raw.message : String(raw);
  return { code: "internal", message: message || "Unknown error" };
}

/** Run a generated command and fold its result (or a thrown error) into an `Outcome`. */
export async function call<T>(request: () => Promise<CommandResult<T>>): Promise<Outcome<T>> {
  try {
    const result = await request();
    return result.status === "ok"
      ? { ok: true, value: result.data }
      : { ok: false, error: toApiError(result.error) };
  } catch (thrown) {
    return { ok: false, error: toApiError(thrown) };
  }
}
