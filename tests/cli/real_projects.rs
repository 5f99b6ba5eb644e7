//! Real projects' own test suites, which no one here wrote — a crate from
//! the Rust registry with no lockfile, a PyPI sdist run by pytest, an npm
//! package run by `node --test` — through the real `bearagent` binary (a
//! scripted model calling `run_command`, `--approve all`) and directly:
//! the same exit code and the same counts inside the sandbox as outside.
//! With the network off (the default) cached dependencies resolve and an
//! uncached one fails in seconds, the result naming the setting that
//! allows the network; with `network = true`, `cargo fetch` and `npm
//! install` work. A version manager on the user's PATH is the one the
//! command runs; a credential beside a visible config file is not
//! readable.
//!
//! The projects come from the registries through their own clients, cached
//! under the cargo target dir (`registry.rs`); a test whose registry is
//! unreachable fails, unless `BEARAGENT_OFFLINE=1` says the machine is
//! offline on purpose (then it is skipped, counted and said on stderr).
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod registry;
mod support;

use bearagent_tools::sandbox::network::NETWORK_OFF;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

/// Longest a suite may take outside.
const LIMIT: Duration = Duration::from_secs(300);
/// How fast a command needing an uncached dependency must fail.
const FAIL_FAST_MS: u64 = 5_000;
/// The setting the model and the user are told allows the network.
const SETTING: &str = "`network = true`";

fn cmd(command: &str) -> Value {
    json!({"tool_call": {"tool_name": "run_command", "arguments": {"command": command}}})
}

fn cmd_in(cwd: &str, command: &str) -> Value {
    json!({"tool_call": {"tool_name": "run_command", "arguments": {"command": command, "cwd": cwd}}})
}

/// `bearagent run --approve all` of `steps` with the environment `vars`
/// (HOME, PATH, CARGO_HOME, RUSTUP_HOME: the user's machine as the test
/// lays it out).
fn bearagent(env: &support::Env, vars: &[(String, OsString)], steps: Value) -> support::RunResult {
    let script = env.script(steps);
    let out = env
        .command()
        .envs(vars.iter().map(|(k, v)| (k, v)))
        .args(["run", "--json", "--approve", "all", "--script"])
        .arg(&script)
        .arg("--workspace")
        .arg(env.ws())
        .arg("run the project's tests")
        .output()
        .unwrap();
    let r = support::RunResult::from_output_pub(out);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    r
}

/// One `run_command` call of a run, as its events tell it.
#[derive(Debug)]
struct Done {
    exit: Option<i32>,
    duration_ms: u64,
    network: bool,
    network_refused: bool,
    /// What the model got back.
    result: String,
    /// All the command printed, as streamed to the CLI.
    output: String,
}

fn commands(r: &support::RunResult) -> Vec<Done> {
    let started = r.of_type("command_started");
    let finished = r.of_type("command_finished");
    let results: Vec<&Value> = r
        .events
        .iter()
        .filter(|e| {
            matches!(
                e["payload"]["type"].as_str(),
                Some("tool_call_completed" | "tool_call_failed")
            )
        })
        .collect();
    assert_eq!(started.len(), finished.len(), "{}", r.stdout);
    assert_eq!(results.len(), finished.len(), "{}", r.stdout);
    let done: Vec<Done> = started
        .iter()
        .zip(&finished)
        .zip(&results)
        .map(|((s, f), res)| Done {
            exit: f["payload"]["exit_code"]
                .as_i64()
                .map(|c| i32::try_from(c).unwrap()),
            duration_ms: f["payload"]["duration_ms"].as_u64().unwrap(),
            network: s["payload"]["network"].as_bool().unwrap(),
            network_refused: f["payload"]["network_refused"] == true,
            result: res["payload"]["result"]["content"]
                .as_str()
                .unwrap()
                .to_owned(),
            output: streamed(r, s["payload"]["call_id"].as_str().unwrap()),
        })
        .collect();
    for d in &done {
        let status = d.result.lines().next().unwrap_or_default();
        println!("inside: {status} ({} ms)\n{}", d.duration_ms, d.output);
    }
    done
}

/// The output of call `call_id` as `run --json` streamed it.
fn streamed(r: &support::RunResult, call_id: &str) -> String {
    r.stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|v| v["kind"] == "command_output" && v["call_id"] == call_id)
        .map(|v| v["text"].as_str().unwrap().to_owned())
        .collect()
}

