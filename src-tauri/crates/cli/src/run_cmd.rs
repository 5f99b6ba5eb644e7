//! `bearagent run`: start a run, stream its timeline, answer approvals on
//! the terminal (or deny without one), exit with the run's outcome.

use crate::approval_prompt::{self, Preview};
use crate::args::RunArgs;
use crate::exit::{self, Exit};
use crate::provider_choice::{choose_provider, ProviderArgs, ProviderChoiceError};
use crate::render;
use crate::timeline::{Timeline, TEXT_GUTTER};
use bearagent_kernel::ApprovalMode;
use bearagent_kernel::{ApprovalScope, EventEnvelope, EventPayload, EventSeq, RunId, ToolCall};
use bearagent_providers::ModelProvider;
use bearagent_runtime::config::ProviderOverrides;
use bearagent_runtime::{Application, Decision, LiveEvent, RunProfile, StartRun, ThreadStart};
use std::io::{IsTerminal, Write};
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;

pub(crate) fn overrides(args: &crate::args::OverrideArgs) -> ProviderOverrides {
    ProviderOverrides {
        base_url: args.base_url.clone(),
        model: args.model.clone(),
        api_key_env: args.api_key_env.clone(),
        tool_mode: args.tool_mode,
    }
}

/// The profile from the config (or the built-in default), with the
/// command line's budgets and approval mode on top; and the provider.
fn choose(
    app: &Application,
    args: &RunArgs,
    parent: Option<&ParentDefaults>,
) -> Result<(RunProfile, Arc<dyn ModelProvider>), Exit> {
    let profile_name = match (&args.profile, parent) {
        (Some(name), _) => name.clone(),
        (None, Some(p)) => p.profile.clone(),
        (None, None) => "default".to_owned(),
    };
    let (mut profile, profile_provider, profile_model) = app
        .profile_named(&profile_name)
        .map_err(|e| exit::report(&e))?;
    // A follow-up keeps its parent's provider unless another profile is named.
    let profile_provider = match (parent, &args.profile) {
        (Some(p), None) => Some(p.provider.clone()),
        _ => profile_provider,
    };
    if let Some(mode) = &args.approve {
        profile.approval_mode = mode.parse::<ApprovalMode>().map_err(exit::usage)?;
    }
    let b = &mut profile.budgets;
    if let Some(n) = args.max_steps.or(args.max_model_calls) {
        b.max_model_calls = n;
    }
    if let Some(n) = args.max_tool_calls {
        b.max_tool_calls = n;
    }
    if let Some(n) = args.max_input_tokens {
        b.max_input_tokens = n;
    }
    if let Some(n) = args.max_output_tokens {
        b.max_output_tokens = n;
    }
    if let Some(secs) = args.max_wall_time {
        b.max_wall_time_ms = secs.saturating_mul(1000);
    }
    if let Some(usd) = args.max_cost {
        b.max_cost_micro_usd = Some(
            bearagent_runtime::config::max_cost_micro_usd(usd)
                .map_err(|e| exit::usage(format!("--max-cost {e}")))?,
        );
    }
    let overrides = overrides(&args.overrides);
    let asked = ProviderArgs {
        provider: args.provider.as_deref(),
        script: args.script.as_deref(),
        overrides: &overrides,
    };
    match choose_provider(app, &asked, profile_provider, profile_model) {
        Ok(provider) => Ok((profile, provider)),
        Err(ProviderChoiceError::Missing) => Err(exit::usage(
            "choose a model provider: --provider NAME (see `bearagent config check`), or --script FILE for an offline scripted run",
        )),
        Err(ProviderChoiceError::Usage(e)) => Err(exit::usage(e)),
        Err(ProviderChoiceError::App(e)) => Err(exit::report(&e)),
    }
}

