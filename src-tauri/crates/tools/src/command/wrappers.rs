//! Commands that run other commands: shells (`sh -c '…'`), wrappers that
//! exec their arguments (`sudo`, `env`, `nice`, `timeout`, …), `xargs`,
//! `find -exec`, and builtins that run code the parser cannot see (`eval`,
//! `source`). Each is peeled down to the command that actually runs.

use super::{basename, Walker, Word};
use options::{peel, Peeled, Spec, WRAPPERS};

/// The wrappers' options, peeled off to find what they run.
#[path = "wrapper_options.rs"]
mod options;

const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh",
];

impl Walker {
    /// Records the command `argv` runs (with `stdin` the here-documents fed
    /// to it), peeling off wrappers and following shells.
    pub(super) fn run(&mut self, mut argv: Vec<Word>, stdin: &[String]) {
        loop {
            let Some(first) = argv.first() else { return };
            if !first.literal {
                self.unprovable(format!(
                    "the command name `{}` is only known when it runs",
                    first.text
                ));
                self.out.commands.push(argv);
                return;
            }
            let name = basename(&first.text).to_string();
            self.doubt_a_path(&first.text, &name);
            if SHELLS.contains(&name.as_str()) {
                return self.shell(&name, argv, stdin);
            }
            let Some(rest) = self.builtin(&name, argv) else {
                return;
            };
            argv = rest;
            let Some(spec) = WRAPPERS.iter().find(|s| s.names.contains(&name.as_str())) else {
                return self.out.commands.push(argv);
            };
            match self.unwrap(&name, spec, argv) {
                Some(wrapped) => argv = wrapped,
                None => return,
            }
        }
    }

    /// Like allow rules, unwrapping trusts only a bare name: a path may be
    /// any program (the deny of what it runs still counts).
    fn doubt_a_path(&mut self, text: &str, name: &str) {
        let runs_others = SHELLS.contains(&name)
            || matches!(name, "find" | "eval" | "trap")
            || WRAPPERS.iter().any(|s| s.names.contains(&name));
        if runs_others && text.contains('/') {
            self.unprovable(format!("`{text}` may not be the real {name}"));
        }
    }

    /// Builtins that run code or change what names mean. Returns `argv`
    /// when it is still to be looked at as a command (and maybe a wrapper),
    /// `None` when it has been recorded.
    fn builtin(&mut self, name: &str, argv: Vec<Word>) -> Option<Vec<Word>> {
        match name {
            "find" => self.find(argv),
            "eval" | "trap" => {
                self.unprovable(format!("`{name}` runs a string as a script"));
                let text = join(argv.get(1..).unwrap_or_default());
                self.script(&text);
                self.out.commands.push(argv);
            }
            "source" | "." => {
                self.unprovable(format!("`{name}` runs a script file that is not checked"));
                self.out.commands.push(argv);
            }
            "alias" => {
                self.unprovable("`alias` can redefine what a command name runs");
                self.out.commands.push(argv);
            }
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                for w in argv.iter().skip(1) {
                    if let Some((var, _)) = w.text.split_once('=') {
                        self.assignment_name(var);
                    }
                }
                return Some(argv);
            }
            "xargs" => {
                self.unprovable("`xargs` runs a command with arguments read from its input");
                return Some(argv);
            }
            _ => return Some(argv),
        }
        None
    }

    /// Records the wrapper `argv` starts with. Returns the command it runs
    /// when that is to be looked at next; `None` when what it runs has been
    /// followed (a command line or script handed to a shell) or nothing
    /// runs.
    fn unwrap(&mut self, name: &str, spec: &Spec, mut argv: Vec<Word>) -> Option<Vec<Word>> {
        let (peeled, through_shell) = peel(spec, &argv);
        match peeled {
            Peeled::Command(at) if name == "watch" || through_shell => {
                // These hand their command line to `sh -c`.
                self.out
                    .wrappers
                    .push(argv.get(..at).unwrap_or_default().to_vec());
                let text = join(argv.get(at..).unwrap_or_default());
                self.script(&text);
                None
            }
            Peeled::Command(at) => {
                self.out
                    .wrappers
                    .push(argv.get(..at).unwrap_or_default().to_vec());
                Some(argv.split_off(at))
            }
            Peeled::Script(script) => {
                self.out.wrappers.push(argv);
                self.script_word(name, &script);
                None
            }
            Peeled::Nothing => {
                if through_shell {
                    self.unprovable(format!("`{name}` starts a shell that reads standard input"));
                }
                self.out.commands.push(argv);
                None
            }
        }
    }

    /// `sh -c '…'` is followed into its script; a shell without `-c` runs a
    /// script the parser cannot see (a file, or standard input).
    fn shell(&mut self, name: &str, argv: Vec<Word>, stdin: &[String]) {
        let mut i = 1;
        let (mut has_c, mut reads_stdin) = (false, false);
        while let Some(w) = argv.get(i) {
            let t = w.text.as_str();
            // An uncertain word is taken as the first operand (the script or
            // its file), which is then reported as unknown.
            if !w.literal {
                break;
            }
            if t == "--" || t == "-" {
                i += 1;
                break;
            }
            if let Some(long) = t.strip_prefix("--") {
                i += if matches!(long, "rcfile" | "init-file") {
                    2
                } else {
                    1
                };
                continue;
            }
            let Some(flags) = t.strip_prefix('-').or_else(|| t.strip_prefix('+')) else {
                break;
            };
            if flags.is_empty() {
                break;
            }
            has_c |= t.starts_with('-') && flags.contains('c');
            reads_stdin |= flags.contains('s');
            // `-o name` / `-O name` take the next word.
            i += 1 + flags.chars().filter(|c| matches!(c, 'o' | 'O')).count();
        }
        let operands = argv.get(i..).unwrap_or_default().to_vec();
        self.out.wrappers.push(argv);
        if has_c {
            if let Some(script) = operands.first() {
                self.script_word(name, script);
            }
        } else if operands.is_empty() || reads_stdin {
            self.unprovable(format!("`{name}` reads its script from standard input"));
            // Best effort: a here-document's commands can still be denied.
            for doc in stdin {
                self.script(doc);
            }
        } else if let Some(file) = operands.first() {
            self.unprovable(format!(
                "`{name}` runs the script file `{}`, which is not checked",
                file.text
            ));
        }
    }

    fn script_word(&mut self, name: &str, script: &Word) {
        if !script.literal {
            self.unprovable(format!(
                "the script given to `{name}` is only known when it runs"
            ));
        }
        self.script(&script.text);
    }

    /// `find` is a command in its own right; each `-exec` runs another.
    fn find(&mut self, argv: Vec<Word>) {
        let mut i = 1;
        while let Some(w) = argv.get(i) {
            i += 1;
            if !matches!(w.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                continue;
            }
            let rest = argv.get(i..).unwrap_or_default();
            let len = rest
                .iter()
                .position(|w| w.text == ";" || w.text == "+")
                .unwrap_or(rest.len());
            self.unprovable(format!(
                "`find {}` runs a command for each file found",
                w.text
            ));
            self.run(rest.get(..len).unwrap_or_default().to_vec(), &[]);
            i += len + 1;
        }
        self.out.commands.push(argv);
    }
}

fn join(words: &[Word]) -> String {
    words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}
