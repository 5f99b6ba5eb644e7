//! Answering a CLI run's approval requests: on the terminal (with a
//! preview of the call, and `P WORDS` remembered for the workspace), or
//! denied with the fix when there is no terminal to ask.

use crate::approval_prompt::{self, Preview};
use crate::timeline::Timeline;
use bearagent_kernel::{ApprovalScope, EventEnvelope, EventPayload, RunId, ToolCall};
use bearagent_runtime::{Application, Decision};
use std::io::{IsTerminal, Write};
use std::sync::Arc;

/// A decision typed at the prompt, and whether its command prefix is to
/// be remembered for the workspace (`P WORDS`, `PW WORDS`).
struct Answer {
    decision: Decision,
    remember: bool,
    /// `d`: yes, and remember "allow this URL's domain" in `[web] rules`.
    remember_domain: bool,
}

async fn ask_on_terminal(prompt: String) -> Answer {
    let answer = tokio::task::spawn_blocking(move || {
        eprint!("{prompt}");
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        std::io::stdin()
            .read_line(&mut line)
            .map(|_| line.trim().to_owned())
    })
    .await;
    match answer {
        Ok(Ok(line)) => Answer {
            remember: remembers(&line),
            remember_domain: line.eq_ignore_ascii_case("d"),
            decision: terminal_decision(&line),
        },
        _ => Answer {
            decision: cli_decision(
                false,
                ApprovalScope::Once,
                Some("the terminal closed".into()),
            ),
            remember: false,
            remember_domain: false,
        },
    }
}

/// `P WORDS` / `PW WORDS`: the prefix is remembered beyond the run.
fn remembers(line: &str) -> bool {
    let line = line.trim();
    (line.starts_with("P ") || line.starts_with("PW "))
        && terminal_decision(line).allow_prefix.is_some()
}

/// The decision a line typed at the approval prompt stands for: anything
/// that is not a yes is a denial, with the line as its reason.
fn terminal_decision(line: &str) -> Decision {
    let line = line.trim();
    for (key, network) in [("pw ", true), ("p ", false), ("PW ", true), ("P ", false)] {
        if let Some(prefix) = line.strip_prefix(key).map(str::trim) {
            if !prefix.is_empty() {
                return Decision {
                    allow_prefix: Some(prefix.to_owned()),
                    network,
                    ..cli_decision(true, ApprovalScope::Once, None)
                };
            }
        }
    }
    match line.to_lowercase().as_str() {
        // `d` also remembers the fetch's domain (see `remember_domain`).
        "y" | "yes" | "d" => cli_decision(true, ApprovalScope::Once, None),
        "w" => Decision {
            network: true,
            ..cli_decision(true, ApprovalScope::Once, None)
        },
        "a" | "always" => cli_decision(true, ApprovalScope::ToolForRun, None),
        "r" | "rest" => cli_decision(false, ApprovalScope::RestOfTurn, None),
        "" | "n" | "no" => cli_decision(false, ApprovalScope::Once, None),
        _ => cli_decision(false, ApprovalScope::Once, Some(line.to_owned())),
    }
}

fn cli_decision(approve: bool, scope: ApprovalScope, reason: Option<String>) -> Decision {
    Decision {
        approve,
        scope,
        reason,
        by: "cli:user".into(),
        allow_prefix: None,
        network: false,
    }
}

/// Denied for want of a terminal, with the fix that fits the question.
fn no_terminal_denial(app: &Application, run_id: RunId, summary: &str) -> Decision {
    let all = app
        .get_run(run_id)
        .is_ok_and(|p| p.approval_mode == bearagent_kernel::ApprovalMode::AllowAll);
    let reason = if summary.starts_with(bearagent_runtime::LOOP_QUESTION) {
        "no terminal to ask whether the repeating agent may go on; raise max_repeated_calls in \
         the profile to let it repeat more, or run in a terminal to decide"
    } else if summary.contains(&format!(" · {}", bearagent_runtime::WEB_QUESTION)) {
        "no terminal to ask for approval, and this web question asks under every mode (a URL \
         the model wrote, a domain rule that asks, or a call after a fetched page); add an allow \
         rule for the domain to [web] rules in your config, or run in a terminal to decide"
    } else if all {
        "no terminal to ask for approval, and this call asks even under --approve all (a command \
         without the sandbox or that the rules cannot prove harmless, or an MCP rule that asks); \
         add an allow rule for it to the profile, or run in a terminal to decide"
    } else {
        "no terminal to ask for approval; rerun with --approve reads or --approve all"
    };
    Decision {
        by: "cli:no-terminal".into(),
        ..cli_decision(false, ApprovalScope::Once, Some(reason.into()))
    }
}

/// Whether the run goes on after an event, or has settled.
#[derive(PartialEq)]
pub(crate) enum Flow {
    Continue,
    Settled,
}

