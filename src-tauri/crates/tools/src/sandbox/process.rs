//! Spawning, streaming, killing and capturing one command.
//!
//! The command's stdout and stderr are two descriptors of one pipe (merged in
//! write order). bwrap — or `sh` with the sandbox off — leads its own process
//! group, which a timeout or cancel kills.
//!
//! Under bwrap the command runs in a PID namespace whose init is a child of
//! bwrap (in its own session, so not in our group). When the init dies the
//! kernel kills everything in the namespace, and the init turns zombie only
//! once all of it is gone. bwrap returns as soon as the command exits; its
//! `--die-with-parent` then kills the init (which would otherwise wait for
//! background jobs). So we learn the init's pid while bwrap runs (polling
//! bwrap's child list for the first few milliseconds), kill it directly on
//! timeout or cancel, and before returning wait until it is a zombie: then no
//! process the command started is left.

use super::capture::Capture;
use super::error::SandboxError;
use super::policy::{CommandOutcome, CommandSpec, SandboxMode, SandboxPolicy, Wiring};
use super::{bwrap, env};
use rustix::process::{kill_process, kill_process_group, Pid, Signal};
use std::os::fd::OwnedFd;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};
use tokio::io::AsyncReadExt;
use tokio::process::{Child, Command};
use tokio::time::sleep_until;
use tokio_util::sync::CancellationToken;

/// Bytes per read, and so the largest chunk `on_chunk` sees.
pub(super) const CHUNK: usize = 8 * 1024;
/// How long to keep reading after the command exited, for writers that
/// escaped the kill (only possible with the sandbox off).
const DRAIN_GRACE: Duration = Duration::from_secs(2);
/// How long to wait for a sandbox's PID namespace (or, with the sandbox off,
/// the process group) to empty.
const TEARDOWN_WAIT: Duration = Duration::from_secs(2);
/// How often to look for the namespace init until it is found.
const INIT_POLL: Duration = Duration::from_millis(1);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
    Timeout,
    Cancel,
}

pub(super) async fn run(
    mode: SandboxMode,
    policy: &SandboxPolicy,
    spec: &CommandSpec,
    wiring: &Wiring,
    cancel: CancellationToken,
    on_chunk: impl FnMut(&[u8]) + Send,
) -> Result<CommandOutcome, SandboxError> {
    let started = Instant::now();
    let mut command = spawn(mode, policy, spec, wiring)?;
    let Watched {
        status,
        stopped,
        namespace_init,
        capture,
        stderr,
    } = watch(mode, spec, &mut command, cancel, on_chunk).await?;
    teardown(mode, command.pid, namespace_init).await;

    // The loop ends only once the exit status is in.
    let status = status.ok_or_else(|| SandboxError::Io("the exit status was lost".into()))?;
    let captured = capture.finish();
    Ok(CommandOutcome {
        exit_code: status.code(),
        signal: status.signal(),
        duration: started.elapsed(),
        output: captured.output,
        total_bytes: captured.total,
        truncated: captured.truncated,
        timed_out: stopped == Some(Stop::Timeout),
        cancelled: stopped == Some(Stop::Cancel),
        stderr: stderr.map(|c| c.finish().output).unwrap_or_default(),
    })
}

fn io_error(what: &str, error: std::io::Error) -> SandboxError {
    SandboxError::Io(format!("{what}: {error}"))
}

/// A started command. Dropped early (an error, the call abandoned), its
/// group and then the child itself are killed: fields drop in this order.
struct Spawned {
    reader: tokio::net::unix::pipe::Receiver,
    /// stderr's own pipe, when it is kept apart.
    err_reader: Option<tokio::net::unix::pipe::Receiver>,
    group: GroupGuard,
    child: Child,
    pid: Pid,
}

