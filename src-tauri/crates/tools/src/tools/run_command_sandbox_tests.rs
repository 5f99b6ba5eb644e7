//! `run_command` through its one route in the real sandbox, with the
//! network off (the default) and on: the offline switches, the note in the
//! result, and real cargo against this machine's cargo cache.
//!
//! Workspaces live under `/var/tmp`: the sandbox's `/tmp` is private.

use super::*;
use crate::{ApprovalMode, Policy, PolicyDecision};
use std::path::Path;
use std::time::Instant;

fn var_tmp_workspace() -> (tempfile::TempDir, WorkspaceRoot) {
    let dir = tempfile::Builder::new()
        .prefix("bearagent-run-command-")
        .tempdir_in("/var/tmp")
        .unwrap();
    let ws = WorkspaceRoot::new(dir.path()).unwrap();
    (dir, ws)
}

async fn run_in(ws: &WorkspaceRoot, command: &str, settings: &CommandSettings) -> CommandRun {
    run_with_host(ws, command, settings, &HostEnvironment::current(Vec::new())).await
}

fn settings(network: bool, sandbox: bool) -> CommandSettings {
    CommandSettings {
        network,
        sandbox,
        ..CommandSettings::default()
    }
}

#[tokio::test]
async fn a_refused_connection_names_the_setting_that_allows_it() {
    let (_dir, ws) = var_tmp_workspace();
    let connect =
        "python3 -c 'import socket; socket.create_connection((\"192.0.2.1\", 80), timeout=2)'";
    let off = run_in(&ws, connect, &settings(false, true)).await;
    assert!(off.is_error());
    assert!(off.network_refused);
    let first_line = off.for_model.lines().next().unwrap();
    assert!(
        first_line.contains(sandbox::network::NETWORK_OFF),
        "{first_line}"
    );
    assert!(first_line.contains("network = true"), "{first_line}");

    // A command that does not touch the network only hears that it is off.
    let ok = run_in(&ws, "echo fine", &settings(false, true)).await;
    assert!(!ok.network_refused);
    assert!(ok.for_model.starts_with("exit code 0, after "));
    assert!(ok
        .for_model
        .lines()
        .next()
        .unwrap()
        .ends_with("; network off in the sandbox"));
    let plain_failure = run_in(
        &ws,
        "echo 'test failed' >&2; exit 1",
        &settings(false, true),
    )
    .await;
    assert!(!plain_failure.network_refused);
    assert!(!plain_failure.for_model.contains("network = true"));

    // With the network on nothing is said about it.
    let on = run_in(&ws, "echo fine", &settings(true, true)).await;
    assert!(!on.for_model.contains("network"), "{}", on.for_model);
}

#[tokio::test]
async fn offline_switches_are_set_only_when_the_sandbox_has_no_network() {
    let (_dir, ws) = var_tmp_workspace();
    let show = "env | sort";
    let off = run_in(&ws, show, &settings(false, true)).await;
    for (name, value) in sandbox::network::OFFLINE_ENV {
        assert!(
            off.for_model.contains(&format!("\n{name}={value}\n")),
            "{name} missing:\n{}",
            off.for_model
        );
    }
    for (network, sandboxed) in [(true, true), (false, false)] {
        let run = run_in(&ws, show, &settings(network, sandboxed)).await;
        assert!(
            !run.for_model.contains("CARGO_NET_OFFLINE"),
            "{}",
            run.for_model
        );
    }
}

/// A crate depending on `dependency`, without a lockfile.
fn crate_with_dependency(root: &Path, dependency: &str) {
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        format!(
            "[package]\nname = \"probe\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dependencies]\n{dependency}\n\n[workspace]\n"
        ),
    )
    .unwrap();
    std::fs::write(root.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
}

