//! Turns a word's source text into the argv word the shell would pass, as
//! far as that is certain: quotes removed, escapes resolved, and anything
//! that expands at run time marked uncertain. Substitutions found inside are
//! walked as scripts, so a command hidden in `$(…)` is still seen.

use super::{Walker, Word};
use brush_parser::ast;
use brush_parser::word::{WordPiece, WordPieceWithSource};
use brush_parser::ParserOptions;

/// Accumulates one word's text while walking its pieces.
struct Builder {
    text: String,
    literal: bool,
    /// The unquoted text only: globs and brace expansion happen there.
    unquoted: String,
}

impl Builder {
    fn dynamic(&mut self, source: &str) {
        self.text.push_str(source);
        self.literal = false;
    }
}

impl Walker {
    pub(super) fn word(&mut self, word: &ast::Word) -> Word {
        self.word_text(&word.value)
    }

    pub(super) fn word_text(&mut self, raw: &str) -> Word {
        let pieces = match brush_parser::word::parse(raw, &ParserOptions::default()) {
            Ok(pieces) => pieces,
            Err(_) => {
                self.unprovable(format!("cannot read the word `{}`", super::excerpt(raw)));
                return Word {
                    text: raw.to_string(),
                    literal: false,
                };
            }
        };
        let mut b = Builder {
            text: String::new(),
            literal: true,
            unquoted: String::new(),
        };
        self.pieces(raw, &pieces, false, &mut b);
        let literal = b.literal && !expands(&b.unquoted);
        Word {
            text: b.text,
            literal,
        }
    }

    fn pieces(&mut self, raw: &str, pieces: &[WordPieceWithSource], quoted: bool, b: &mut Builder) {
        for p in pieces {
            let source = raw.get(p.start_index..p.end_index).unwrap_or(raw);
            match &p.piece {
                WordPiece::Text(s) => {
                    b.text.push_str(s);
                    if !quoted {
                        b.unquoted.push_str(s);
                    }
                }
                WordPiece::SingleQuotedText(s) => b.text.push_str(s),
                WordPiece::AnsiCQuotedText(s) => match decode_ansi_c(s) {
                    Some(text) => b.text.push_str(&text),
                    None => b.dynamic(source),
                },
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    self.pieces(raw, inner, true, b);
                }
                WordPiece::EscapeSequence(s) => {
                    // `\<newline>` is a line continuation; otherwise the
                    // backslash just quotes the next character.
                    if s != "\\\n" {
                        b.text.push_str(s.strip_prefix('\\').unwrap_or(s));
                    }
                }
                WordPiece::TildeExpansion(_) => b.dynamic(source),
                WordPiece::ParameterExpansion(_) => {
                    b.dynamic(source);
                    self.parameter(source);
                }
                WordPiece::CommandSubstitution(script) => {
                    b.dynamic(source);
                    self.substitution(script);
                }
                WordPiece::BackquotedCommandSubstitution(script) => {
                    b.dynamic(source);
                    self.substitution(&unbackquote(script));
                }
                WordPiece::ArithmeticExpression(expr) => {
                    b.dynamic(source);
                    self.arithmetic(&expr.value);
                }
            }
        }
    }

    fn substitution(&mut self, script: &str) {
        self.unprovable(format!(
            "it uses a command substitution `$({})`",
            super::excerpt(script)
        ));
        self.script(script);
    }

    /// `${X:-$(cmd)}`, `${a[$(cmd)]}`: defaults, patterns and indexes can
    /// hold substitutions, so the inside is read as a word too.
    fn parameter(&mut self, source: &str) {
        let inner = source.strip_prefix("${").and_then(|s| s.strip_suffix('}'));
        if let Some(inner) = inner.filter(|s| s.contains(['$', '`'])) {
            self.word_text(inner);
        }
    }

    /// Arithmetic text can hold substitutions (`$((1 + $(cmd)))`).
    pub(super) fn arithmetic(&mut self, expr: &str) {
        if expr.contains(['$', '`']) {
            self.word_text(expr);
        }
    }

    /// An unquoted here-document delimiter means its body is expanded, so
    /// substitutions in it run.
    pub(super) fn heredoc_body(&mut self, body: &str) {
        if !body.contains(['$', '`']) {
            return;
        }
        match brush_parser::word::parse_heredoc(body, &ParserOptions::default()) {
            Ok(pieces) => {
                let mut b = Builder {
                    text: String::new(),
                    literal: true,
                    unquoted: String::new(),
                };
                self.pieces(body, &pieces, true, &mut b);
            }
            Err(_) => self.unprovable("cannot read an expanded here-document"),
        }
    }
}

/// Whether unquoted text is subject to pathname or brace expansion (and so
/// may become other words than it reads as).
fn expands(unquoted: &str) -> bool {
    let has = |c: char| unquoted.contains(c);
    has('*')
        || has('?')
        || has('(')
        || (has('[') && has(']'))
        || (has('{') && has('}') && (has(',') || unquoted.contains("..")))
}

/// Inside backquotes, `\\`, `` \` `` and `\$` stand for the bare character.
fn unbackquote(script: &str) -> String {
    let mut out = String::with_capacity(script.len());
    let mut chars = script.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&next @ ('\\' | '`' | '$')) = chars.peek() {
                out.push(next);
                chars.next();
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// Decodes the inside of `$'…'`. `None` when the result is not certain text
/// (a NUL would cut the word short; a lone high byte is not UTF-8).
pub(super) fn decode_ansi_c(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = chars.next()?;
        let code = match e {
            'a' => 0x07,
            'b' => 0x08,
            'e' | 'E' => 0x1b,
            'f' => 0x0c,
            'n' => 0x0a,
            'r' => 0x0d,
            't' => 0x09,
            'v' => 0x0b,
            '\\' | '\'' | '"' | '?' => u32::from(e),
            'c' => u32::from(chars.next()?) & 0x1f,
            'x' => digits(&mut chars, 16, 2)?.0,
            'u' => digits(&mut chars, 16, 4)?.0,
            'U' => digits(&mut chars, 16, 8)?.0,
            '0'..='7' => {
                // Up to three octal digits, the first already read.
                let (rest, n) = digits(&mut chars, 8, 2).unwrap_or((0, 0));
                e.to_digit(8)? * 8u32.pow(n) + rest
            }
            other => {
                out.push('\\');
                u32::from(other)
            }
        };
        let is_byte_escape = matches!(e, 'x' | '0'..='7');
        if code == 0 || (is_byte_escape && code > 0x7f) {
            return None;
        }
        out.push(char::from_u32(code)?);
    }
    Some(out)
}

/// Reads up to `max` digits; the value and how many were read, or `None`
/// when there were none.
fn digits(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    radix: u32,
    max: u32,
) -> Option<(u32, u32)> {
    let mut value: u32 = 0;
    let mut n = 0;
    while n < max {
        let Some(d) = chars.peek().and_then(|c| c.to_digit(radix)) else {
            break;
        };
        value = value.checked_mul(radix)?.checked_add(d)?;
        chars.next();
        n += 1;
    }
    (n > 0).then_some((value, n))
}
