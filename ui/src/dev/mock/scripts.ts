// Development-only: what the fake model "does" in the mock backend.
import type { Value } from "../../bindings";

export interface MockToolStep {
  tool: string;
  args: Record<string, Value>;
  writes: boolean;
  /** The tool's result when it runs. */
  result: string;
}

export interface MockStep {
  /** Streamed before the action (as model-text-pushed deltas). */
  text: string;
  usage: { input: number; output: number };
  call?: MockToolStep;
  answer?: string;
  /** The answer instead, once the user denied an earlier request. */
  answerIfDenied?: string;
}

const PLAN = "# Plan\n\n1. Add a table of greetings per language (en, fr, es).\n2. Look the greeting up in `greet`, defaulting to English.\n3. Add tests for each language.\n";

/** The same steps as the Rust demo: list, read, write (asked), answer. */
export const DEMO_SCRIPT: MockStep[] = [
  {
    text: "Let me look at the project first. ",
    usage: { input: 812, output: 24 },
    call: { tool: "list_dir", args: { path: "." }, writes: false, result: "README.md\ndocs/\nsrc/\n" },
  },
  {
    text: "Reading the notes. ",
    usage: { input: 905, output: 22 },
    call: {
      tool: "read_file",
      args: { path: "docs/notes.md" },
      writes: false,
      result: "# Notes\n\n- The greeter says hello in English only.\n- Users asked for French and Spanish.\n- Keep the API: `greet(name, lang=\"en\")`.\n",
    },
  },
  {
    text: "I will write a short plan next to the notes; this write needs your approval. ",
    usage: { input: 1_034, output: 96 },
    call: { tool: "write_file", args: { path: "docs/plan.md", content: PLAN }, writes: true, result: `wrote ${PLAN.length} bytes to docs/plan.md` },
  },
  {
    text: "",
    usage: { input: 1_160, output: 41 },
    answer: "I read docs/notes.md and wrote docs/plan.md: add a per-language greeting table to greet(), default to English, and test each language.",
    answerIfDenied:
      "I read docs/notes.md. You declined the write, so nothing was changed; the plan would be: add a per-language greeting table to greet(), default to English, and test each language.",
  },
];

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
