//! Workspace snapshots around a command: what every file was before it
//! ran (kept as blobs, so a revert can restore it) and what changed after.
//! Ignore rules apply (`.gitignore`, `.bearagentignore`), `.git` is
//! skipped, and so is every folder tagged as a cache by a `CACHEDIR.TAG`
//! (cargo's `target/`, among others) whatever the ignore files say, so
//! build outputs are not tracked.
//!
//! Files are re-read only when their metadata changed since the run last
//! saw them: a snapshot of an unchanged tree is one `stat` per file.
//!
//! Ignored files are kept too, under a budget (see `safety_net.rs`), so a
//! command that deletes or overwrites one can be reverted.

use super::file_meta::relative;
pub use super::file_meta::{is_cache_dir, FileMeta};
use super::safety_net::{walk_ignored, LeftOut};
use bearagent_kernel::{ContentHash, Timestamp};
use bearagent_store::{Store, StoreError};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Larger files are tracked by metadata only: a change to one is recorded
/// but cannot be reverted (its earlier version was not kept).
pub const MAX_KEPT_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// Blobs are written in batches of about this many bytes.
const BATCH_BYTES: usize = 32 * 1024 * 1024;

/// One file in a snapshot. `hash` is None for a file too large to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileState {
    pub meta: FileMeta,
    pub hash: Option<ContentHash>,
    /// Hidden by the ignore rules, kept by the safety net: a change to it
    /// is recorded only if it existed before (what it gains is output).
    pub ignored: bool,
}

/// The tracked files and folders of a workspace at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub files: BTreeMap<String, FileState>,
    /// Every tracked folder below the root (workspace-relative, `/`),
    /// so the folders a command made or removed are known.
    pub dirs: BTreeSet<String>,
    /// The roots whose contents were left out (build output, dependencies,
    /// past the safety net's limits), by path.
    pub left_out: BTreeMap<String, LeftOut>,
}

/// The run's memory of file hashes by metadata, so each snapshot re-reads
/// only files that changed since the last.
#[derive(Debug, Default)]
pub struct SnapshotCache {
    known: HashMap<String, FileState>,
}

/// A file a command created, changed or deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub before: Option<ContentHash>,
    pub after: Option<ContentHash>,
    /// A version was too large to keep: recorded as changed, but it has
    /// no diff and no revert.
    pub unrevertable: bool,
    /// Permission bits before and after (None: the file was not there).
    pub before_mode: Option<u32>,
    pub after_mode: Option<u32>,
}

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The tracked files under `root`, workspace-relative with `/`, and their
/// metadata.
pub fn walk(root: &Path) -> Vec<(String, FileMeta)> {
    walk_tree(root).0
}

/// What one walker thread found.
#[derive(Default)]
struct Found {
    files: Vec<(String, FileMeta)>,
    dirs: Vec<String>,
}

/// The tracked files (as [`walk`]) and the tracked folders below `root`.
/// Walked on every core: a warm snapshot is one `stat` per file, and the
/// stats are what it waits on.
fn walk_tree(root: &Path) -> (Vec<(String, FileMeta)>, BTreeSet<String>) {
    let found: std::sync::Mutex<Vec<Found>> = std::sync::Mutex::new(Vec::new());
    ignore::WalkBuilder::new(root)
        .hidden(false)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(false)
        .require_git(false)
        .add_custom_ignore_filename(".bearagentignore")
        .filter_entry(|e| {
            let is_dir = e.file_type().is_some_and(|kind| kind.is_dir());
            e.file_name() != ".git" && !(is_dir && e.depth() > 0 && is_cache_dir(e.path()))
        })
        .build_parallel()
        .visit(&mut Collectors {
            root,
            found: &found,
        });
    let parts = found
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut files = Vec::with_capacity(parts.iter().map(|p| p.files.len()).sum());
    let mut dirs = BTreeSet::new();
    for part in parts {
        files.extend(part.files);
        dirs.extend(part.dirs);
    }
    (files, dirs)
}

