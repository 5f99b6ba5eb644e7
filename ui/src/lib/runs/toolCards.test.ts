import { describe, expect, it } from "vitest";
import type { ToolCardItem } from "./conversation";
import { toolCard } from "./testSupport";
import { cardDiff, cardStatus, cardSummary, mcpLabel } from "./toolCards";

const card = toolCard;
const done = (content: string, failed = false): Partial<ToolCardItem> => ({ startedAt: "2025-01-01T00:00:00Z", result: { call_id: "c1", content, is_error: failed }, failed });
const finished = (exit_code: number) => ({ call_id: "c1", exit_code, signal: null, duration_ms: 1, output: null, output_bytes: 0, output_truncated: false, timed_out: false, cancelled: false, changed_files: 0, type: "command_finished" as const });

describe("cardSummary", () => {
  it("says what each tool did in one line", () => {
    expect(cardSummary(card("run_command", { command: "python3 test_calc.py" }, done("exit code 0")))).toBe("Ran python3 test_calc.py");
    expect(cardSummary(card("run_command", { command: "make", cwd: "web" }))).toBe("Run make in web");
    const edit = card("edit_file", { path: "calc.py", old_string: "    return a - b\n", new_string: "    return a + b\n" }, done("edited"));
    expect(cardSummary(edit, cardDiff(edit))).toBe("Edited calc.py +1 −1");
    expect(cardSummary(card("write_file", { path: "src/lib.rs", content: "a\nb\n" }, done("wrote")), { added: 2, removed: 0 })).toBe("Wrote src/lib.rs +2 −0");
    expect(cardSummary(card("write_file", { path: "src/lib.rs", content: "a\nb\n" }))).toBe("Write src/lib.rs (2 lines)");
    expect(cardSummary(card("read_file", { path: "src/lib.rs" }, done("x\n".repeat(120))))).toBe("Read src/lib.rs (120 lines)");
    expect(cardSummary(card("read_file", { path: "big.rs" }, done("a\nb\n[truncated: showed 4 of 9 bytes (lines 1-2); use start_line/end_line]")))).toBe("Read big.rs (2 lines)");
    expect(cardSummary(card("search_text", { pattern: "fn main", path: "." }, done("a.rs:1:fn main\n[4 matches in 2 files]")))).toBe('Searched "fn main" — 4 matches');
    expect(cardSummary(card("search_text", { pattern: "x", path: "src" }, done('[no matches for pattern "x" in src]')))).toBe('Searched "x" in src — no matches');
    expect(cardSummary(card("list_dir", { path: "src" }, done("a.rs\nb.rs")))).toBe("Listed src (2 entries)");
    expect(cardSummary(card("docs__echo", { message: "hi" }))).toBe('docs › echo message: "hi"');
  });

  it("names MCP tools by server and tool", () => {
    expect(mcpLabel("everything__trigger-long-running-operation")).toBe("everything › trigger-long-running-operation");
    expect(mcpLabel("read_file")).toBeNull();
  });
});

describe("cardStatus", () => {
  it("follows a call from the question to its result", () => {
    expect(cardStatus(card("edit_file", {}, { approvalSeq: 3 }), "live")).toEqual({ kind: "asking" });
    expect(cardStatus(card("edit_file", {}, { approvalSeq: 3 }), "interrupted")).toEqual({ kind: "asking" });
    expect(cardStatus(card("edit_file", {}, { approvalSeq: 3 }), "ended")).toEqual({ kind: "stopped" });
    expect(cardStatus(card("run_command", {}, { startedAt: "t" }), "live")).toEqual({ kind: "running", since: "t" });
    expect(cardStatus(card("run_command", {}, { startedAt: "t" }), "interrupted")).toEqual({ kind: "stopped" });
    expect(cardStatus(card("read_file", {}, done("x")), "live")).toEqual({ kind: "ok" });
  });

  it("tells failed, denied and refused apart", () => {
    expect(cardStatus(card("run_command", {}, { ...done("exit code 1", true), commandEnd: finished(1) }), "ended")).toEqual({ kind: "failed", label: "exit 1" });
    expect(cardStatus(card("read_file", {}, done("no such file", true)), "ended")).toEqual({ kind: "failed", label: "failed" });
    const denied = card("edit_file", {}, { ...done("the user denied this call: later", true), decision: { approved: false, seq: 4, by: "user", scope: "once", reason: "later", allowedPrefix: null, network: false } });
    expect(cardStatus(denied, "ended")).toEqual({ kind: "denied", reason: "later" });
    expect(cardStatus(card("edit_file", {}, done("the user denied this and the rest of the calls in your turn", true)), "ended")).toEqual({ kind: "denied", reason: null });
    expect(cardStatus(card("run_command", {}, done("refused by policy: rule `rm` → deny", true)), "ended")).toEqual({ kind: "refused", reason: "rule `rm` → deny" });
    expect(cardStatus(card("read_file", {}, { ...done("repeated", true), loopRepeats: 3 }), "ended")).toEqual({ kind: "refused", reason: "repeated 3× with the same result" });
  });
});

