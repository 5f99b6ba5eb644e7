//! Commands that run other commands: shells (`sh -c '…'`), wrappers that
//! exec their arguments (`sudo`, `env`, `nice`, `timeout`, …), `xargs`,
//! `find -exec`, and builtins that run code the parser cannot see (`eval`,
//! `source`). Each is peeled down to the command that actually runs.

use super::{basename, Walker, Word};

/// How a wrapper's own options look, so its command can be found.
struct Spec {
    names: &'static [&'static str],
    /// Short options that take a value (`-n 5`, `-n5`).
    with_arg: &'static str,
    long_with_arg: &'static [&'static str],
    /// Short options after which nothing is run (`command -v`, `sudo -l`).
    no_command: &'static str,
    /// Short and long options whose value is a shell script (`su -c`).
    script: &'static str,
    long_script: &'static [&'static str],
    /// Short options that run the command line through a shell (`sudo -s`).
    shell: &'static str,
    /// Positional words before the command (`timeout DURATION cmd`).
    operands: usize,
    /// `NAME=value` words may precede the command (`env X=1 cmd`).
    assignments: bool,
}

const fn spec(names: &'static [&'static str]) -> Spec {
    Spec {
        names,
        with_arg: "",
        long_with_arg: &[],
        no_command: "",
        script: "",
        long_script: &[],
        shell: "",
        operands: 0,
        assignments: false,
    }
}

const WRAPPERS: &[Spec] = &[
    spec(&["builtin", "nohup", "setsid", "busybox", "unbuffer", "arch"]),
    Spec {
        no_command: "vV",
        ..spec(&["command"])
    },
    Spec {
        with_arg: "a",
        ..spec(&["exec"])
    },
    Spec {
        with_arg: "fo",
        long_with_arg: &["format", "output"],
        ..spec(&["time"])
    },
    Spec {
        with_arg: "n",
        long_with_arg: &["adjustment"],
        ..spec(&["nice"])
    },
    Spec {
        with_arg: "sk",
        long_with_arg: &["signal", "kill-after"],
        operands: 1,
        ..spec(&["timeout", "gtimeout"])
    },
    Spec {
        with_arg: "ugpCDrtTUR",
        long_with_arg: &[
            "user",
            "group",
            "prompt",
            "close-from",
            "chdir",
            "role",
            "type",
            "command-timeout",
            "other-user",
            "chroot",
            "host",
        ],
        no_command: "elvKVh",
        shell: "si",
        assignments: true,
        ..spec(&["sudo"])
    },
    Spec {
        with_arg: "uC",
        shell: "s",
        ..spec(&["doas"])
    },
    Spec {
        long_with_arg: &["user"],
        ..spec(&["pkexec"])
    },
    Spec {
        with_arg: "sgGw",
        long_with_arg: &["shell", "group", "supp-group", "whitelist-environment"],
        script: "c",
        long_script: &["command", "session-command"],
        ..spec(&["su", "runuser"])
    },
    Spec {
        with_arg: "ioe",
        long_with_arg: &["input", "output", "error"],
        ..spec(&["stdbuf"])
    },
    Spec {
        with_arg: "cn",
        long_with_arg: &["class", "classdata"],
        no_command: "pPu",
        ..spec(&["ionice"])
    },
    Spec {
        with_arg: "TPD",
        long_with_arg: &["sched-runtime", "sched-period", "sched-deadline"],
        no_command: "pm",
        operands: 1,
        ..spec(&["chrt"])
    },
    Spec {
        no_command: "p",
        operands: 1,
        ..spec(&["taskset"])
    },
    Spec {
        with_arg: "tw",
        ..spec(&["caffeinate"])
    },
    Spec {
        with_arg: "uC",
        long_with_arg: &["unset", "chdir"],
        script: "S",
        long_script: &["split-string"],
        assignments: true,
        ..spec(&["env"])
    },
    Spec {
        with_arg: "adEILnPs",
        long_with_arg: &[
            "arg-file",
            "delimiter",
            "eof",
            "replace",
            "max-lines",
            "max-args",
            "max-procs",
            "max-chars",
            "process-slot-var",
        ],
        ..spec(&["xargs"])
    },
    Spec {
        with_arg: "nq",
        long_with_arg: &["interval", "equexit"],
        ..spec(&["watch"])
    },
];

const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh",
];

