//! The child process of a stdio server: started with a scrubbed
//! environment in its own process group, stderr drained into `tracing`,
//! stdout watched for output that is not JSON-RPC, and the whole group
//! killed when the connection goes away.

use crate::error::McpError;
use std::ffi::OsString;
use std::path::Path;
use std::pin::Pin;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, ReadBuf};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// Variables passed through from BearAgent's own environment. Everything
/// else (API keys above all) stays behind; the config adds what a server needs.
pub const INHERITED_ENV: [&str; 3] = ["PATH", "HOME", "LANG"];
/// Stderr forwarded to the log per server; the rest is read and dropped.
pub const STDERR_CAP: usize = 64 * 1024;
/// Kept for error messages: a server that dies usually says why last.
const STDERR_TAIL: usize = 2 * 1024;
/// One stderr line longer than this is logged in pieces.
const STDERR_LINE: usize = 4 * 1024;
/// How much of a non-JSON stdout line an error quotes.
const GARBAGE_QUOTE: usize = 200;

/// The environment of a server's process: PATH, HOME and LANG from ours
/// (when set), then the config's variables, which win.
pub fn server_env(config_env: &[(String, String)]) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = INHERITED_ENV
        .iter()
        .filter_map(|k| std::env::var_os(k).map(|v| (OsString::from(k), v)))
        .collect();
    for (k, v) in config_env {
        env.retain(|(ek, _)| ek.as_os_str() != k.as_str());
        env.push((k.into(), v.into()));
    }
    env
}

/// A started server process and the pipes rmcp talks over.
pub(crate) struct Spawned {
    pub process: ServerProcess,
    pub stdout: GuardedStdout<ChildStdout>,
    pub stdin: ChildStdin,
}

pub(crate) fn spawn(
    server: &str,
    command: &str,
    args: &[String],
    env: &[(String, String)],
    cwd: Option<&Path>,
) -> Result<Spawned, McpError> {
    let start_failed = |reason: String| McpError::StartFailed {
        server: server.to_owned(),
        reason,
    };
    if command.trim().is_empty() {
        return Err(McpError::Config {
            server: server.to_owned(),
            reason: "`command` is empty".into(),
        });
    }
    if let Some(dir) = cwd {
        if !dir.is_dir() {
            return Err(start_failed(format!(
                "working directory {} does not exist",
                dir.display()
            )));
        }
    }
    let mut cmd = Command::new(command);
    cmd.args(args)
        .env_clear()
        .envs(server_env(env))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // Its own group: a terminal's Ctrl-C does not reach it (we stop it),
    // and killing the group also stops what it started (npx → node).
    #[cfg(unix)]
    cmd.process_group(0);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    let mut child = cmd.spawn().map_err(|e| {
        start_failed(match e.kind() {
            std::io::ErrorKind::NotFound => {
                format!("command `{command}` not found (is it installed and on PATH?)")
            }
            std::io::ErrorKind::PermissionDenied => {
                format!("command `{command}` is not executable")
            }
            _ => format!("could not run `{command}`: {e}"),
        })
    })?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(start_failed("its stdio pipes could not be opened".into()));
    };
    let stderr_tail = Arc::new(Mutex::new(String::new()));
    let stderr_done = Arc::new(AtomicBool::new(false));
    tokio::spawn(pump_stderr(
        server.to_owned(),
        stderr,
        stderr_tail.clone(),
        stderr_done.clone(),
    ));
    let garbage = Arc::new(OnceLock::new());
    let pid = child.id();
    Ok(Spawned {
        process: ServerProcess {
            child: Mutex::new(Some(child)),
            pid,
            garbage: garbage.clone(),
            stderr_tail,
            stderr_done,
        },
        stdout: GuardedStdout::new(stdout, garbage),
        stdin,
    })
}

/// Owns the child. Dropping it kills the process group.
pub(crate) struct ServerProcess {
    child: Mutex<Option<Child>>,
    pid: Option<u32>,
    garbage: Arc<OnceLock<String>>,
    stderr_tail: Arc<Mutex<String>>,
    /// Set when stderr reached EOF, i.e. all of it is in `stderr_tail`.
    stderr_done: Arc<AtomicBool>,
}

impl ServerProcess {
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The first stdout line that was not JSON-RPC, if any.
    pub fn garbage(&self) -> Option<&str> {
        self.garbage.get().map(String::as_str)
    }