/// The counts a runner's summary lines give (summed): cargo's `test
/// result: ok. 17 passed; 0 failed; …`, pytest's `=== 198 passed, 2
/// skipped in 0.6s ===`, node's TAP `# pass 78`.
fn counts(output: &str) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    let mut add = |word: &str, n: u64| *counts.entry(word.to_owned()).or_insert(0) += n;
    for line in output.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("test result: ") {
            for segment in rest.split(';') {
                let words: Vec<&str> = segment.split_whitespace().collect();
                if let Some(i) = words.iter().position(|w| w.parse::<u64>().is_ok()) {
                    if let Some(word) = words.get(i + 1) {
                        add(word, words[i].parse().unwrap());
                    }
                }
            }
        } else if let Some(rest) = line.strip_prefix("# ") {
            if let [word, n] = rest.split_whitespace().collect::<Vec<_>>()[..] {
                if let Ok(n) = n.parse() {
                    add(word, n);
                }
            }
        } else if let Some((tally, time)) = line.trim_matches(['=', ' ']).rsplit_once(" in ") {
            let pairs: Option<Vec<(u64, &str)>> = tally
                .split(", ")
                .map(|pair| {
                    let (n, word) = pair.split_once(' ')?;
                    Some((n.parse().ok()?, word))
                })
                .collect();
            if let (Some(pairs), true) = (pairs, time.ends_with('s')) {
                pairs.into_iter().for_each(|(n, word)| add(word, n));
            }
        }
    }
    counts
}

/// The suite gave the same result inside (`inside`) as outside.
fn same_suite(what: &str, inside: &Done, outside: &registry::Ran) {
    let (mine, theirs) = (counts(&inside.output), counts(&outside.output));
    println!(
        "{what}: inside {:?} {mine:?}, outside {:?} {theirs:?}",
        inside.exit, outside.code
    );
    assert_eq!(outside.code, Some(0), "{what} outside:\n{}", outside.output);
    assert_eq!(
        inside.exit, outside.code,
        "{what} inside:\n{}",
        inside.result
    );
    assert_eq!(mine, theirs, "{what}: counts inside vs outside");
    let passed = ["passed", "pass"]
        .iter()
        .filter_map(|w| mine.get(*w))
        .sum::<u64>();
    assert!(passed > 0, "{what} ran no test: {mine:?}");
    // The model read the verdict too (its result keeps the output's end).
    let verdict = inside.output.lines().rev().find(|l| !counts(l).is_empty());
    assert!(
        inside.result.contains(verdict.unwrap()),
        "{}",
        inside.result
    );
}

/// A command needing what is not cached failed fast, saying the network
/// was off and naming the setting.
fn failed_fast_naming_the_setting(what: &str, done: &Done) {
    assert_ne!(done.exit, Some(0), "{what}: {}", done.result);
    assert!(done.network_refused, "{what}: {}", done.result);
    assert!(
        done.duration_ms < FAIL_FAST_MS,
        "{what} took {} ms",
        done.duration_ms
    );
    let status = done.result.lines().next().unwrap();
    assert!(status.contains(NETWORK_OFF), "{status}");
    assert!(status.contains(SETTING), "{status}");
}

fn write_config(env: &support::Env, profile: &str) {
    std::fs::write(
        env.home.path().join("config.toml"),
        format!("version = 1\n[profiles.default]\n{profile}\n"),
    )
    .unwrap();
}

/// Plain `cargo test` on a published crate with no lockfile: passes with
/// the network off as it does outside (the dependencies are cached); a
/// dependency added and not cached fails in seconds naming the setting.
#[test]
fn a_crate_without_a_lockfile_tests_alike_and_an_uncached_dependency_fails_fast() {
    let Some(project) = registry::rust_crate() else {
        return;
    };
    let env = support::env();
    let home = tempfile::tempdir().unwrap();
    let vars = registry::vars(home.path(), &registry::user_path());
    registry::copy_dir(&project, env.ws());
    let add_uncached = "printf '\\n[dependencies.fnv]\\nversion = \"1\"\\n' >> Cargo.toml";
    let r = bearagent(
        &env,
        &vars,
        json!([
            cmd("cargo test"),
            cmd(add_uncached),
            cmd("cargo test"),
            support::answer("done")
        ]),
    );
    let done = commands(&r);
    let outside_dir = env.scratch.path().join("outside");
    registry::copy_dir(&project, &outside_dir);
    let outside = registry::outside("cargo test", &outside_dir, &vars, LIMIT);
    if !outside.ok() && registry::unreachable(&outside) {
        registry::skip("cargo test outside", "the crates registry is unreachable");
        return;
    }
    assert!(!done[0].network);
    same_suite("cargo test", &done[0], &outside);
    failed_fast_naming_the_setting("cargo test with fnv added", &done[2]);
    assert!(done[2].result.contains("fnv"), "{}", done[2].result);
    let timeline = env.bearagent(&["events", &r.run_id()]);
    let timeline = String::from_utf8_lossy(&timeline.stdout);
    assert!(timeline.contains(SETTING), "{timeline}");
}

