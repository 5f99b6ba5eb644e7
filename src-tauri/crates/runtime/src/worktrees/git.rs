//! Running git for worktrees, safely against a hostile repository: a
//! repository's config and `.gitattributes` are data here, never a way to
//! run a program. Every call turns off what names one — hooks, fsmonitor,
//! every filter driver the repository's config (and the files it
//! includes) defines, external diff and textconv, pagers, editors, signing
//! programs, credential helpers, transports, automatic gc — and nothing
//! asks on a terminal. The user's own config (`~/.gitconfig`) is theirs
//! and trusted.

use crate::AppError;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Settings that keep any repository's config from running a program.
const SAFE: &[&str] = &[
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.pager=cat",
    "core.editor=false",
    "core.askPass=",
    "core.sshCommand=false",
    "core.attributesFile=/dev/null",
    "diff.external=",
    "credential.helper=",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    "log.showSignature=false",
    "gpg.program=false",
    "gpg.ssh.program=false",
    "gpg.x509.program=false",
    "protocol.allow=never",
    "submodule.recurse=false",
    "gc.auto=0",
    "maintenance.auto=false",
];

/// Environment variables that name programs git would run, or change which
/// config it reads; removed from every git call.
const UNSAFE_ENV: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_EXTERNAL_DIFF",
    "GIT_PAGER",
    "PAGER",
    "GIT_EDITOR",
    "EDITOR",
    "VISUAL",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_ATTR_SOURCE",
    "GIT_PROXY_COMMAND",
];

/// Subcommands that can show a diff, and so run an external diff or a
/// textconv program unless told not to.
const DIFFING: &[&str] = &["diff", "show", "log"];

