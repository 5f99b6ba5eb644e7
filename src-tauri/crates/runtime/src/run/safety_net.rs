//! The safety net for what the ignore files hide: a command that deletes or
//! overwrites an ignored file that existed before it (`.env`, a local
//! config, a small dev database) must be revertible like any other file.
//!
//! Around each command a second walk, without the git ignore rules (but
//! with `.bearagentignore`, which is the user's explicit "leave it"),
//! finds the ignored files and keeps their content under a budget. Whole
//! trees of regenerable content are left out by kind — folders tagged by a
//! `CACHEDIR.TAG`, ignored folders named like dependencies or caches
//! (`node_modules`, `.venv`, `dist`, …) — and what is past the budget is
//! left out too; each left-out root is remembered (with its folder's
//! mtime) so the command's event can say what it made, removed or changed
//! there that cannot be restored. Files an ignored path gains are not
//! changes (build output): only what existed before is protected.

use super::file_meta::{is_cache_dir, relative, FileMeta};
use bearagent_kernel::{NotTracked, NotTrackedChange, NotTrackedWhy, TreeSize};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Ignored folders by name whose contents are regenerable: dependencies,
/// virtualenvs, caches and build output of common toolchains.
pub const DEPENDENCY_DIRS: &[&str] = &[
    "node_modules",
    "bower_components",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".gradle",
    ".next",
    ".nuxt",
    ".turbo",
    ".parcel-cache",
    ".cache",
    ".terraform",
    ".yarn",
    "target",
    "dist",
    "build",
];

/// At most this many ignored files are kept per snapshot…
pub const MAX_IGNORED_FILES: usize = 2_000;
/// …each at most this large…
pub const MAX_IGNORED_FILE_BYTES: u64 = 1024 * 1024;
/// …and all of them together at most this large.
pub const MAX_IGNORED_BYTES: u64 = 32 * 1024 * 1024;

/// At most this many left-out files are remembered one by one.
const MAX_LEFT_OUT: usize = 1_000;

/// A root the snapshot left out, and its metadata then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    pub why: NotTrackedWhy,
    /// The folder's (or file's) modification time, ns.
    pub modified_ns: i128,
}

/// The ignored files to keep (as `walk` lists tracked ones) and the roots
/// left out, keyed by path (a folder ends with `/`).
pub struct IgnoredWalk {
    pub files: Vec<(String, FileMeta)>,
    pub left_out: BTreeMap<String, LeftOut>,
}

#[derive(Default)]
struct Budget {
    files: usize,
    bytes: u64,
    left_out: BTreeMap<String, LeftOut>,
}

impl Budget {
    fn full(&self) -> bool {
        self.files >= MAX_IGNORED_FILES || self.bytes >= MAX_IGNORED_BYTES
    }

    /// Takes a file of `len` bytes if it fits.
    fn take(&mut self, len: u64) -> bool {
        let fits = self.files < MAX_IGNORED_FILES
            && len <= MAX_IGNORED_FILE_BYTES
            && self.bytes + len <= MAX_IGNORED_BYTES;
        if fits {
            self.files += 1;
            self.bytes += len;
        }
        fits
    }

    fn leave_out(&mut self, rel: String, why: NotTrackedWhy, meta: Option<&std::fs::Metadata>) {
        // Past the budget a huge ignored tree would list every file: the
        // first ones stand for the rest.
        if why == NotTrackedWhy::OverLimit && self.left_out.len() >= MAX_LEFT_OUT {
            return;
        }
        let modified_ns = meta.map_or(0, |m| FileMeta::of(m).modified_ns());
        self.left_out.insert(rel, LeftOut { why, modified_ns });
    }
}

/// Whether the walk goes into `e`: every file, and the folders whose
/// contents are not left out (a left-out one is remembered).
fn enter(
    e: &ignore::DirEntry,
    base: &Path,
    dirs: &BTreeSet<String>,
    budget: &Mutex<Budget>,
) -> bool {
    if e.file_name() == ".git" {
        return false;
    }
    let is_dir = e.file_type().is_some_and(|kind| kind.is_dir());
    if !is_dir || e.depth() == 0 {
        return true;
    }
    let Some(rel) = relative(base, e.path()) else {
        return false;
    };
    let tracked = dirs.contains(&rel);
    let dependencies = e
        .file_name()
        .to_str()
        .is_some_and(|n| DEPENDENCY_DIRS.contains(&n))
        || e.path().join("pyvenv.cfg").is_file();
    let Ok(mut b) = budget.lock() else {
        return false;
    };
    let why = if is_cache_dir(e.path()) {
        NotTrackedWhy::BuildOutput
    } else if dependencies && tracked {
        // Its tracked files are tracked; what it hides is of its kind.
        return false;
    } else if dependencies {
        NotTrackedWhy::Dependencies
    } else if tracked || !b.full() {
        return true;
    } else {
        NotTrackedWhy::OverLimit
    };
    b.leave_out(format!("{rel}/"), why, e.metadata().ok().as_ref());
    false
}

