//! `run_command`: one shell command line (`sh -c`) in the workspace, in the
//! bubblewrap sandbox unless the profile turned it off. Output streams live
//! and comes back to the model as head and tail with the exit code.

use super::common::{make_spec, own_args};
use crate::args::Args;
use crate::authorization::AuthorizedCall;
use crate::error::ArgumentError;
use crate::sandbox::home::{toolchain_roots_on_path, CONFIG_FILES, CREDENTIALS, TOOL_HOME_VARS};
use crate::sandbox::network::{
    looks_like_network_failure, NETWORK_CACHE_DIRS, NETWORK_OFF, NETWORK_SETTING,
};
use crate::sandbox::{self, CommandOutcome, CommandSpec, SandboxMode, SandboxPolicy};
use crate::spec::{CommandPlan, Effect, PreparedCall, Tool, ToolSpec};
use crate::text::{ceil_char_boundary, floor_char_boundary};
use crate::workspace::WorkspaceRoot;
use bearagent_kernel::CommandSettings;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

pub const NAME: &str = "run_command";
/// Longest command line accepted.
const MAX_COMMAND_BYTES: usize = 16 * 1024;
/// Output kept with the command (head + tail): what the timeline can show.
pub const STORED_OUTPUT_CAP: usize = 1024 * 1024;
/// Output the model gets back: the head (often the command's own summary)
/// and a longer tail (where errors and test results end up).
const MODEL_HEAD_BYTES: usize = 4 * 1024;
const MODEL_TAIL_BYTES: usize = 12 * 1024;

/// The machine facts a command's sandbox is built from (not from the
/// model, not from the run): the real home folder, BearAgent's own
/// folders, which commands must never see, and the user's PATH.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostEnvironment {
    pub home: PathBuf,
    pub hidden: Vec<PathBuf>,
    /// The user's PATH, in order: inside, the toolchains it points into
    /// are bound read-only and entries into other hidden folders dropped.
    pub path: Vec<PathBuf>,
    /// Where rustup and cargo keep toolchains when set (`RUSTUP_HOME`,
    /// `CARGO_HOME`; rustup sets them for every program it starts): passed
    /// in and readable, so `cargo` inside finds the user's toolchain.
    pub tool_homes: Vec<(String, PathBuf)>,
}

impl HostEnvironment {
    /// This user's home folder (`$HOME`) and PATH, and `hidden` folders.
    pub fn current(hidden: Vec<PathBuf>) -> Self {
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/nonexistent"));
        let path = std::env::var_os("PATH")
            .map(|path| std::env::split_paths(&path).collect())
            .unwrap_or_default();
        let tool_homes = TOOL_HOME_VARS
            .iter()
            .filter_map(|name| Some((name.to_string(), PathBuf::from(std::env::var_os(name)?))))
            .filter(|(_, dir)| dir.is_absolute() && dir.is_dir())
            .collect();
        Self {
            home,
            hidden,
            path,
            tool_homes,
        }
    }

    /// Where a cache under `~/.cargo` really is when `CARGO_HOME` moved it.
    fn cache_dir(&self, rel: &str) -> PathBuf {
        let cargo_home = self
            .tool_homes
            .iter()
            .find(|(name, _)| name == "CARGO_HOME");
        match (rel.strip_prefix(".cargo/"), cargo_home) {
            (Some(inside), Some((_, dir))) => dir.join(inside),
            _ => self.home.join(rel),
        }
    }

    /// The sandbox of a command in `workspace` with the run's settings:
    /// what it may read and write of this machine, its PATH and the
    /// profile's variables (read now, never recorded).
    pub fn policy(&self, workspace: &Path, settings: &CommandSettings) -> SandboxPolicy {
        SandboxPolicy {
            workspace: workspace.to_path_buf(),
            home: self.home.clone(),
            network: settings.network,
            readable_home_dirs: self.readable_dirs(settings),
            // Only a command that may download may write the caches.
            writable_home_dirs: if settings.network {
                NETWORK_CACHE_DIRS
                    .iter()
                    .map(|d| self.cache_dir(d))
                    .collect()
            } else {
                Vec::new()
            },
            hidden: self.hidden.clone(),
            config_files: CONFIG_FILES.iter().map(|f| self.home.join(f)).collect(),
            credentials: CREDENTIALS.iter().map(|f| self.home.join(f)).collect(),
            path: self.path.clone(),
            env: settings
                .env
                .iter()
                .filter_map(|name| std::env::var(name).ok().map(|v| (name.clone(), v)))
                .chain(
                    self.tool_homes
                        .iter()
                        .filter(|(name, _)| !settings.env.contains(name))
                        .map(|(name, dir)| (name.clone(), dir.display().to_string())),
                )
                .collect(),
        }
    }

