//! What the command sandbox adds to starting a process.
//!
//! Run: `CARGO_TARGET_DIR=/work/target-sandbox cargo bench -p bearagent-tools --bench sandbox`
//!
//! Times `RUNS` (default 50, `$BEARAGENT_BENCH_RUNS`) starts of `true` as a
//! plain fork/exec (`std::process::Command::new("true")`, waited for) and as
//! many as a `run_command` call through its one route, `RunCommand::run`,
//! with the default command settings (sandbox on: bubblewrap with all
//! namespaces, the mounts and the seccomp filter, then `/bin/sh -c true`),
//! after one untimed warm-up each (the warm-up also runs the cached probe).
//! Prints both medians and the difference; the goal is +15 ms or less.

#[cfg(target_os = "linux")]
fn main() -> std::process::ExitCode {
    linux::main()
}

#[cfg(not(target_os = "linux"))]
fn main() {
    println!("sandbox bench skipped: the sandbox exists on Linux only");
}

#[cfg(target_os = "linux")]
mod linux {
    use bearagent_kernel::CommandSettings;
    use bearagent_tools::tools::run_command::{HostEnvironment, RunCommand};
    use bearagent_tools::{
        sandbox, ApprovalMode, AuthorizedCall, Policy, PolicyDecision, Tool, WorkspaceRoot,
    };
    use std::process::{Command, ExitCode, Stdio};
    use std::time::{Duration, Instant};
    use tokio_util::sync::CancellationToken;

    /// `true` as the model would ask for it, allowed by the policy.
    fn authorized(tool: &RunCommand, ws: &WorkspaceRoot) -> Option<AuthorizedCall> {
        let args = serde_json::json!({"command": "true"});
        let prepared = tool.prepare(args.as_object()?, ws).ok()?;
        match Policy::new(ApprovalMode::AllowAll).decide(tool.spec(), prepared) {
            PolicyDecision::Allow(call) => Some(call),
            PolicyDecision::Ask(_) | PolicyDecision::Deny { .. } => None,
        }
    }

    pub fn main() -> ExitCode {
        let runs: usize = std::env::var("BEARAGENT_BENCH_RUNS")
            .ok()
            .and_then(|runs| runs.parse().ok())
            .unwrap_or(50);
        if let Err(error) = sandbox::probe() {
            println!("sandbox bench skipped: {error}");
            return ExitCode::SUCCESS;
        }
        let Ok(root) = tempfile::tempdir() else {
            println!("sandbox bench: cannot create a temporary folder");
            return ExitCode::FAILURE;
        };
        let Ok(workspace) = std::fs::canonicalize(root.path()) else {
            return ExitCode::FAILURE;
        };
        let Ok(ws) = WorkspaceRoot::new(&workspace) else {
            return ExitCode::FAILURE;
        };
        let tool = RunCommand::new();
        let settings = CommandSettings::default();
        let host = HostEnvironment::current(Vec::new());
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return ExitCode::FAILURE;
        };

        let plain = || -> Option<Duration> {
            let started = Instant::now();
            let status = Command::new("true")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .status()
                .ok()?;
            status.success().then(|| started.elapsed())
        };
        let sandboxed = || -> Option<Duration> {
            let started = Instant::now();
            let call = authorized(&tool, &ws)?;
            let run = runtime.block_on(tool.run(
                call,
                &ws,
                &settings,
                &host,
                CancellationToken::new(),
                |_| {},
            ));
            let outcome = run.outcome.ok()?;
            (outcome.exit_code == Some(0)).then(|| started.elapsed())
        };

        let (Some(_), Some(_)) = (plain(), sandboxed()) else {
            println!("sandbox bench: warm-up failed");
            return ExitCode::FAILURE;
        };
        let mut plain_times = Vec::with_capacity(runs);
        let mut sandbox_times = Vec::with_capacity(runs);
        for _ in 0..runs {
            // Interleaved, so both see the same machine load.
            match (plain(), sandboxed()) {
                (Some(p), Some(s)) => {
                    plain_times.push(p);
                    sandbox_times.push(s);
                }
                _ => {
                    println!("sandbox bench: a run failed");
                    return ExitCode::FAILURE;
                }
            }
        }
        let plain_ms = median_ms(&mut plain_times);
        let sandbox_ms = median_ms(&mut sandbox_times);
        println!("runs per side: {runs}");
        println!("plain fork/exec `true`:        median {plain_ms:.2} ms");
        println!("run_command (bwrap+seccomp):   median {sandbox_ms:.2} ms");
        println!(
            "difference:                    {:+.2} ms (goal: +15 ms or less)",
            sandbox_ms - plain_ms
        );
        ExitCode::SUCCESS
    }

    fn median_ms(times: &mut [Duration]) -> f64 {
        times.sort();
        times
            .get(times.len() / 2)
            .map_or(f64::NAN, |median| median.as_secs_f64() * 1000.0)
    }
}
