//! `search_text` against ripgrep on a large real source tree.
//!
//! Run: `CARGO_TARGET_DIR=/work/target-tools cargo bench -p bearagent-tools --bench search`
//!
//! Tree: `$BEARAGENT_BENCH_TREE`, default `$CARGO_HOME/registry/src` (usually
//! `~/.cargo/registry/src`). Runs per side: `$BEARAGENT_BENCH_RUNS` (default 5).
//!
//! What is compared: our engine with no result cap and no line cut (every
//! match formatted as `path:line:text`, collected in memory and sorted by path
//! then line) against plain `rg --no-config -n` (unsorted, written to a pipe
//! that this process reads and counts). Same pattern, same ignore rules
//! (ripgrep defaults: .gitignore in git repos, .ignore, .rgignore, hidden and
//! binary files skipped), same thread count heuristic. Both sides run
//! interleaved after one untimed warm-up each, so the page cache is warm for
//! both. The match counts must be equal. The capped tool call
//! (`max_results` 200, the default) is timed too, for information.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]

use bearagent_tools::tools::search_text::{search, SearchOptions, SearchText};
use bearagent_tools::{ApprovalMode, Policy, PolicyDecision, Tool, WorkspaceRoot, WorkspaceTool};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

struct Case {
    label: &'static str,
    pattern: &'static str,
    literal: bool,
}

const CASES: [Case; 2] = [
    Case {
        label: "literal",
        pattern: "fn main",
        literal: true,
    },
    Case {
        label: "regex",
        pattern: r"impl\s+\w+\s+for",
        literal: false,
    },
];

fn main() -> ExitCode {
    let tree = bench_tree();
    if !tree.is_dir() {
        println!(
            "search bench skipped: {} is not a directory (set BEARAGENT_BENCH_TREE)",
            tree.display()
        );
        return ExitCode::SUCCESS;
    }
    let rg_version = match Command::new("rg").arg("--version").output() {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("rg")
            .to_owned(),
        _ => {
            println!(
                "search bench skipped: `rg` (ripgrep) is not installed; apt-get install -y ripgrep"
            );
            return ExitCode::SUCCESS;
        }
    };
    let runs: usize = std::env::var("BEARAGENT_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(5);
    let Ok(tree) = tree.canonicalize() else {
        println!(
            "search bench skipped: cannot canonicalise {}",
            tree.display()
        );
        return ExitCode::SUCCESS;
    };

    println!("tree: {}", tree.display());
    println!("versus: {rg_version}, run as `rg --no-config --no-require-git -n [-F] -e PATTERN .` (unsorted output to a pipe)");
    println!("ours: search_text engine, uncapped, output sorted by path then line; {runs} interleaved runs per side after one warm-up");
    println!("load average at start: {}", load_average());
    println!();

    let mut ok = true;
    for case in &CASES {
        ok &= run_case(&tree, case, runs);
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn run_case(tree: &Path, case: &Case, runs: usize) -> bool {
    let opts = SearchOptions {
        root: tree.to_path_buf(),
        start: tree.to_path_buf(),
        pattern: case.pattern.to_owned(),
        literal: case.literal,
        case_insensitive: false,
        max_results: None,
        max_line_bytes: usize::MAX,
        threads: 0,
    };
    let ours = || -> Result<usize, String> {
        search(&opts, &CancellationToken::new())
            .map(|r| r.matches)
            .map_err(|e| e.to_string())
    };
    let theirs = || rg_count(tree, case);

    // Warm-up (untimed): fills the page cache and checks both sides work.
    let (our_count, rg_count) = match (ours(), theirs()) {
        (Ok(a), Ok(b)) => (a, b),
        (a, b) => {
            println!("[{}] failed: ours {a:?}, rg {b:?}", case.label);
            return false;
        }
    };

    let mut our_times = Vec::with_capacity(runs);
    let mut rg_times = Vec::with_capacity(runs);
    let mut consistent = true;
    for _ in 0..runs {
        let (t, n) = timed(&ours);
        consistent &= n == Ok(our_count);
        our_times.push(t);
        let (t, n) = timed(&theirs);
        consistent &= n == Ok(rg_count);
        rg_times.push(t);
    }
    let tool_time = time_tool_call(tree, case);

    let ours_med = median(&mut our_times);
    let rg_med = median(&mut rg_times);
    let ratio = ours_med.as_secs_f64() / rg_med.as_secs_f64();
    let verdict = if ratio <= 1.3 { "within" } else { "MISSES" };
    println!("[{}] pattern {:?}", case.label, case.pattern);
    println!(
        "  matches: ours {our_count}, rg {rg_count} -> {}",
        if our_count == rg_count {
            "equal"
        } else {
            "DIFFERENT"
        }
    );
    println!(
        "  ours   median {:>8.1} ms  runs {}",
        ms(ours_med),
        fmt_runs(&our_times)
    );
    println!(
        "  rg     median {:>8.1} ms  runs {}",
        ms(rg_med),
        fmt_runs(&rg_times)
    );
    println!("  ratio  ours/rg = {ratio:.2}x ({verdict} the 1.3x goal)");
    match tool_time {
        Ok((t, lines)) => println!(
            "  tool call (max_results 200, capped, deterministic first 200): {:.1} ms, {lines} output lines",
            ms(t)
        ),
        Err(e) => println!("  tool call failed: {e}"),
    }
    println!();
    consistent && our_count == rg_count
}

/// Count rg's output lines (one per matching line).
fn rg_count(tree: &Path, case: &Case) -> Result<usize, String> {
    let mut cmd = Command::new("rg");
    cmd.arg("--no-config").arg("--no-require-git").arg("-n");
    if case.literal {
        cmd.arg("-F");
    }
    cmd.arg("-e")
        .arg(case.pattern)
        .arg(".")
        .current_dir(tree)
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    let out = cmd.output().map_err(|e| e.to_string())?;
    match out.status.code() {
        Some(0 | 1) => Ok(out.stdout.iter().filter(|&&b| b == b'\n').count()),
        other => Err(format!("rg exited with {other:?}")),
    }
}

fn time_tool_call(tree: &Path, case: &Case) -> Result<(Duration, usize), String> {
    let ws = WorkspaceRoot::new(tree).map_err(|e| e.to_string())?;
    let tool = SearchText::new();
    let args = json!({"pattern": case.pattern, "literal": case.literal});
    let map = args.as_object().cloned().unwrap_or_default();
    let started = Instant::now();
    let call = tool.prepare(&map, &ws).map_err(|e| e.to_string())?;
    // The same path as a run: the policy authorises the (read-only) call.
    let PolicyDecision::Allow(call) =
        Policy::new(ApprovalMode::AskWrites).decide(tool.spec(), call)
    else {
        return Err("the policy did not allow a search".into());
    };
    let out = tool
        .execute(&call, &ws, &CancellationToken::new())
        .map_err(|e| e.to_string())?;
    Ok((started.elapsed(), out.content.lines().count()))
}

fn timed<T>(f: &impl Fn() -> T) -> (Duration, T) {
    let started = Instant::now();
    let value = f();
    (started.elapsed(), value)
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn fmt_runs(times: &[Duration]) -> String {
    let parts: Vec<String> = times.iter().map(|t| format!("{:.0}", ms(*t))).collect();
    format!("[{}] ms", parts.join(", "))
}

fn bench_tree() -> PathBuf {
    if let Some(tree) = std::env::var_os("BEARAGENT_BENCH_TREE") {
        return PathBuf::from(tree);
    }
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_else(|| PathBuf::from("/root/.cargo"));
    cargo_home.join("registry").join("src")
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}
