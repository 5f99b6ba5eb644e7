//! Making a run's worktree: a new branch `bearagent/<name>` at the commit
//! the user picked, in a folder outside the repository, optionally with
//! the main checkout's uncommitted changes copied in (read, never moved:
//! the main checkout is not touched).

use super::git;
use crate::AppError;
use bearagent_kernel::{RunId, Worktree};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// What the user asked for: a name (default: the run id's last 8 hex
/// digits), the commit to start from (default `HEAD`), and whether the
/// main checkout's uncommitted changes come along.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorktreeRequest {
    pub name: Option<String>,
    pub base: Option<String>,
    pub carry_changes: bool,
}

/// Worktrees of one process are made one at a time: git locks the
/// repository's worktree list and config while it adds one.
static CREATING: Mutex<()> = Mutex::new(());

/// Makes the worktree `run_id` is to work in (under `worktrees_dir`), of the repository whose
/// main checkout is `repo`, from `source`: the main checkout itself, or
/// (a fork) another worktree of it, whose HEAD and changes it starts
/// from.
pub(crate) fn make_worktree(
    repo: &Path,
    source: &Path,
    run_id: RunId,
    request: &WorktreeRequest,
    worktrees_dir: &Path,
) -> Result<Worktree, AppError> {
    let top = git::run(source, &["rev-parse", "--show-toplevel"]).map_err(|_| {
        AppError::InvalidInput(format!(
            "{} is not in a git repository; a worktree needs one",
            source.display()
        ))
    })?;
    let top = PathBuf::from(top.trim());
    if top.canonicalize().ok().as_deref() != Some(source) {
        return Err(AppError::InvalidInput(format!(
            "a worktree run needs the repository's top folder as its workspace: {} is inside {}",
            source.display(),
            top.display()
        )));
    }
    let name = worktree_name(request.name.as_deref(), run_id)?;
    let base_rev = request.base.as_deref().unwrap_or("HEAD");
    let base = git::run(
        source,
        &[
            "rev-parse",
            "--verify",
            "--end-of-options",
            &format!("{base_rev}^{{commit}}"),
        ],
    )
    .map_err(|_| {
        AppError::InvalidInput(format!(
            "{base_rev} is not a commit of {}",
            source.display()
        ))
    })?
    .trim()
    .to_owned();
    let folder = worktree_folder(worktrees_dir, repo, &name)?;
    let branch = format!("bearagent/{name}");
    if git::branch_exists(repo, &branch)? {
        return Err(AppError::Conflict(format!(
            "branch {branch} exists already; choose another worktree name"
        )));
    }
    add_worktree(repo, &folder, &branch, &base)?;
    let start = if request.carry_changes {
        carry_changes(source, &folder).inspect_err(|_| remove_quietly(repo, &folder, &branch))?
    } else {
        base.clone()
    };
    Ok(Worktree {
        repo: repo.display().to_string(),
        path: folder.display().to_string(),
        branch,
        base,
        start,
        carried_changes: request.carry_changes,
    })
}

/// `<worktrees dir>/<repo folder name>-<hash of its path>/<name>`,
/// which must not exist yet nor be inside the repository.
fn worktree_folder(root: &Path, repo: &Path, name: &str) -> Result<PathBuf, AppError> {
    let label = repo
        .file_name()
        .map_or_else(|| "repo".into(), |n| n.to_string_lossy().into_owned());
    let digest = bearagent_store::hash_bytes(repo.display().to_string().as_bytes());
    let folder = root
        .join(format!("{label}-{}", &digest.as_str()[..8]))
        .join(name);
    std::fs::create_dir_all(folder.parent().unwrap_or(root)).map_err(|source| AppError::Io {
        path: root.to_path_buf(),
        source,
    })?;
    let parent = folder
        .parent()
        .and_then(|p| p.canonicalize().ok())
        .unwrap_or_default();
    if parent.starts_with(repo) {
        return Err(AppError::InvalidInput(format!(
            "worktrees_dir {} is inside the repository {}; worktrees are made outside it",
            root.display(),
            repo.display()
        )));
    }
    if folder.exists() {
        return Err(AppError::Conflict(format!(
            "{} exists already; choose another worktree name",
            folder.display()
        )));
    }
    Ok(folder)
}

/// A name for the worktree and its branch: letters, digits, `.`, `_`, `-`.
fn worktree_name(asked: Option<&str>, run_id: RunId) -> Result<String, AppError> {
    let id = run_id.to_string().replace('-', "");
    let name = asked.map_or_else(
        || id[id.len().saturating_sub(8)..].to_owned(),
        str::to_owned,
    );
    let ok = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with(['.', '-'])
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !ok || name.contains("..") || name.ends_with(".lock") {
        return Err(AppError::InvalidInput(format!(
            "worktree name {name:?}: use 1 to 64 letters, digits, '.', '_' or '-'"
        )));
    }
    Ok(name)
}

