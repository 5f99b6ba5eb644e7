//! The bubblewrap command line, and the once-per-process probe.
//!
//! Mounts, in order: `--ro-bind / /`, then every other mount sorted from the
//! shallowest path to the deepest (ties: tmpfs, read-only toolchain dirs and
//! configuration, writable caches and the workspace, `.git`, hidden), so a
//! deeper rule always wins — a workspace under `/tmp` shows through the
//! private `/tmp`, a hidden folder inside the workspace is covered, a
//! credential inside `~/.cargo` is hidden — and last the `--remount-ro` of
//! hidden folders.

use super::error::SandboxError;
use super::policy::SandboxPolicy;
use super::{home, seccomp};
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The host paths a policy resolves to (symlinks followed, missing paths
/// dropped). Built by [`resolve`]; [`args`] turns it into the argv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Layout {
    pub workspace: PathBuf,
    /// Canonical home, when it exists (a tmpfs goes over it).
    pub home: Option<PathBuf>,
    /// (host source, sandbox path) of each readable home dir.
    pub readable: Vec<(PathBuf, PathBuf)>,
    /// (host source, sandbox path) of each writable home dir.
    pub writable: Vec<(PathBuf, PathBuf)>,
    /// (host source, sandbox path) of each configuration file or folder.
    pub config: Vec<(PathBuf, PathBuf)>,
    /// `.git` (dir or file) and, for a `gitdir:` file, its target when that
    /// is inside the workspace.
    pub git: Vec<PathBuf>,
    /// (path, is_dir) of each hidden path.
    pub hidden: Vec<(PathBuf, bool)>,
    /// `/etc/resolv.conf`'s target when it lives under the hidden `/run`.
    pub resolv_conf: Option<PathBuf>,
    pub network: bool,
    /// The workspace bound read-only (a hook in plan mode).
    pub workspace_read_only: bool,
}

/// Checks and resolves the policy's paths on the host.
pub(super) fn resolve(policy: &SandboxPolicy) -> Result<Layout, SandboxError> {
    let workspace = canonical(&policy.workspace)
        .filter(|path| path.is_dir())
        .ok_or_else(|| {
            SandboxError::InvalidPolicy(format!(
                "workspace {} is not an existing folder",
                policy.workspace.display()
            ))
        })?;
    if workspace == Path::new("/") {
        return Err(SandboxError::InvalidPolicy(
            "the workspace cannot be / (everything would be writable)".into(),
        ));
    }
    let home = canonical(&policy.home);
    if home.as_deref() == Some(Path::new("/")) {
        return Err(SandboxError::InvalidPolicy(
            "home cannot be / (the empty home would hide everything)".into(),
        ));
    }
    let readable = home_binds(&policy.readable_home_dirs, &policy.home, home.as_deref());
    let writable = home_binds(&policy.writable_home_dirs, &policy.home, home.as_deref());
    let mut hidden: Vec<(PathBuf, bool)> = policy
        .hidden
        .iter()
        .filter_map(|path| canonical(path))
        .map(|path| {
            let is_dir = path.is_dir();
            (path, is_dir)
        })
        .collect();
    let (config, secrets) = home_files(policy, home.as_deref());
    hidden.extend(secrets);
    let resolv_conf = canonical(Path::new("/etc/resolv.conf")).filter(|p| p.starts_with("/run"));
    Ok(Layout {
        git: git_paths(&workspace),
        workspace,
        home,
        readable,
        writable,
        config,
        hidden,
        resolv_conf,
        network: policy.network,
        workspace_read_only: false,
    })
}

/// (host source, sandbox path).
type Bind = (PathBuf, PathBuf);