fn base(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("--no-pager");
    for setting in SAFE {
        c.arg("-c").arg(setting);
    }
    c.arg("-C")
        .arg(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0");
    for name in UNSAFE_ENV {
        c.env_remove(name);
    }
    c
}

/// The filter drivers `dir`'s repository defines in its own config (and
/// the files it includes, `includeIf` too, and a worktree's config): each
/// could run on checkout, `add` and `apply`. The user's and the system's
/// config are the user's own (git-lfs, say) and keep working — unless the
/// repository redefines one of their filters, which then runs nothing.
fn filter_names(dir: &Path) -> Result<Vec<String>, AppError> {
    filter_names_with(|| base(dir))
}

/// `filter_names` with the git command `git` makes (a test sets the
/// user's config file on it). One process: every scope, each line naming
/// its own (an included file's is the including file's).
fn filter_names_with(git: impl Fn() -> Command) -> Result<Vec<String>, AppError> {
    let out = git()
        .args(["config", "--show-scope", "--includes", "--name-only"])
        .args(["--get-regexp", r"^filter\."])
        .output()
        .map_err(unavailable)?;
    // Exit 1: no such setting; 128: no repository here. Nothing to turn
    // off either way.
    let text = String::from_utf8_lossy(&out.stdout);
    let mut names: Vec<String> = text
        .lines()
        .filter_map(|line| {
            let (scope, key) = line.split_once('\t')?;
            if scope != "local" && scope != "worktree" {
                return None;
            }
            let rest = key.strip_prefix("filter.")?;
            let (name, _) = rest.rsplit_once('.')?;
            Some(name.to_owned())
        })
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

/// `-c` pairs that turn off each named filter driver: an empty command runs
/// nothing, and a driver that is not required lets the file through as is.
fn filter_args(names: &[String]) -> Vec<String> {
    let mut args = Vec::new();
    for name in names {
        for key in ["clean=", "smudge=", "process=", "required=false"] {
            args.push("-c".to_owned());
            args.push(format!("filter.{name}.{key}"));
        }
    }
    args
}

/// Git in one folder, the repository's filter drivers read once (one
/// process) for every call made through it, so an operation's several
/// calls pay for that once. Made per operation, never kept: the next
/// operation reads the config again.
pub(crate) struct Git {
    dir: PathBuf,
    filters: Vec<String>,
}

impl Git {
    pub(crate) fn at(dir: &Path) -> Result<Git, AppError> {
        Ok(Git {
            dir: dir.to_path_buf(),
            filters: filter_args(&filter_names(dir)?),
        })
    }

    /// The git command for `args`, with every program-running setting of
    /// the repository neutralised.
    fn command(&self, args: &[&str]) -> Command {
        let mut c = base(&self.dir);
        c.args(&self.filters);
        let Some((sub, rest)) = args.split_first() else {
            return c;
        };
        // `-c` options given by the caller come before the subcommand.
        let mut sub = *sub;
        let mut rest = rest;
        while sub == "-c" {
            let Some((value, tail)) = rest.split_first() else {
                break;
            };
            c.arg("-c").arg(value);
            let Some((next, after)) = tail.split_first() else {
                return c;
            };
            (sub, rest) = (*next, after);
        }
        c.arg(sub);
        if DIFFING.contains(&sub) {
            c.args(["--no-ext-diff", "--no-textconv"]);
        }
        c.args(rest);
        c
    }

    /// The raw output of `git ARGS`.
    pub(crate) fn output(&self, args: &[&str]) -> Result<Output, AppError> {
        self.command(args).output().map_err(unavailable)
    }

    /// `git ARGS`: its stdout, or an error carrying git's own words.
    pub(crate) fn run(&self, args: &[&str]) -> Result<String, AppError> {
        let out = self.output(args)?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let sub = args
                .iter()
                .find(|a| !a.starts_with('-') && !a.contains('='));
            return Err(AppError::Conflict(format!(
                "git {} failed in {}: {}",
                sub.copied().unwrap_or(""),
                self.dir.display(),
                stderr.trim()
            )));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

fn unavailable(e: std::io::Error) -> AppError {
    AppError::Unavailable(format!(
        "git could not be run ({e}); worktrees need git installed"
    ))
}

/// The raw output of `git ARGS` in `dir`.
pub fn output(dir: &Path, args: &[&str]) -> Result<Output, AppError> {
    Git::at(dir)?.output(args)
}

/// `git ARGS` in `dir`: its stdout, or an error carrying git's own words.
pub fn run(dir: &Path, args: &[&str]) -> Result<String, AppError> {
    Git::at(dir)?.run(args)
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

/// Many files' bytes at `commit` from one `git cat-file --batch` (one
/// process, not one per file: applying hundreds of files stays quick).
pub fn show_many(
    dir: &Path,
    commit: &str,
    paths: &[String],
) -> Result<Vec<Option<Vec<u8>>>, AppError> {
    use std::io::{BufRead, Read, Write};
    if paths.iter().any(|p| p.contains('\n')) {
        // The batch protocol is line-based: such a name is asked alone.
        return paths.iter().map(|p| show(dir, commit, p)).collect();
    }
    let mut child = Git::at(dir)?
        .command(&["cat-file", "--batch"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(unavailable)?;
    let input: String = paths.iter().map(|p| format!("{commit}:{p}\n")).collect();
    let stdin = child.stdin.take();
    // Written from a thread: git answers while it reads, and a full pipe
    // either way would block both.
    let writer = std::thread::spawn(move || {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(input.as_bytes());
        }
    });
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| AppError::Unavailable("git cat-file gave no output".into()))?;
    let mut reader = std::io::BufReader::new(stdout);
    let broken = |e: std::io::Error| AppError::Unavailable(format!("git cat-file --batch: {e}"));
    let mut out = Vec::with_capacity(paths.len());
    for _ in paths {
        let mut header = String::new();
        reader.read_line(&mut header).map_err(broken)?;
        let size = header
            .split_whitespace()
            .nth(2)
            .filter(|_| header.split_whitespace().nth(1) == Some("blob"))
            .and_then(|n| n.parse::<usize>().ok());
        let Some(size) = size else {
            out.push(None);
            continue;
        };
        let mut bytes = vec![0; size + 1];
        reader.read_exact(&mut bytes).map_err(broken)?;
        bytes.pop();
        out.push(Some(bytes));
    }
    let _ = writer.join();
    let _ = child.wait();
    Ok(out)
}

#[cfg(test)]
#[path = "git_tests.rs"]
mod tests;