/// Makes one [`Collector`] per walker thread.
struct Collectors<'a> {
    root: &'a Path,
    found: &'a std::sync::Mutex<Vec<Found>>,
}

impl<'s> ignore::ParallelVisitorBuilder<'s> for Collectors<'s> {
    fn build(&mut self) -> Box<dyn ignore::ParallelVisitor + 's> {
        Box::new(Collector {
            root: self.root,
            found: self.found,
            mine: Found::default(),
        })
    }
}

/// One walker thread's findings, handed over when the thread is done.
struct Collector<'a> {
    root: &'a Path,
    found: &'a std::sync::Mutex<Vec<Found>>,
    mine: Found,
}

impl ignore::ParallelVisitor for Collector<'_> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> ignore::WalkState {
        if let Ok(entry) = entry {
            self.note(&entry);
        }
        ignore::WalkState::Continue
    }
}

impl Collector<'_> {
    fn note(&mut self, entry: &ignore::DirEntry) {
        let Some(kind) = entry.file_type() else {
            return;
        };
        let Some(rel) = relative(self.root, entry.path()) else {
            return;
        };
        if kind.is_dir() {
            if !rel.is_empty() {
                self.mine.dirs.push(rel);
            }
            return;
        }
        let temporary = || {
            rel.rsplit('/')
                .next()
                .is_some_and(|n| n.starts_with(".bearagent-tmp-"))
        };
        if !kind.is_file() || temporary() {
            return;
        }
        // A file that vanished between listing and stat is simply absent.
        if let Ok(meta) = entry.metadata() {
            self.mine.files.push((rel, FileMeta::of(&meta)));
        }
    }
}

impl Drop for Collector<'_> {
    fn drop(&mut self) {
        let mine = std::mem::take(&mut self.mine);
        if let Ok(mut found) = self.found.lock() {
            found.push(mine);
        }
    }
}

/// Snapshots `root`, keeping every new or changed file's content as a
/// blob. Unchanged files (same metadata as the cache) are not read.
pub fn take(
    root: &Path,
    cache: &mut SnapshotCache,
    store: &Store,
    now: Timestamp,
) -> Result<Snapshot, SnapshotError> {
    let (files, dirs) = walk_tree(root);
    let tracked: HashSet<&str> = files.iter().map(|(rel, _)| rel.as_str()).collect();
    let ignored = walk_ignored(root, &tracked, &dirs);
    drop(tracked);
    // Collected, then sorted into the map at once (faster than 100 000
    // inserts in walk order).
    let mut settled: Vec<(String, FileState)> = Vec::with_capacity(files.len());
    let mut pending: Vec<(String, FileState, Vec<u8>)> = Vec::new();
    let mut pending_bytes = 0usize;
    let all = files
        .into_iter()
        .map(|f| (f, false))
        .chain(ignored.files.into_iter().map(|f| (f, true)));
    for ((rel, meta), ignored) in all {
        if let Some(known) = cache.known.get(&rel).filter(|k| k.meta == meta) {
            let state = FileState {
                ignored,
                ..known.clone()
            };
            settled.push((rel, state));
            continue;
        }
        if meta.len > MAX_KEPT_FILE_BYTES {
            let state = FileState {
                meta,
                hash: None,
                ignored,
            };
            cache.known.insert(rel.clone(), state.clone());
            settled.push((rel, state));
            continue;
        }
        let abs = root.join(&rel);
        let bytes = match std::fs::read(&abs) {
            Ok(b) => b,
            // Deleted or unreadable now: not part of this snapshot.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => continue,
            Err(source) => return Err(SnapshotError::Io { path: abs, source }),
        };
        pending_bytes += bytes.len();
        let state = FileState {
            meta,
            hash: None,
            ignored,
        };
        pending.push((rel, state, bytes));
        if pending_bytes >= BATCH_BYTES {
            keep(&mut pending, cache, &mut settled, store, now)?;
            pending_bytes = 0;
        }
    }
    keep(&mut pending, cache, &mut settled, store, now)?;
    let snapshot = Snapshot {
        files: settled.into_iter().collect(),
        dirs,
        left_out: ignored.left_out,
    };
    // Files gone since the last snapshot are forgotten (every file of this
    // one is known: equal counts mean none is gone).
    if cache.known.len() != snapshot.files.len() {
        cache
            .known
            .retain(|rel, _| snapshot.files.contains_key(rel));
    }
    Ok(snapshot)
}

