//! What the command sandbox adds to running a command.
//!
//! Run: `CARGO_TARGET_DIR=/work/target-sandbox cargo bench -p bearagent-tools --bench sandbox`
//!
//! 1. Start overhead: `RUNS` (default 50, `$BEARAGENT_BENCH_RUNS`) starts
//!    of `true` as a plain fork/exec (`std::process::Command::new("true")`,
//!    waited for) and as many as a `run_command` call through its one
//!    route, `RunCommand::run`, with the default command settings (sandbox
//!    on: bubblewrap with all namespaces, the mounts and the seccomp
//!    filter, then `/bin/sh -c true`), after one untimed warm-up each (the
//!    warm-up also runs the cached probe). Prints both medians and the
//!    difference; the goal is +15 ms or less.
//! 2. A real build: `run_command` of `cargo test --offline -p
//!    bearagent-kernel` on this repository, outside the sandbox (the
//!    profile's `sandbox = "off"`: the same route and environment, no
//!    bubblewrap) and inside (the default settings), `BUILD_RUNS` (default
//!    5, `$BEARAGENT_BENCH_BUILD_RUNS`; 0 skips it) timed runs each,
//!    interleaved, after one untimed warm-up each that builds the tests
//!    into `target/bench-sandbox` (inside the workspace: the only place
//!    the sandbox may write). Prints both medians and the ratio; the goal
//!    is 1.05× or less.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]

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
    use std::path::Path;
    use std::process::{Command, ExitCode, Stdio};
    use std::time::{Duration, Instant};
    use tokio_util::sync::CancellationToken;

    /// The kernel crate's tests, built where the sandbox may write.
    const CARGO_TEST: &str =
        "CARGO_TARGET_DIR=target/bench-sandbox cargo test --offline -p bearagent-kernel";

    /// `command` as the model would ask for it, allowed by the policy.
    fn authorized(tool: &RunCommand, ws: &WorkspaceRoot, command: &str) -> Option<AuthorizedCall> {
        let args = serde_json::json!({"command": command});
        let prepared = tool.prepare(args.as_object()?, ws).ok()?;
        match Policy::new(ApprovalMode::AllowAll).decide(tool.spec(), prepared) {
            PolicyDecision::Allow(call) => Some(call),
            PolicyDecision::Ask(_) | PolicyDecision::Deny { .. } => None,
        }
    }

    /// Runs `run_command` calls in one workspace with one set of settings.
    struct Runner {
        tool: RunCommand,
        ws: WorkspaceRoot,
        host: HostEnvironment,
        runtime: tokio::runtime::Runtime,
    }

    impl Runner {
        fn new(workspace: &Path) -> Option<Self> {
            let workspace = std::fs::canonicalize(workspace).ok()?;
            Some(Self {
                tool: RunCommand::new(),
                ws: WorkspaceRoot::new(&workspace).ok()?,
                host: HostEnvironment::current(Vec::new()),
                runtime: tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .ok()?,
            })
        }

        /// How long `command` took; `None` when it did not exit 0 (its
        /// output is printed).
        fn time(&self, command: &str, settings: &CommandSettings) -> Option<Duration> {
            let started = Instant::now();
            let call = authorized(&self.tool, &self.ws, command)?;
            let run = self.runtime.block_on(self.tool.run(
                call,
                &self.ws,
                settings,
                &self.host,
                CancellationToken::new(),
                |_| {},
            ));
            let took = started.elapsed();
            let ok = run
                .outcome
                .as_ref()
                .is_ok_and(|outcome| outcome.exit_code == Some(0));
            if !ok {
                println!("`{command}` failed:\n{}", run.for_model);
            }
            ok.then_some(took)
        }
    }

    fn env_count(name: &str, default: usize) -> usize {
        std::env::var(name)
            .ok()
            .and_then(|runs| runs.parse().ok())
            .unwrap_or(default)
    }

    pub fn main() -> ExitCode {
        if let Err(error) = sandbox::probe() {
            println!("sandbox bench skipped: {error}");
            return ExitCode::SUCCESS;
        }
        let Ok(root) = tempfile::tempdir() else {
            println!("sandbox bench: cannot create a temporary folder");
            return ExitCode::FAILURE;
        };
        let Some(scratch) = Runner::new(root.path()) else {
            return ExitCode::FAILURE;
        };
        if start_overhead(&scratch, env_count("BEARAGENT_BENCH_RUNS", 50)).is_none() {
            println!("sandbox bench: a run of `true` failed");
            return ExitCode::FAILURE;
        }
        let build_runs = env_count("BEARAGENT_BENCH_BUILD_RUNS", 5);
        if build_runs == 0 {
            return ExitCode::SUCCESS;
        }
        let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
        let Some(repository) = Runner::new(&repository) else {
            println!("sandbox bench: the repository is not a workspace here");
            return ExitCode::FAILURE;
        };
        match build_ratio(&repository, build_runs) {
            Some(()) => ExitCode::SUCCESS,
            None => {
                println!("sandbox bench: a run of `{CARGO_TEST}` failed");
                ExitCode::FAILURE
            }
        }
    }

    /// Part 1: `true` by fork/exec and through `run_command`.
    fn start_overhead(runner: &Runner, runs: usize) -> Option<()> {
        let settings = CommandSettings::default();
        let plain = || -> Option<Duration> {
            let started = Instant::now();
            let status = Command::new("true")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .status()
                .ok()?;
            status.success().then(|| started.elapsed())
        };
        // Warm-up, untimed.
        plain()?;
        runner.time("true", &settings)?;
        let mut plain_times = Vec::with_capacity(runs);
        let mut sandbox_times = Vec::with_capacity(runs);
        for _ in 0..runs {
            // Interleaved, so both see the same machine load.
            plain_times.push(plain()?);
            sandbox_times.push(runner.time("true", &settings)?);
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
        Some(())
    }

    /// Part 2: the kernel crate's tests by `run_command` without and with
    /// the sandbox.
    fn build_ratio(runner: &Runner, runs: usize) -> Option<()> {
        let inside = CommandSettings::default();
        let outside = CommandSettings {
            sandbox: false,
            ..CommandSettings::default()
        };
        println!("\n`{CARGO_TEST}`, warm-up (builds the tests)…");
        let warm_out = runner.time(CARGO_TEST, &outside)?;
        let warm_in = runner.time(CARGO_TEST, &inside)?;
        println!(
            "warm-up: outside {:.2} s, inside {:.2} s",
            warm_out.as_secs_f64(),
            warm_in.as_secs_f64()
        );
        let mut outside_times = Vec::with_capacity(runs);
        let mut inside_times = Vec::with_capacity(runs);
        for run in 1..=runs {
            let out = runner.time(CARGO_TEST, &outside)?;
            let inn = runner.time(CARGO_TEST, &inside)?;
            println!(
                "run {run}: outside {:.3} s, inside {:.3} s",
                out.as_secs_f64(),
                inn.as_secs_f64()
            );
            outside_times.push(out);
            inside_times.push(inn);
        }
        let outside_ms = median_ms(&mut outside_times);
        let inside_ms = median_ms(&mut inside_times);
        println!("runs per side: {runs}");
        println!("outside the sandbox:           median {outside_ms:.0} ms");
        println!("inside the sandbox:            median {inside_ms:.0} ms");
        println!(
            "ratio inside / outside:        {:.3}× (goal: 1.05× or less)",
            inside_ms / outside_ms
        );
        Some(())
    }

    fn median_ms(times: &mut [Duration]) -> f64 {
        times.sort();
        times
            .get(times.len() / 2)
            .map_or(f64::NAN, |median| median.as_secs_f64() * 1000.0)
    }
}