/// Walks `root` for the files the ignore rules hide, given the files and
/// folders the normal walk tracks.
pub fn walk_ignored(
    root: &Path,
    tracked_files: &HashSet<&str>,
    tracked_dirs: &BTreeSet<String>,
) -> IgnoredWalk {
    let budget = Arc::new(Mutex::new(Budget::default()));
    let dirs: Arc<BTreeSet<String>> = Arc::new(tracked_dirs.clone());
    let (in_filter, base) = (budget.clone(), root.to_path_buf());
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .git_ignore(false)
        .ignore(false)
        .git_global(false)
        .git_exclude(false)
        .require_git(false)
        .add_custom_ignore_filename(".bearagentignore")
        .filter_entry(move |e| enter(e, &base, &dirs, &in_filter))
        .build();
    let mut files = Vec::new();
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|k| k.is_file()) {
            continue;
        }
        // Most files are tracked: look them up before allocating.
        let borrowed = entry.path().strip_prefix(root).ok().and_then(Path::to_str);
        if borrowed.is_some_and(|rel| tracked_files.contains(rel)) {
            continue;
        }
        let Some(rel) = relative(root, entry.path()) else {
            continue;
        };
        if tracked_files.contains(rel.as_str()) || rel.contains(".bearagent-tmp-") {
            continue;
        }
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        let Ok(mut b) = budget.lock() else {
            break;
        };
        if b.take(meta.len()) {
            files.push((rel, FileMeta::of(&meta)));
        } else {
            b.leave_out(rel, NotTrackedWhy::OverLimit, Some(&meta));
        }
    }
    let left_out = budget
        .lock()
        .map(|mut b| std::mem::take(&mut b.left_out))
        .unwrap_or_default();
    IgnoredWalk { files, left_out }
}

/// What a command did to the left-out roots: made, removed, or changed
/// (the folder's own modification time moved: an entry right in it came
/// or went). Changes deeper inside leave no trace here — the price of not
/// walking them.
pub fn left_out_changes(
    before: &BTreeMap<String, LeftOut>,
    after: &BTreeMap<String, LeftOut>,
) -> Vec<NotTracked> {
    let mut out = Vec::new();
    for (path, b) in before {
        let change = match after.get(path) {
            None => NotTrackedChange::Removed,
            Some(a) if a.modified_ns != b.modified_ns => NotTrackedChange::Changed,
            Some(_) => continue,
        };
        out.push(NotTracked {
            path: path.clone(),
            why: b.why,
            change,
            size: None,
        });
    }
    for (path, a) in after {
        if !before.contains_key(path) {
            out.push(NotTracked {
                path: path.clone(),
                why: a.why,
                change: NotTrackedChange::Made,
                size: None,
            });
        }
    }
    out.sort_by(|x, y| x.path.cmp(&y.path));
    out
}

/// Counting a left-out folder stops after this many entries.
const MAX_COUNTED_ENTRIES: u64 = 200_000;

/// Fills in what each folder the command made or changed holds now, so
/// "not restorable" says how much ("1 200 files, 800 MB"). Only those
/// folders are walked, once, after the command: a command that touches
/// none pays nothing.
pub fn measure_left_out(root: &Path, list: &mut [NotTracked]) {
    for item in list.iter_mut() {
        let counted = matches!(
            item.change,
            NotTrackedChange::Made | NotTrackedChange::Changed
        );
        if counted && item.path.ends_with('/') {
            item.size = Some(tree_size(&root.join(item.path.trim_end_matches('/'))));
        }
    }
}

/// Files and bytes under `dir`, symlinks not followed, up to the cap.
fn tree_size(dir: &Path) -> TreeSize {
    let mut size = TreeSize {
        files: 0,
        bytes: 0,
        at_least: false,
    };
    let mut entries = 0u64;
    let walker = ignore::WalkBuilder::new(dir)
        .standard_filters(false)
        .build();
    for entry in walker.flatten() {
        entries += 1;
        if entries > MAX_COUNTED_ENTRIES {
            size.at_least = true;
            break;
        }
        if entry.file_type().is_some_and(|k| k.is_file()) {
            size.files += 1;
            size.bytes += entry.metadata().map_or(0, |m| m.len());
        }
    }
    size
}

#[cfg(test)]
#[path = "safety_net_tests.rs"]
mod tests;
