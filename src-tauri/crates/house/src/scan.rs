//! What one Rust file says: its functions and their lengths, the lines its
//! `#[cfg(test)]` items take, the paths it names, the test modules it
//! declares, its `impl Application` blocks.

use crate::lex::{lex, Kind, Tok};
use crate::use_tree::parse_use;

/// A function and its length, from its `fn` line to its closing brace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FnSpan {
    pub name: String,
    pub line: usize,
    pub lines: usize,
}

/// A path the file names, with the inline module it is written in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathUse {
    /// Inline modules (`mod x { … }`) around it, outermost first.
    pub inline: Vec<String>,
    pub segments: Vec<String>,
    pub line: usize,
    /// A `use` item (not a path inside code).
    pub is_use: bool,
    /// The name the `use` brings into scope (its last segment or `as`).
    pub alias: Option<String>,
}

/// A `#[cfg(test)] mod name;` and its `#[path]`, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestModDecl {
    pub name: String,
    pub path: Option<String>,
}

/// Everything the checker reads of one file.
#[derive(Debug, Default)]
pub struct FileFacts {
    pub fns: Vec<FnSpan>,
    /// Lines taken by `#[cfg(test)]` items (whole lines).
    pub test_lines: usize,
    pub paths: Vec<PathUse>,
    pub test_mods: Vec<TestModDecl>,
    /// Lines of `impl … Application` blocks.
    pub impl_application: Vec<usize>,
    /// The file says `#![cfg(test)]`.
    pub file_is_test: bool,
    /// Its braces did not balance once comments and literals were out:
    /// the lexer misread it, and its figures cannot be trusted.
    pub unbalanced: bool,
}

enum Frame {
    Module,
    Fn { name: String, line: usize },
    Other,
}

struct Scanner {
    toks: Vec<Tok>,
    facts: FileFacts,
    frames: Vec<Frame>,
    inline: Vec<String>,
    /// A `fn` whose body opens at this token.
    pending_fn: Option<(usize, String, usize)>,
    pending_mod: Option<(usize, String)>,
}

/// Reads one Rust file's source.
pub fn scan(src: &str) -> FileFacts {
    let mut sc = Scanner {
        toks: lex(src),
        facts: FileFacts::default(),
        frames: Vec::new(),
        inline: Vec::new(),
        pending_fn: None,
        pending_mod: None,
    };
    sc.run();
    sc.facts
}

