//! User rules for shell commands: a prefix of argv words and a decision.
//!
//! [`evaluate`] finds every simple command the string would run (see
//! `shell.rs`) and matches each against the rules. The strictest decision
//! wins everywhere: per command among its matching rules, and over all
//! commands. Anything the parser cannot see asks, unless a deny was found.
//!
//! Matching is deliberately lopsided, because a false deny costs a question
//! and a false allow runs something unapproved:
//! - ask and deny rules compare the command name by basename and ignoring
//!   ASCII case (`/bin/rm`, `./RM` on a case-insensitive disk);
//! - allow and allow-network rules need the name exactly as written in
//!   the rule, so a path (`./ls`, `/tmp/x/ls`) never borrows the allow of
//!   a bare `ls`;
//! - an uncertain word (`git $X`) that could complete an ask or deny rule's
//!   prefix makes the command unprovable.

use super::shell::{self, Word};
use serde::{Deserialize, Serialize};

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;

pub use bearagent_kernel::{CommandRule, RuleDecision};

/// Checks that a rule's prefix is non-empty plain words (`git push`), not
/// shell syntax. Meant for when the user saves a rule.
pub fn validate_rule(rule: &CommandRule) -> Result<(), String> {
    if rule.prefix.trim().is_empty() {
        return Err("a command rule needs a command prefix, such as `git push`".into());
    }
    let prefix = rule.prefix.clone();
    shell::guarded(move || shell::split_prefix(&prefix)).and_then(|words| words.map(drop))
}

/// Why the verdict is what it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum VerdictBasis {
    /// The strictest rule that matched (the first such in rule order).
    Rule {
        prefix: String,
        decision: RuleDecision,
    },
    /// This simple command matched no rule.
    NoRule { command: String },
    /// The parser cannot prove what runs.
    Unprovable { reason: String },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleVerdict {
    pub decision: RuleDecision,
    pub basis: VerdictBasis,
    /// The simple commands found, as argv words after unwrapping.
    pub commands: Vec<Vec<String>>,
}

/// Decides a `sh -c` command string against `rules`. Never panics: parsing
/// runs on its own thread, and a failure there asks.
pub fn evaluate(command: &str, rules: &[CommandRule]) -> RuleVerdict {
    let (command, rules) = (command.to_string(), rules.to_vec());
    shell::guarded(move || evaluate_here(&command, &rules)).unwrap_or_else(|reason| RuleVerdict {
        decision: RuleDecision::Ask,
        basis: VerdictBasis::Unprovable { reason },
        commands: Vec::new(),
    })
}

fn evaluate_here(command: &str, rules: &[CommandRule]) -> RuleVerdict {
    if command.trim().is_empty() {
        return unprovable("the command is empty".into(), Vec::new());
    }
    let analysis = shell::analyse(command);
    let rules: Vec<Compiled> = rules.iter().enumerate().filter_map(Compiled::new).collect();
    let mut tally = Tally {
        unprovable: analysis.unprovable,
        ..Tally::default()
    };
    for argv in &analysis.commands {
        match strictest(&rules, argv, true) {
            Some(rule) => tally.note(rule),
            None => {
                tally.no_rule.get_or_insert_with(|| join(argv));
            }
        }
        tally.maybe(&rules, argv);
    }
    // Wrappers (`sudo`, `sh -c`) can be asked about or denied, never allowed:
    // allowing `nice` must not allow what it runs.
    for argv in &analysis.wrappers {
        if let Some(rule) = strictest(&rules, argv, false) {
            tally.note(rule);
        }
        tally.maybe(&rules, argv);
    }
    let commands: Vec<Vec<String>> = analysis
        .commands
        .iter()
        .map(|argv| argv.iter().map(|w| w.text.clone()).collect())
        .collect();
    tally.verdict(commands)
}

fn unprovable(reason: String, commands: Vec<Vec<String>>) -> RuleVerdict {
    RuleVerdict {
        decision: RuleDecision::Ask,
        basis: VerdictBasis::Unprovable { reason },
        commands,
    }
}

/// A rule with its prefix split into words, and its place in rule order.
struct Compiled<'a> {
    index: usize,
    rule: &'a CommandRule,
    words: Vec<String>,
}

