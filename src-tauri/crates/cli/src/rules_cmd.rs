//! `bearagent rules`: the approvals remembered beyond a run, numbered, with
//! where each holds and where it came from; `rules forget ID` removes one.

use crate::args::RulesArgs;
use crate::exit::{self, Exit};
use bearagent_runtime::config::RememberedCommand;
use bearagent_runtime::Application;
use serde_json::json;

pub fn rules(app: &Application, q: RulesArgs) -> Exit {
    if q.action.as_deref() == Some("forget") {
        let Some(id) = q.id.as_deref().filter(|id| !id.trim().is_empty()) else {
            return exit::usage("rules forget ID: ID is a rule's id from `bearagent rules`");
        };
        return match app.forget_command(id) {
            Ok(rule) => {
                println!("forgot rule {}: {}", rule.id(), line(&rule));
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
                json!({"number": i + 1, "id": rule.id(), "prefix": rule.prefix, "network": rule.network,
                       "workspace": rule.workspace, "from_run": rule.from_run, "at": rule.at})
            );
        } else {
            println!("{}  {}", rule.id(), line(rule));
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
