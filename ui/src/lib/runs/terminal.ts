// Command output as terminal HTML. ansi_up escapes every character of the
// text it is given (`escape_html`), so its output is safe for `{@html}`;
// colours of the basic palette become `ansi-*` classes the terminal styles
// for its dark background.
import { AnsiUp } from "ansi_up";

/** An OSC 8 hyperlink opener or closer: the text stays, the link goes (a click would navigate the app's window). */
const OSC8 = /\x1b\]8;[^\x07\x1b]*;[^\x07\x1b]*(?:\x07|\x1b\\)/g;
/** Text a carriage return overwrote on the same line (progress bars). */
const OVERWRITTEN = /[^\n]*\r(?!\n|$)/g;

/**
 * What a terminal would show of raw output: CRLF as LF, a line redrawn
 * after `\r` only as its last drawing, links as their text.
 */
export function terminalText(raw: string): string {
  return raw.replace(OSC8, "").replace(/\r\n/g, "\n").replace(OVERWRITTEN, "").replace(/\r/g, "");
}

export function newAnsi(): AnsiUp {
  const ansi = new AnsiUp();
  ansi.escape_html = true;
  ansi.use_classes = true;
  ansi.url_allowlist = {};
  return ansi;
}

/** Escaped HTML of a whole text, colours carried from its start. */
export function ansiHtml(raw: string): string {
  return newAnsi().ansi_to_html(terminalText(raw));
}

/** The live output shown per command; older output is dropped beyond it. */
export const LIVE_OUTPUT_CAP = 256 * 1024;
/** Output joins the last segment until it is this long (only that segment re-renders). */
const SEGMENT_CHARS = 8 * 1024;

export interface TerminalSegment {
  id: number;
  raw: string;
  html: string;
}

/**
 * A command's live output as it arrives: raw text and HTML in segments, so
 * a new chunk re-renders one segment and the oldest can be dropped whole
 * to stay under `cap` characters. One converter for the whole stream, so
 * colours and escape sequences split across chunks carry over.
 */
export class TerminalBuffer {
  segments: TerminalSegment[] = [];
  /** Characters received in all. */
  received = 0;
  /** Characters dropped from the front to stay under the cap. */
  dropped = 0;
  #chars = 0;
  #next = 0;
  readonly #ansi = newAnsi();
  readonly #cap: number;

  constructor(cap = LIVE_OUTPUT_CAP) {
    this.#cap = cap;
  }

  append(raw: string): void {
    let text = terminalText(raw);
    if (text === "") return;
    this.received += text.length;
    if (text.length > this.#cap) {
      // Only its end fits: everything before it goes, from the next line start on.
      let cut = text.length - this.#cap;
      const line = text.indexOf("\n", cut);
      if (line >= 0 && line - cut < 4096) cut = line + 1;
      this.dropped += this.#chars + cut;
      this.segments = [];
      this.#chars = 0;
      text = text.slice(cut);
    }
    // In segment-sized pieces, so dropping the oldest frees space evenly.
    for (let at = 0; at < text.length; at += SEGMENT_CHARS) this.#add(text.slice(at, at + SEGMENT_CHARS));
    while (this.#chars > this.#cap && this.segments.length > 1) {
      const first = this.segments.shift();
      if (!first) break;
      this.#chars -= first.raw.length;
      this.dropped += first.raw.length;
    }
  }

  #add(text: string): void {
    const html = this.#ansi.ansi_to_html(text);
    const last = this.segments[this.segments.length - 1];
    if (last && last.raw.length + text.length <= SEGMENT_CHARS) {
      this.segments[this.segments.length - 1] = { id: last.id, raw: last.raw + text, html: last.html + html };
    } else {
      this.segments.push({ id: this.#next++, raw: text, html });
    }
    this.#chars += text.length;
  }

  /** All the kept text, escapes included. */
  text(): string {
    return this.segments.map((s) => s.raw).join("");
  }
}
