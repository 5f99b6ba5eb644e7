//! A crate's Rust files: read, scanned, sorted into production and test,
//! and given their module paths.

use crate::scan::{scan, FileFacts};
use std::collections::BTreeSet;
use std::path::Path;

/// One Rust file of a crate.
#[derive(Debug)]
pub struct SourceFile {
    /// Relative to the repository root, with `/`.
    pub rel: String,
    pub facts: FileFacts,
    pub total_lines: usize,
    /// Test code: `*_tests.rs`, under `tests/` and the like, or declared by
    /// a `#[cfg(test)] mod`.
    pub test: bool,
    /// Its module path when it belongs to the crate's module tree.
    pub module: Option<Vec<String>>,
}

impl SourceFile {
    /// Lines outside `#[cfg(test)]` items.
    pub fn production_lines(&self) -> usize {
        self.total_lines.saturating_sub(self.facts.test_lines)
    }
}

/// Folders whose files are never production code.
const NOT_PRODUCTION: [&str; 4] = ["tests", "benches", "fuzz", "examples"];

/// Every file under `dir` (relative to `root`) whose name ends in one of
/// `exts`, sorted; `target`, `node_modules` and hidden folders skipped.
pub fn walk(root: &Path, dir: &str, exts: &[&str]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.trim_end_matches('/').to_string()];
    while let Some(rel) = stack.pop() {
        let full = root.join(&rel);
        if full.is_file() {
            out.push(rel);
            continue;
        }
        let entries = std::fs::read_dir(&full).map_err(|e| format!("{rel}: {e}"))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("{rel}: {e}"))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let child = format!("{rel}/{name}");
            if entry.path().is_dir() {
                if !name.starts_with('.') && name != "target" && name != "node_modules" {
                    stack.push(child);
                }
            } else if exts.iter().any(|e| name.ends_with(e)) {
                out.push(child);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Reads and scans the crate's files under `dir`, its module tree rooted
/// at `src` (`lib.rs`, else `main.rs`).
pub fn load(root: &Path, dir: &str, src: &str) -> Result<Vec<SourceFile>, String> {
    let mut files = Vec::new();
    for rel in walk(root, dir, &[".rs"])? {
        let text = std::fs::read_to_string(root.join(&rel)).map_err(|e| format!("{rel}: {e}"))?;
        let facts = scan(&text);
        let inner = rel
            .strip_prefix(dir)
            .unwrap_or(&rel)
            .trim_start_matches('/');
        let test = facts.file_is_test
            || rel.ends_with("_tests.rs")
            || inner.split('/').any(|c| NOT_PRODUCTION.contains(&c));
        let total_lines = text.lines().count();
        files.push(SourceFile {
            rel,
            facts,
            total_lines,
            test,
            module: None,
        });
    }
    mark_declared_tests(&mut files);
    let has_lib = files.iter().any(|f| f.rel == format!("{src}/lib.rs"));
    for f in files.iter_mut().filter(|f| !f.test) {
        f.module = module_path(&f.rel, src, has_lib);
    }
    Ok(files)
}

/// `src/a/b.rs` and `src/a/b/mod.rs` are `a::b`; the root is `[]`.
fn module_path(rel: &str, src: &str, has_lib: bool) -> Option<Vec<String>> {
    let inner = rel
        .strip_prefix(src)?
        .strip_prefix('/')?
        .strip_suffix(".rs")?;
    let mut parts: Vec<String> = inner.split('/').map(str::to_string).collect();
    if parts.first().is_some_and(|p| p == "bin") {
        return None;
    }
    match parts.as_slice() {
        [only] if only == "lib" => return Some(Vec::new()),
        [only] if only == "main" => return (!has_lib).then(Vec::new),
        _ => {}
    }
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    Some(parts)
}

/// Marks the files `#[cfg(test)] mod x;` declarations pull in as tests.
fn mark_declared_tests(files: &mut [SourceFile]) {
    let mut tests = BTreeSet::new();
    for f in files.iter() {
        let Some((dir, stem)) = f.rel.rsplit_once('/') else {
            continue;
        };
        let stem = stem.trim_end_matches(".rs");
        let owns_dir = matches!(stem, "mod" | "lib" | "main");
        for decl in &f.facts.test_mods {
            if let Some(path) = &decl.path {
                tests.insert(format!("{dir}/{path}"));
                continue;
            }
            let base = if owns_dir {
                dir.to_string()
            } else {
                format!("{dir}/{stem}")
            };
            tests.insert(format!("{base}/{}.rs", decl.name));
            tests.insert(format!("{base}/{}/", decl.name));
        }
    }
    for f in files.iter_mut() {
        if tests.contains(&f.rel)
            || tests
                .iter()
                .any(|t| t.ends_with('/') && f.rel.starts_with(t))
        {
            f.test = true;
        }
    }
}
