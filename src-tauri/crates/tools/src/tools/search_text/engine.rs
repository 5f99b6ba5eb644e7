//! The search engine behind `search_text`: ripgrep's building blocks
//! (`ignore` for the parallel walk, `grep-regex` + `grep-searcher` for the
//! matching) configured like ripgrep's defaults, with results sorted by path
//! then line. Public so the benchmark can drive it without the tool's cap.

use super::collect::{FileHits, LineSink, Shared};
use crate::tools::walk::rg_walker;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkState};
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use tokio_util::sync::CancellationToken;

/// One search.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// Result paths are shown relative to this directory.
    pub root: PathBuf,
    /// The file or directory to search (inside `root`).
    pub start: PathBuf,
    pub pattern: String,
    /// Match `pattern` as plain text rather than as a regex.
    pub literal: bool,
    pub case_insensitive: bool,
    /// Keep only the first N matches in (path, line) order; `None` keeps all.
    pub max_results: Option<usize>,
    /// Longer matching lines are cut (on a UTF-8 boundary) and marked.
    pub max_line_bytes: usize,
    /// Walker threads; 0 lets `ignore` choose (like ripgrep).
    pub threads: usize,
}

/// What a search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchReport {
    /// `path:line:text` lines, sorted by path then line, each ending in `\n`.
    pub output: String,
    /// Matching lines in `output`.
    pub matches: usize,
    /// Files with at least one line in `output`.
    pub files: usize,
    /// The cap cut the results (or skipped files that might have matched).
    pub capped: bool,
    /// Files or directories that could not be read.
    pub unreadable: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    #[error("invalid pattern: {0}")]
    InvalidPattern(String),
    #[error("search cancelled")]
    Cancelled,
}

/// Checks a pattern's syntax only — microseconds, whatever the pattern.
/// Compiling it (which a pathological `\w{1000}{1000}` makes take a
/// second before the size limit refuses it) happens in `execute`, on the
/// executor's blocking thread and inside its timeout, never on the loop.
pub fn check_pattern(
    pattern: &str,
    literal: bool,
    case_insensitive: bool,
) -> Result<(), SearchError> {
    if literal {
        return Ok(());
    }
    regex_syntax::ParserBuilder::new()
        .multi_line(true)
        .case_insensitive(case_insensitive)
        .build()
        .parse(pattern)
        .map(|_| ())
        .map_err(|e| SearchError::InvalidPattern(e.to_string()))
}

/// The matcher ripgrep would build by default for `pattern`: line-oriented
/// (`\n` terminated, `^`/`$` match at line boundaries), Unicode-aware.
pub fn build_matcher(
    pattern: &str,
    literal: bool,
    case_insensitive: bool,
) -> Result<RegexMatcher, SearchError> {
    RegexMatcherBuilder::new()
        .multi_line(true)
        .line_terminator(Some(b'\n'))
        .case_insensitive(case_insensitive)
        .fixed_strings(literal)
        .build(pattern)
        .map_err(|e| SearchError::InvalidPattern(e.to_string()))
}

/// Search `opts.start` with ripgrep's default ignore rules and binary
/// handling (a NUL byte stops the search of that file).
pub fn search(
    opts: &SearchOptions,
    cancel: &CancellationToken,
) -> Result<SearchReport, SearchError> {
    let matcher = build_matcher(&opts.pattern, opts.literal, opts.case_insensitive)?;
    let searcher = SearcherBuilder::new()
        .line_number(true)
        .binary_detection(BinaryDetection::quit(b'\x00'))
        .build();
    let shared = Shared::new(opts.max_results);
    let per_file_limit = opts
        .max_results
        .map_or(usize::MAX, |cap| cap.saturating_add(1));

    let mut builder = VisitorBuilder {
        shared: &shared,
        matcher: &matcher,
        searcher: &searcher,
        root: &opts.root,
        cancel,
        per_file_limit,
        max_line_bytes: opts.max_line_bytes,
    };
    rg_walker(&opts.start)
        .threads(opts.threads)
        .build_parallel()
        .visit(&mut builder);
    if cancel.is_cancelled() {
        return Err(SearchError::Cancelled);
    }

    let unreadable = shared.unreadable.load(Ordering::Relaxed);
    let more_may_exist = shared.more_may_exist.load(Ordering::Relaxed);
    let (files, total) = shared.into_sorted();
    let cap = opts.max_results.unwrap_or(usize::MAX);
    let report = assemble(&files, cap);
    Ok(SearchReport {
        capped: more_may_exist || total > cap,
        unreadable,
        ..report
    })
}