/// Starts the command as its own process group, stdout and stderr both
/// the write end of one pipe (or each its own, when `wiring` splits them).
fn spawn(
    mode: SandboxMode,
    policy: &SandboxPolicy,
    spec: &CommandSpec,
    wiring: &Wiring,
) -> Result<Spawned, SandboxError> {
    let stdin = wiring.stdin.as_deref();
    let mut command = match mode {
        SandboxMode::On => sandboxed(policy, spec, wiring)?,
        // Without the sandbox nothing can keep the workspace read-only:
        // refused rather than run with more than was granted.
        SandboxMode::Off if wiring.workspace_read_only => {
            return Err(SandboxError::InvalidPolicy(
                "a read-only workspace needs the sandbox, which is off".into(),
            ))
        }
        SandboxMode::Off => unsandboxed(policy, spec, stdin)?,
    };
    let (reader, writer) = std::io::pipe().map_err(|e| io_error("output pipe", e))?;
    let (err_reader, err_writer) = if wiring.split_stderr {
        let (r, w) = std::io::pipe().map_err(|e| io_error("stderr pipe", e))?;
        (Some(receiver(r)?), w)
    } else {
        let writer_too = writer.try_clone().map_err(|e| io_error("output pipe", e))?;
        (None, writer_too)
    };
    command
        .stdout(writer)
        .stderr(err_writer)
        .process_group(0)
        .kill_on_drop(true);
    let child = command
        .spawn()
        .map_err(|error| SandboxError::Spawn(error.to_string()))?;
    // The command keeps our copies of the write end; drop them so EOF means
    // every writer in the sandbox is gone.
    drop(command);
    let pid = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .and_then(Pid::from_raw)
        .ok_or_else(|| SandboxError::Spawn("the command exited before it got a pid".into()))?;
    let group = GroupGuard(Some(pid));
    Ok(Spawned {
        reader: receiver(reader)?,
        err_reader,
        group,
        child,
        pid,
    })
}

fn receiver(reader: std::io::PipeReader) -> Result<tokio::net::unix::pipe::Receiver, SandboxError> {
    tokio::net::unix::pipe::Receiver::from_owned_fd(OwnedFd::from(reader))
        .map_err(|e| io_error("output pipe", e))
}

/// Reads stderr's own pipe; without one, never ready (its branch is off).
async fn read_err(
    reader: Option<&mut tokio::net::unix::pipe::Receiver>,
    buf: &mut [u8],
) -> std::io::Result<usize> {
    match reader {
        Some(reader) => reader.read(buf).await,
        None => std::future::pending().await,
    }
}

/// What watching a command found. `status` is always in once the watch
/// ends well.
struct Watched {
    status: Option<ExitStatus>,
    stopped: Option<Stop>,
    namespace_init: Option<ProcRef>,
    capture: Capture,
    /// stderr, when it has its own pipe.
    stderr: Option<Capture>,
}