/// Answers an approval request (on the terminal when `asking` holds the
/// timeline, whose open calls the prompt previews; else denied); says when
/// the run has settled.
pub(crate) async fn handle(
    app: &Arc<Application>,
    run_id: RunId,
    envelope: &EventEnvelope,
    asking: Option<&Timeline>,
    label: Option<&str>,
) -> Flow {
    match &envelope.payload {
        EventPayload::ApprovalRequested {
            call_id, summary, ..
        } => {
            // A child's request says whose it is (delegation).
            let labelled;
            let summary = match label {
                Some(label) => {
                    labelled = format!("{label} asks: {summary}");
                    &labelled
                }
                None => summary,
            };
            let answer = match asking {
                Some(timeline) => {
                    let preview = preview(app, run_id, timeline.open_call(call_id));
                    let colour =
                        std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
                    ask_on_terminal(approval_prompt::prompt(summary, &preview, colour)).await
                }
                None => Answer {
                    decision: no_terminal_denial(app, run_id, summary),
                    remember: false,
                    remember_domain: false,
                },
            };
            if answer.remember {
                remember(app, run_id, &answer.decision);
            }
            if answer.remember_domain {
                remember_domain(app, asking.and_then(|t| t.open_call(call_id)));
            }
            if let Err(e) = app.decide_approval(run_id, call_id.as_str(), answer.decision) {
                eprintln!("bearagent: {e}");
            }
            Flow::Continue
        }
        // The run ended: nothing more to answer.
        payload if payload.is_terminal() => Flow::Settled,
        _ => Flow::Continue,
    }
}

/// Keeps a `P WORDS` prefix for the run's workspace, saying so.
fn remember(app: &Application, run_id: RunId, decision: &Decision) {
    let Some(prefix) = &decision.allow_prefix else {
        return;
    };
    match app.remember_command(
        run_id,
        prefix,
        decision.network,
        bearagent_runtime::RememberScope::Workspace,
    ) {
        Ok(_) => eprintln!(
            "bearagent: remembered: commands starting with `{prefix}` run without asking in this workspace (`bearagent rules` lists them)"
        ),
        Err(e) => eprintln!("bearagent: could not remember the rule: {e}"),
    }
}

/// Keeps "allow fetches of this host" (`d` at a `web_fetch` question) in
/// the config's `[web] rules`, for new runs, saying so.
fn remember_domain(app: &Application, call: Option<&ToolCall>) {
    let url = call
        .filter(|c| c.tool_name.as_str() == "web_fetch")
        .and_then(|c| c.arguments.get("url"))
        .and_then(|v| v.as_str());
    let host = url
        .and_then(|u| bearagent_tools::web::parse_url(u).ok())
        .and_then(|u| u.host_str().map(str::to_owned));
    let Some(host) = host else {
        eprintln!("bearagent: `d` remembers the domain of a web_fetch; approved once");
        return;
    };
    match app.remember_web_domain(&host) {
        Ok(_) => eprintln!(
            "bearagent: remembered: fetches of {host} are allowed in new runs ([web] rules in your config)"
        ),
        Err(e) => eprintln!("bearagent: could not remember the domain: {e}"),
    }
}

/// What the approval prompt shows of `call` beside its summary.
fn preview(app: &Application, run_id: RunId, call: Option<&ToolCall>) -> Preview {
    let Some(call) = call else {
        return Preview::Nothing;
    };
    if call.tool_name.as_str() == "run_command" {
        let arg = |name: &str| call.arguments.get(name).and_then(|v| v.as_str());
        return Preview::Command {
            command: arg("command").unwrap_or_default().to_owned(),
            cwd: arg("cwd").unwrap_or(".").to_owned(),
        };
    }
    match app.proposed_change(run_id, call) {
        Ok(Some(change)) => Preview::Write(change),
        Ok(None) => Preview::Nothing,
        Err(e) => Preview::Unavailable(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_prompt_answer_is_its_decision() {
        let yes = terminal_decision("y");
        assert!(yes.approve && !yes.network && yes.allow_prefix.is_none());
        let net = terminal_decision("w");
        assert!(net.approve && net.network && net.scope == ApprovalScope::Once);
        let rule = terminal_decision("p cargo test");
        assert_eq!(rule.allow_prefix.as_deref(), Some("cargo test"));
        assert!(rule.approve && !rule.network);
        assert!(remembers("P cargo test") && remembers("PW cargo fetch"));
        assert!(!remembers("p cargo test") && !remembers("P "));
        assert_eq!(
            terminal_decision("P cargo test").allow_prefix.as_deref(),
            Some("cargo test")
        );
        let net_rule = terminal_decision("pw cargo fetch");
        assert_eq!(net_rule.allow_prefix.as_deref(), Some("cargo fetch"));
        assert!(net_rule.approve && net_rule.network);
        assert_eq!(terminal_decision("A").scope, ApprovalScope::ToolForRun);
        let domain = terminal_decision("d");
        assert!(domain.approve && domain.scope == ApprovalScope::Once);
        let rest = terminal_decision("r");
        assert!(!rest.approve && rest.scope == ApprovalScope::RestOfTurn);
    }

    #[test]
    fn anything_else_is_a_denial_with_the_words_as_reason() {
        for no in ["", "n", "NO", "p ", "pw"] {
            let d = terminal_decision(no);
            assert!(!d.approve && !d.network, "{no:?}");
        }
        let why = terminal_decision("Use the Makefile instead");
        assert!(!why.approve);
        assert_eq!(why.reason.as_deref(), Some("Use the Makefile instead"));
    }
}