#[tokio::test]
async fn an_uncached_cargo_dependency_fails_in_seconds_naming_the_setting() {
    let (dir, ws) = var_tmp_workspace();
    crate_with_dependency(dir.path(), "bearagent-no-such-crate-5e1f = \"1\"");
    let started = Instant::now();
    let run = run_in(&ws, "cargo fetch", &settings(false, true)).await;
    let took = started.elapsed();
    assert!(run.is_error());
    assert!(run.network_refused, "{}", run.for_model);
    assert!(run.for_model.contains("network = true"));
    assert!(took < Duration::from_secs(5), "took {took:?}");
}

#[tokio::test]
async fn a_cached_cargo_dependency_builds_with_the_network_off() {
    let (dir, ws) = var_tmp_workspace();
    crate_with_dependency(dir.path(), "itoa = \"1\"");
    // Setup, outside the sandbox: the dependency into the user's cargo
    // cache (a no-op when it is there already, as after building BearAgent).
    let fetch = |offline: bool| {
        let mut fetch = std::process::Command::new(env!("CARGO"));
        fetch.arg("fetch").current_dir(dir.path());
        if offline {
            fetch.arg("--offline");
        }
        fetch.status().is_ok_and(|status| status.success())
    };
    assert!(
        fetch(true) || fetch(false),
        "setup: cargo fetch of itoa failed"
    );
    std::fs::remove_file(dir.path().join("Cargo.lock")).unwrap();
    let run = run_in(&ws, "cargo build", &settings(false, true)).await;
    assert!(!run.is_error(), "{}", run.for_model);
    assert!(dir.path().join("Cargo.lock").is_file());
}

/// Whether `host:443` answers within 3 s (the registries this machine
/// reaches); tests that download are skipped, saying so, when not.
fn reachable(host: &str) -> bool {
    use std::net::ToSocketAddrs;
    let Ok(mut addrs) = (host, 443).to_socket_addrs() else {
        return false;
    };
    addrs.any(|addr| std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(3)).is_ok())
}

/// A fresh home under `/var/tmp` whose toolchains are the user's (the
/// binaries, read-only) and whose package caches are empty, so a download
/// proves it was written here and the user's caches are not touched.
fn home_with_empty_caches() -> (tempfile::TempDir, HostEnvironment) {
    let dir = tempfile::Builder::new()
        .prefix("bearagent-home-")
        .tempdir_in("/var/tmp")
        .unwrap();
    let home = dir.path().to_path_buf();
    // The real toolchain, wherever rustup and cargo keep it.
    let real = HostEnvironment::current(Vec::new());
    let tool_home = |name: &str, rel: &str| {
        real.tool_homes
            .iter()
            .find(|(n, _)| n == name)
            .map_or_else(|| real.home.join(rel), |(_, dir)| dir.clone())
    };
    std::fs::create_dir_all(home.join(".cargo/registry")).unwrap();
    std::fs::create_dir_all(home.join(".npm")).unwrap();
    std::os::unix::fs::symlink(
        tool_home("CARGO_HOME", ".cargo").join("bin"),
        home.join(".cargo/bin"),
    )
    .unwrap();
    std::os::unix::fs::symlink(tool_home("RUSTUP_HOME", ".rustup"), home.join(".rustup")).unwrap();
    let path = vec![home.join(".cargo/bin"), "/usr/bin".into(), "/bin".into()];
    (
        dir,
        HostEnvironment {
            home,
            hidden: Vec::new(),
            path,
            tool_homes: Vec::new(),
        },
    )
}

async fn run_with_host(
    ws: &WorkspaceRoot,
    command: &str,
    settings: &CommandSettings,
    host: &HostEnvironment,
) -> CommandRun {
    let tool = RunCommand::new();
    let prepared = tool
        .prepare(&crate::testutil::obj(json!({"command": command})), ws)
        .unwrap();
    let PolicyDecision::Allow(call) =
        Policy::new(ApprovalMode::AllowAll).decide(tool.spec(), prepared)
    else {
        panic!("AllowAll allows commands");
    };
    let run = tool
        .run(call, ws, settings, host, CancellationToken::new(), |_| {})
        .await;
    println!("$ {command}\n{}", run.for_model);
    run
}