/// `git worktree add -b BRANCH FOLDER BASE`, retried while another process
/// holds the repository's locks.
fn add_worktree(repo: &Path, folder: &Path, branch: &str, base: &str) -> Result<(), AppError> {
    let _one_at_a_time = CREATING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let _one_process_at_a_time = turn_lock(repo)?;
    let folder_arg = folder.display().to_string();
    let mut last = None;
    for attempt in 0..6u64 {
        match git::run(
            repo,
            &[
                "worktree",
                "add",
                "--quiet",
                "-b",
                branch,
                &folder_arg,
                base,
            ],
        ) {
            Ok(_) => return Ok(()),
            Err(AppError::Conflict(m)) if m.contains(".lock") => {
                last = Some(AppError::Conflict(m));
                std::thread::sleep(Duration::from_millis(100 * (attempt + 1)));
            }
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| AppError::Conflict("git worktree add did not succeed".into())))
}

/// Git does not make worktrees safely side by side: one `worktree add`
/// can read another's half-written `.git/worktrees/NAME` ("failed to read
/// …/commondir"). BearAgent processes take turns through a lock file in
/// the repository's own git folder (whatever data folder each uses); the
/// kernel drops the lock if a process dies holding it.
#[expect(
    clippy::disallowed_methods,
    reason = "the worktrees folder's lock file, BearAgent's own"
)]
fn turn_lock(repo: &Path) -> Result<std::fs::File, AppError> {
    let common = git::run(repo, &["rev-parse", "--git-common-dir"])?;
    let path = repo.join(common.trim()).join("bearagent-worktree-add.lock");
    let io = |source| AppError::Io {
        path: path.clone(),
        source,
    };
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io)?;
    file.lock().map_err(io)?;
    Ok(file)
}

/// Copies the main checkout's uncommitted changes (tracked edits and
/// deletions as a patch, untracked files as copies) into the worktree and
/// commits them on its branch; the commit's id.
#[expect(
    clippy::disallowed_methods,
    reason = "a new worktree BearAgent just made, filled before any run works in it"
)]
fn carry_changes(repo: &Path, folder: &Path) -> Result<String, AppError> {
    let patch = git::output(repo, &["diff", "--binary", "HEAD"])?;
    if !patch.stdout.is_empty() {
        let file = tempfile::NamedTempFile::new().map_err(|source| AppError::Io {
            path: folder.into(),
            source,
        })?;
        std::fs::write(file.path(), &patch.stdout).map_err(|source| AppError::Io {
            path: file.path().into(),
            source,
        })?;
        let patch_path = file.path().display().to_string();
        git::run(
            folder,
            &["apply", "--binary", "--whitespace=nowarn", &patch_path],
        )?;
    }
    let untracked = git::run(repo, &["ls-files", "-o", "--exclude-standard", "-z"])?;
    for rel in untracked.split('\0').filter(|p| !p.is_empty()) {
        let from = repo.join(rel);
        let to = folder.join(rel);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|source| AppError::Io {
                path: parent.into(),
                source,
            })?;
        }
        // A symlink is copied as a link, never followed out of the repository.
        let meta = std::fs::symlink_metadata(&from).map_err(|source| AppError::Io {
            path: from.clone(),
            source,
        })?;
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&from).map_err(|source| AppError::Io {
                path: from.clone(),
                source,
            })?;
            std::os::unix::fs::symlink(target, &to).map_err(|source| AppError::Io {
                path: to.clone(),
                source,
            })?;
        } else if meta.is_file() {
            std::fs::copy(&from, &to).map_err(|source| AppError::Io {
                path: to.clone(),
                source,
            })?;
        }
    }
    git::run(folder, &["add", "-A"])?;
    git::run_as_bearagent(
        folder,
        &[
            "commit",
            "--quiet",
            "--no-verify",
            "--allow-empty",
            "-m",
            "BearAgent: the main checkout's uncommitted changes",
        ],
    )?;
    Ok(git::run(folder, &["rev-parse", "HEAD"])?.trim().to_owned())
}

/// Undoes a worktree made moments ago whose run could not be created.
pub(crate) fn remove_quietly(repo: &Path, folder: &Path, branch: &str) {
    let folder_arg = folder.display().to_string();
    if let Err(e) = git::run(repo, &["worktree", "remove", "--force", &folder_arg]) {
        tracing::warn!(error = %e, "a worktree made for a run that did not start could not be removed");
    }
    let _ = git::run(repo, &["branch", "-D", branch]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_safe_for_a_branch_and_a_folder() {
        let id = RunId::new();
        assert_eq!(worktree_name(None, id).unwrap().len(), 8);
        assert_eq!(
            worktree_name(Some("fix-login_2"), id).unwrap(),
            "fix-login_2"
        );
        for bad in [
            "", "../x", "a/b", "-x", ".hidden", "a..b", "x.lock", "sp ace",
        ] {
            assert!(worktree_name(Some(bad), id).is_err(), "{bad}");
        }
    }
}