/// A pyenv-style version manager under `home`: `shims/python3` runs
/// `versions/X/bin/python3`, a Python (a venv of this machine's) with
/// pytest installed. No other `python3` here has pytest.
fn fake_pyenv(home: &Path, wheels: &Path) -> String {
    use std::os::unix::fs::PermissionsExt;
    let version = home.join(".pyenv/versions/3.11.99-bear");
    let setup = registry::vars(home, &registry::user_path());
    let quick = Duration::from_secs(120);
    let venv = format!("python3 -m venv --without-pip {}", version.display());
    assert!(registry::outside(&venv, home, &setup, quick).ok());
    let install = format!(
        "python3 -m pip --python {}/bin/python install --quiet --disable-pip-version-check \
         --no-index --find-links {} '{}'",
        version.display(),
        wheels.display(),
        registry::PYTEST
    );
    let installed = registry::outside(&install, home, &setup, quick);
    assert!(installed.ok(), "{}", installed.output);
    let shim = home.join(".pyenv/shims/python3");
    std::fs::create_dir_all(shim.parent().unwrap()).unwrap();
    std::fs::write(
        &shim,
        "#!/bin/sh\nexec \"$HOME/.pyenv/versions/3.11.99-bear/bin/python3\" \"$@\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!(
        "{}:{}",
        shim.parent().unwrap().display(),
        registry::user_path()
    )
}

/// Tool configuration with credentials beside it.
fn plant_credentials(home: &Path) {
    for (rel, text) in [
        (
            ".gitconfig",
            "[user]\n\tname = Real Dev\n[credential]\n\thelper = store\n",
        ),
        (
            ".git-credentials",
            "https://dev:FAKE-GIT-CRED-71@git.example.org\n",
        ),
        (
            ".npmrc",
            "registry=https://npm.example.org/\n//npm.example.org/:_authToken=FAKE-NPM-TOKEN-71\n",
        ),
    ] {
        std::fs::write(home.join(rel), text).unwrap();
    }
}

/// A PyPI sdist's pytest suite, run by the `python3` of the user's pyenv:
/// the same counts inside as outside (a wrong `python3` has no pytest);
/// `~/.gitconfig` is read, `~/.git-credentials` and a token-bearing
/// `~/.npmrc` are not.
#[test]
fn a_pypi_sdist_s_pytest_suite_runs_alike_with_pyenv_s_python() {
    let Some(project) = registry::python_project() else {
        return;
    };
    let env = support::env();
    let home = tempfile::tempdir().unwrap();
    let path = fake_pyenv(home.path(), &project.wheels);
    plant_credentials(home.path());
    let vars = registry::vars(home.path(), &path);
    registry::copy_dir(&project.sources, env.ws());
    let r = bearagent(
        &env,
        &vars,
        json!([
            cmd("python3 -c 'import sys, pytest; print(sys.prefix, pytest.__version__)'"),
            cmd("python3 -m pytest"),
            cmd("git config --global user.name; cat ~/.git-credentials ~/.npmrc; ls -A ~"),
            support::answer("done"),
        ]),
    );
    let done = commands(&r);
    let version = home.path().join(".pyenv/versions/3.11.99-bear");
    let found = &done[0].result;
    assert!(
        found.contains(&format!("{} 9.2.0", version.display())),
        "{found}"
    );
    let outside_dir = env.scratch.path().join("outside");
    registry::copy_dir(&project.sources, &outside_dir);
    let outside = registry::outside("python3 -m pytest", &outside_dir, &vars, LIMIT);
    same_suite("pytest", &done[1], &outside);
    let seen = &done[2].result;
    assert!(seen.contains("Real Dev"), "git reads ~/.gitconfig: {seen}");
    assert!(!seen.contains("FAKE-"), "a credential leaked: {seen}");
}

/// An npm package's `node --test` suite: the same counts inside as
/// outside; `npm install` with nothing cached fails in seconds naming
/// the setting (not after npm's minute of retries).
#[test]
fn an_npm_package_s_node_tests_run_alike_and_an_uncached_install_fails_fast() {
    let Some(package) = registry::npm_package() else {
        return;
    };
    let env = support::env();
    let home = tempfile::tempdir().unwrap();
    let vars = registry::vars(home.path(), &registry::user_path());
    registry::copy_dir(&package, &env.ws().join("pkg"));
    registry::copy_dir(&package, &env.ws().join("fresh"));
    std::fs::remove_dir_all(env.ws().join("fresh/node_modules")).unwrap();
    let r = bearagent(
        &env,
        &vars,
        json!([
            cmd_in("pkg", "node --test"),
            cmd_in("fresh", "npm install --omit=dev"),
            support::answer("done"),
        ]),
    );
    let done = commands(&r);
    let outside_dir = env.scratch.path().join("outside");
    registry::copy_dir(&package, &outside_dir);
    let outside = registry::outside("node --test", &outside_dir, &vars, LIMIT);
    same_suite("node --test", &done[0], &outside);
    failed_fast_naming_the_setting("npm install, nothing cached", &done[1]);
    assert!(!env.ws().join("fresh/node_modules/ipaddr.js").exists());
}

