//! Running git for worktrees, safely against a hostile repository: its
//! hooks and fsmonitor never run (a repository's config could otherwise
//! make `git worktree add` run any program), and nothing asks on a terminal.

use crate::AppError;
use std::path::Path;
use std::process::{Command, Output};

/// Options that keep a repository's own config from running programs.
const SAFE: &[&str] = &[
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "protocol.file.allow=never",
];

fn command(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.args(SAFE)
        .arg("-C")
        .arg(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
    c
}

/// The raw output of `git ARGS` in `dir`.
pub fn output(dir: &Path, args: &[&str]) -> Result<Output, AppError> {
    command(dir).args(args).output().map_err(|e| {
        AppError::Unavailable(format!(
            "git could not be run ({e}); worktrees need git installed"
        ))
    })
}

/// `git ARGS` in `dir`: its stdout, or an error carrying git's own words.
pub fn run(dir: &Path, args: &[&str]) -> Result<String, AppError> {
    let out = output(dir, args)?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(AppError::Conflict(format!(
            "git {} failed in {}: {}",
            args.first().copied().unwrap_or(""),
            dir.display(),
            stderr.trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `git ARGS` with BearAgent as the committer (for the commit that
/// carries uncommitted changes into a worktree; never on the user's branch).
pub fn run_as_bearagent(dir: &Path, args: &[&str]) -> Result<String, AppError> {
    let mut full = vec![
        "-c",
        "user.name=BearAgent",
        "-c",
        "user.email=bearagent@localhost",
    ];
    full.extend_from_slice(args);
    run(dir, &full)
}

/// The local branch `branch` exists in the repository.
pub fn branch_exists(dir: &Path, branch: &str) -> Result<bool, AppError> {
    let reference = format!("refs/heads/{branch}");
    Ok(
        output(dir, &["rev-parse", "--verify", "--quiet", &reference])?
            .status
            .success(),
    )
}

/// A file's bytes at `commit` (None: the file is not in that commit).
pub fn show(dir: &Path, commit: &str, path: &str) -> Result<Option<Vec<u8>>, AppError> {
    let spec = format!("{commit}:{path}");
    let out = output(dir, &["cat-file", "blob", &spec])?;
    Ok(out.status.success().then_some(out.stdout))
}
