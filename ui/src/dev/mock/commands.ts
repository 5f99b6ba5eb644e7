// Development-only: run_command in the mock backend — rules decided like
// the kernel's (word prefixes, the strictest match wins, the run's
// "always allow" prefixes behind the profile's denies), the approval
// summary and the text the model gets, in the backend's words.
import type { CommandRule, CommandSettings, RuleDecision } from "../../bindings";
import { DEFAULT_COMMAND_SETTINGS } from "../../lib/settings/validation";

/** A command a mock step runs: its output in chunks (ANSI colours included) and how it ends. */
export interface MockCommand {
  chunks: string[];
  exitCode: number;
  durationMs: number;
  /** Files the command creates or changes (each an artifact). */
  writes?: { path: string; content: string }[];
}

/** Like the kernel's `CommandSettings::default()`: runs started from the desktop use it. */
export const DEFAULT_COMMANDS: CommandSettings = DEFAULT_COMMAND_SETTINGS;

const STRICTNESS: Record<RuleDecision, number> = { allow: 0, ask: 1, deny: 2 };

export interface MockVerdict {
  decision: RuleDecision;
  /** One line, like the backend's `describe_verdict`. */
  rule: string;
  /** A command no rule covers (allowed anyway when the run allows everything). */
  noRule: boolean;
}

const words = (text: string) => text.trim().split(/\s+/).filter(Boolean);

/** The strictest rule whose words start the command's words; run prefixes are allow rules after the profile's. */
export function verdictFor(command: string, settings: CommandSettings, runPrefixes: string[]): MockVerdict {
  const argv = words(command);
  const rules: CommandRule[] = [...settings.rules, ...runPrefixes.map((prefix) => ({ prefix, decision: "allow" as const }))];
  let best: CommandRule | null = null;
  for (const rule of rules) {
    const want = words(rule.prefix);
    if (want.length === 0 || want.length > argv.length || want.some((w, i) => argv[i] !== w)) continue;
    if (best === null || STRICTNESS[rule.decision] > STRICTNESS[best.decision]) best = rule;
  }
  if (best) return { decision: best.decision, rule: `rule \`${best.prefix}\` → ${best.decision}`, noRule: false };
  return { decision: "ask", rule: `no rule matches \`${command.trim()}\` → ask`, noRule: true };
}

/** The approval summary of a command, as the runtime's `approval_summary` writes it. */
export function commandSummary(command: string, cwd: string, settings: CommandSettings, rule: string): string {
  const sandbox = !settings.sandbox ? "NOT sandboxed (the sandbox is off in this profile)" : settings.network ? "sandboxed, network on" : "sandboxed, no network";
  return `run \`${command}\` in ${cwd} · ${sandbox} · ${rule}`;
}

// Built from the escape character (ESC): no control character in a regex literal.
const ANSI = new RegExp(String.fromCharCode(27) + "\\[[0-9;]*[A-Za-z]", "g");

/** What the model is told, like the tool's `model_text` (colours stripped). */
export function modelText(exitCode: number, durationMs: number, output: string): string {
  const text = output.replace(ANSI, "");
  return `exit code ${exitCode}, after ${(durationMs / 1000).toFixed(1)} s\n${text === "" ? "(no output)\n" : text}`;
}

/** Bytes of UTF-8, as `output_bytes` counts them. */
export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}
