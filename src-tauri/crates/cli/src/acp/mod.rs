//! `bearagent acp`: BearAgent as an Agent Client Protocol agent on stdio,
//! for editors that host agents. Each session is a BearAgent thread in the
//! editor's `cwd`; each prompt is a run with BearAgent's own tools,
//! sandbox, policy and record (the editor's `fs/*` and `terminal/*` are not
//! used: a write the editor made would bypass BearAgent's receipts and
//! review). The runs show in the app and in `bearagent runs` like any.
//! Logs go to the log file; stdout carries only protocol messages.

mod ask;
mod choice;
mod ctx;
mod history;
mod permission;
mod prompt;
mod sessions;
mod turn;
mod updates;

use crate::args::AcpArgs;
use crate::exit::{self, Exit};
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, Implementation, InitializeRequest, InitializeResponse,
    LoadSessionRequest, LoadSessionResponse, NewSessionRequest, NewSessionResponse,
    PromptCapabilities, PromptRequest, PromptResponse, SessionMode, SessionModeState,
    SessionNotification, SetSessionModeRequest, SetSessionModeResponse,
};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{Agent, Client, Error, Responder, Stdio};
use bearagent_kernel::{ApprovalMode, RunId};
use bearagent_runtime::Application;
use choice::Choice;
use ctx::{app_error, invalid, Ctx};
use sessions::{Session, Sessions};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The session modes: BearAgent's approval modes.
const MODES: [(&str, &str, &str); 3] = [
    ("ask", "Ask", "Every tool call asks first"),
    (
        "reads",
        "Ask before writes",
        "Reads run; writes and commands ask",
    ),
    (
        "all",
        "Allow all",
        "Nothing asks (deny rules and the sandbox still hold)",
    ),
];

fn mode_id(mode: ApprovalMode) -> &'static str {
    match mode {
        ApprovalMode::AskAll => "ask",
        ApprovalMode::AskWrites => "reads",
        ApprovalMode::AllowAll => "all",
    }
}

fn modes(current: ApprovalMode) -> SessionModeState {
    let all = MODES
        .iter()
        .map(|(id, name, about)| SessionMode::new(*id, *name).description(about.to_string()))
        .collect();
    SessionModeState::new(mode_id(current), all)
}

