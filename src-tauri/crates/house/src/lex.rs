//! A small Rust lexer: enough to find items, paths and braces. Comments
//! vanish, string and char literals become one `Lit` token (their text
//! kept for `#[path = "…"]`), lifetimes are skipped.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An identifier, keyword or number.
    Ident,
    /// `::`.
    PathSep,
    /// A string, byte string or char literal.
    Lit,
    /// Any other single character.
    Punct,
}

/// One token and the 1-based line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tok {
    pub kind: Kind,
    pub text: String,
    pub line: usize,
}

impl Tok {
    /// Whether this is the identifier or punctuation `s`.
    pub fn is(&self, s: &str) -> bool {
        self.kind != Kind::Lit && self.text == s
    }
}

struct Lexer<'a> {
    chars: &'a [char],
    pos: usize,
    line: usize,
    out: Vec<Tok>,
}

/// Splits Rust source into tokens.
pub fn lex(src: &str) -> Vec<Tok> {
    let chars: Vec<char> = src.chars().collect();
    let mut lx = Lexer {
        chars: &chars,
        pos: 0,
        line: 1,
        out: Vec::new(),
    };
    while lx.pos < chars.len() {
        lx.step();
    }
    lx.out
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl Lexer<'_> {
    fn at(&self, off: usize) -> char {
        self.chars.get(self.pos + off).copied().unwrap_or('\0')
    }

    fn bump(&mut self) -> char {
        let c = self.at(0);
        if c == '\n' {
            self.line += 1;
        }
        self.pos += 1;
        c
    }

    fn push(&mut self, kind: Kind, text: String, line: usize) {
        self.out.push(Tok { kind, text, line });
    }

    fn step(&mut self) {
        let c = self.at(0);
        let line = self.line;
        if c.is_whitespace() {
            self.bump();
        } else if c == '/' && self.at(1) == '/' {
            while self.pos < self.chars.len() && self.at(0) != '\n' {
                self.bump();
            }
        } else if c == '/' && self.at(1) == '*' {
            self.block_comment();
        } else if c == '"' {
            let text = self.quoted();
            self.push(Kind::Lit, text, line);
        } else if c == '\'' {
            self.quote_or_lifetime(line);
        } else if let Some(hashes) = self.raw_string_start() {
            let text = self.raw_string(hashes);
            self.push(Kind::Lit, text, line);
        } else if (c == 'b' || c == 'c') && self.at(1) == '"' {
            self.bump();
            let text = self.quoted();
            self.push(Kind::Lit, text, line);
        } else if c == 'b' && self.at(1) == '\'' {
            self.bump();
            self.quote_or_lifetime(line);
        } else if is_ident_char(c) {
            let mut text = String::new();
            while is_ident_char(self.at(0)) {
                text.push(self.bump());
            }
            if text == "r" && self.at(0) == '#' && is_ident_char(self.at(1)) {
                self.bump();
                text.clear();
                while is_ident_char(self.at(0)) {
                    text.push(self.bump());
                }
            }
            self.push(Kind::Ident, text, line);
        } else if c == ':' && self.at(1) == ':' {
            self.bump();
            self.bump();
            self.push(Kind::PathSep, "::".into(), line);
        } else {
            self.bump();
            self.push(Kind::Punct, c.to_string(), line);
        }
    }

    fn block_comment(&mut self) {
        self.bump();
        self.bump();
        let mut depth = 1;
        while depth > 0 && self.pos < self.chars.len() {
            if self.at(0) == '/' && self.at(1) == '*' {
                self.bump();
                self.bump();
                depth += 1;
            } else if self.at(0) == '*' && self.at(1) == '/' {
                self.bump();
                self.bump();
                depth -= 1;
            } else {
                self.bump();
            }
        }
    }

    /// A `"…"` literal with escapes; returns its raw inner text.
    fn quoted(&mut self) -> String {
        self.bump();
        let mut text = String::new();
        while self.pos < self.chars.len() {
            let c = self.bump();
            if c == '\\' {
                text.push(c);
                text.push(self.bump());
            } else if c == '"' {
                break;
            } else {
                text.push(c);
            }
        }
        text
    }

    /// `r"`, `r#"`, `br"`, `cr#"` …: the number of hashes.
    fn raw_string_start(&self) -> Option<usize> {
        let mut off = match (self.at(0), self.at(1)) {
            ('r', _) => 1,
            ('b' | 'c', 'r') => 2,
            _ => return None,
        };
        if self.pos > 0 && is_ident_char(self.chars[self.pos - 1]) {
            return None;
        }
        let mut hashes = 0;
        while self.at(off) == '#' {
            hashes += 1;
            off += 1;
        }
        (self.at(off) == '"').then_some(hashes)
    }

    fn raw_string(&mut self, hashes: usize) -> String {
        while self.at(0) != '"' {
            self.bump();
        }
        self.bump();
        let mut text = String::new();
        while self.pos < self.chars.len() {
            if self.at(0) == '"' && (1..=hashes).all(|i| self.at(i) == '#') {
                for _ in 0..=hashes {
                    self.bump();
                }
                break;
            }
            text.push(self.bump());
        }
        text
    }

    /// A char literal (`'x'`, `'\n'`, `'\u{1F600}'`) or a lifetime (`'a`).
    fn quote_or_lifetime(&mut self, line: usize) {
        self.bump();
        if self.at(0) == '\\' {
            let mut text = String::new();
            while self.pos < self.chars.len() && self.at(0) != '\'' {
                text.push(self.bump());
                if text.len() == 1 {
                    text.push(self.bump());
                }
            }
            self.bump();
            self.push(Kind::Lit, text, line);
        } else if self.at(1) == '\'' {
            let c = self.bump();
            self.bump();
            self.push(Kind::Lit, c.to_string(), line);
        } else {
            while is_ident_char(self.at(0)) {
                self.bump();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(src: &str, s: &str) -> usize {
        lex(src).iter().filter(|t| t.is(s)).count()
    }

    #[test]
    fn comments_strings_and_lifetimes_vanish_or_fold() {
        let src = "fn a<'x>(s: &'x str) { /* { /* } */ */ let c = '{'; let s = r#\"}\"#; // }\n}";
        assert_eq!(count(src, "{"), 1);
        assert_eq!(count(src, "}"), 1);
        assert_eq!(count(src, "::"), 0);
        assert_eq!(lex(src).last().map(|t| t.line), Some(2));
    }

    #[test]
    fn escapes_and_byte_literals() {
        let src = r#"let a = "\"}"; let b = b'\''; let c = '\u{7d}'; use crate::x;"#;
        assert_eq!(count(src, "}"), 0);
        assert_eq!(count(src, "::"), 1);
    }
}