    /// Why the connection ended, for an error message: the exit status (if
    /// the process exits within `wait`) and the last line of its stderr.
    pub async fn exit_detail(&self, wait: Duration) -> String {
        let deadline = tokio::time::Instant::now() + wait;
        let status = loop {
            match self.try_wait() {
                Some(status) => break Some(status),
                None if tokio::time::Instant::now() >= deadline => break None,
                None => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        };
        let mut detail = match status {
            Some(status) => {
                // Its last words may still be in the pipe.
                let drained = tokio::time::Instant::now() + Duration::from_millis(300);
                while !self.stderr_done.load(Ordering::Acquire)
                    && tokio::time::Instant::now() < drained
                {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                describe(status)
            }
            None => "it closed its stdout".to_owned(),
        };
        let tail = lock(&self.stderr_tail).trim().to_owned();
        if let Some(last) = tail.lines().last() {
            detail.push_str("; stderr: ");
            detail.push_str(last);
        }
        detail
    }

    pub fn has_exited(&self) -> bool {
        self.try_wait().is_some()
    }

    fn try_wait(&self) -> Option<ExitStatus> {
        lock(&self.child)
            .as_mut()
            .and_then(|c| c.try_wait().ok().flatten())
    }

    /// Stops the server as the MCP spec asks: its stdin is already closed,
    /// so wait for it to exit, then SIGTERM, then SIGKILL.
    pub async fn terminate(self, grace: Duration) {
        let Some(mut child) = lock(&self.child).take() else {
            return;
        };
        if tokio::time::timeout(grace, child.wait()).await.is_err() {
            signal_group(self.pid, Signal::Term);
            if tokio::time::timeout(grace, child.wait()).await.is_err() {
                signal_group(self.pid, Signal::Kill);
                let _ = child.kill().await;
            }
        }
        // Whatever it started and left behind goes too.
        signal_group(self.pid, Signal::Kill);
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let mut slot = lock(&self.child);
        if let Some(child) = slot.as_mut() {
            // Not reaped yet, so the group id cannot have been reused.
            signal_group(self.pid, Signal::Kill);
            let _ = child.start_kill();
            let _ = child.try_wait();
        }
    }
}

fn describe(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return format!("killed by signal {sig}");
        }
    }
    match status.code() {
        Some(code) => format!("exit code {code}"),
        None => status.to_string(),
    }
}

#[derive(Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

fn signal_group(pid: Option<u32>, signal: Signal) {
    #[cfg(unix)]
    if let Some(pgid) = pid
        .and_then(|p| i32::try_from(p).ok())
        .and_then(rustix::process::Pid::from_raw)
    {
        let sig = match signal {
            Signal::Term => rustix::process::Signal::TERM,
            Signal::Kill => rustix::process::Signal::KILL,
        };
        // ESRCH (nothing left in the group) is the usual, good answer.
        let _ = rustix::process::kill_process_group(pgid, sig);
    }
    #[cfg(not(unix))]
    let _ = (pid, signal);
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Forwards stderr to `tracing` line by line, at most [`STDERR_CAP`] bytes,
/// then keeps reading (so the server never blocks on a full pipe) without
/// logging. The last lines are kept for error messages.
async fn pump_stderr(
    server: String,
    mut stderr: tokio::process::ChildStderr,
    tail: Arc<Mutex<String>>,
    done: Arc<AtomicBool>,
) {
    let mut logged = 0usize;
    let mut truncated = false;
    let mut line: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = match stderr.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for &b in &chunk[..n] {
            if b != b'\n' {
                line.push(b);
                if line.len() < STDERR_LINE {
                    continue;
                }
            }
            let text = String::from_utf8_lossy(&line).trim_end().to_owned();
            line.clear();
            keep_tail(&tail, &text);
            if logged + text.len() <= STDERR_CAP {
                logged += text.len() + 1;
                tracing::warn!(target: "bearagent_mcp::stderr", server = %server, "{text}");
            } else if !truncated {
                truncated = true;
                tracing::warn!(target: "bearagent_mcp::stderr", server = %server,
                    "stderr truncated after {} KiB; the rest is not logged", STDERR_CAP / 1024);
            }
        }
    }
    if !line.is_empty() {
        let text = String::from_utf8_lossy(&line).trim_end().to_owned();
        keep_tail(&tail, &text);
        if !truncated && logged + text.len() <= STDERR_CAP {
            tracing::warn!(target: "bearagent_mcp::stderr", server = %server, "{text}");
        }
    }
    done.store(true, Ordering::Release);
}