/// Reads the command's output until it exits and its pipe is closed (or,
/// for writers that escaped the kill, a grace period after the exit),
/// killing it on timeout or cancel, and looking for the sandbox's
/// namespace init meanwhile.
async fn watch(
    mode: SandboxMode,
    spec: &CommandSpec,
    command: &mut Spawned,
    cancel: CancellationToken,
    mut on_chunk: impl FnMut(&[u8]) + Send,
) -> Result<Watched, SandboxError> {
    let pid = command.pid;
    let now = tokio::time::Instant::now();
    let far = Duration::from_secs(10 * 365 * 24 * 3600);
    let deadline = now.checked_add(spec.timeout).unwrap_or(now + far);
    let mut drain_until = now + far;
    let mut capture = Capture::new(spec.output_cap);
    let mut stderr = stderr_capture(command, spec);
    let mut err_eof = stderr.is_none();
    let mut err_buf = vec![0u8; CHUNK];
    let mut buf = vec![0u8; CHUNK];
    let mut status: Option<ExitStatus> = None;
    let mut stopped: Option<Stop> = None;
    let mut namespace_init: Option<ProcRef> = None;
    let mut find_init = tokio::time::interval(INIT_POLL);
    find_init.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut eof = false;
    while !(eof && err_eof && status.is_some()) {
        let running = status.is_none() && stopped.is_none();
        let looking = mode == SandboxMode::On && namespace_init.is_none() && running;
        tokio::select! {
            biased;
            _ = cancel.cancelled(), if running => {
                stopped = Some(Stop::Cancel);
                kill_all(mode, pid, &mut namespace_init);
            }
            _ = sleep_until(deadline), if running => {
                stopped = Some(Stop::Timeout);
                kill_all(mode, pid, &mut namespace_init);
            }
            _ = find_init.tick(), if looking => {
                namespace_init = ProcRef::first_child(pid.as_raw_pid(), false);
            }
            exit = command.child.wait(), if status.is_none() => {
                status = Some(exit.map_err(|e| io_error("waiting for the command", e))?);
                command.group.0 = None; // reaped: the pid may be reused from now on
                if mode == SandboxMode::Off {
                    // Background jobs still in the group; the pgid stays
                    // reserved while any member lives.
                    let _ = kill_process_group(pid, Signal::KILL);
                }
                drain_until = tokio::time::Instant::now() + DRAIN_GRACE;
            }
            read = command.reader.read(&mut buf), if !eof => match read {
                Ok(0) => eof = true,
                Ok(n) => {
                    capture.push(&buf[..n]);
                    on_chunk(&buf[..n]);
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => return Err(io_error("reading output", error)),
            },
            read = read_err(command.err_reader.as_mut(), &mut err_buf), if !err_eof => match read {
                Ok(0) => err_eof = true,
                Ok(n) => {
                    if let Some(stderr) = stderr.as_mut() {
                        stderr.push(&err_buf[..n]);
                    }
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => return Err(io_error("reading stderr", error)),
            },
            _ = sleep_until(drain_until), if status.is_some() && !(eof && err_eof) => break,
        }
    }
    Ok(Watched {
        status,
        stopped,
        namespace_init,
        capture,
        stderr,
    })
}

/// stderr's own capture, when it has a pipe of its own.
fn stderr_capture(command: &Spawned, spec: &CommandSpec) -> Option<Capture> {
    command
        .err_reader
        .as_ref()
        .map(|_| Capture::new(spec.output_cap))
}

/// Waits (bounded) until no process the command started is left: under
/// bwrap, until the namespace init is gone; with the sandbox off, until
/// the group has no live member.
async fn teardown(mode: SandboxMode, pid: Pid, namespace_init: Option<ProcRef>) {
    match (mode, namespace_init) {
        (SandboxMode::On, Some(init)) => init.wait_gone(TEARDOWN_WAIT).await,
        (SandboxMode::Off, _) => wait_group_gone(pid.as_raw_pid(), TEARDOWN_WAIT).await,
        // Not found: bwrap failed before it made one (or was faster than
        // the first polls; then --die-with-parent still ends it, unawaited).
        (SandboxMode::On, None) => {}
    }
}

/// `bwrap … -- /bin/sh -c COMMAND`; bwrap itself gets an empty environment
/// (its init's environment is readable inside the sandbox).
fn sandboxed(
    policy: &SandboxPolicy,
    spec: &CommandSpec,
    wiring: &Wiring,
) -> Result<Command, SandboxError> {
    let stdin = wiring.stdin.as_deref();
    let bwrap = bwrap::bwrap_path()?;
    let mut layout = bwrap::resolve(policy)?;
    layout.workspace_read_only = wiring.workspace_read_only;
    let cwd = confined_cwd(&spec.cwd, &layout.workspace)?;
    let bin_dirs: Vec<PathBuf> = layout
        .readable
        .iter()
        .filter(|(source, _)| source.join("bin").is_dir())
        .map(|(_, target)| target.join("bin"))
        .collect();
    let path = env::command_path(policy, &bin_dirs, true);
    if !path.dropped.is_empty() {
        tracing::debug!(dropped = ?path.dropped, "PATH entries the sandbox cannot see were left out");
    }
    let env = env::command_env(policy, &path.entries, !policy.network)?;
    let mut command = Command::new(bwrap);
    command
        .args(bwrap::args(&layout, &cwd, &env, &spec.command, stdin))
        .env_clear()
        .current_dir("/")
        .stdin(bwrap::filter_stdin(policy.network)?);
    Ok(command)
}

/// Plain `/bin/sh -c COMMAND` with the scrubbed environment.
fn unsandboxed(
    policy: &SandboxPolicy,
    spec: &CommandSpec,
    stdin: Option<&Path>,
) -> Result<Command, SandboxError> {
    let workspace = std::fs::canonicalize(&policy.workspace).map_err(|error| {
        SandboxError::InvalidPolicy(format!("workspace {}: {error}", policy.workspace.display()))
    })?;
    let cwd = confined_cwd(&spec.cwd, &workspace)?;
    let bin_dirs: Vec<PathBuf> = policy
        .readable_home_dirs
        .iter()
        .map(|dir| dir.join("bin"))
        .filter(|dir| dir.is_dir())
        .collect();
    // Unsandboxed, the host's network is there whatever the profile says.
    let path = env::command_path(policy, &bin_dirs, false);
    let env = env::command_env(policy, &path.entries, false)?;
    let mut command = Command::new("/bin/sh");
    command
        .arg("-c")
        .arg(&spec.command)
        .env_clear()
        .envs(env)
        .current_dir(cwd);
    match stdin {
        Some(path) => {
            let file = std::fs::File::open(path).map_err(|e| io_error("the command's input", e))?;
            command.stdin(file)
        }
        None => command.stdin(Stdio::null()),
    };
    Ok(command)
}

fn confined_cwd(cwd: &Path, workspace: &Path) -> Result<PathBuf, SandboxError> {
    std::fs::canonicalize(cwd)
        .ok()
        .filter(|cwd| cwd.starts_with(workspace) && cwd.is_dir())
        .ok_or_else(|| {
            SandboxError::InvalidPolicy(format!(
                "working directory {} is not a folder inside the workspace {}",
                cwd.display(),
                workspace.display()
            ))
        })
}

/// SIGKILL to the spawned process's group and, under bwrap, to the namespace
/// init (looked up now if the polling has not found it yet).
fn kill_all(mode: SandboxMode, pid: Pid, namespace_init: &mut Option<ProcRef>) {
    if mode == SandboxMode::On && namespace_init.is_none() {
        *namespace_init = ProcRef::first_child(pid.as_raw_pid(), true);
    }
    let _ = kill_process_group(pid, Signal::KILL);
    if let Some(init_pid) = namespace_init
        .as_ref()
        .and_then(|init| Pid::from_raw(init.pid))
    {
        let _ = kill_process(init_pid, Signal::KILL);
    }
}

/// Sandbox off: waits until no live process is left in the group (zombies
/// do not count: some container inits never reap them).
async fn wait_group_gone(pgid: i32, limit: Duration) {
    let until = Instant::now() + limit;
    while Instant::now() < until && group_has_live_member(pgid) {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

fn group_has_live_member(pgid: i32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(stat)
        .any(|stat| stat.pgrp == pgid && !matches!(stat.state, 'Z' | 'X'))
}

/// Kills the group if the call is abandoned before the child was reaped
/// (the future dropped, an error returned).
struct GroupGuard(Option<Pid>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pid) = self.0 {
            let _ = kill_process_group(pid, Signal::KILL);
        }
    }
}

/// A process identified by pid and start time, so a reused pid is not
/// mistaken for it.
struct ProcRef {
    pid: i32,
    start: u64,
}

impl ProcRef {
    /// `scan`: on kernels without CONFIG_PROC_CHILDREN, scan all of /proc
    /// (too slow for the polling; done only when killing).
    fn first_child(parent: i32, scan: bool) -> Option<ProcRef> {
        let listed = std::fs::read_to_string(format!("/proc/{parent}/task/{parent}/children"));
        let pid = match listed {
            Ok(text) => text.split_whitespace().next()?.parse().ok()?,
            Err(_) if !scan => return None,
            Err(_) => std::fs::read_dir("/proc")
                .ok()?
                .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
                .find(|&pid| stat(pid).is_some_and(|stat| stat.ppid == parent))?,
        };
        Some(ProcRef {
            pid,
            start: stat(pid)?.start,
        })
    }

    async fn wait_gone(&self, limit: Duration) {
        let until = Instant::now() + limit;
        while Instant::now() < until {
            match stat(self.pid) {
                Some(now) if now.start == self.start && !matches!(now.state, 'Z' | 'X') => {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                _ => return,
            }
        }
    }
}

struct Stat {
    state: char,
    ppid: i32,
    pgrp: i32,
    start: u64,
}

/// Fields of `/proc/PID/stat` after the `(comm)`, which may hold spaces.
fn stat(pid: i32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some(Stat {
        state: fields.first()?.chars().next()?,
        ppid: fields.get(1)?.parse().ok()?,
        pgrp: fields.get(2)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?, // field 22: starttime
    })
}