/// A decision typed at the prompt, and whether its command prefix is to
/// be remembered for the workspace (`P WORDS`, `PW WORDS`).
struct Answer {
    decision: Decision,
    remember: bool,
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
            decision: terminal_decision(&line),
        },
        _ => Answer {
            decision: cli_decision(
                false,
                ApprovalScope::Once,
                Some("the terminal closed".into()),
            ),
            remember: false,
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
        "y" | "yes" => cli_decision(true, ApprovalScope::Once, None),
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

fn print_live(event: &LiveEvent, json: bool, in_text: &mut bool, timeline: &mut Timeline) {
    match event {
        LiveEvent::Committed(e) if json => println!("{}", render::event_json(e)),
        LiveEvent::Committed(e) => {
            if *in_text {
                println!();
                *in_text = false;
            }
            println!("{}", timeline.line(e));
        }
        LiveEvent::TextDelta {
            text, model_call, ..
        } if json => {
            println!(
                "{}",
                serde_json::json!({"kind": "text_delta", "model_call": model_call, "text": text})
            );
        }
        LiveEvent::TextDelta { text, .. } => {
            if !*in_text {
                print!("{TEXT_GUTTER}");
                *in_text = true;
            }
            print!("{}", text.replace('\n', &format!("\n{TEXT_GUTTER}")));
            let _ = std::io::stdout().flush();
        }
        LiveEvent::TextDiscarded { model_call, .. } if json => {
            println!(
                "{}",
                serde_json::json!({"kind": "text_discarded", "model_call": model_call})
            );
        }
        LiveEvent::TextDiscarded { .. } => {
            if *in_text {
                println!(" [the stream failed: this partial answer is void; retrying]");
                *in_text = false;
            }
        }
        LiveEvent::CommandOutput { text, call_id, .. } if json => {
            println!(
                "{}",
                serde_json::json!({"kind": "command_output", "call_id": call_id, "text": text})
            );
        }
        LiveEvent::CommandOutput { text, .. } => {
            if !*in_text {
                print!("{TEXT_GUTTER}");
                *in_text = true;
            }
            print!("{}", text.replace('\n', &format!("\n{TEXT_GUTTER}")));
            let _ = std::io::stdout().flush();
        }
        LiveEvent::RunAborted { message, .. } => {
            if json {
                println!(
                    "{}",
                    serde_json::json!({"kind": "run_aborted", "message": message})
                );
            }
            eprintln!("bearagent: {message}");
        }
    }
}

/// The goal given, or (approving a plan) the words that carry it out,
/// with the user's comments after them.
fn goal_of(args: &RunArgs) -> String {
    const APPROVED: &str = "The plan is approved. Carry it out now, step by step.";
    match (&args.goal, args.approve_plan) {
        (Some(goal), true) => format!("{APPROVED}\n\n{goal}"),
        (Some(goal), false) => goal.clone(),
        (None, _) => APPROVED.to_owned(),
    }
}

/// What a follow-up or fork takes from its parent unless told otherwise.
struct ParentDefaults {
    thread: ThreadStart,
    profile: String,
    provider: String,
}

/// `--continue RUN` / `--fork RUN --at SEQ`: the parent, checked before
/// anything is written (bad ids, runs in progress, fork points past the
/// end and vanished workspaces are usage errors, exit 2).
fn parent_of(app: &Application, args: &RunArgs) -> Result<Option<ParentDefaults>, Exit> {
    let (id, at) = match (&args.continue_run, &args.fork, args.at) {
        (Some(id), None, _) => (id, None),
        (None, Some(id), Some(at)) => (id, Some(EventSeq(at))),
        (None, None, _) => return Ok(None),
        _ => {
            return Err(exit::usage(
                "use either --continue RUN_ID or --fork RUN_ID --at SEQ",
            ))
        }
    };
    let thread = ThreadStart {
        run_id: crate::query_cmd::parse_run(id)?,
        at,
    };
    app.thread_parent(&thread).map_err(exit::usage)?;
    let first = app
        .list_events(thread.run_id, EventSeq(0), 1)
        .map_err(|e| exit::report(&e))?;
    let Some(EventPayload::RunCreated {
        profile,
        provider,
        plan_mode,
        ..
    }) = first.into_iter().next().map(|e| e.payload)
    else {
        return Err(exit::usage(format!("run {id} has no RunCreated event")));
    };
    if args.approve_plan && !plan_mode {
        return Err(exit::usage(format!(
            "run {id} was not a plan run (run --plan); continue it with a message instead"
        )));
    }
    Ok(Some(ParentDefaults {
        thread,
        profile,
        provider,
    }))
}

pub async fn run(app: Arc<Application>, args: RunArgs) -> Exit {
    let parent = match parent_of(&app, &args) {
        Ok(parent) => parent,
        Err(code) => return code,
    };
    let (mut profile, provider) = match choose(&app, &args, parent.as_ref()) {
        Ok(chosen) => chosen,
        Err(code) => return code,
    };
    profile.plan_mode = args.plan;
    // Empty: the parent's workspace (start_follow_up fills it in).
    let workspace = match &args.workspace {
        Some(w) => match w.canonicalize() {
            Ok(p) => p.display().to_string(),
            Err(e) => return exit::usage(format!("workspace {}: {e}", w.display())),
        },
        None => String::new(),
    };
    let images = match crate::image_arg::read_images(&args.images) {
        Ok(images) => images,
        Err(message) => return exit::usage(message),
    };
    let interactive = std::io::stdin().is_terminal();
    // Subscribe first so no event of the new run is missed.
    let mut live = app.subscribe();
    let start = StartRun {
        workspace,
        goal: goal_of(&args),
        profile,
        provider,
        images,
    };
    let worktree =
        args.worktree
            .as_ref()
            .map(|name| bearagent_runtime::worktrees::WorktreeRequest {
                name: (!name.is_empty()).then(|| name.clone()),
                base: args.base.clone(),
                carry_changes: args.carry_changes,
            });
    let started = match (&parent, worktree) {
        (Some(p), Some(w)) => app.fork_in_worktree(start, p.thread, w),
        (Some(p), None) => app.start_follow_up(start, p.thread),
        (None, Some(w)) => app.start_run_in_worktree(start, w),
        (None, None) => app.start_run(start),
    };
    let run_id = match started {
        Ok(id) => id,
        Err(e) => return exit::report(&e),
    };
    if !args.json {
        eprintln!("run {run_id}");
    }
    let ctrl_c_app = app.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            let _ = ctrl_c_app.cancel_run(run_id);
        }
    });
    follow(&app, run_id, &mut live, args.json, interactive).await;
    match app.wait_run(run_id).await {
        Ok(p) => {
            if !args.json {
                println!("\n{}", render::status_text(&p.status));
                if let Some(answer) = &p.final_answer {
                    println!("\n{answer}");
                }
            }
            Exit::for_status(&p.status)
        }
        Err(e) => exit::report(&e),
    }
}

