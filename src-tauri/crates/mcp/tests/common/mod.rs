//! Shared by the integration tests and the bench: the reference server
//! (`@modelcontextprotocol/server-everything`, installed into tests/mcp by
//! npm), misbehaving servers (a tiny one in Python, and the rmcp-based
//! `examples/fault_server.rs`), and process checks.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bearagent_mcp::{ServerConfig, Transport};
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub use bearagent_mcp::testkit::everything_bin;

/// The reference server over stdio.
pub fn everything_stdio(env: Vec<(String, String)>) -> ServerConfig {
    let mut cfg = ServerConfig::new(
        "everything",
        Transport::Stdio {
            command: "node".into(),
            args: vec![
                everything_bin().to_string_lossy().into_owned(),
                "stdio".into(),
            ],
            env,
            cwd: None,
        },
    );
    cfg.tool_timeout = Duration::from_secs(60);
    cfg
}

/// A free loopback port (bound, read, released).
pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// The reference server in streamable HTTP mode on `port`, killed on drop.
pub async fn spawn_everything_http(port: u16) -> tokio::process::Child {
    let child = tokio::process::Command::new("node")
        .arg(everything_bin())
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            Instant::now() < deadline,
            "HTTP server did not listen on {port}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    child
}

/// True once `pid` is gone (or a zombie, i.e. dead and awaiting its reaper).
pub fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state == "Z" || state == "X"),
    }
}

/// Live processes whose command line contains `needle` (a test's unique
/// temp path marks its servers).
pub fn pids_with_arg(needle: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()))
        .filter(|pid| !process_gone(*pid))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|c| String::from_utf8_lossy(&c).contains(needle))
                .unwrap_or(false)
        })
        .collect()
}

pub async fn wait_gone(pid: u32, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if process_gone(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    process_gone(pid)
}

/// A minimal stdio MCP server in Python for faults an rmcp server cannot be
/// made to commit (see [`RmcpFaultServer`] for the rest).
/// `mode`: ok, garbage-start, silent (never answers the handshake),
/// stderr-flood, paged (tools over three pages), stubborn (starts a
/// grandchild, ignores SIGTERM and outlives its stdin). Every line it receives is
/// appended to `log`.
pub const FAULT_SERVER: &str = r#"
import json, signal, subprocess, sys, time
mode, log_path = sys.argv[1], sys.argv[2]
log = open(log_path, "a")

def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()

if mode == "garbage-start":
    print("Welcome to the fault server!", flush=True)
if mode == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # The script's path in its command line marks it as ours.
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", __file__])
if mode == "stderr-flood":
    sys.stderr.write(("x" * 99 + "\n") * 10000)
    sys.stderr.flush()

for line in sys.stdin:
    log.write(line)
    log.flush()
    if mode == "silent":
        continue
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "fault", "version": "0.0.1"}}})
    elif method == "tools/list":
        names = ["work"]
        cursor = (msg.get("params") or {}).get("cursor")
        result = {}
        if mode == "paged":
            page = int(cursor or "0")
            names = ["t%d_%d" % (page, i) for i in range(2)]
            if page < 2:
                result["nextCursor"] = str(page + 1)
        result["tools"] = [{"name": n, "inputSchema": {"type": "object"}} for n in names]
        send({"jsonrpc": "2.0", "id": rid, "result": result})
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "content": [{"type": "text", "text": "ok"}]}})

while mode == "stubborn":
    time.sleep(1)
"#;

pub struct FaultServer {
    pub dir: tempfile::TempDir,
}

impl FaultServer {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("server.py"), FAULT_SERVER).unwrap();
        Self { dir }
    }

    pub fn config(&self, mode: &str) -> ServerConfig {
        let mut cfg = ServerConfig::new(
            format!("fault-{mode}"),
            Transport::Stdio {
                command: "python3".into(),
                args: vec![
                    self.dir
                        .path()
                        .join("server.py")
                        .to_string_lossy()
                        .into_owned(),
                    mode.into(),
                    self.log_path().to_string_lossy().into_owned(),
                ],
                env: vec![],
                cwd: None,
            },
        );
        cfg.startup_timeout = Duration::from_secs(10);
        cfg.tool_timeout = Duration::from_secs(10);
        cfg
    }

    pub fn log_path(&self) -> PathBuf {
        self.dir.path().join("received.log")
    }

    pub fn received(&self) -> String {
        std::fs::read_to_string(self.log_path()).unwrap_or_default()
    }
}

/// `examples/fault_server.rs`: `cargo test` builds examples into
/// `target/<profile>/examples`, beside the `deps` directory that holds the
/// test binaries.
pub fn rmcp_fault_server_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|profile| {
            profile
                .join("examples")
                .join(format!("fault_server{}", std::env::consts::EXE_SUFFIX))
        })
        .unwrap();
    assert!(
        bin.exists(),
        "{} is missing: it is built by a plain `cargo test -p bearagent-mcp`, but not \
         when tests are picked with `--test`; run `cargo build -p bearagent-mcp \
         --example fault_server` first",
        bin.display()
    );
    bin
}

/// The rmcp-based fault server (`examples/fault_server.rs`) with a log of
/// the calls and cancellations it saw, in a temp dir of its own.
pub struct RmcpFaultServer {
    pub dir: tempfile::TempDir,
}

impl RmcpFaultServer {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// `mode` is the server's leading arguments: `serve` or `slow-start SECS`.
    /// The server is named `rmcp-fault`.
    pub fn config(&self, mode: &str) -> ServerConfig {
        let mut args: Vec<String> = mode.split_whitespace().map(str::to_owned).collect();
        args.push(self.log_path().to_string_lossy().into_owned());
        let mut cfg = ServerConfig::new(
            "rmcp-fault",
            Transport::Stdio {
                command: rmcp_fault_server_bin().to_string_lossy().into_owned(),
                args,
                env: vec![],
                cwd: None,
            },
        );
        cfg.startup_timeout = Duration::from_secs(10);
        cfg.tool_timeout = Duration::from_secs(10);
        cfg
    }

    pub fn log_path(&self) -> PathBuf {
        self.dir.path().join("events.jsonl")
    }

    /// The server's log entries so far (one JSON object per line).
    pub fn events(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.log_path())
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The first entry with `"event": event`, waiting up to 3 s for it.
    pub async fn wait_event(&self, event: &str) -> Option<serde_json::Value> {
        let deadline = Instant::now() + Duration::from_secs(3);
        loop {
            let found = self.events().into_iter().find(|e| e["event"] == event);
            if found.is_some() || Instant::now() > deadline {
                return found;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Its processes still alive (the temp dir is in its command line).
    pub fn pids(&self) -> Vec<u32> {
        pids_with_arg(&self.dir.path().to_string_lossy())
    }
}
