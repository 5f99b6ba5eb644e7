//! `bearagent run`: start a run, stream its timeline, answer approvals on
//! the terminal (or deny without one), exit with the run's outcome.

use crate::args::RunArgs;
use crate::exit::{self, Exit};
use crate::provider_choice::{choose_provider_for_run, ProviderArgs, ProviderChoiceError};
use crate::render;
use crate::run_approval::{handle, Flow};
use crate::timeline::{Timeline, TEXT_GUTTER};
use bearagent_kernel::ApprovalMode;
use bearagent_kernel::{EventPayload, EventSeq, RunId};
use bearagent_providers::ModelProvider;
use bearagent_runtime::config::ProviderOverrides;
use bearagent_runtime::{Application, LiveEvent, RunProfile, StartRun, ThreadStart};
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
async fn choose(
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
    match choose_provider_for_run(app, &asked, profile_provider, profile_model).await {
        Ok(provider) => Ok((profile, provider)),
        Err(ProviderChoiceError::Missing) => Err(exit::usage(
            "choose a model provider: --provider NAME (see `bearagent config check`), or --script FILE for an offline scripted run",
        )),
        Err(ProviderChoiceError::Usage(e)) => Err(exit::usage(e)),
        Err(ProviderChoiceError::App(e)) => Err(exit::report(&e)),
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
    let (mut profile, provider) = match choose(&app, &args, parent.as_ref()).await {
        Ok(chosen) => chosen,
        Err(code) => return code,
    };
    profile.plan_mode = args.plan;
    if args.delegate {
        profile.delegation = Some(profile.delegation.unwrap_or_default());
    }
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
    let mut tree = crate::run_tree::Tree::default();
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
            if let LiveEvent::Committed(envelope) = &event {
                tree.follow(app, run_id, envelope, json, interactive).await;
            }
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
            if handle(app, run_id, &envelope, asking, None).await == Flow::Settled {
                return;
            }
        }
    }
}