/// What peeling a wrapper's options found.
enum Peeled {
    /// The command starts at this index.
    Command(usize),
    /// An option's value is a script (`su -c '…'`).
    Script(Word),
    /// Nothing is run.
    Nothing,
}

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
            let runs_others = SHELLS.contains(&name.as_str())
                || matches!(name.as_str(), "find" | "eval" | "trap")
                || WRAPPERS.iter().any(|s| s.names.contains(&name.as_str()));
            // Like allow rules, unwrapping trusts only a bare name: a path
            // may be any program (the deny of what it runs still counts).
            if runs_others && first.text.contains('/') {
                self.unprovable(format!("`{}` may not be the real {name}", first.text));
            }
            if SHELLS.contains(&name.as_str()) {
                return self.shell(&name, argv, stdin);
            }
            match name.as_str() {
                "find" => return self.find(argv),
                "eval" | "trap" => {
                    self.unprovable(format!("`{name}` runs a string as a script"));
                    let text = join(argv.get(1..).unwrap_or_default());
                    self.script(&text);
                    return self.out.commands.push(argv);
                }
                "source" | "." => {
                    self.unprovable(format!("`{name}` runs a script file that is not checked"));
                    return self.out.commands.push(argv);
                }
                "alias" => {
                    self.unprovable("`alias` can redefine what a command name runs");
                    return self.out.commands.push(argv);
                }
                "export" | "declare" | "typeset" | "local" | "readonly" => {
                    for w in argv.iter().skip(1) {
                        if let Some((var, _)) = w.text.split_once('=') {
                            self.assignment_name(var);
                        }
                    }
                }
                "xargs" => {
                    self.unprovable("`xargs` runs a command with arguments read from its input")
                }
                _ => {}
            }
            let Some(spec) = WRAPPERS.iter().find(|s| s.names.contains(&name.as_str())) else {
                return self.out.commands.push(argv);
            };
            let (peeled, through_shell) = peel(spec, &argv);
            match peeled {
                Peeled::Command(at) if name == "watch" || through_shell => {
                    // These hand their command line to `sh -c`.
                    self.out
                        .wrappers
                        .push(argv.get(..at).unwrap_or_default().to_vec());
                    let text = join(argv.get(at..).unwrap_or_default());
                    return self.script(&text);
                }
                Peeled::Command(at) => {
                    self.out
                        .wrappers
                        .push(argv.get(..at).unwrap_or_default().to_vec());
                    argv = argv.split_off(at);
                }
                Peeled::Script(script) => {
                    self.out.wrappers.push(argv);
                    return self.script_word(&name, &script);
                }
                Peeled::Nothing => {
                    if through_shell {
                        self.unprovable(format!(
                            "`{name}` starts a shell that reads standard input"
                        ));
                    }
                    return self.out.commands.push(argv);
                }
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

/// Skips a wrapper's options; also says whether a shell option was seen.
fn peel(spec: &Spec, argv: &[Word]) -> (Peeled, bool) {
    let mut through_shell = false;
    let mut i = 1;
    while let Some(w) = argv.get(i) {
        let t = w.text.as_str();
        if !w.literal {
            // Could be an option or the command: treat it as the command,
            // whose name is then unknown.
            return (Peeled::Command(i), through_shell);
        }
        if t == "--" {
            i += 1;
            break;
        }
        if t == "-" {
            i += 1;
            continue;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            if spec.long_script.contains(&name) {
                let script = match value {
                    Some(v) => Some(Word {
                        text: v.to_string(),
                        literal: true,
                    }),
                    None => argv.get(i + 1).cloned(),
                };
                return (
                    script.map_or(Peeled::Nothing, Peeled::Script),
                    through_shell,
                );
            }
            let takes_next = value.is_none() && spec.long_with_arg.contains(&name);
            i += if takes_next { 2 } else { 1 };
            continue;
        }
        if let Some(flags) = t.strip_prefix('-').filter(|f| !f.is_empty()) {
            let mut step = 1;
            for (at, c) in flags.char_indices() {
                let attached = flags.get(at + c.len_utf8()..).unwrap_or_default();
                if spec.no_command.contains(c) {
                    return (Peeled::Nothing, through_shell);
                }
                through_shell |= spec.shell.contains(c);
                if spec.script.contains(c) {
                    let script = if attached.is_empty() {
                        argv.get(i + 1).cloned()
                    } else {
                        Some(Word {
                            text: attached.to_string(),
                            literal: true,
                        })
                    };
                    return (
                        script.map_or(Peeled::Nothing, Peeled::Script),
                        through_shell,
                    );
                }
                if spec.with_arg.contains(c) {
                    if attached.is_empty() {
                        step = 2;
                    }
                    break;
                }
            }
            i += step;
            continue;
        }
        if spec.assignments && is_assignment(t) {
            i += 1;
            continue;
        }
        break;
    }
    let at = i + spec.operands;
    if at < argv.len() {
        (Peeled::Command(at), through_shell)
    } else {
        (Peeled::Nothing, through_shell)
    }
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

fn join(words: &[Word]) -> String {
    words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}