describe("cardDiff", () => {
  it("computes an edit's change from its strings, without made-up line numbers", () => {
    const diff = cardDiff(card("edit_file", { path: "calc.py", old_string: "def add(a, b):\n    return a - b", new_string: "def add(a, b):\n    return a + b" }));
    expect(diff).toMatchObject({ added: 1, removed: 1, numbered: false });
    expect(diff?.hunks[0].lines.map((l) => [l.kind, l.text, l.oldLine])).toEqual([
      ["context", "def add(a, b):", null],
      ["removed", "    return a - b", null],
      ["added", "    return a + b", null],
    ]);
  });

  it("reads an edit given as a unified diff, and a new file as all added", () => {
    const diff = cardDiff(card("edit_file", { path: "a.py", diff: "--- a/a.py\n+++ b/a.py\n@@ -3,2 +3,2 @@\n x = 1\n-y = 2\n+y = 3\n" }));
    expect(diff).toMatchObject({ added: 1, removed: 1, numbered: true });
    expect(diff?.hunks[0]).toMatchObject({ oldStart: 3, newStart: 3 });
    expect(diff?.hunks[0].lines[2]).toEqual({ kind: "added", oldLine: null, newLine: 4, text: "y = 3" });
    expect(cardDiff(card("write_file", { path: "n.txt", content: "a\nb\n" }, { created: true }))).toMatchObject({ added: 2, removed: 0 });
    expect(cardDiff(card("write_file", { path: "n.txt", content: "a\nb\n" }, { created: false }))).toBeNull();
  });
});

describe("web_fetch cards", () => {
  const fetched = {
    requested_url: "http://127.0.0.1:8080/guide",
    final_url: "http://127.0.0.1:8080/guide/",
    redirects: [{ from: "http://127.0.0.1:8080/guide", to: "http://127.0.0.1:8080/guide/", status: 301 }],
    status: 200,
    content_type: "text/html",
    bytes: 2048,
    total_bytes: 2048,
    truncated: false,
    sha256: "b".repeat(64),
    body: "b".repeat(64),
    elapsed_ms: 3,
    from_cache: false,
    cross_host_redirect: null,
    origin: "user_written" as const,
  };

  it("says the URL, the status and the size once fetched, the URL before", () => {
    expect(cardSummary(card("web_fetch", { url: "https://docs.test/a" }))).toBe("Fetch https://docs.test/a");
    expect(cardSummary(card("web_fetch", { url: fetched.requested_url }, { ...done("[web content]"), web: fetched }))).toBe(
      "Fetched http://127.0.0.1:8080/guide → http://127.0.0.1:8080/guide/ — 200 · 2.0 KB",
    );
    const cached = { ...fetched, final_url: fetched.requested_url, from_cache: true, truncated: true };
    expect(cardSummary(card("web_fetch", { url: fetched.requested_url }, { web: cached }))).toBe("Fetched http://127.0.0.1:8080/guide — 200 · 2.0 KB (truncated) · cached");
    const failure = { url: "http://169.254.169.254/", code: "blocked", message: "refused", origin: "model_made" as const };
    expect(cardSummary(card("web_fetch", { url: failure.url }, { ...done("web_fetch failed", true), webFailure: failure }))).toBe("Fetch http://169.254.169.254/ — blocked");
  });
});