/// The configuration to bind, and what to hide at its sandbox path: the
/// credentials and the configuration files that look like they hold one,
/// where a bound folder would show them.
pub(super) fn home_files(
    policy: &SandboxPolicy,
    home: Option<&Path>,
) -> (Vec<Bind>, Vec<(PathBuf, bool)>) {
    let bound = policy.bound_home_dirs();
    let home::ConfigFiles {
        bind,
        hide: mut secrets,
        ..
    } = home::config_files(&policy.config_files, &bound);
    secrets.extend(
        policy
            .credentials
            .iter()
            .filter(|path| path.symlink_metadata().is_ok())
            .filter(|path| bound.iter().chain(&bind).any(|dir| path.starts_with(dir)))
            .cloned(),
    );
    let config = home_binds(&bind, &policy.home, home);
    // Hidden where the command would look: under the sandbox's home,
    // which may differ from the canonical path when a folder is a link.
    let hidden = secrets
        .iter()
        .map(|path| {
            let inside = match (home, path.strip_prefix(&policy.home)) {
                (Some(home), Ok(relative)) => home.join(relative),
                _ => canonical(path).unwrap_or_else(|| path.clone()),
            };
            (inside, path.is_dir())
        })
        .collect();
    (config, hidden)
}

/// (host source, sandbox path) of each existing folder of `dirs`. The
/// sandbox path is the one the tools expect ($HOME/.cargo), placed inside
/// the tmpfs home, even when the folder itself is a symlink elsewhere.
pub(super) fn home_binds(
    dirs: &[PathBuf],
    policy_home: &Path,
    home: Option<&Path>,
) -> Vec<(PathBuf, PathBuf)> {
    let mut binds = Vec::new();
    for dir in dirs {
        // Inside another of the list, it is seen through that one (a bind
        // onto a symlink within a read-only bind would fail).
        if dirs
            .iter()
            .any(|outer| outer != dir && dir.starts_with(outer))
        {
            continue;
        }
        let Some(source) = canonical(dir) else {
            continue;
        };
        let target = match (home, dir.strip_prefix(policy_home)) {
            (Some(home), Ok(relative)) => home.join(relative),
            _ => source.clone(),
        };
        binds.push((source, target));
    }
    binds
}