/// Join the per-file results into `path:line:text` lines, at most `cap`.
fn assemble(files: &[FileHits], cap: usize) -> SearchReport {
    let bytes: usize = files
        .iter()
        .map(|f| f.lines.len() + f.count * (f.path.len() + 1))
        .sum();
    let mut out = Vec::with_capacity(bytes);
    let (mut matches, mut file_count) = (0, 0);
    for file in files {
        if matches == cap {
            break;
        }
        file_count += 1;
        for line in file.lines.split_inclusive(|&b| b == b'\n') {
            if matches == cap {
                break;
            }
            out.extend_from_slice(file.path.as_bytes());
            out.push(b':');
            out.extend_from_slice(line);
            matches += 1;
        }
    }
    let output = match String::from_utf8(out) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    SearchReport {
        output,
        matches,
        files: file_count,
        capped: false,
        unreadable: 0,
    }
}

/// `path` relative to `root`, `/`-separated; borrowed when possible.
fn rel_key<'p>(root: &Path, path: &'p Path) -> Cow<'p, str> {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let key = rel.to_string_lossy();
    if cfg!(windows) && key.contains('\\') {
        Cow::Owned(key.replace('\\', "/"))
    } else {
        key
    }
}

struct VisitorBuilder<'s> {
    shared: &'s Shared,
    matcher: &'s RegexMatcher,
    searcher: &'s Searcher,
    root: &'s Path,
    cancel: &'s CancellationToken,
    per_file_limit: usize,
    max_line_bytes: usize,
}

impl<'s> ParallelVisitorBuilder<'s> for VisitorBuilder<'s> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Visitor {
            shared: self.shared,
            matcher: self.matcher.clone(),
            searcher: self.searcher.clone(),
            root: self.root,
            cancel: self.cancel,
            per_file_limit: self.per_file_limit,
            max_line_bytes: self.max_line_bytes,
            buf: Vec::with_capacity(16 * 1024),
            local: Vec::new(),
        })
    }
}

/// One walker thread: its own matcher, searcher and buffers; results are
/// handed to `shared` per file (capped) or once at the end (unlimited).
struct Visitor<'s> {
    shared: &'s Shared,
    matcher: RegexMatcher,
    searcher: Searcher,
    root: &'s Path,
    cancel: &'s CancellationToken,
    per_file_limit: usize,
    max_line_bytes: usize,
    buf: Vec<u8>,
    local: Vec<FileHits>,
}

impl Visitor<'_> {
    fn search_file(&mut self, entry: &DirEntry) {
        self.buf.clear();
        let mut sink = LineSink {
            buf: &mut self.buf,
            count: 0,
            limit: self.per_file_limit,
            max_line_bytes: self.max_line_bytes,
        };
        let searched = self
            .searcher
            .search_path(&self.matcher, entry.path(), &mut sink);
        let count = sink.count;
        if searched.is_err() {
            self.shared.unreadable.fetch_add(1, Ordering::Relaxed);
        }
        if count == 0 {
            return;
        }
        let hits = FileHits {
            path: rel_key(self.root, entry.path()).into_owned(),
            count,
            lines: self.buf.clone(),
        };
        if self.shared.capped() {
            self.shared.offer(hits);
        } else {
            self.local.push(hits);
        }
    }
}

impl ParallelVisitor for Visitor<'_> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if self.cancel.is_cancelled() {
            return WalkState::Quit;
        }
        let entry = match entry {
            Ok(entry) => entry,
            Err(_) => {
                self.shared.unreadable.fetch_add(1, Ordering::Relaxed);
                return WalkState::Continue;
            }
        };
        let Some(file_type) = entry.file_type() else {
            return WalkState::Continue;
        };
        if self.shared.capped() && self.shared.beyond_cutoff(&rel_key(self.root, entry.path())) {
            return if file_type.is_dir() {
                WalkState::Skip
            } else {
                WalkState::Continue
            };
        }
        if file_type.is_file() {
            self.search_file(&entry);
        }
        WalkState::Continue
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        self.shared.extend(std::mem::take(&mut self.local));
    }
}
