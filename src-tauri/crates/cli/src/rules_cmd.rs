//! `bearagent rules`: the approvals remembered beyond a run, numbered, with
//! where each holds and where it came from; `rules forget N` removes one.

use crate::args::RulesArgs;
use crate::exit::{self, Exit};
use bearagent_runtime::config::RememberedCommand;
use bearagent_runtime::Application;
use serde_json::json;

pub fn rules(app: &Application, q: RulesArgs) -> Exit {
    if q.action.as_deref() == Some("forget") {
        let Some(n) = q.number.filter(|n| *n >= 1) else {
            return exit::usage(
                "rules forget N: N is a rule's number from `bearagent rules`, from 1",
            );
        };
        return match app.forget_command(n - 1) {
            Ok(rule) => {
                println!("forgot rule {n}: {}", line(&rule));
                Exit::Succeeded
            }
            Err(e) => exit::report(&e),
        };
    }
    let rules = match app.remembered_commands() {
        Ok(rules) => rules,
        Err(e) => return exit::report(&e),
    };
    for (i, rule) in rules.iter().enumerate() {
        if q.json {
            println!(
                "{}",
                json!({"number": i + 1, "prefix": rule.prefix, "network": rule.network,
                       "workspace": rule.workspace, "from_run": rule.from_run, "at": rule.at})
            );
        } else {
            println!("{:>3}  {}", i + 1, line(rule));
        }
    }
    if rules.is_empty() && !q.json {
        println!("no remembered approvals (answer `P WORDS` at an approval prompt to keep one)");
    }
    Exit::Succeeded
}

fn line(rule: &RememberedCommand) -> String {
    let network = if rule.network {
        " with the network"
    } else {
        ""
    };
    let place = rule
        .workspace
        .as_deref()
        .map_or_else(|| "every workspace".to_owned(), |w| format!("in {w}"));
    format!(
        "allow `{}`{network} {place} (from run {}, {})",
        rule.prefix, rule.from_run, rule.at
    )
}
