//! Finds the simple commands a `sh -c` string would run, without running
//! anything. The string is parsed with `brush-parser`; every command list,
//! substitution, here-document and nested `sh -c` script is walked, and
//! wrappers that run their arguments (`sudo`, `env`, `xargs`, …) are peeled
//! off (see `wrappers.rs`). Whatever cannot be seen statically is recorded
//! as a reason in [`Analysis::unprovable`].

use brush_parser::ast;
use guards::parse;

pub(crate) use guards::guarded;

#[path = "guards.rs"]
mod guards;
#[path = "words.rs"]
mod words;
#[path = "wrappers.rs"]
mod wrappers;

#[cfg(test)]
#[path = "shell_tests.rs"]
mod tests;

/// Scripts inside scripts (`sh -c "sh -c '…'"`, substitutions).
const MAX_SCRIPT_DEPTH: usize = 16;

/// One argv word: its text after quote removal, and whether that text is
/// certain. An expansion, substitution or glob makes it uncertain; its text
/// is then the source text (`$X`, `*.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    pub text: String,
    pub literal: bool,
}

/// What a command string runs, as far as the parser can tell.
#[derive(Debug, Default)]
pub(crate) struct Analysis {
    /// Every simple command that may run, after unwrapping.
    pub commands: Vec<Vec<Word>>,
    /// Wrappers and shells the commands run through (`sudo …`, `sh -c …`):
    /// matched against ask and deny rules, so `deny sudo` still bites.
    pub wrappers: Vec<Vec<Word>>,
    /// Why `commands` may not be all that runs.
    pub unprovable: Vec<String>,
}

/// Analyses a command string as `sh -c` would run it.
pub(crate) fn analyse(command: &str) -> Analysis {
    let mut walker = Walker::default();
    walker.script(command);
    walker.out
}

/// Splits a rule prefix into words, shell-style. It must be one plain simple
/// command: literal words only, no operators, redirections or assignments.
pub(crate) fn split_prefix(prefix: &str) -> Result<Vec<String>, String> {
    let not_plain = |why: &str| format!("the rule prefix `{prefix}` is not a plain command: {why}");
    let program = parse(prefix).map_err(|e| not_plain(&e))?;
    let [list] = program.complete_commands.as_slice() else {
        return Err(not_plain("it is not exactly one command"));
    };
    let [ast::CompoundListItem(and_or, _)] = list.0.as_slice() else {
        return Err(not_plain("it is not exactly one command"));
    };
    let [ast::Command::Simple(simple)] = and_or.first.seq.as_slice() else {
        return Err(not_plain("it is not a single simple command"));
    };
    if !and_or.additional.is_empty() || and_or.first.bang || and_or.first.timed.is_some() {
        return Err(not_plain("it holds more than one command"));
    }
    if simple.prefix.is_some() {
        return Err(not_plain("it starts with an assignment or redirection"));
    }
    let Some(name) = &simple.word_or_name else {
        return Err(not_plain("it names no command"));
    };
    let mut walker = Walker::default();
    let mut words = vec![walker.word(name)];
    for item in simple.suffix.iter().flat_map(|s| &s.0) {
        match item {
            ast::CommandPrefixOrSuffixItem::Word(w) => words.push(walker.word(w)),
            _ => return Err(not_plain("only words may follow the command name")),
        }
    }
    if !walker.out.unprovable.is_empty() || words.iter().any(|w| !w.literal) {
        return Err(not_plain("it uses expansions, substitutions or globs"));
    }
    Ok(words.into_iter().map(|w| w.text).collect())
}

/// Walks the AST, collecting into `out`.
#[derive(Default)]
struct Walker {
    out: Analysis,
    depth: usize,
}

impl Walker {
    fn unprovable(&mut self, reason: impl Into<String>) {
        let reason = reason.into();
        if !self.out.unprovable.contains(&reason) {
            self.out.unprovable.push(reason);
        }
    }

