//! `bearagent`: the headless front end over BearAgent's application API.
//!
//! Exit codes: 0 succeeded · 1 run failed · 2 usage error · 3 budget
//! exhausted · 4 cancelled or interrupted · 5 BearAgent's own error (storage,
//! data directory).
#![cfg_attr(
    test,
    allow(
        clippy::disallowed_methods,
        reason = "tests write their own fixtures; the effect rule is for shipped code"
    )
)]

mod acp;
mod approval_prompt;
mod args;
mod bundle_cmd;
mod changes_cmd;
mod compact_cmd;
mod detect_cmd;
mod exit;
mod headline;
mod hooks_cmd;
mod hunks_cmd;
mod image_arg;
mod mcp_cmd;
mod provider_choice;
mod query_cmd;
mod render;
mod render_command;
mod render_review;
mod replay_cmd;
mod rewind_cmd;
mod rules_cmd;
mod run_approval;
mod run_cmd;
mod run_tree;
mod sandbox_cmd;
mod settings_cmd;
mod timeline;
mod worktree_cmd;

use clap::Parser;
use exit::Exit;
use std::process::ExitCode;

fn main() -> ExitCode {
    end_quietly_when_the_reader_leaves();
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                Exit::Usage
            } else {
                Exit::Succeeded
            };
            let _ = e.print();
            return code.into();
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("bearagent: cannot start the async runtime: {e}");
            return Exit::Internal.into();
        }
    };
    runtime.block_on(dispatch(cli)).into()
}

async fn dispatch(cli: args::Cli) -> Exit {
    let home = match bearagent_runtime::home::resolve() {
        Ok(h) => h,
        Err(e) => return exit::report(&e),
    };
    let _guard = match cli.command {
        // The editor reads stdout as protocol; stderr is its log pane.
        args::Command::Acp(_) => bearagent_runtime::logging::init_file_only(&home, "bearagent-acp"),
        _ => bearagent_runtime::logging::init_quiet(&home, "bearagent-cli"),
    };
    let clock = std::sync::Arc::new(bearagent_runtime::SystemClock);
    let config_path = bearagent_runtime::home::config_path(&home);
    let keys = std::sync::Arc::new(bearagent_runtime::config::OsKeychain);
    let app = match bearagent_runtime::Application::open_with(&home, &config_path, clock, keys) {
        Ok(app) => std::sync::Arc::new(app),
        Err(e) => return exit::report(&e),
    };
    match cli.command {
        args::Command::Run(run) => run_cmd::run(app, *run).await,
        args::Command::Runs(q) => query_cmd::runs(&app, q),
        args::Command::Inspect(q) => query_cmd::inspect(&app, q),
        args::Command::Events(q) => query_cmd::events(&app, q),
        args::Command::Changes(q) => changes_cmd::changes(&app, q),
        args::Command::Revert(q) => changes_cmd::revert(&app, q),
        args::Command::Apply(q) => worktree_cmd::apply(&app, q),
        args::Command::Export(q) => bundle_cmd::export(&app, q),
        args::Command::Import(q) => bundle_cmd::import(&app, q),
        args::Command::Replay(q) => replay_cmd::replay(&app, q).await,
        args::Command::Discard(q) => worktree_cmd::discard(&app, q),
        args::Command::Worktrees(q) => worktree_cmd::worktrees(&app, q),
        args::Command::Rules(q) => rules_cmd::rules(&app, q),
        args::Command::Hooks(q) => hooks_cmd::hooks(&app, q),
        args::Command::Rewind(q) => rewind_cmd::rewind(&app, q),
        args::Command::Compact(q) => compact_cmd::compact(&app, q).await,
        args::Command::Config(args::ConfigCommand::Check) => settings_cmd::check(&app),
        args::Command::Sandbox { profile, json } => sandbox_cmd::show(&app, &profile, json),
        args::Command::Acp(a) => acp::serve(app, a).await,
        args::Command::Mcp(args::McpCommand::List { json }) => mcp_cmd::list(&app, json),
        args::Command::Mcp(args::McpCommand::Test { name, json }) => {
            mcp_cmd::test(&app, &name, json).await
        }
        args::Command::Providers(args::ProvidersCommand::Test(t)) => {
            settings_cmd::test_provider(&app, t).await
        }
        args::Command::Providers(args::ProvidersCommand::Detect(d)) => {
            detect_cmd::detect(&app, d).await
        }
    }
}

/// `bearagent runs | head -1`: once the reader has gone there is no one to
/// print for, so the command ends as a Unix tool killed by SIGPIPE does
/// (status 141), not with a panic message from `println!`.
fn end_quietly_when_the_reader_leaves() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(141);
        }
        default(info);
    }));
}