/// The index of the token closing the bracket opened at `open`.
fn matching(toks: &[Tok], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate().skip(open) {
        if t.kind != Kind::Punct {
            continue;
        }
        match t.text.as_str() {
            "{" | "(" | "[" => depth += 1,
            "}" | ")" | "]" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    toks.len().saturating_sub(1)
}

/// The end of the item starting at `start`: its `;` or its block's `}`.
/// `brace_ends`: whether a `{ … }` at depth 0 ends it (not for `use`).
pub fn item_end(toks: &[Tok], start: usize, brace_ends: bool) -> usize {
    let mut i = start;
    while i < toks.len() {
        let t = &toks[i];
        if t.kind == Kind::Punct {
            match t.text.as_str() {
                ";" => return i,
                "{" if brace_ends => return matching(toks, i),
                "{" | "(" | "[" => i = matching(toks, i),
                _ => {}
            }
        }
        i += 1;
    }
    toks.len().saturating_sub(1)
}

/// `cfg(test)`, `cfg(any(test, feature = "test-support"))`: code built
/// for tests only (not `cfg(not(test))`).
fn is_test_cfg(body: &[Tok]) -> bool {
    let named = |t: &Tok| t.is("test") || (t.kind == Kind::Lit && t.text == "test-support");
    body.first().is_some_and(|t| t.is("cfg"))
        && body.iter().any(named)
        && !body.iter().any(|t| t.is("not"))
}

impl Scanner {
    fn tok(&self, i: usize) -> Option<&Tok> {
        self.toks.get(i)
    }

    fn is(&self, i: usize, s: &str) -> bool {
        self.tok(i).is_some_and(|t| t.is(s))
    }

    fn run(&mut self) {
        let mut i = 0;
        while i < self.toks.len() {
            i = self.step(i);
        }
        if !self.frames.is_empty() {
            self.facts.unbalanced = true;
        }
    }

    /// Handles the token at `i`; returns the next index.
    fn step(&mut self, i: usize) -> usize {
        if self.is(i, "#") {
            return self.attribute(i);
        }
        let t = &self.toks[i];
        match (t.kind, t.text.as_str()) {
            (Kind::Punct, "{") => self.open(i),
            (Kind::Punct, "}") => self.close(i),
            (Kind::Ident, "fn") => self.function(i),
            (Kind::Ident, "mod") => self.module(i),
            (Kind::Ident, "use") => return self.use_item(i),
            (Kind::Ident, "impl") => self.impl_block(i),
            (Kind::Ident, _) if self.is(i + 1, "::") && !self.prev_is_sep(i) => {
                return self.inline_path(i)
            }
            _ => {}
        }
        i + 1
    }

    fn prev_is_sep(&self, i: usize) -> bool {
        i > 0 && self.is(i - 1, "::")
    }

    /// `#[…]` or `#![…]`: a `cfg(test)` one skips the item it is on.
    fn attribute(&mut self, i: usize) -> usize {
        let mut open = i + 1;
        if self.is(open, "!") {
            open += 1;
        }
        if !self.is(open, "[") {
            return i + 1;
        }
        let close = matching(&self.toks, open);
        let is_test = is_test_cfg(&self.toks[open + 1..close]);
        if is_test && self.is(i + 1, "!") && self.frames.is_empty() {
            self.facts.file_is_test = true;
        }
        if !is_test || self.is(i + 1, "!") {
            return close + 1;
        }
        self.skip_test_item(i, close + 1)
    }

    fn skip_test_item(&mut self, attr: usize, mut start: usize) -> usize {
        let mut path = None;
        while self.is(start, "#") {
            let close = matching(&self.toks, start + 1);
            let inner = &self.toks[start + 2..close];
            if inner.len() == 3 && inner[0].is("path") && inner[2].kind == Kind::Lit {
                path = Some(inner[2].text.clone());
            }
            start = close + 1;
        }
        let first = self.tok(start).map(|t| t.text.clone()).unwrap_or_default();
        let brace_ends = !matches!(
            first.as_str(),
            "use" | "const" | "static" | "type" | "extern"
        );
        let end = item_end(&self.toks, start, brace_ends);
        let mut k = start;
        while self
            .tok(k)
            .is_some_and(|t| t.kind == Kind::Ident && t.text != "mod")
            && k < end
        {
            k += 1;
        }
        if self.is(k, "mod") && self.is(end, ";") {
            if let Some(name) = self.tok(k + 1).map(|t| t.text.clone()) {
                self.facts.test_mods.push(TestModDecl { name, path });
            }
        }
        let (from, to) = (self.toks[attr].line, self.toks[end].line);
        self.facts.test_lines += to + 1 - from;
        end + 1
    }

    fn open(&mut self, i: usize) {
        if let Some((at, name, line)) = self.pending_fn.take() {
            if at == i {
                self.frames.push(Frame::Fn { name, line });
                return;
            }
        }
        if let Some((at, name)) = self.pending_mod.take() {
            if at == i {
                self.inline.push(name);
                self.frames.push(Frame::Module);
                return;
            }
        }
        self.frames.push(Frame::Other);
    }

    fn close(&mut self, i: usize) {
        match self.frames.pop() {
            Some(Frame::Module) => {
                self.inline.pop();
            }
            Some(Frame::Fn { name, line }) => {
                let lines = self.toks[i].line + 1 - line;
                self.facts.fns.push(FnSpan { name, line, lines });
            }
            Some(Frame::Other) => {}
            None => self.facts.unbalanced = true,
        }
    }

    /// `fn name …`: notes where its body opens (none for a declaration).
    fn function(&mut self, i: usize) {
        let Some(name) = self.tok(i + 1).filter(|t| t.kind == Kind::Ident) else {
            return;
        };
        let name = name.text.clone();
        let mut k = i + 2;
        while let Some(t) = self.tok(k) {
            if t.is(";") {
                return;
            }
            if t.is("{") {
                self.pending_fn = Some((k, name, self.toks[i].line));
                return;
            }
            if t.is("(") || t.is("[") {
                k = matching(&self.toks, k);
            }
            k += 1;
        }
    }

    fn module(&mut self, i: usize) {
        if let Some(name) = self.tok(i + 1).filter(|t| t.kind == Kind::Ident) {
            if self.is(i + 2, "{") {
                self.pending_mod = Some((i + 2, name.text.clone()));
            }
        }
    }

    fn impl_block(&mut self, i: usize) {
        let mut k = i + 1;
        let mut self_ty: Vec<&str> = Vec::new();
        let mut angle = 0i32;
        while let Some(t) = self.tok(k) {
            match t.text.as_str() {
                "{" | ";" | "where" if angle == 0 => break,
                "<" => angle += 1,
                ">" => angle -= 1,
                "for" if angle == 0 => self_ty.clear(),
                s if angle == 0 && t.kind == Kind::Ident => self_ty.push(s),
                _ => {}
            }
            k += 1;
        }
        if self_ty.last() == Some(&"Application") {
            self.facts.impl_application.push(self.toks[i].line);
        }
    }

    /// `use …;`: every path of its tree.
    fn use_item(&mut self, i: usize) -> usize {
        let end = item_end(&self.toks, i, false);
        let line = self.toks[i].line;
        for (segments, alias) in parse_use(&self.toks[i + 1..end]) {
            let inline = self.inline.clone();
            let is_use = true;
            self.facts.paths.push(PathUse {
                inline,
                segments,
                line,
                is_use,
                alias,
            });
        }
        end + 1
    }

    /// `a::b::c` in code: the path's segments (not `pub(in a::b)`).
    fn inline_path(&mut self, i: usize) -> usize {
        let restricted = i >= 2 && self.is(i - 1, "in") && self.is(i - 2, "(");
        let mut segments = vec![self.toks[i].text.clone()];
        let mut k = i + 1;
        while self.is(k, "::") && self.tok(k + 1).is_some_and(|t| t.kind == Kind::Ident) {
            segments.push(self.toks[k + 1].text.clone());
            k += 2;
        }
        if restricted {
            return k;
        }
        self.facts.paths.push(PathUse {
            inline: self.inline.clone(),
            segments,
            line: self.toks[i].line,
            is_use: false,
            alias: None,
        });
        k
    }
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod scan_tests;