fn canonical(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// The workspace's git metadata, read-only so hooks and config (core.hooksPath,
/// core.fsmonitor…) cannot be planted for the host's next git command; and
/// its `.bearagent/` folder (project hooks and their scripts, which a
/// command must not rewrite behind the trust gate's back).
fn git_paths(workspace: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = canonical(&workspace.join(".bearagent"))
        .filter(|dir| dir.starts_with(workspace) && dir.as_path() != workspace)
        .into_iter()
        .collect();
    let dot_git = workspace.join(".git");
    let Some(resolved) = canonical(&dot_git) else {
        return paths;
    };
    if resolved.starts_with(workspace) {
        paths.push(resolved.clone());
    }
    // A worktree or submodule: `.git` is a file naming the real git dir.
    if resolved.is_file() {
        let gitdir = std::fs::read_to_string(&resolved)
            .ok()
            .and_then(|text| Some(text.strip_prefix("gitdir:")?.trim().to_string()))
            .and_then(|dir| canonical(&workspace.join(dir)));
        if let Some(dir) = gitdir.filter(|dir| dir.starts_with(workspace)) {
            paths.push(dir);
        }
    }
    paths
}

/// Where a command's input file is bound inside the sandbox.
const STDIN_PATH: &str = "/run/bearagent-stdin";

/// The full bwrap argv (without the program name).
pub(super) fn args(
    layout: &Layout,
    cwd: &Path,
    env: &[(String, String)],
    command: &str,
    stdin: Option<&Path>,
) -> Vec<OsString> {
    let mut argv: Vec<OsString> = Vec::new();
    let mut push = |items: &[&OsStr]| argv.extend(items.iter().map(|item| item.to_os_string()));
    push(&["--unshare-all".as_ref()]);
    if layout.network {
        push(&["--share-net".as_ref()]);
    }
    push(&[
        "--die-with-parent".as_ref(),
        "--new-session".as_ref(),
        "--cap-drop".as_ref(),
        "ALL".as_ref(),
        "--ro-bind".as_ref(),
        "/".as_ref(),
        "/".as_ref(),
    ]);
    for mount in mounts(layout) {
        push(
            &mount
                .args
                .iter()
                .map(OsString::as_os_str)
                .collect::<Vec<_>>(),
        );
    }
    // Into the private /run, after every other mount: nothing covers it.
    if let Some(stdin) = stdin {
        push(&["--ro-bind".as_ref(), stdin.as_os_str(), STDIN_PATH.as_ref()]);
    }
    for (path, is_dir) in &layout.hidden {
        if *is_dir {
            push(&["--remount-ro".as_ref(), path.as_os_str()]);
        }
    }
    push(&["--chdir".as_ref(), cwd.as_os_str(), "--clearenv".as_ref()]);
    for (name, value) in env {
        push(&["--setenv".as_ref(), name.as_ref(), value.as_ref()]);
    }
    // fd 0 carries the filter; bwrap closes it after reading, so the command
    // gets /dev/null (or its input file) as stdin from the outer shell
    // before its own shell runs.
    let inner = match stdin {
        Some(_) => format!("exec /bin/sh -c \"$1\" <{STDIN_PATH}"),
        None => "exec /bin/sh -c \"$1\" </dev/null".to_owned(),
    };
    push(&[
        "--seccomp".as_ref(),
        "0".as_ref(),
        "--".as_ref(),
        "/bin/sh".as_ref(),
        "-c".as_ref(),
        inner.as_ref(),
        "sh".as_ref(),
        command.as_ref(),
    ]);
    argv
}

struct Mount {
    dest: PathBuf,
    rank: u8,
    args: Vec<OsString>,
}

fn mounts(layout: &Layout) -> Vec<Mount> {
    let mut mounts = Vec::new();
    let mut add = |rank: u8, dest: &Path, args: &[&OsStr]| {
        mounts.push(Mount {
            dest: dest.to_path_buf(),
            rank,
            args: args.iter().map(|arg| arg.to_os_string()).collect(),
        });
    };
    add(0, Path::new("/dev"), &["--dev".as_ref(), "/dev".as_ref()]);
    add(
        0,
        Path::new("/proc"),
        &["--proc".as_ref(), "/proc".as_ref()],
    );
    add(0, Path::new("/tmp"), &["--tmpfs".as_ref(), "/tmp".as_ref()]);
    // /run holds sockets (D-Bus with the keyring, docker, databases); a
    // read-only mount does not stop connect(), so it is replaced.
    add(0, Path::new("/run"), &["--tmpfs".as_ref(), "/run".as_ref()]);
    if let (true, Some(resolv)) = (layout.network, &layout.resolv_conf) {
        let resolv = resolv.as_os_str();
        add(
            1,
            Path::new(resolv),
            &["--ro-bind".as_ref(), resolv, resolv],
        );
    }
    if let Some(home) = &layout.home {
        add(0, home, &["--tmpfs".as_ref(), home.as_os_str()]);
    }
    for (source, target) in &layout.readable {
        let args = ["--ro-bind".as_ref(), source.as_os_str(), target.as_os_str()];
        add(1, target, &args);
    }
    for (source, target) in &layout.config {
        let args = ["--ro-bind".as_ref(), source.as_os_str(), target.as_os_str()];
        add(1, target, &args);
    }
    // After a read-only bind of the same folder, so the writable one wins.
    for (source, target) in &layout.writable {
        let args = ["--bind".as_ref(), source.as_os_str(), target.as_os_str()];
        add(2, target, &args);
    }
    let workspace = layout.workspace.as_os_str();
    let bind = if layout.workspace_read_only {
        "--ro-bind"
    } else {
        "--bind"
    };
    add(2, &layout.workspace, &[bind.as_ref(), workspace, workspace]);
    for git in &layout.git {
        add(
            3,
            git,
            &["--ro-bind".as_ref(), git.as_os_str(), git.as_os_str()],
        );
    }
    for (path, is_dir) in &layout.hidden {
        if *is_dir {
            add(4, path, &["--tmpfs".as_ref(), path.as_os_str()]);
        } else {
            add(
                4,
                path,
                &["--ro-bind".as_ref(), "/dev/null".as_ref(), path.as_os_str()],
            );
        }
    }
    mounts.sort_by_key(|mount| (mount.dest.components().count(), mount.rank));
    mounts
}

/// The seccomp filter in a sealed memfd, positioned at the start, to become
/// bwrap's stdin (`--seccomp 0`). Passing it as stdin avoids clearing
/// close-on-exec on a shared descriptor, which would race with other spawns.
pub(super) fn filter_stdin(network: bool) -> Result<Stdio, SandboxError> {
    use rustix::fs::{MemfdFlags, SealFlags};
    let bytes = seccomp::filter_bytes(network)?;
    let io = |error: std::io::Error| SandboxError::Io(format!("seccomp filter memfd: {error}"));
    let fd = rustix::fs::memfd_create(
        "bearagent-seccomp",
        MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING,
    )
    .map_err(|error| io(error.into()))?;
    let mut file = File::from(fd);
    file.write_all(bytes).map_err(io)?;
    file.rewind().map_err(io)?;
    let seals = SealFlags::WRITE | SealFlags::GROW | SealFlags::SHRINK | SealFlags::SEAL;
    rustix::fs::fcntl_add_seals(&file, seals).map_err(|error| io(error.into()))?;
    Ok(Stdio::from(file))
}

/// The working bwrap binary, found and tried once per process.
pub(super) fn bwrap_path() -> Result<&'static Path, SandboxError> {
    static PROBE: OnceLock<Result<PathBuf, SandboxError>> = OnceLock::new();
    match PROBE.get_or_init(find_and_try) {
        Ok(path) => Ok(path),
        Err(error) => Err(error.clone()),
    }
}

