import { describe, expect, it } from "vitest";
import { collapseOutput, commandOfCall, exitInfo, lastLines, parseCommandSummary, suggestPrefix } from "./commands";

describe("command approval summary", () => {
  it("splits the backend's summary into command, sandbox and rule", () => {
    expect(parseCommandSummary("run `cargo test` in . · sandboxed, no network · no rule matches `cargo test` → ask")).toEqual({
      what: "run `cargo test` in .",
      sandbox: "sandboxed, no network",
      sandboxed: true,
      network: false,
      rule: "no rule matches `cargo test` → ask",
    });
    const off = parseCommandSummary("run `rm -rf build` in web · NOT sandboxed (the sandbox is off in this profile) · rule `rm` → allow");
    expect(off).toMatchObject({ sandboxed: false, network: false, rule: "rule `rm` → allow", what: "run `rm -rf build` in web" });
    expect(parseCommandSummary("run `make` in . · sandboxed, network on · rule `make` → ask")?.network).toBe(true);
  });

  it("reads from the end, so a command containing ' · ' stays whole, and refuses other summaries", () => {
    expect(parseCommandSummary("run `echo a · b` in . · sandboxed, no network · no rule matches `echo a · b` → ask")?.what).toBe("run `echo a · b` in .");
    expect(parseCommandSummary("write docs/plan.md")).toBeNull();
    expect(parseCommandSummary("a · b · c")).toBeNull();
  });

  it("reads the command and folder from the requested call", () => {
    expect(commandOfCall({ call_id: "c", tool_name: "run_command", arguments: { command: "npm test", cwd: "web" } })).toEqual({ command: "npm test", cwd: "web" });
    expect(commandOfCall({ call_id: "c", tool_name: "run_command", arguments: { command: "ls" } })).toEqual({ command: "ls", cwd: "." });
    expect(commandOfCall({ call_id: "c", tool_name: "write_file", arguments: { command: "ls" } })).toBeNull();
    expect(commandOfCall(null)).toBeNull();
  });
});

describe("suggestPrefix", () => {
  it("takes the subcommand of tools like cargo, git and npm", () => {
    expect(suggestPrefix("cargo test --workspace")).toBe("cargo test");
    expect(suggestPrefix("git status")).toBe("git status");
    expect(suggestPrefix("npm run build")).toBe("npm run");
    expect(suggestPrefix("/usr/bin/git log -3")).toBe("/usr/bin/git log");
  });

  it("takes only the program otherwise, or when the next word is a flag", () => {
    expect(suggestPrefix("ls -la src")).toBe("ls");
    expect(suggestPrefix("cargo --version")).toBe("cargo");
    expect(suggestPrefix("pytest -q")).toBe("pytest");
    expect(suggestPrefix("python -m pytest tests/")).toBe("python -m pytest");
  });

  it("skips leading assignments and stops at shell syntax", () => {
    expect(suggestPrefix("RUST_LOG=debug cargo test")).toBe("cargo test");
    expect(suggestPrefix("cargo test 2>&1 | tail -40")).toBe("cargo test");
    expect(suggestPrefix("git commit -m 'x'")).toBe("git commit");
    expect(suggestPrefix("$(whoami)")).toBe("");
    expect(suggestPrefix("   ")).toBe("");
  });
});

describe("exitInfo", () => {
  const f = { exit_code: 0 as number | null, signal: null as number | null, timed_out: false, cancelled: false };
  it("is green for 0, red for a failure or signal, amber when stopped", () => {
    expect(exitInfo(f)).toMatchObject({ label: "exit 0", tone: "success" });
    expect(exitInfo({ ...f, exit_code: 101 })).toMatchObject({ label: "exit 101", tone: "danger", title: "Command failed (exit 101)" });
    expect(exitInfo({ ...f, exit_code: null, signal: 9 })).toMatchObject({ label: "signal 9", tone: "danger" });
    expect(exitInfo({ ...f, exit_code: null, timed_out: true })).toMatchObject({ label: "timed out", tone: "attention" });
    expect(exitInfo({ ...f, exit_code: null, signal: 9, cancelled: true })).toMatchObject({ label: "cancelled", tone: "attention" });
    expect(exitInfo({ ...f, exit_code: null })).toMatchObject({ label: "did not run", tone: "danger" });
  });
});

describe("long output", () => {
  const text = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

  it("keeps short output whole", () => {
    expect(collapseOutput(text(65))).toBeNull();
  });

  it("shows the first 20 and last 40 lines of long output and counts the rest", () => {
    const cut = collapseOutput(text(100))!;
    expect(cut.hidden).toBe(40);
    expect(cut.lines).toBe(100);
    expect(cut.head.split("\n")[0]).toBe("line 1");
    expect(cut.head.endsWith("line 20\n")).toBe(true);
    expect(cut.tail.startsWith("line 61\n")).toBe(true);
    expect(cut.tail.endsWith("line 100\n")).toBe(true);
  });

  it("takes the last lines of a text", () => {
    expect(lastLines("a\nb\nc\n", 2)).toBe("b\nc\n");
    expect(lastLines("a\nb\nc", 2)).toBe("b\nc");
    expect(lastLines("a\nb", 5)).toBe("a\nb");
  });
});
