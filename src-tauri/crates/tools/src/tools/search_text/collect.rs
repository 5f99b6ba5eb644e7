//! Collecting matches: a `Sink` that formats each matching line into a
//! reusable per-thread buffer, and the shared result set (with the
//! deterministic "first N by path" cut-off used when results are capped).

use crate::text::floor_utf8_boundary;
use grep_searcher::{Searcher, Sink, SinkMatch};
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError, RwLock};

/// The matches of one file: `line:text\n` entries, in line order.
#[derive(Debug)]
pub(crate) struct FileHits {
    /// Workspace-relative, `/`-separated. The sort key.
    pub(crate) path: String,
    pub(crate) count: usize,
    pub(crate) lines: Vec<u8>,
}

/// Formats matches of one file into `buf` as `line:text\n`, stopping after
/// `limit` matches.
pub(crate) struct LineSink<'a> {
    pub(crate) buf: &'a mut Vec<u8>,
    pub(crate) count: usize,
    pub(crate) limit: usize,
    pub(crate) max_line_bytes: usize,
}

impl Sink for LineSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        let mut line = mat.bytes();
        if let Some(rest) = line.strip_suffix(b"\n") {
            line = rest;
        }
        if let Some(rest) = line.strip_suffix(b"\r") {
            line = rest;
        }
        write!(self.buf, "{}:", mat.line_number().unwrap_or(0))?;
        if line.len() > self.max_line_bytes {
            let cut = floor_utf8_boundary(line, self.max_line_bytes);
            self.buf.extend_from_slice(&line[..cut]);
            self.buf.extend_from_slice(" [… line cut]".as_bytes());
        } else {
            self.buf.extend_from_slice(line);
        }
        self.buf.push(b'\n');
        self.count += 1;
        Ok(self.count < self.limit)
    }
}

/// Results shared by the walker threads.
pub(crate) struct Shared {
    /// `None` = unlimited.
    cap: Option<usize>,
    state: Mutex<State>,
    /// Once enough matches are known, files whose path sorts after this one
    /// cannot be among the first `cap`; walkers skip them.
    cutoff: RwLock<Option<String>>,
    has_cutoff: AtomicBool,
    /// Something that might have matched was skipped or dropped.
    pub(crate) more_may_exist: AtomicBool,
    pub(crate) unreadable: AtomicU64,
}

#[derive(Default)]
struct State {
    files: Vec<FileHits>,
    total: usize,
}

impl Shared {
    pub(crate) fn new(cap: Option<usize>) -> Self {
        Self {
            cap,
            state: Mutex::new(State::default()),
            cutoff: RwLock::new(None),
            has_cutoff: AtomicBool::new(false),
            more_may_exist: AtomicBool::new(false),
            unreadable: AtomicU64::new(0),
        }
    }

    pub(crate) fn capped(&self) -> bool {
        self.cap.is_some()
    }

    /// Whether `path` (or, for a directory, anything under it) sorts after
    /// the cut-off and so cannot be among the first `cap` results.
    pub(crate) fn beyond_cutoff(&self, path: &str) -> bool {
        if !self.has_cutoff.load(Ordering::Acquire) {
            return false;
        }
        let cutoff = self.cutoff.read().unwrap_or_else(PoisonError::into_inner);
        let beyond = cutoff.as_deref().is_some_and(|c| path > c);
        if beyond {
            self.more_may_exist.store(true, Ordering::Relaxed);
        }
        beyond
    }

    /// Add the results of files searched by one thread (unlimited mode).
    pub(crate) fn extend(&self, hits: Vec<FileHits>) {
        if hits.is_empty() {
            return;
        }
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.total += hits.iter().map(|h| h.count).sum::<usize>();
        state.files.extend(hits);
    }

    /// Add the results of one file (capped mode), then tighten the cut-off.
    pub(crate) fn offer(&self, hits: FileHits) {
        let Some(cap) = self.cap else {
            self.extend(vec![hits]);
            return;
        };
        if self.beyond_cutoff(&hits.path) {
            return;
        }
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.total += hits.count;
        state.files.push(hits);
        if state.total < cap {
            return;
        }
        // Keep the smallest paths that together hold at least `cap` matches.
        state.files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        let mut acc = 0;
        let mut keep = state.files.len();
        for (i, file) in state.files.iter().enumerate() {
            acc += file.count;
            if acc >= cap {
                keep = i + 1;
                break;
            }
        }
        if keep < state.files.len() || acc > cap {
            self.more_may_exist.store(true, Ordering::Relaxed);
        }
        state.files.truncate(keep);
        state.total = acc;
        if let Some(last) = state.files.last() {
            let mut cutoff = self.cutoff.write().unwrap_or_else(PoisonError::into_inner);
            *cutoff = Some(last.path.clone());
            self.has_cutoff.store(true, Ordering::Release);
        }
    }

    /// All collected files, sorted by path, and the number of matches.
    pub(crate) fn into_sorted(self) -> (Vec<FileHits>, usize) {
        let state = self
            .state
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        let mut files = state.files;
        files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        (files, state.total)
    }
}