impl<'a> Compiled<'a> {
    fn new((index, rule): (usize, &'a CommandRule)) -> Option<Self> {
        let words = match shell::split_prefix(&rule.prefix) {
            Ok(words) => words,
            // A prefix `validate` would reject: an allow is dropped (never
            // widen an allow), an ask or deny keeps its leading plain words
            // (a malformed deny should bite harder, not vanish).
            Err(_) if rule.decision.allows() => return None,
            Err(_) => rule
                .prefix
                .split_whitespace()
                .take_while(|w| !w.contains(|c: char| "$`'\"\\*?[]{}()<>|&;~#=".contains(c)))
                .map(String::from)
                .collect(),
        };
        (!words.is_empty()).then_some(Compiled { index, rule, words })
    }
}

#[derive(Debug, PartialEq)]
enum Match {
    No,
    /// An uncertain word stands where the rule needs a certain one.
    Maybe,
    Yes,
}

fn matches(rule: &Compiled<'_>, argv: &[Word]) -> Match {
    let prefix = prefix_matches(rule, argv);
    if prefix != Match::No || rule.rule.decision.allows() {
        return prefix;
    }
    // `git -C dir push` for `git push`: options between the rule's words
    // can't be told from arguments, so the rule's words appearing in order
    // after its command name might be a match.
    let (Some(want), Some(name)) = (rule.words.first(), argv.first()) else {
        return Match::No;
    };
    let mut rest = argv.iter().skip(1);
    let in_order = rule
        .words
        .iter()
        .skip(1)
        .all(|want| rest.any(|w| w.text == *want));
    if rule.words.len() > 1 && name.literal && same_name(rule, want, &name.text) && in_order {
        Match::Maybe
    } else {
        Match::No
    }
}

fn same_name(rule: &Compiled<'_>, want: &str, name: &str) -> bool {
    if rule.rule.decision.allows() {
        want == name
    } else {
        shell::basename(want).eq_ignore_ascii_case(shell::basename(name))
    }
}

fn prefix_matches(rule: &Compiled<'_>, argv: &[Word]) -> Match {
    for (at, want) in rule.words.iter().enumerate() {
        let Some(word) = argv.get(at) else {
            return Match::No;
        };
        if !word.literal {
            return Match::Maybe;
        }
        let same = if at == 0 {
            same_name(rule, want, &word.text)
        } else {
            *want == word.text
        };
        if !same {
            return Match::No;
        }
    }
    Match::Yes
}

/// The strictest rule matching `argv`, the first in rule order on a tie.
fn strictest<'r, 'a>(
    rules: &'r [Compiled<'a>],
    argv: &[Word],
    may_allow: bool,
) -> Option<&'r Compiled<'a>> {
    let mut best: Option<&Compiled<'_>> = None;
    for rule in rules {
        let counts = may_allow || !rule.rule.decision.allows();
        if counts
            && matches(rule, argv) == Match::Yes
            && best.is_none_or(|b| rule.rule.decision > b.rule.decision)
        {
            best = Some(rule);
        }
    }
    best
}

/// What the commands found add up to.
#[derive(Default)]
struct Tally<'r> {
    /// Per decision, the first rule in rule order that decided a command.
    decided: [Option<(usize, &'r CommandRule)>; 4],
    no_rule: Option<String>,
    unprovable: Vec<String>,
}

impl<'r> Tally<'r> {
    fn note(&mut self, rule: &Compiled<'r>) {
        let slot = &mut self.decided[rule.rule.decision as usize];
        if slot.is_none_or(|(index, _)| rule.index < index) {
            *slot = Some((rule.index, rule.rule));
        }
    }

    /// Ask and deny rules that an uncertain word could complete.
    fn maybe(&mut self, rules: &[Compiled<'_>], argv: &[Word]) {
        // An uncertain command name is already reported by the parser.
        if argv.first().is_none_or(|w| !w.literal) {
            return;
        }
        for rule in rules {
            if !rule.rule.decision.allows() && matches(rule, argv) == Match::Maybe {
                let reason = format!(
                    "`{}` might match the {} rule `{}`",
                    join(argv),
                    rule.rule.decision.as_str(),
                    rule.rule.prefix
                );
                if !self.unprovable.contains(&reason) {
                    self.unprovable.push(reason);
                }
            }
        }
    }

    fn verdict(self, commands: Vec<Vec<String>>) -> RuleVerdict {
        let rule_basis = |(_, rule): (usize, &CommandRule)| VerdictBasis::Rule {
            prefix: rule.prefix.clone(),
            decision: rule.decision,
        };
        let [allow_network, allow, ask, deny] = self.decided;
        let (decision, basis) = if let Some(rule) = deny {
            (RuleDecision::Deny, rule_basis(rule))
        } else if !self.unprovable.is_empty() {
            return unprovable(self.unprovable.join("; "), commands);
        } else if commands.is_empty() {
            return unprovable("it runs no command that could be checked".into(), commands);
        } else if let Some(command) = self.no_rule {
            (RuleDecision::Ask, VerdictBasis::NoRule { command })
        } else if let Some(rule) = ask {
            (RuleDecision::Ask, rule_basis(rule))
        } else if let Some(rule) = allow {
            (RuleDecision::Allow, rule_basis(rule))
        } else if let Some(rule) = allow_network {
            (RuleDecision::AllowNetwork, rule_basis(rule))
        } else {
            return unprovable("no rule decided it".into(), commands);
        };
        RuleVerdict {
            decision,
            basis,
            commands,
        }
    }
}

fn join(argv: &[Word]) -> String {
    argv.iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}