    /// The home folders a command may read: the profile's toolchain dirs
    /// and the version managers the user's PATH points into.
    fn readable_dirs(&self, settings: &CommandSettings) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = settings
            .toolchain_dirs
            .iter()
            .map(|dir| self.home.join(dir))
            .collect();
        let homes = self.tool_homes.iter().map(|(_, dir)| dir.clone());
        for root in toolchain_roots_on_path(&self.home, &self.path)
            .into_iter()
            .chain(homes)
        {
            if !dirs.contains(&root) {
                dirs.push(root);
            }
        }
        dirs
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct CommandArgs {
    command: String,
    cwd: String,
    timeout_secs: Option<u32>,
}

pub struct RunCommand {
    spec: ToolSpec,
}

impl RunCommand {
    pub fn new() -> Self {
        let parameters = json!({
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "One command line, run by `sh -c` (pipes, && and redirections work), e.g. \"cargo test 2>&1 | tail -40\"."},
                "cwd": {"type": "string", "description": "Working directory, relative to the workspace root. Default \".\"."},
                "timeout_secs": {"type": "integer", "minimum": 1, "maximum": 86400, "description": "Stop the command after this many seconds (capped by the user's profile). Default: the profile's limit."}
            },
            "required": ["command"],
            "additionalProperties": false
        });
        Self {
            spec: make_spec(
                NAME,
                "Run a shell command in the workspace, e.g. to build or run tests. It runs in a sandbox: only the \
                 workspace is writable, the home folder is hidden, .git is read-only and the network is off unless \
                 the user allowed it (then package managers work offline: cached dependencies only). Returns the exit code and the output (merged stdout and stderr; long output \
                 keeps its beginning and end). Commands may need the user's approval.",
                parameters,
                Effect::RunsCommand,
            ),
        }
    }
}

impl Tool for RunCommand {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn prepare(
        &self,
        args: &Map<String, Value>,
        ws: &WorkspaceRoot,
    ) -> Result<PreparedCall, ArgumentError> {
        let a = Args::new(args, &["command", "cwd", "timeout_secs"])?;
        let command = a.required_str("command")?;
        if command.trim().is_empty() {
            return Err(ArgumentError::invalid("command", "must not be empty"));
        }
        if command.len() > MAX_COMMAND_BYTES {
            return Err(ArgumentError::invalid(
                "command",
                format!(
                    "is longer than {MAX_COMMAND_BYTES} bytes; write a script file and run that"
                ),
            ));
        }
        if command.contains('\0') {
            return Err(ArgumentError::invalid("command", "must not contain NUL"));
        }
        let (cwd_abs, cwd_rel) = a.existing_path("cwd", Some("."), ws)?;
        if !cwd_abs.is_dir() {
            return Err(ArgumentError::invalid(
                "cwd",
                format!("{cwd_rel} is not a directory"),
            ));
        }
        let cwd_rel = if cwd_rel.is_empty() {
            ".".to_owned()
        } else {
            cwd_rel
        };
        let timeout_secs = a
            .optional_uint("timeout_secs", 1, 86_400)?
            .map(|t| u32::try_from(t).unwrap_or(u32::MAX));
        let normalised = CommandArgs {
            command: command.to_owned(),
            cwd: cwd_rel.clone(),
            timeout_secs,
        };
        let summary = format!("run `{}` in {cwd_rel}", one_line(command, 200));
        let args = serde_json::to_value(&normalised)
            .map_err(|e| ArgumentError::invalid("command", e.to_string()))?;
        Ok(PreparedCall::command(
            self.spec.name.clone(),
            summary,
            CommandPlan {
                command: command.to_owned(),
                cwd_rel,
                cwd_abs,
                timeout_secs,
            },
            args,
        ))
    }
}

/// How one command went: the outcome (or why it could not start) and the
/// text the model gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandRun {
    pub outcome: Result<CommandOutcome, sandbox::SandboxError>,
    pub for_model: String,
    /// The network was off in the sandbox, the command failed, and its
    /// output reads like a refused network access (the model was told
    /// which setting allows it).
    pub network_refused: bool,
}

impl CommandRun {
    /// Failed to start, timed out, was cancelled or exited non-zero.
    pub fn is_error(&self) -> bool {
        match &self.outcome {
            Ok(o) => o.timed_out || o.cancelled || o.exit_code != Some(0),
            Err(_) => true,
        }
    }
}

impl RunCommand {
    /// The one way a command runs: the authorised call, with the run's
    /// settings, streaming its output to `on_output`. The authorisation is
    /// spent here.
    pub async fn run(
        &self,
        call: AuthorizedCall,
        ws: &WorkspaceRoot,
        settings: &CommandSettings,
        host: &HostEnvironment,
        cancel: CancellationToken,
        on_output: impl FnMut(&[u8]) + Send,
    ) -> CommandRun {
        let plan = match own_args::<CommandArgs>(&self.spec, &call) {
            Ok(_) => call.command_plan().cloned(),
            Err(e) => return not_run(e.to_string()),
        };
        let Some(plan) = plan else {
            return not_run("a command call without its command".into());
        };
        run_plan(&plan, ws, settings, host, cancel, on_output).await
    }
}

