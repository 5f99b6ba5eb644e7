// Syntax highlighting for diff lines, with highlight.js core and a handful of
// languages (registered one by one to keep the bundle small).
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import type { ChangeRange } from "./wordDiff";

const LANGUAGES = { bash, c, cpp, css, go, ini, java, javascript, json, markdown, python, rust, typescript, xml, yaml };
for (const [name, lang] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, lang);

/** Skip highlighting for diffs with more rendered lines than this. */
export const HIGHLIGHT_MAX_LINES = 2_000;
/** Skip highlighting for a line longer than this. */
export const HIGHLIGHT_MAX_LINE_CHARS = 2_000;

const BY_EXTENSION: Record<string, keyof typeof LANGUAGES> = {
  js: "javascript", mjs: "javascript", cjs: "javascript", jsx: "javascript",
  ts: "typescript", mts: "typescript", cts: "typescript", tsx: "typescript",
  rs: "rust",
  py: "python", pyi: "python",
  json: "json", jsonc: "json",
  md: "markdown", markdown: "markdown",
  css: "css",
  html: "xml", htm: "xml", xml: "xml", svg: "xml", svelte: "xml", vue: "xml",
  sh: "bash", bash: "bash", zsh: "bash",
  toml: "ini", ini: "ini", cfg: "ini",
  yml: "yaml", yaml: "yaml",
  go: "go",
  java: "java",
  c: "c", h: "c",
  cc: "cpp", cpp: "cpp", cxx: "cpp", hpp: "cpp", hh: "cpp", hxx: "cpp",
};

/** The highlight.js language for a file path, from its extension; null → plain text. */
export function languageFor(path: string): string | null {
  const name = path.split(/[\\/]/).pop() ?? "";
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return null;
  return BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? null;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/**
 * Safe HTML for one diff line. The only markup is highlight.js output (which
 * escapes the source text) or our own escaping: never raw file text.
 *
 * - With a word change: plain escaped text with the changed middle in a
 *   <mark> (no syntax colours for that line, to keep it simple and correct).
 * - Otherwise, with a language: highlight.js output. Each line is highlighted
 *   on its own, so constructs spanning lines (block comments, multi-line
 *   strings) may be coloured imperfectly.
 * - Otherwise: escaped plain text.
 */
export function lineHtml(text: string, language: string | null, change: ChangeRange | null = null): string {
  if (change) {
    return (
      escapeHtml(text.slice(0, change.start)) +
      `<mark class="word-change" data-testid="word-change">${escapeHtml(text.slice(change.start, change.end))}</mark>` +
      escapeHtml(text.slice(change.end))
    );
  }
  if (language && text.length <= HIGHLIGHT_MAX_LINE_CHARS) {
    return hljs.highlight(text, { language, ignoreIllegals: true }).value;
  }
  return escapeHtml(text);
}
