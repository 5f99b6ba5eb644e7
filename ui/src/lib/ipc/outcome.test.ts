import { describe, expect, it } from "vitest";
import { call, toApiError } from "./outcome";
import { errorTitle } from "./errors";

describe("call", () => {
  it("passes data through on ok", async () => {
    await expect(call(async () => ({ status: "ok", data: 42 }))).resolves.toEqual({ ok: true, value: 42 });
  });

  it("keeps the typed error's code and message", async () => {
    const outcome = await call(async () => ({
      status: "error",
      error: { code: "not_a_directory", message: "Not a directory: /tmp/x" },
    }));
    expect(outcome).toEqual({ ok: false, error: { code: "not_a_directory", message: "Not a directory: /tmp/x" } });
  });

  it("turns a thrown transport error into an internal error", async () => {
    const outcome = await call<number>(async () => {
      throw new Error("IPC unavailable");
    });
    expect(outcome).toEqual({ ok: false, error: { code: "internal", message: "IPC unavailable" } });
  });
});

describe("toApiError", () => {
  it("accepts any object with string code and message", () => {
    expect(toApiError({ code: "storage", message: "disk full", extra: 1 })).toEqual({ code: "storage", message: "disk full" });
  });

  it("falls back to internal for unknown shapes", () => {
    expect(toApiError("boom")).toEqual({ code: "internal", message: "boom" });
    expect(toApiError({ code: 3 })).toEqual({ code: "internal", message: "[object Object]" });
  });
});

describe("errorTitle", () => {
  it("names known codes and still labels unknown ones", () => {
    expect(errorTitle("not_a_directory")).toBe("Not a folder");
    // Not only folders go missing: runs, files, providers, stored texts.
    expect(errorTitle("not_found")).toBe("Not found");
    expect(errorTitle("quota")).toBe("Error (quota)");
    expect(errorTitle("toString")).toBe("Error (toString)");
  });
});
