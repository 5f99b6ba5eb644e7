//! How wrappers' own options look (the table of known wrappers), and
//! peeling them off to find the command a wrapper runs.

use super::Word;

/// How a wrapper's own options look, so its command can be found.
pub(super) struct Spec {
    pub(super) names: &'static [&'static str],
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

pub(super) const WRAPPERS: &[Spec] = &[
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

/// What peeling a wrapper's options found.
pub(super) enum Peeled {
    /// The command starts at this index.
    Command(usize),
    /// An option's value is a script (`su -c '…'`).
    Script(Word),
    /// Nothing is run.
    Nothing,
}

/// Skips a wrapper's options; also says whether a shell option was seen.
pub(super) fn peel(spec: &Spec, argv: &[Word]) -> (Peeled, bool) {
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
        let step = if let Some(long) = t.strip_prefix("--") {
            long_option(spec, argv, i, long)
        } else if let Some(flags) = t.strip_prefix('-').filter(|f| !f.is_empty()) {
            short_options(spec, argv, i, flags, &mut through_shell)
        } else if spec.assignments && is_assignment(t) {
            OptionStep::Skip(1)
        } else {
            break;
        };
        match step {
            OptionStep::Skip(words) => i += words,
            OptionStep::Found(peeled) => return (peeled, through_shell),
        }
    }
    let at = i + spec.operands;
    if at < argv.len() {
        (Peeled::Command(at), through_shell)
    } else {
        (Peeled::Nothing, through_shell)
    }
}

/// What an option word at `i` amounts to.
enum OptionStep {
    /// The option, and its value if that is the next word: this many words.
    Skip(usize),
    /// The option decides what runs (a script, or nothing).
    Found(Peeled),
}

/// `--name`, `--name=value` or `--name value`.
fn long_option(spec: &Spec, argv: &[Word], i: usize, long: &str) -> OptionStep {
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
        return OptionStep::Found(script.map_or(Peeled::Nothing, Peeled::Script));
    }
    let takes_next = value.is_none() && spec.long_with_arg.contains(&name);
    OptionStep::Skip(if takes_next { 2 } else { 1 })
}

/// `-abc`: flags in one word, the last maybe with its value attached
/// (`-n5`) or in the next word (`-n 5`).
fn short_options(
    spec: &Spec,
    argv: &[Word],
    i: usize,
    flags: &str,
    through_shell: &mut bool,
) -> OptionStep {
    for (at, c) in flags.char_indices() {
        let attached = flags.get(at + c.len_utf8()..).unwrap_or_default();
        if spec.no_command.contains(c) {
            return OptionStep::Found(Peeled::Nothing);
        }
        *through_shell |= spec.shell.contains(c);
        if spec.script.contains(c) {
            let script = if attached.is_empty() {
                argv.get(i + 1).cloned()
            } else {
                Some(Word {
                    text: attached.to_string(),
                    literal: true,
                })
            };
            return OptionStep::Found(script.map_or(Peeled::Nothing, Peeled::Script));
        }
        if spec.with_arg.contains(c) {
            return OptionStep::Skip(if attached.is_empty() { 2 } else { 1 });
        }
    }
    OptionStep::Skip(1)
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}