#[tokio::test]
async fn with_the_network_on_cargo_fetch_and_npm_install_fill_the_caches() {
    if !reachable("index.crates.io") || !reachable("registry.npmjs.org") {
        println!("skipped: the registries are not reachable from here");
        return;
    }
    let (home_dir, host) = home_with_empty_caches();
    let (dir, ws) = var_tmp_workspace();
    crate_with_dependency(dir.path(), "itoa = \"1\"");
    let on = settings(true, true);
    let fetch = run_with_host(&ws, "cargo fetch", &on, &host).await;
    assert!(!fetch.is_error(), "{}", fetch.for_model);
    let npm = run_with_host(&ws, "npm install --no-save is-number@7.0.0", &on, &host).await;
    assert!(!npm.is_error(), "{}", npm.for_model);
    assert!(!npm.for_model.contains("Log files were not written"));
    assert!(dir
        .path()
        .join("node_modules/is-number/package.json")
        .is_file());
    let home = home_dir.path();
    assert!(
        home.join(".cargo/registry/cache").is_dir(),
        "the crate is cached"
    );
    assert!(home.join(".npm/_cacache").is_dir(), "the package is cached");

    // The network off again: the cached crate still resolves, offline.
    std::fs::remove_file(dir.path().join("Cargo.lock")).unwrap();
    let offline = run_with_host(&ws, "cargo fetch", &settings(false, true), &host).await;
    assert!(!offline.is_error(), "{}", offline.for_model);
}

fn script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A pyenv-style layout under a fresh home: `shims/python3` runs
/// `versions/X/bin/python3`. Inside, the user's PATH finds it (its root
/// bound read-only); an entry into another hidden folder, and a relative
/// one, are dropped.
#[tokio::test]
async fn the_version_manager_on_the_users_path_is_the_one_inside() {
    let dir = tempfile::Builder::new()
        .prefix("bearagent-home-")
        .tempdir_in("/var/tmp")
        .unwrap();
    let home = dir.path().to_path_buf();
    let pyenv = home.join(".pyenv");
    script(
        &pyenv.join("shims/python3"),
        "exec \"$HOME/.pyenv/versions/3.99.1/bin/python3\" \"$@\"",
    );
    script(
        &pyenv.join("versions/3.99.1/bin/python3"),
        "echo 'Python 3.99.1 (fake pyenv)'",
    );
    script(
        &home.join(".secret-tool/bin/secret"),
        "echo SECRET-TOOL-RAN",
    );
    std::fs::write(home.join(".secret-tool/token"), "TOKEN-5a9c").unwrap();
    let host = HostEnvironment {
        path: vec![
            pyenv.join("shims"),
            home.join(".secret-tool/bin"),
            ".".into(),
            "/usr/bin".into(),
            "/bin".into(),
        ],
        home: home.clone(),
        hidden: Vec::new(),
        tool_homes: Vec::new(),
    };
    let (_ws_dir, ws) = var_tmp_workspace();
    let command = "python3; command -v secret || echo no-secret-tool
        cat $HOME/.secret-tool/token; touch $HOME/.pyenv/planted && echo PYENV-WRITABLE
        echo \"PATH=$PATH\"";
    let run = run_with_host(&ws, command, &settings(false, true), &host).await;
    let out = &run.for_model;
    assert!(out.contains("Python 3.99.1 (fake pyenv)"), "{out}");
    assert!(
        out.contains("no-secret-tool") && !out.contains("TOKEN-5a9c"),
        "{out}"
    );
    assert!(!out.contains("PYENV-WRITABLE") && !pyenv.join("planted").exists());
    let path_line = out.lines().find(|l| l.starts_with("PATH=")).unwrap();
    let expected = format!("PATH={}:/usr/bin:/bin:", pyenv.join("shims").display());
    assert!(path_line.starts_with(&expected), "{path_line}");
    assert!(!path_line.contains(".secret-tool") && !path_line.contains(":.:"));
}