    /// Parses `text` as a shell script and walks it.
    fn script(&mut self, text: &str) {
        if self.depth >= MAX_SCRIPT_DEPTH {
            self.unprovable("scripts are nested too deeply to check");
            return;
        }
        match parse(text) {
            Ok(program) => {
                self.depth += 1;
                for list in &program.complete_commands {
                    self.list(list);
                }
                self.depth -= 1;
            }
            Err(why) => self.unprovable(format!("cannot check `{}`: {why}", excerpt(text))),
        }
    }

    fn list(&mut self, list: &ast::CompoundList) {
        for ast::CompoundListItem(and_or, _) in &list.0 {
            self.pipeline(&and_or.first);
            for next in &and_or.additional {
                let (ast::AndOr::And(p) | ast::AndOr::Or(p)) = next;
                self.pipeline(p);
            }
        }
    }

    fn pipeline(&mut self, pipeline: &ast::Pipeline) {
        for command in &pipeline.seq {
            self.command(command);
        }
    }

    fn command(&mut self, command: &ast::Command) {
        match command {
            ast::Command::Simple(simple) => self.simple(simple),
            ast::Command::Compound(compound, redirects) => {
                self.compound(compound);
                self.redirects(redirects.as_ref());
            }
            ast::Command::Function(f) => {
                // Its body is walked (a deny inside still counts), but a
                // function can shadow any command name used after it.
                self.unprovable(format!("it defines a function `{}`", f.fname.value));
                self.compound(&f.body.0);
                self.redirects(f.body.1.as_ref());
            }
            ast::Command::ExtendedTest(test, redirects) => {
                self.test_expr(&test.expr);
                self.redirects(redirects.as_ref());
            }
        }
    }

    fn compound(&mut self, compound: &ast::CompoundCommand) {
        use ast::CompoundCommand as C;
        match compound {
            C::Arithmetic(a) => self.arithmetic(&a.expr.value),
            C::ArithmeticForClause(f) => {
                for e in [&f.initializer, &f.condition, &f.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic(&e.value);
                }
                self.list(&f.body.list);
            }
            C::BraceGroup(b) => self.list(&b.list),
            C::Subshell(s) => self.list(&s.list),
            C::ForClause(f) => {
                for w in f.values.iter().flatten() {
                    self.word(w);
                }
                self.list(&f.body.list);
            }
            C::CaseClause(c) => {
                self.word(&c.value);
                for item in &c.cases {
                    for pattern in &item.patterns {
                        self.word(pattern);
                    }
                    if let Some(list) = &item.cmd {
                        self.list(list);
                    }
                }
            }
            C::IfClause(i) => {
                self.list(&i.condition);
                self.list(&i.then);
                for e in i.elses.iter().flatten() {
                    if let Some(condition) = &e.condition {
                        self.list(condition);
                    }
                    self.list(&e.body);
                }
            }
            C::WhileClause(w) | C::UntilClause(w) => {
                self.list(&w.0);
                self.list(&w.1.list);
            }
            C::Coprocess(c) => self.command(&c.body),
        }
    }

    fn test_expr(&mut self, expr: &ast::ExtendedTestExpr) {
        use ast::ExtendedTestExpr as E;
        match expr {
            E::And(a, b) | E::Or(a, b) => {
                self.test_expr(a);
                self.test_expr(b);
            }
            E::Not(e) | E::Parenthesized(e) => self.test_expr(e),
            E::UnaryTest(_, w) => {
                self.word(w);
            }
            E::BinaryTest(_, a, b) => {
                self.word(a);
                self.word(b);
            }
        }
    }

    fn redirects(&mut self, redirects: Option<&ast::RedirectList>) {
        for redirect in redirects.iter().flat_map(|r| &r.0) {
            self.redirect(redirect);
        }
    }