fn keep_tail(tail: &Mutex<String>, text: &str) {
    if text.is_empty() {
        return;
    }
    let mut t = lock(tail);
    t.push_str(text);
    t.push('\n');
    if t.len() > STDERR_TAIL {
        let mut cut = t.len() - STDERR_TAIL;
        while !t.is_char_boundary(cut) {
            cut += 1;
        }
        t.drain(..cut);
    }
}

/// Stdout as rmcp reads it, ended (EOF) at the first line that cannot be a
/// JSON-RPC message. The MCP spec reserves a stdio server's stdout for
/// JSON-RPC; rmcp skips unparsable lines silently, which would turn a
/// server that prints banners or logs there into a silent hang.
pub(crate) struct GuardedStdout<R> {
    inner: R,
    /// No byte but whitespace (or a BOM) seen yet on the current line.
    line_start: bool,
    garbage: Arc<OnceLock<String>>,
}

impl<R> GuardedStdout<R> {
    pub fn new(inner: R, garbage: Arc<OnceLock<String>>) -> Self {
        Self {
            inner,
            line_start: true,
            garbage,
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for GuardedStdout<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.garbage.get().is_some() {
            return Poll::Ready(Ok(()));
        }
        let before = buf.filled().len();
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {}
            other => return other,
        }
        let mut bad: Option<String> = None;
        let mut line_start = self.line_start;
        let new = &buf.filled()[before..];
        for (i, &b) in new.iter().enumerate() {
            if b == b'\n' {
                line_start = true;
            } else if line_start && !(b.is_ascii_whitespace() || matches!(b, 0xEF | 0xBB | 0xBF)) {
                line_start = false;
                if b != b'{' && b != b'[' {
                    let rest = &new[i..];
                    let end = rest
                        .iter()
                        .position(|&c| c == b'\n')
                        .unwrap_or(rest.len())
                        .min(GARBAGE_QUOTE);
                    bad = Some(String::from_utf8_lossy(&rest[..end]).trim_end().to_owned());
                    break;
                }
            }
        }
        self.line_start = line_start;
        if let Some(quote) = bad {
            let _ = self.garbage.set(quote);
            // Deliver nothing of this read: the stream ends here.
            buf.set_filled(before);
        }
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    async fn read_all(input: &'static [u8]) -> (Vec<u8>, Option<String>) {
        let garbage = Arc::new(OnceLock::new());
        let mut r = GuardedStdout::new(input, garbage.clone());
        let mut out = Vec::new();
        let _ = r.read_to_end(&mut out).await;
        (out, garbage.get().cloned())
    }

    #[tokio::test]
    async fn json_lines_pass_through() {
        let input = b"{\"jsonrpc\":\"2.0\"}\n\n  [1]\r\n\xEF\xBB\xBF{}\n";
        let (out, bad) = read_all(input).await;
        assert_eq!(out, input);
        assert_eq!(bad, None);
    }

    #[tokio::test]
    async fn a_non_json_line_ends_the_stream_and_is_quoted() {
        let (out, bad) = read_all(b"Server listening on stdio\n{\"a\":1}\n").await;
        assert!(out.is_empty());
        assert_eq!(bad.as_deref(), Some("Server listening on stdio"));
    }

    #[test]
    fn env_keeps_only_path_home_lang_and_the_config() {
        let env = server_env(&[("FOO".into(), "1".into()), ("PATH".into(), "/x".into())]);
        let keys: Vec<_> = env
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        assert!(
            keys.iter()
                .all(|k| ["PATH", "HOME", "LANG", "FOO"].contains(&k.as_str())),
            "{keys:?}"
        );
        let path = env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone());
        assert_eq!(path, Some("/x".into()));
    }

    #[test]
    fn stderr_tail_is_bounded_and_keeps_the_end() {
        let tail = Mutex::new(String::new());
        for i in 0..1000 {
            keep_tail(&tail, &format!("line {i} é"));
        }
        let t = lock(&tail).clone();
        assert!(t.len() <= STDERR_TAIL);
        assert!(t.ends_with("line 999 é\n"));
    }
}
