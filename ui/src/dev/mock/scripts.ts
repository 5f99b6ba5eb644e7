// Development-only: what the fake model "does" in the mock backend.
import type { EventPayload, Value } from "../../bindings";
import type { MockCommand } from "./commands";

export interface MockToolStep {
  tool: string;
  args: Record<string, Value>;
  writes: boolean;
  /** The tool's result when it runs (a command's is its model text). */
  result: string;
  /** What a written file held before (none: the step creates it). */
  before?: string;
  /** A run_command step's command run. */
  command?: MockCommand;
  /** An MCP tool's progress notifications, as the runtime pushes them (command-output-pushed lines). */
  progress?: string[];
  /** The tool fails with `result` as its error (e.g. a file that is not there). */
  error?: boolean;
  /** A long result: it fills this share of the model's window (the mock keeps only an excerpt as its text). */
  contextShare?: number;
}

export interface MockStep {
  /** Streamed before the action (as model-text-pushed deltas). */
  text: string;
  usage: { input: number; output: number };
  call?: MockToolStep;
  answer?: string;
  /** The answer instead, once the user denied an earlier request (or a call failed). */
  answerIfDenied?: string;
}

function architectureNotes(): string {
  const sections = ["Overview", "Event store", "Agent loop", "Providers", "Tools", "Desktop shell", "Risks"];
  return sections
    .map(
      (title, i) =>
        `## ${i + 1}. ${title}\n\n` +
        Array.from({ length: 4 }, (_, j) => `- ${title} note ${j + 1}: every fact is an event; projections are derived and can be rebuilt at any time.`).join("\n"),
    )
    .join("\n\n");
}

/** A generic coding run for a "real" provider in the mock. */
export function providerScript(goal: string): MockStep[] {
  return [
    {
      text: "I'll start by looking at how the workspace is laid out, then read the notes the goal mentions. ",
      usage: { input: 2_410, output: 58 },
      call: { tool: "list_dir", args: { path: "." }, writes: false, result: "Cargo.toml\nREADME.md\ndocs/\noutputs/\nsrc/\n" },
    },
    {
      text: "Reading the architecture notes. ",
      usage: { input: 3_120, output: 31 },
      call: { tool: "read_file", args: { path: "docs/architecture.md" }, writes: false, result: architectureNotes() },
    },
    {
      text: "I have what I need. Writing the conclusion to outputs/report.md — this change needs your approval. ",
      usage: { input: 7_842, output: 412 },
      call: {
        tool: "write_file",
        args: { path: "outputs/report.md", content: `# Report\n\nGoal: ${goal}\n\nThe notes agree on an event-sourced core with thin shells.\n` },
        writes: true,
        result: "wrote 112 bytes to outputs/report.md",
      },
    },
    {
      text: "",
      usage: { input: 8_390, output: 88 },
      answer: "Done: outputs/report.md compares the notes and concludes that the event-sourced core with thin shells is the right split.",
      answerIfDenied: "You declined the write, so nothing was changed. My conclusion: keep the event-sourced core with thin shells.",
    },
  ];
}

/** An excerpt of a long build log (the mock's stand-in for a file that fills much of the window). */
function buildLog(n: number): string {
  const lines = Array.from({ length: 12 }, (_, i) => `[build ${n}] step ${i + 1}/12 ${i === 7 && n === 4 ? "FAILED: tests::net::retries timed out after 30 s" : "ok"}`);
  return `${lines.join("\n")}\n[… ${(48_000 + n * 1_250).toLocaleString("en-US")} more lines …]\n`;
}

/**
 * A run reading five long build logs: each fills 30% of the model's window,
 * so the run compacts twice (before its 4th and 6th requests, keeping the
 * newest log each time), whatever the window.
 */
export function longScript(): MockStep[] {
  const reads: MockStep[] = Array.from({ length: 5 }, (_, i) => ({
    text: i === 0 ? "These logs are long; I'll read them one at a time and keep notes. " : `Reading build log ${i + 1}. `,
    usage: { input: 3_000 + i * 1_500, output: 40 },
    call: { tool: "read_file", args: { path: `logs/build-${i + 1}.log` }, writes: false, result: buildLog(i + 1), contextShare: 0.3 },
  }));
  return [
    ...reads,
    {
      text: "",
      usage: { input: 4_200, output: 120 },
      answer: "Build 4 is the flaky one: tests::net::retries timed out after 30 s at step 8; the other four builds passed every step.",
    },
  ];
}

const ESC = "\x1b";
const red = (t: string) => `${ESC}[31m${t}${ESC}[0m`;
const green = (t: string) => `${ESC}[32m${t}${ESC}[0m`;
const boldGreen = (t: string) => `${ESC}[1m${ESC}[32m${t}${ESC}[0m`;
const boldRed = (t: string) => `${ESC}[1m${ESC}[31m${t}${ESC}[0m`;

