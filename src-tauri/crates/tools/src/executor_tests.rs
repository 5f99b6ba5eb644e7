use super::*;
use crate::error::{ArgumentError, ToolError};
use crate::spec::{Effect, PreparedCall, Tool, ToolOutput, ToolSpec, WorkspaceTool};
use crate::testutil::workspace;
use bearagent_kernel::ToolName;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

#[derive(Clone)]
enum Behaviour {
    Output(String),
    Fail,
    Panic,
    /// Sleep up to this long, returning early when the token fires.
    SleepPolling(Duration),
    /// Sleep this long regardless of the token.
    SleepIgnoring(Duration),
}

struct TestTool {
    spec: ToolSpec,
    behaviour: Behaviour,
    runs: AtomicUsize,
    saw_cancel: AtomicUsize,
}

impl TestTool {
    fn new(behaviour: Behaviour) -> Arc<Self> {
        Arc::new(Self {
            spec: ToolSpec {
                name: ToolName::new("test_tool").unwrap(),
                description: "test".into(),
                parameters: json!({"type": "object"}),
                effect: Effect::ReadOnly,
            },
            behaviour,
            runs: AtomicUsize::new(0),
            saw_cancel: AtomicUsize::new(0),
        })
    }
}

impl Tool for TestTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn prepare(
        &self,
        _args: &Map<String, Value>,
        _ws: &WorkspaceRoot,
    ) -> Result<PreparedCall, ArgumentError> {
        Ok(test_prepared())
    }
}

impl WorkspaceTool for TestTool {
    fn execute(
        &self,
        _call: &AuthorizedCall,
        _ws: &WorkspaceRoot,
        cancel: &CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        match &self.behaviour {
            Behaviour::Output(s) => Ok(ToolOutput::new(s.clone())),
            Behaviour::Fail => Err(ToolError::NoMatch {
                path: "a.txt".into(),
            }),
            Behaviour::Panic => panic!("boom"),
            Behaviour::SleepPolling(total) => {
                let start = Instant::now();
                while start.elapsed() < *total {
                    if cancel.is_cancelled() {
                        self.saw_cancel.fetch_add(1, Ordering::SeqCst);
                        return Err(ToolError::Cancelled);
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                Ok(ToolOutput::new("slept"))
            }
            Behaviour::SleepIgnoring(total) => {
                std::thread::sleep(*total);
                Ok(ToolOutput::new("slept"))
            }
        }
    }
}

fn test_prepared() -> PreparedCall {
    PreparedCall::read_only(
        ToolName::new("test_tool").unwrap(),
        "test".into(),
        json!({}),
    )
}

fn test_call() -> AuthorizedCall {
    crate::testutil::authorized(test_prepared())
}

fn executor(timeout_ms: u64, max_output_bytes: usize) -> Executor {
    Executor::new(ExecutorLimits {
        timeout: Duration::from_millis(timeout_ms),
        max_output_bytes,
    })
}

async fn run(exec: &Executor, tool: Arc<TestTool>, cancel: CancellationToken) -> ExecOutcome {
    let (_dir, ws) = workspace();
    exec.execute(tool, test_call(), ws, cancel).await
}

#[test]
fn default_limits() {
    let limits = ExecutorLimits::default();
    assert_eq!(limits.timeout, Duration::from_secs(30));
    assert_eq!(limits.max_output_bytes, 65536);
}

#[tokio::test]
async fn success_runs_exactly_once() {
    let tool = TestTool::new(Behaviour::Output("hello".into()));
    let outcome = run(
        &executor(5_000, 1024),
        tool.clone(),
        CancellationToken::new(),
    )
    .await;
    assert_eq!(outcome.content, "hello");
    assert!(!outcome.is_error && !outcome.truncated && !outcome.timed_out && !outcome.cancelled);
    assert_eq!(outcome.original_bytes, 5);
    assert_eq!(tool.runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn tool_error_becomes_an_error_outcome() {
    let tool = TestTool::new(Behaviour::Fail);
    let outcome = run(
        &executor(5_000, 1024),
        tool.clone(),
        CancellationToken::new(),
    )
    .await;
    assert!(outcome.is_error);
    assert!(outcome.content.starts_with("old_string not found in a.txt"));
    assert_eq!(tool.runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn panic_becomes_an_error_outcome() {
    let tool = TestTool::new(Behaviour::Panic);
    let outcome = run(
        &executor(5_000, 1024),
        tool.clone(),
        CancellationToken::new(),
    )
    .await;
    assert!(outcome.is_error);
    assert_eq!(outcome.content, "tool panicked: boom");
    assert_eq!(tool.runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn timeout_triggers_the_tool_token_and_reports_timed_out() {
    let tool = TestTool::new(Behaviour::SleepPolling(Duration::from_secs(20)));
    let started = Instant::now();
    let outcome = run(&executor(100, 1024), tool.clone(), CancellationToken::new()).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(outcome.is_error && outcome.timed_out && !outcome.cancelled);
    assert_eq!(outcome.content, "tool call timed out after 100 ms");
    // The grace period let the tool see its token and stop.
    assert_eq!(tool.saw_cancel.load(Ordering::SeqCst), 1);
    assert_eq!(tool.runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn timeout_does_not_wait_for_a_tool_that_ignores_its_token() {
    let tool = TestTool::new(Behaviour::SleepIgnoring(Duration::from_secs(3)));
    let started = Instant::now();
    let outcome = run(&executor(50, 1024), tool, CancellationToken::new()).await;
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(outcome.timed_out && outcome.is_error);
}

#[tokio::test]
async fn cancel_stops_the_call() {
    let tool = TestTool::new(Behaviour::SleepPolling(Duration::from_secs(20)));
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let outcome = run(&executor(10_000, 1024), tool.clone(), cancel).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(outcome.is_error && outcome.cancelled && !outcome.timed_out);
    assert_eq!(outcome.content, "tool call cancelled");
    assert_eq!(tool.saw_cancel.load(Ordering::SeqCst), 1);
    assert_eq!(tool.runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn output_is_truncated_on_a_char_boundary() {
    // "€" is three bytes: a 10-byte cut must fall back to 9 bytes.
    let content = "€".repeat(10);
    let tool = TestTool::new(Behaviour::Output(content.clone()));
    let outcome = run(&executor(5_000, 10), tool, CancellationToken::new()).await;
    assert!(outcome.truncated && !outcome.is_error);
    assert_eq!(outcome.content, "€€€");
    assert_eq!(outcome.original_bytes, content.len() as u64);
}

#[tokio::test]
async fn output_at_the_limit_is_not_truncated() {
    let tool = TestTool::new(Behaviour::Output("abcd".into()));
    let outcome = run(&executor(5_000, 4), tool, CancellationToken::new()).await;
    assert!(!outcome.truncated);
    assert_eq!(outcome.content, "abcd");
}

#[tokio::test]
async fn already_cancelled_never_runs_the_tool() {
    let tool = TestTool::new(Behaviour::Output("x".into()));
    let cancel = CancellationToken::new();
    cancel.cancel();
    let outcome = run(&executor(5_000, 1024), tool.clone(), cancel).await;
    assert!(outcome.cancelled && outcome.is_error);
    assert_eq!(tool.runs.load(Ordering::SeqCst), 0);
}
