import { describe, expect, it } from "vitest";
import { TerminalBuffer, ansiHtml, terminalText } from "./terminal";

const ESC = "\x1b";

describe("terminal text", () => {
  it("escapes HTML and turns colours into classes", () => {
    const html = ansiHtml(`<b>&</b> ${ESC}[31mFAILED${ESC}[0m ok`);
    expect(html).toContain("&lt;b&gt;&amp;&lt;/b&gt;");
    expect(html).toContain('<span class="ansi-red-fg">FAILED</span>');
    expect(html).not.toContain("<b>");
  });

  it("keeps only the last drawing of a line redrawn with \\r, and CRLF as LF", () => {
    expect(terminalText("10%\r50%\r100%\ndone\r\n")).toBe("100%\ndone\n");
  });

  it("keeps a hyperlink's text but not the link", () => {
    const html = ansiHtml(`see ${ESC}]8;;https://example.com${ESC}\\the docs${ESC}]8;;${ESC}\\ now`);
    expect(html).toBe("see the docs now");
    expect(html).not.toContain("<a");
  });
});

describe("TerminalBuffer", () => {
  it("carries colours and escape sequences split across chunks", () => {
    const buffer = new TerminalBuffer();
    buffer.append(`${ESC}[3`);
    buffer.append(`2mok`);
    buffer.append(` still green${ESC}[0m plain`);
    const html = buffer.segments.map((s) => s.html).join("");
    expect(html).toBe('<span class="ansi-green-fg">ok</span><span class="ansi-green-fg"> still green</span> plain');
  });

  it("keeps the last `cap` characters in whole segments and counts what it dropped", () => {
    const buffer = new TerminalBuffer(20_000);
    const line = "x".repeat(99) + "\n";
    for (let i = 0; i < 500; i++) buffer.append(line);
    expect(buffer.received).toBe(50_000);
    const kept = buffer.text().length;
    expect(kept).toBeLessThanOrEqual(20_000);
    expect(kept + buffer.dropped).toBe(50_000);
    expect(buffer.text().endsWith(line)).toBe(true);
    // Appending grows the last segment until it is full: few segments, not one per chunk.
    expect(buffer.segments.length).toBeLessThan(5);
  });

  it("keeps only the end of one chunk larger than the cap, from a line start", () => {
    const buffer = new TerminalBuffer(1_000);
    buffer.append("old\n");
    const big = Array.from({ length: 300 }, (_, i) => `line ${i}`).join("\n") + "\n";
    buffer.append(big);
    const kept = buffer.text();
    expect(kept.length).toBeLessThanOrEqual(1_000);
    expect(kept.startsWith("line ")).toBe(true);
    expect(kept.endsWith("line 299\n")).toBe(true);
    expect(kept.length + buffer.dropped).toBe(4 + big.length);
  });
});