const TEST_NAMES = ["en", "fr", "es", "de", "it", "pt", "nl", "sv", "da", "fi", "pl", "cs"].flatMap((lang) =>
  ["greets", "greets_with_title", "falls_back_to_english", "keeps_the_name"].map((what) => `tests::${lang}::${what}`),
);
const FAILING = "tests::fr::greets";

/** `cargo test` output as a terminal shows it, in chunks: compile, one line per test, the summary. */
function cargoTest(fixed: boolean): string[] {
  const chunks = [
    `   ${boldGreen("Compiling")} greeter v0.1.0 (/home/dev/projects/bear-demo)\n`,
    `    ${boldGreen("Finished")} \`test\` profile [unoptimized + debuginfo] target(s) in 1.42s\n     ${boldGreen("Running")} unittests src/lib.rs (target/debug/deps/greeter-3f2a9c)\n\nrunning ${TEST_NAMES.length} tests\n`,
  ];
  for (let i = 0; i < TEST_NAMES.length; i += 8) {
    chunks.push(
      TEST_NAMES.slice(i, i + 8)
        .map((name) => `test ${name} ... ${!fixed && name === FAILING ? red("FAILED") : green("ok")}\n`)
        .join(""),
    );
  }
  const passed = fixed ? TEST_NAMES.length : TEST_NAMES.length - 1;
  if (fixed) {
    chunks.push(`\ntest result: ${green("ok")}. ${passed} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.02s\n\n`);
  } else {
    chunks.push(
      `\nfailures:\n\n---- ${FAILING} stdout ----\n\nthread '${FAILING}' panicked at src/lib.rs:31:9:\nassertion \`left == right\` failed\n  left: "Hello, Marie!"\n right: "Bonjour, Marie !"\nnote: run with \`RUST_BACKTRACE=1\` environment variable to display a backtrace\n\n\nfailures:\n    ${FAILING}\n\n`,
      `test result: ${red("FAILED")}. ${passed} passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.03s\n\n${boldRed("error")}${ESC}[1m: test failed, to rerun pass \`--lib\`${ESC}[0m\n`,
    );
  }
  return chunks;
}

const GREETER_BEFORE = 'pub fn greet(name: &str, lang: &str) -> String {\n    match lang {\n        "es" => format!("¡Hola, {name}!"),\n        _ => format!("Hello, {name}!"),\n    }\n}\n';
const GREETER_AFTER =
  'pub fn greet(name: &str, lang: &str) -> String {\n    match lang {\n        "es" => format!("¡Hola, {name}!"),\n        "fr" => format!("Bonjour, {name} !"),\n        _ => format!("Hello, {name}!"),\n    }\n}\n';

/** A coding run with commands: a failing `cargo test`, a fix, a passing `cargo test` that writes Cargo.lock. */
export function commandScript(): MockStep[] {
  return [
    {
      text: "Let me run the tests to see what fails. ",
      usage: { input: 2_210, output: 41 },
      call: { tool: "run_command", args: { command: "cargo test", cwd: "." }, writes: false, result: "", command: { chunks: cargoTest(false), exitCode: 1, durationMs: 1_840 } },
    },
    {
      text: "The French greeting is missing. Adding it to src/lib.rs — this edit needs your approval. ",
      usage: { input: 4_830, output: 160 },
      call: { tool: "write_file", args: { path: "src/lib.rs", content: GREETER_AFTER }, writes: true, before: GREETER_BEFORE, result: `wrote ${GREETER_AFTER.length} bytes to src/lib.rs` },
    },
    {
      text: "Running the tests again. ",
      usage: { input: 5_120, output: 38 },
      call: {
        tool: "run_command",
        args: { command: "cargo test", cwd: "." },
        writes: false,
        result: "",
        command: { chunks: cargoTest(true), exitCode: 0, durationMs: 1_310, writes: [{ path: "Cargo.lock", content: '# This file is automatically @generated by Cargo.\nversion = 4\n\n[[package]]\nname = "greeter"\nversion = "0.1.0"\n' }] },
      },
    },
    {
      text: "",
      usage: { input: 6_020, output: 72 },
      answer: "Fixed: greet() had no French case. I added it in src/lib.rs; all 48 tests pass now.",
      answerIfDenied: "You declined a step, so the French greeting is still missing; add a \"fr\" arm to greet() in src/lib.rs.",
    },
  ];
}

/**
 * A run that calls MCP tools of the servers that started: echo, then a long
 * operation reporting progress (when offered). Null when no started server
 * offers echo.
 */