fn find_and_try() -> Result<PathBuf, SandboxError> {
    let path = find_bwrap().ok_or_else(|| SandboxError::Unavailable {
        reason: "bubblewrap (bwrap) is not installed".into(),
        fix: "install bubblewrap: sudo apt install bubblewrap \
              (Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap)"
            .into(),
    })?;
    let probe_args = [
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--seccomp",
        "0",
        "--",
        "/bin/sh",
        "-c",
        ":",
    ];
    let mut child = Command::new(&path)
        .args(probe_args)
        .env_clear()
        .stdin(filter_stdin(false)?)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| SandboxError::Unavailable {
            reason: format!("could not start {}: {error}", path.display()),
            fix: "reinstall bubblewrap: sudo apt install --reinstall bubblewrap".into(),
        })?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < Duration::from_secs(10) => {
                std::thread::sleep(Duration::from_millis(2));
            }
            Ok(None) | Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(SandboxError::Unavailable {
                    reason: "bwrap did not finish a trivial command within 10 s".into(),
                    fix: "check that `bwrap --ro-bind / / true` works in a terminal".into(),
                });
            }
        }
    };
    if status.success() {
        return Ok(path);
    }
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
    }
    Err(namespace_failure(stderr.trim()))
}

/// bwrap from the usual system locations first, then PATH.
fn find_bwrap() -> Option<PathBuf> {
    let system = ["/usr/bin", "/bin", "/usr/local/bin"].map(PathBuf::from);
    let path_dirs = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default();
    system
        .into_iter()
        .chain(path_dirs)
        .map(|dir| dir.join("bwrap"))
        .find(|candidate| candidate.is_file())
}

/// Turns a failed probe into a message with the likely fix.
fn namespace_failure(stderr: &str) -> SandboxError {
    let sysctl = |name: &str| {
        std::fs::read_to_string(format!("/proc/sys/{name}"))
            .map(|value| value.trim().to_string())
            .unwrap_or_default()
    };
    let fix = if sysctl("kernel/unprivileged_userns_clone") == "0" {
        "enable unprivileged user namespaces: sudo sysctl -w kernel.unprivileged_userns_clone=1"
    } else if sysctl("user/max_user_namespaces") == "0" {
        "enable user namespaces: sudo sysctl -w user.max_user_namespaces=15000"
    } else if sysctl("kernel/apparmor_restrict_unprivileged_userns") == "1" {
        "AppArmor blocks user namespaces: install an AppArmor profile allowing bwrap \
         (Ubuntu 24.04+: the bwrap-userns-restrict profile) or run \
         sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"
    } else if stderr.contains("seccomp") {
        "the kernel needs seccomp filter support (CONFIG_SECCOMP_FILTER)"
    } else {
        "make sure unprivileged user namespaces are enabled \
         (sudo sysctl -w kernel.unprivileged_userns_clone=1) and that \
         `bwrap --unshare-all --ro-bind / / true` works in a terminal"
    };
    SandboxError::Unavailable {
        reason: format!("bubblewrap cannot create a sandbox here: {stderr}"),
        fix: fix.into(),
    }
}

#[cfg(test)]
#[path = "bwrap_tests.rs"]
mod tests;