/// With `network = true` in the profile, `cargo fetch` and `npm install`
/// inside fill empty caches (the ones under the home folder and
/// `CARGO_HOME`), and the installed package's suite passes.
#[test]
fn with_network_true_cargo_fetch_and_npm_install_work_inside() {
    let (Some(krate), Some(package)) = (registry::rust_crate(), registry::npm_package()) else {
        return;
    };
    if !registry::cargo_and_npm_reachable("the network-on installs") {
        return;
    }
    let env = support::env();
    write_config(&env, "network = true");
    let home = tempfile::tempdir().unwrap();
    let cargo_home = home.path().join("cargo-home");
    std::fs::create_dir_all(cargo_home.join("registry")).unwrap();
    std::fs::create_dir_all(home.path().join(".npm")).unwrap();
    let mut vars = registry::vars(home.path(), &registry::user_path());
    vars.retain(|(name, _)| name != "CARGO_HOME");
    vars.push(("CARGO_HOME".into(), cargo_home.clone().into()));
    registry::copy_dir(&krate, &env.ws().join("crate"));
    registry::copy_dir(&package, &env.ws().join("pkg"));
    std::fs::remove_dir_all(env.ws().join("pkg/node_modules")).unwrap();
    let r = bearagent(
        &env,
        &vars,
        json!([
            cmd_in("crate", "cargo fetch"),
            cmd_in("pkg", "npm install --omit=dev"),
            cmd_in("pkg", "node --test"),
            support::answer("done"),
        ]),
    );
    let done = commands(&r);
    for d in &done {
        assert!(d.network && d.exit == Some(0), "{}", d.result);
        assert!(!d.result.contains(NETWORK_OFF), "{}", d.result);
    }
    assert!(!done[1].result.contains("Log files were not written"));
    let cached = std::fs::read_dir(cargo_home.join("registry/cache"))
        .unwrap()
        .flat_map(|index| std::fs::read_dir(index.unwrap().path()).unwrap())
        .any(|file| {
            file.unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("doc-comment-")
        });
    assert!(cached, "cargo fetch filled CARGO_HOME's cache");
    assert!(
        home.path().join(".npm/_cacache").is_dir(),
        "npm filled ~/.npm"
    );
    assert!(env
        .ws()
        .join("pkg/node_modules/ipaddr.js/package.json")
        .is_file());
    assert!(counts(&done[2].output).get("pass").is_some_and(|n| *n > 0));
}

/// With `network = true`, `pip install` into a venv in the workspace works
/// inside (the venv made from the user's Python, the package from PyPI);
/// with the network off the same install fails at once, saying why.
#[test]
fn with_network_true_pip_installs_into_a_workspace_venv() {
    // Fetching the Python project proves PyPI is reachable from here.
    if registry::python_project().is_none() {
        return;
    }
    let install = "python3 -m venv .venv && .venv/bin/pip install --no-cache-dir --disable-pip-version-check six==1.17.0 && .venv/bin/python -c 'import six; print(six.__version__)'";
    let home = tempfile::tempdir().unwrap();
    let vars = registry::vars(home.path(), &registry::user_path());
    let on = support::env();
    write_config(&on, "network = true");
    let r = bearagent(
        &on,
        &vars,
        json!([cmd_in(".", install), support::answer("done")]),
    );
    let done = commands(&r);
    assert!(
        done[0].network && done[0].exit == Some(0),
        "{}",
        done[0].result
    );
    assert!(done[0].output.contains("1.17.0"), "{}", done[0].output);
    let off = support::env();
    let started = std::time::Instant::now();
    let r = bearagent(
        &off,
        &vars,
        json!([cmd_in(".", install), support::answer("done")]),
    );
    let done = commands(&r);
    assert!(
        !done[0].network && done[0].exit != Some(0),
        "{}",
        done[0].result
    );
    assert!(done[0].network_refused, "{}", done[0].result);
    assert!(
        done[0].result.contains(NETWORK_OFF) && done[0].result.contains("allow-network"),
        "{}",
        done[0].result
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}