    /// Walks one redirection; returns the text it feeds to standard input,
    /// if it is a here-document or here-string.
    fn redirect(&mut self, redirect: &ast::IoRedirect) -> Option<String> {
        let is_stdin = |fd: &Option<ast::IoFd>| fd.is_none_or(|fd| fd == 0);
        match redirect {
            ast::IoRedirect::File(_, _, target) => {
                match target {
                    ast::IoFileRedirectTarget::Filename(w)
                    | ast::IoFileRedirectTarget::Duplicate(w) => {
                        self.word(w);
                    }
                    ast::IoFileRedirectTarget::Fd(_) => {}
                    ast::IoFileRedirectTarget::ProcessSubstitution(_, sub) => {
                        self.process_substitution(sub);
                    }
                }
                None
            }
            ast::IoRedirect::HereDocument(fd, doc) => {
                if doc.requires_expansion {
                    self.heredoc_body(&doc.doc.value);
                }
                is_stdin(fd).then(|| doc.doc.value.clone())
            }
            ast::IoRedirect::HereString(fd, w) => {
                let word = self.word(w);
                is_stdin(fd).then_some(word.text)
            }
            ast::IoRedirect::OutputAndError(w, _) => {
                self.word(w);
                None
            }
        }
    }

    fn process_substitution(&mut self, sub: &ast::SubshellCommand) {
        self.unprovable("it uses process substitution `<(…)`");
        self.list(&sub.list);
    }

    fn simple(&mut self, simple: &ast::SimpleCommand) {
        let mut argv = Vec::new();
        let mut stdin = Vec::new();
        for item in simple.prefix.iter().flat_map(|p| &p.0) {
            match item {
                ast::CommandPrefixOrSuffixItem::AssignmentWord(assignment, w) => {
                    self.word(w);
                    self.assignment_name(assignment_name(assignment));
                }
                other => self.item(other, &mut argv, &mut stdin),
            }
        }
        if let Some(name) = &simple.word_or_name {
            argv.push(self.word(name));
        }
        for item in simple.suffix.iter().flat_map(|s| &s.0) {
            self.item(item, &mut argv, &mut stdin);
        }
        if !argv.is_empty() {
            self.run(argv, &stdin);
        }
    }

    fn item(
        &mut self,
        item: &ast::CommandPrefixOrSuffixItem,
        argv: &mut Vec<Word>,
        stdin: &mut Vec<String>,
    ) {
        match item {
            ast::CommandPrefixOrSuffixItem::IoRedirect(r) => stdin.extend(self.redirect(r)),
            ast::CommandPrefixOrSuffixItem::Word(w)
            | ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) => argv.push(self.word(w)),
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
                self.process_substitution(sub);
                argv.push(Word {
                    text: "<(…)".into(),
                    literal: false,
                });
            }
        }
    }

    /// Assignments that change which binary runs or make a shell read a
    /// hidden script defeat the rules, whatever command follows.
    fn assignment_name(&mut self, name: &str) {
        const SENSITIVE: &[&str] = &[
            "PATH",
            "BASH_ENV",
            "ENV",
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "LD_AUDIT",
            "DYLD_INSERT_LIBRARIES",
            "DYLD_LIBRARY_PATH",
        ];
        if SENSITIVE.contains(&name) {
            self.unprovable(format!("it sets {name}, which changes what actually runs"));
        }
    }
}

/// The last path component: `/bin/rm` and `./rm` are both `rm`.
pub(crate) fn basename(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, base)| base)
}

fn assignment_name(assignment: &ast::Assignment) -> &str {
    match &assignment.name {
        ast::AssignmentName::VariableName(name)
        | ast::AssignmentName::ArrayElementName(name, _) => name,
    }
}

/// A short, single-line excerpt of `text` for messages.
fn excerpt(text: &str) -> String {
    const MAX_CHARS: usize = 60;
    let line: String = text
        .chars()
        .take(MAX_CHARS)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.chars().nth(MAX_CHARS).is_some() {
        format!("{line}…")
    } else {
        line
    }
}
