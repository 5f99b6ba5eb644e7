//! Shared by the integration tests and the bench: the reference server
//! (`@modelcontextprotocol/server-everything`, installed into tests/mcp by
//! npm), a tiny misbehaving server in Python, and process checks.
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

/// A minimal stdio MCP server in Python that misbehaves on purpose.
/// `mode`: ok, crash (exits mid-call), garbage-start, garbage-call,
/// silent (never answers the handshake), hang (never answers a call),
/// stderr-flood, paged (tools over three pages), stubborn (starts a
/// grandchild, ignores SIGTERM and outlives its stdin). Every line it receives is
/// appended to `log`.
pub const FAULT_SERVER: &str = r#"
import json, os, signal, subprocess, sys, time
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
        if mode == "crash":
            sys.stderr.write("boom: crashed on purpose\n")
            sys.stderr.flush()
            os._exit(3)
        if mode == "garbage-call":
            print("oops, this is not JSON", flush=True)
            continue
        if mode == "hang":
            continue
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