fn keep(
    pending: &mut Vec<(String, FileState, Vec<u8>)>,
    cache: &mut SnapshotCache,
    settled: &mut Vec<(String, FileState)>,
    store: &Store,
    now: Timestamp,
) -> Result<(), SnapshotError> {
    if pending.is_empty() {
        return Ok(());
    }
    let hashes = store.put_blobs(pending.iter().map(|(_, _, b)| b.as_slice()), now)?;
    for ((rel, state, _), hash) in pending.drain(..).zip(hashes) {
        let state = FileState {
            hash: Some(hash),
            ..state
        };
        cache.known.insert(rel.clone(), state.clone());
        settled.push((rel, state));
    }
    Ok(())
}

/// Every file whose content differs between `before` and `after`. A file
/// whose metadata changed but whose content did not is not a change.
pub fn changes(before: &Snapshot, after: &Snapshot) -> Vec<FileChange> {
    let (before, after) = (&before.files, &after.files);
    let mut out = Vec::new();
    for (path, b) in before {
        match after.get(path) {
            None => out.push(FileChange {
                path: path.clone(),
                before: b.hash.clone(),
                after: None,
                unrevertable: b.hash.is_none(),
                before_mode: Some(b.meta.mode),
                after_mode: None,
            }),
            Some(a) if a.meta == b.meta => {}
            // Same content and mode: touched, not changed (a chmod alone is).
            Some(a) if a.hash.is_some() && a.hash == b.hash && a.meta.mode == b.meta.mode => {}
            Some(a) => out.push(FileChange {
                path: path.clone(),
                before: b.hash.clone(),
                after: a.hash.clone(),
                unrevertable: b.hash.is_none() || a.hash.is_none(),
                before_mode: Some(b.meta.mode),
                after_mode: Some(a.meta.mode),
            }),
        }
    }
    for (path, a) in after {
        // What an ignored path gains is output, not a change to undo.
        if !before.contains_key(path) && !a.ignored {
            out.push(FileChange {
                path: path.clone(),
                before: None,
                after: a.hash.clone(),
                unrevertable: a.hash.is_none(),
                before_mode: None,
                after_mode: Some(a.meta.mode),
            });
        }
    }
    out.sort_by(|x, y| x.path.cmp(&y.path));
    out
}

/// The folders a command made (tracked after, not before) and removed
/// (tracked before, not after), each sorted and only the topmost of a
/// tree: every folder below a made one was made too, so a command that
/// fills `node_modules/` records one folder, not thousands.
pub fn dir_changes(before: &Snapshot, after: &Snapshot) -> (Vec<String>, Vec<String>) {
    let topmost = |new: &BTreeSet<String>, old: &BTreeSet<String>| -> Vec<String> {
        let changed: BTreeSet<&str> = new.difference(old).map(String::as_str).collect();
        changed
            .iter()
            .filter(|dir| {
                // Each ancestor `a` of `a/b/c`: every prefix up to a `/`.
                !dir.match_indices('/')
                    .any(|(at, _)| changed.contains(&dir[..at]))
            })
            .map(|dir| (*dir).to_owned())
            .collect()
    };
    (
        topmost(&after.dirs, &before.dirs),
        topmost(&before.dirs, &after.dirs),
    )
}

#[cfg(test)]
#[path = "snapshot_tests.rs"]
mod tests;
