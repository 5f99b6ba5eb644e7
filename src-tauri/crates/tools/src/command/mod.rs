//! Command rules for the `run_command` tool: user-configured prefixes that
//! allow, ask about or deny a shell command before it runs. Pure logic: the
//! command string is parsed, never executed.

pub mod rules;
mod shell;

pub use rules::{evaluate, CommandRule, RuleDecision, RuleVerdict, VerdictBasis};