/// Serves ACP on stdin/stdout until the editor closes it.
pub async fn serve(app: Arc<Application>, args: AcpArgs) -> Exit {
    let choice = match Choice::from_args(&args) {
        Ok(c) => Arc::new(c),
        Err(e) => return exit::usage(e),
    };
    let ctx = Ctx {
        app,
        sessions: Sessions::default(),
        choice,
    };
    let (c1, c2, c3, c4, c5) = (
        ctx.clone(),
        ctx.clone(),
        ctx.clone(),
        ctx.clone(),
        ctx.clone(),
    );
    let served = Agent
        .v1()
        .name("bearagent")
        .on_receive_request(
            async move |req: InitializeRequest, responder: Responder<InitializeResponse, _>, _c| {
                responder.respond(initialize(req))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: NewSessionRequest, responder: Responder<NewSessionResponse, _>, _c| {
                responder.respond_with_result(new_session(&c1, req))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: LoadSessionRequest,
                        responder: Responder<LoadSessionResponse, _>,
                        conn: ConnectionTo<Client>| {
                responder.respond_with_result(load_session(&c2, &conn, req))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: SetSessionModeRequest,
                        responder: Responder<SetSessionModeResponse, _>,
                        _c| { responder.respond_with_result(set_mode(&c3, req)) },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: PromptRequest,
                        responder: Responder<PromptResponse, _>,
                        conn: ConnectionTo<Client>| {
                on_prompt(&c4, req, responder, conn)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |n: CancelNotification, _c: ConnectionTo<Client>| {
                on_cancel(&c5, &n);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(Stdio::new())
        .await;
    settle_on_close(&ctx).await;
    match served {
        Ok(()) => Exit::Succeeded,
        Err(e) => {
            tracing::error!(error = ?e, "the ACP connection ended with an error");
            eprintln!("bearagent acp: {}", e.message);
            Exit::Internal
        }
    }
}

/// A prompt: its session is marked busy here, in the dispatch loop's order,
/// so a cancel sent right behind it finds it; the turn runs off the loop
/// (it runs for long and asks the editor things).
fn on_prompt(
    ctx: &Ctx,
    req: PromptRequest,
    responder: Responder<PromptResponse, agent_client_protocol::V1>,
    conn: ConnectionTo<Client>,
) -> Result<(), Error> {
    let (goal, session, cancel) = match begin_prompt(ctx, &req) {
        Ok(begun) => begun,
        Err(e) => return responder.respond_with_error(e),
    };
    let ctx = ctx.clone();
    let task_conn = conn.clone();
    conn.spawn(async move {
        let answer = prompt(&ctx, &task_conn, &req, goal, session, cancel).await;
        responder.respond_with_result(answer)
    })
}

/// `session/cancel`: the session's run in progress, if any, is cancelled.
fn on_cancel(ctx: &Ctx, n: &CancelNotification) {
    if let Some(run) = ctx.sessions.cancel(&n.session_id.0) {
        let _ = ctx.app.cancel_run(run);
    }
}

/// The editor went away: no one can answer what the runs ask, so they are
/// cancelled and recorded as such before the process ends.
async fn settle_on_close(ctx: &Ctx) {
    for run in ctx.sessions.cancel_all() {
        let _ = ctx.app.cancel_run(run);
        let settled =
            tokio::time::timeout(std::time::Duration::from_secs(10), ctx.app.wait_run(run));
        if settled.await.is_err() {
            tracing::warn!(run = %run, "a run did not settle within 10 s of the editor leaving");
        }
    }
}

fn initialize(req: InitializeRequest) -> InitializeResponse {
    let prompts = PromptCapabilities::new().image(true).embedded_context(true);
    InitializeResponse::new(req.protocol_version)
        .agent_capabilities(
            AgentCapabilities::new()
                .load_session(true)
                .prompt_capabilities(prompts),
        )
        .agent_info(
            Implementation::new("bearagent", env!("CARGO_PKG_VERSION"))
                .title("BearAgent".to_owned()),
        )
}

/// A folder the editor names: absolute, existing, a directory, and not
/// one around BearAgent's own folders.
fn checked_workspace(ctx: &Ctx, cwd: &std::path::Path) -> Result<String, Error> {
    let workspace = workspace_of(cwd)?;
    ctx.app
        .check_workspace_folder(std::path::Path::new(&workspace))
        .map_err(|e| app_error(&e))?;
    Ok(workspace)
}

fn workspace_of(cwd: &std::path::Path) -> Result<String, Error> {
    if !cwd.is_absolute() {
        return Err(invalid(format!(
            "cwd {} is not an absolute path",
            cwd.display()
        )));
    }
    match std::fs::metadata(cwd) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(invalid(format!(
                "cwd {} is a file, not a folder",
                cwd.display()
            )))
        }
        Err(e) => return Err(invalid(format!("cwd {}: {e}", cwd.display()))),
    }
    cwd.canonicalize()
        .map(|p| p.display().to_string())
        .map_err(|e| invalid(format!("cwd {}: {e}", cwd.display())))
}

fn new_session(ctx: &Ctx, req: NewSessionRequest) -> Result<NewSessionResponse, Error> {
    let workspace = checked_workspace(ctx, &req.cwd)?;
    let mode = ctx.choice.initial_mode(&ctx.app).map_err(invalid)?;
    let first_run = RunId::new();
    let id = first_run.to_string();
    ctx.sessions.insert(
        id.clone(),
        Session {
            workspace,
            mode,
            first_run,
            last_run: None,
            active: None,
        },
    );
    Ok(NewSessionResponse::new(id).modes(modes(mode)))
}

fn load_session(
    ctx: &Ctx,
    conn: &ConnectionTo<Client>,
    req: LoadSessionRequest,
) -> Result<LoadSessionResponse, Error> {
    let id = req.session_id.0.to_string();
    let first: RunId = id
        .parse()
        .map_err(|_| invalid(format!("unknown session {id}: not a BearAgent run id")))?;
    let root = ctx.app.get_run(first).map_err(|e| app_error(&e))?;
    let chain = history::chain_of(&ctx.app, &root).map_err(|e| app_error(&e))?;
    let workspace = checked_workspace(ctx, &req.cwd)?;
    if workspace != root.workspace_path {
        return Err(invalid(format!(
            "session {id} belongs to the workspace {}, not {workspace}",
            root.workspace_path
        )));
    }
    for update in history::replay(&ctx.app, &chain, &workspace).map_err(|e| app_error(&e))? {
        conn.send_notification(SessionNotification::new(id.clone(), update))?;
    }
    let mode = ctx.choice.initial_mode(&ctx.app).map_err(invalid)?;
    ctx.sessions.insert(
        id,
        Session {
            workspace,
            mode,
            first_run: first,
            last_run: chain.last().copied(),
            active: None,
        },
    );
    Ok(LoadSessionResponse::new().modes(modes(mode)))
}

fn set_mode(ctx: &Ctx, req: SetSessionModeRequest) -> Result<SetSessionModeResponse, Error> {
    let mode = match &*req.mode_id.0 {
        "ask" => ApprovalMode::AskAll,
        "reads" => ApprovalMode::AskWrites,
        "all" => ApprovalMode::AllowAll,
        other => {
            return Err(invalid(format!(
                "unknown mode {other:?}; expected ask, reads or all"
            )))
        }
    };
    ctx.sessions
        .set_mode(&req.session_id.0, mode)
        .map_err(invalid)?;
    Ok(SetSessionModeResponse::new())
}

/// Checks the prompt and marks its session busy (refused while another
/// prompt of it runs).
fn begin_prompt(
    ctx: &Ctx,
    req: &PromptRequest,
) -> Result<(prompt::Prompt, Session, CancellationToken), Error> {
    let goal = prompt::prompt_of(&req.prompt).map_err(invalid)?;
    let cancel = CancellationToken::new();
    let session = ctx
        .sessions
        .begin(&req.session_id.0, cancel.clone())
        .map_err(invalid)?;
    Ok((goal, session, cancel))
}

async fn prompt(
    ctx: &Ctx,
    conn: &ConnectionTo<Client>,
    req: &PromptRequest,
    goal: prompt::Prompt,
    session: Session,
    cancel: CancellationToken,
) -> Result<PromptResponse, Error> {
    let id = req.session_id.0.to_string();
    // Subscribe before starting so no update of the run is missed.
    let live = ctx.app.subscribe();
    let run = match turn::start(ctx, &session, goal) {
        Ok(run) => run,
        Err(e) => {
            ctx.sessions.end(&id, None);
            return Err(e);
        }
    };
    ctx.sessions.running(&id, run);
    if cancel.is_cancelled() {
        let _ = ctx.app.cancel_run(run);
    }
    let stop = turn::follow(ctx, conn, &id, &session, run, live, &cancel).await;
    ctx.sessions.end(&id, Some(run));
    Ok(PromptResponse::new(stop?))
}