/// A call that never reached the sandbox: the reason is its outcome.
fn not_run(why: String) -> CommandRun {
    CommandRun {
        for_model: format!("internal error: {why}"),
        outcome: Err(sandbox::SandboxError::InvalidPolicy(why)),
        network_refused: false,
    }
}

async fn run_plan(
    plan: &CommandPlan,
    ws: &WorkspaceRoot,
    settings: &CommandSettings,
    host: &HostEnvironment,
    cancel: CancellationToken,
    on_output: impl FnMut(&[u8]) + Send,
) -> CommandRun {
    let max = settings.max_timeout_secs.max(1);
    let secs = plan.timeout_secs.unwrap_or(max).clamp(1, max);
    let policy = host.policy(ws.path(), settings);
    let spec = CommandSpec {
        command: plan.command.clone(),
        cwd: plan.cwd_abs.clone(),
        timeout: Duration::from_secs(u64::from(secs)),
        output_cap: STORED_OUTPUT_CAP,
    };
    let mode = if settings.sandbox {
        SandboxMode::On
    } else {
        SandboxMode::Off
    };
    let outcome = sandbox::run(mode, &policy, &spec, cancel, on_output).await;
    let network_off = mode == SandboxMode::On && !settings.network;
    let (for_model, network_refused) = match &outcome {
        Ok(o) => {
            let failed = o.timed_out || (!o.cancelled && o.exit_code != Some(0));
            let refused = network_off && failed && looks_like_network_failure(&o.output);
            let note = network_note(network_off, refused);
            (model_text(o, secs, &note), refused)
        }
        Err(e) => (format!("the command did not run: {e}"), false),
    };
    CommandRun {
        outcome,
        for_model,
        network_refused,
    }
}

/// What the status line says about the network: nothing when it is on
/// (or there is no sandbox); that it is off; and, when the failure reads
/// like a refused network access, the setting that allows it — first, so
/// a one-line rendering of the result still shows it.
pub fn network_note(network_off: bool, refused: bool) -> String {
    match (network_off, refused) {
        (false, _) => String::new(),
        (true, false) => format!("; {NETWORK_OFF}"),
        (true, true) => format!(
            "; {NETWORK_OFF} — this looks like a network failure; {NETWORK_SETTING} \
             (package managers were told to work offline: only cached dependencies resolve)"
        ),
    }
}

/// Exit status, duration, the network note and output as the model reads
/// it: ANSI colour codes removed, long output cut to head and tail with a
/// note.
fn model_text(o: &CommandOutcome, timeout_secs: u32, network_note: &str) -> String {
    let status = if o.timed_out {
        format!("timed out after {timeout_secs} s (everything it started was stopped)")
    } else if o.cancelled {
        "cancelled by the user".to_owned()
    } else {
        match (o.exit_code, o.signal) {
            (Some(code), _) => format!("exit code {code}"),
            (None, Some(sig)) => format!("killed by signal {sig}"),
            (None, None) => "ended without an exit code".to_owned(),
        }
    };
    let text = strip_ansi(&String::from_utf8_lossy(&o.output));
    let mut out = format!(
        "{status}, after {:.1} s{network_note}\n",
        o.duration.as_secs_f64()
    );
    let cut = text.len() > MODEL_HEAD_BYTES + MODEL_TAIL_BYTES;
    if o.total_bytes == 0 {
        out.push_str("(no output)\n");
    } else if cut || o.truncated {
        let head_end = floor_char_boundary(&text, MODEL_HEAD_BYTES);
        let tail_start = ceil_char_boundary(&text, text.len().saturating_sub(MODEL_TAIL_BYTES));
        let tail_start = tail_start.max(head_end);
        out.push_str(&format!(
            "output: {} bytes, showing the first {} and the last {}:\n",
            o.total_bytes,
            head_end,
            text.len() - tail_start
        ));
        out.push_str(&text[..head_end]);
        out.push_str("\n[… output cut …]\n");
        out.push_str(&text[tail_start..]);
    } else {
        out.push_str(&text);
    }
    out
}

/// Removes ANSI escape sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL`
/// and two-byte escapes); the model needs the text, not the colours.
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn one_line(s: &str, max: usize) -> String {
    let line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > max {
        let cut: String = line.chars().take(max).collect();
        format!("{cut}…")
    } else {
        line
    }
}

#[cfg(test)]
#[cfg(target_os = "linux")]
#[path = "run_command_sandbox_tests.rs"]
mod sandbox_tests;
#[cfg(test)]
#[path = "run_command_tests.rs"]
mod tests;
