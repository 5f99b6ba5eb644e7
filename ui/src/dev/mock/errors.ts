// Development-only: the mock backend's typed errors, thrown where the
// backend returns an ApiError and rejected with as Tauri does.
import type { ApiError } from "../../bindings";

export class MockError {
  constructor(readonly error: ApiError) {}
}

export const fail = (code: ApiError["code"], message: string): never => {
  throw new MockError({ code, message });
};