/// Prints live events of `run_id` in seq order until it settles; answers
/// approvals. Events committed beside the loop (the workspace watcher) may
/// reach the bus out of order: a gap is filled from the store, and an event
/// already printed is skipped.
async fn follow(
    app: &Arc<Application>,
    run_id: RunId,
    live: &mut tokio::sync::broadcast::Receiver<LiveEvent>,
    json: bool,
    interactive: bool,
) {
    let mut in_text = false;
    let mut timeline = Timeline::new(None);
    let mut next = EventSeq::FIRST;
    loop {
        let event = match live.recv().await {
            Ok(e) => e,
            Err(RecvError::Lagged(n)) => {
                eprintln!("bearagent: the display fell {n} updates behind; `bearagent events {run_id}` has them all");
                continue;
            }
            Err(RecvError::Closed) => return,
        };
        if event.run_id() != run_id {
            continue;
        }
        let envelope = match &event {
            LiveEvent::Committed(envelope) => envelope.clone(),
            LiveEvent::RunAborted { .. } => {
                print_live(&event, json, &mut in_text, &mut timeline);
                return;
            }
            LiveEvent::TextDelta { .. }
            | LiveEvent::TextDiscarded { .. }
            | LiveEvent::CommandOutput { .. } => {
                print_live(&event, json, &mut in_text, &mut timeline);
                continue;
            }
        };
        if envelope.seq < next {
            continue;
        }
        let batch = if envelope.seq > next {
            let missing = u32::try_from(envelope.seq.get() - next.get() + 1).unwrap_or(u32::MAX);
            match app.list_events(run_id, EventSeq(next.get() - 1), missing) {
                Ok(events) => events.into_iter().map(Arc::new).collect(),
                Err(e) => {
                    eprintln!("bearagent: {e}");
                    vec![envelope]
                }
            }
        } else {
            vec![envelope]
        };
        for envelope in batch {
            if envelope.seq < next {
                continue;
            }
            next = envelope.seq.next();
            let committed = LiveEvent::Committed(envelope.clone());
            print_live(&committed, json, &mut in_text, &mut timeline);
            let asking = interactive.then_some(&timeline);
            if handle(app, run_id, &envelope, asking).await == Flow::Settled {
                return;
            }
        }
    }
}

#[derive(PartialEq)]
enum Flow {
    Continue,
    Settled,
}

/// Answers an approval request (on the terminal when `asking` holds the
/// timeline, whose open calls the prompt previews; else denied); says when
/// the run has settled.
async fn handle(
    app: &Arc<Application>,
    run_id: RunId,
    envelope: &EventEnvelope,
    asking: Option<&Timeline>,
) -> Flow {
    match &envelope.payload {
        EventPayload::ApprovalRequested {
            call_id, summary, ..
        } => {
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
                },
            };
            if answer.remember {
                remember(app, run_id, &answer.decision);
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