export function mcpScript(servers: EventPayload[]): MockStep[] | null {
  const tools = servers.flatMap((s) => (s.type === "mcp_server_started" ? s.tools : []));
  const echo = tools.find((t) => t.tool === "echo");
  if (!echo) return null;
  const long = tools.find((t) => t.tool === "trigger-long-running-operation");
  const message = "hello from BearAgent";
  const steps: MockStep[] = [
    {
      text: `Checking that the MCP server answers with its echo tool. `,
      usage: { input: 2_650, output: 36 },
      call: { tool: echo.name, args: { message }, writes: false, result: `Echo: ${message}` },
    },
  ];
  if (long) {
    const total = 4;
    steps.push({
      text: "It answers. Now a longer operation that reports its progress. ",
      usage: { input: 2_930, output: 44 },
      call: {
        tool: long.name,
        args: { duration: 2, steps: total },
        writes: false,
        result: `Long running operation completed. Duration: 2 seconds, Steps: ${total}.`,
        progress: Array.from({ length: total }, (_, i) => `[${i + 1}/${total}] step ${i + 1} of ${total}\n`),
      },
    });
  }
  steps.push({
    text: "",
    usage: { input: 3_210, output: 52 },
    answer: `The MCP server echoed “${message}”${long ? " and finished the long operation" : ""}.`,
    answerIfDenied: "You declined a step, so the MCP check is incomplete.",
  });
  return steps;
}

/**
 * What a follow-up or fork does in the mock: one read with the earlier
 * conversation in view, then an answer. For the demo it is the Rust demo's
 * follow-up script (re-read docs/plan.md; a missing file fails the read and
 * changes the answer); otherwise it re-reads `path` (the last file the
 * thread wrote, or the README) and answers `message`.
 */
export function followUpScript(demo: boolean, message: string, path: string, content: string | null): MockStep[] {
  if (demo) {
    return [
      {
        text: "Looking at the plan again with our conversation in view. ",
        usage: { input: 1_420, output: 28 },
        call: { tool: "read_file", args: { path: "docs/plan.md" }, writes: false, result: content ?? "no such file: docs/plan.md", error: content === null },
      },
      {
        text: "",
        usage: { input: 1_610, output: 52 },
        answer:
          "Demo follow-up: I re-read docs/plan.md with the earlier conversation in view. The demo model is scripted, so it gives this answer to any message; connect a real provider in Settings for real replies.",
        answerIfDenied:
          "Demo follow-up: docs/plan.md is not there (the write was declined or reverted). The demo model is scripted, so it gives this answer to any message; connect a real provider in Settings for real replies.",
      },
    ];
  }
  const short = message.length > 80 ? `${message.slice(0, 77)}…` : message;
  return [
    {
      text: `Picking up where we left off: re-reading ${path} with our conversation in view. `,
      usage: { input: 9_120, output: 34 },
      call: { tool: "read_file", args: { path }, writes: false, result: content ?? `no such file: ${path}`, error: content === null },
    },
    {
      text: "",
      usage: { input: 9_480, output: 96 },
      answer: `Follow-up on “${short}”: I re-read ${path} with the earlier conversation in view; it still holds what the last run concluded, so nothing needed to change.`,
      answerIfDenied: `Follow-up on “${short}”: I could not read ${path}, so I answered from the earlier conversation alone.`,
    },
  ];
}

/** A project's AGENTS.md as the mock serves it (about 2.1 KB, like a real one). */
export const DEFAULT_AGENTS_MD = `# AGENTS.md

Guidance for coding agents working in this repository.

## Layout

- \`src/\` holds the library; every public function has a doc comment.
- \`docs/\` holds design notes and plans. Plans go in \`docs/plan.md\`.
- \`outputs/\` is for generated reports; never edit files there by hand.
- \`tests/\` mirrors \`src/\`: one test module per source module.

## Style

- Keep functions short and named for what they return, not how.
- Prefer plain data and pure functions; keep side effects at the edges.
- Write comments that say why, not what. Delete comments that repeat the code.
- No new dependencies without a note in \`docs/dependencies.md\` saying why.

## Checks before you finish

1. Run \`cargo fmt --all\` and \`cargo clippy --all-targets -- -D warnings\`.
2. Run \`cargo test\`; all tests must pass. Add a test for every bug you fix.
3. If you changed user-facing text, update \`README.md\` in the same change.

## Greetings

- The greeter's API is \`greet(name, lang)\`; keep it stable.
- Languages are ISO 639-1 codes. Unknown codes fall back to English.
- French puts a narrow no-break space before "!"; tests check for it.
- Add new languages to the table in \`src/lib.rs\` and to \`tests/languages.rs\`.

## Commits

- One logical change per commit, subject in the imperative, under 72 characters.
- Mention the issue number in the body when there is one.
- Never commit generated files from \`target/\` or \`outputs/\`.

## Safety

- Do not run commands that need the network; the sandbox blocks them anyway.
- Do not delete files you did not create in this run unless asked to.
- Ask before changing anything under \`.github/\` or the release scripts.
- When unsure what the user wants, stop and say what you would do instead.

## Reviews

- Summarise what you changed and why in the final answer, with file paths.
- List anything you could not verify (a command that failed, a file you could not read).
- Keep the summary short: a reviewer reads it before the diff, not instead of it.
- Link the plan or note the change follows, so the reviewer can check it against the goal.
- Say which checks you ran and what they printed at the end, in one line each.
`;
