import { describe, expect, it } from "vitest";
import type { DiffLineView } from "../../bindings";
import { escapeHtml, languageFor, lineHtml } from "./highlight";
import { wordChange, wordChanges } from "./wordDiff";

const cut = (s: string, r: { start: number; end: number } | null) => (r ? s.slice(r.start, r.end) : null);

describe("wordChange", () => {
  it("marks the changed middle between the common prefix and suffix, at word boundaries", () => {
    const a = "def greet(name):";
    const b = 'def greet(name, lang="en"):';
    const c = wordChange(a, b)!;
    expect(cut(a, c.old)).toBeNull();
    expect(cut(b, c.new)).toBe(', lang="en"');
    const d = wordChange("let total = count + 1;", "let total = amount + 1;")!;
    expect(cut("let total = count + 1;", d.old)).toBe("count");
    expect(cut("let total = amount + 1;", d.new)).toBe("amount");
  });

  it("widens a cut inside a word to the whole word", () => {
    const c = wordChange("foo bar", "foo baz")!;
    expect(cut("foo bar", c.old)).toBe("bar");
    expect(cut("foo baz", c.new)).toBe("baz");
  });

  it("handles unicode without splitting code points", () => {
    const a = "say 👋 héllo";
    const b = "say 🎉 héllo";
    const c = wordChange(a, b)!;
    expect(cut(a, c.old)).toBe("👋");
    expect(cut(b, c.new)).toBe("🎉");
    const e = wordChange("naïve café", "naïve caféine")!;
    expect(cut("naïve caféine", e.new)).toBe("caféine");
    expect(cut("naïve café", e.old)).toBe("café");
  });

  it("returns nothing for identical lines", () => {
    expect(wordChange("same", "same")).toBeNull();
    expect(wordChange("", "")).toBeNull();
  });

  it("returns nothing for totally different lines", () => {
    expect(wordChange("alpha", "omega")).toBeNull();
    expect(wordChange("", "new text")).toBeNull();
  });

  it("pairs removed and added runs 1:1 by position", () => {
    const line = (kind: DiffLineView["kind"], text: string): DiffLineView => ({ kind, oldLine: null, newLine: null, text });
    const r1 = line("removed", "x = 1");
    const r2 = line("removed", "y = 2");
    const a1 = line("added", "x = 10");
    const ctx = line("context", "x = 1");
    const a2 = line("added", "y = 3");
    const map = wordChanges([ctx, r1, r2, a1, ctx, a2]);
    expect(cut(r1.text, map.get(r1) ?? null)).toBe("1");
    expect(cut(a1.text, map.get(a1) ?? null)).toBe("10");
    expect(map.has(r2)).toBe(false);
    expect(map.has(a2)).toBe(false);
    expect(map.has(ctx)).toBe(false);
  });
});

describe("line html", () => {
  it("picks languages from extensions", () => {
    expect(languageFor("src/main.rs")).toBe("rust");
    expect(languageFor("ui/App.TSX")).toBe("typescript");
    expect(languageFor("config/settings.toml")).toBe("ini");
    expect(languageFor("Makefile")).toBe(null);
    expect(languageFor(".gitignore")).toBe(null);
    expect(languageFor("notes.unknownext")).toBe(null);
  });

  it("escapes plain text and word-change text, and highlights code", () => {
    expect(escapeHtml(`<a href="x">&'`)).toBe("&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
    expect(lineHtml("<b>", null)).toBe("&lt;b&gt;");
    expect(lineHtml("a <b> c", null, { start: 2, end: 5 })).toBe('a <mark class="word-change" data-testid="word-change">&lt;b&gt;</mark> c');
    const html = lineHtml('fn main() { let s = "<x>"; }', "rust");
    expect(html).toContain('<span class="hljs-keyword">fn</span>');
    expect(html).not.toContain("<x>");
    expect(lineHtml("x".repeat(2_001), "rust")).not.toContain("<span");
  });
});
