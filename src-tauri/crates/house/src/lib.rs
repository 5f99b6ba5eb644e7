//! BearAgent's floor plan as a test. `house.toml` at the repository root
//! declares the crates and the direction they may depend in, the floors of
//! the folders that have them, the length limits and today's debt; this
//! crate reads it and the sources and reports every breach: file-import
//! circles, imports against the floors or the crate direction, production
//! functions and files over the limits, `impl Application` outside its
//! home, hand-written files in the UI mock. A breach the debt list names is
//! tolerated; a listed debt that no longer occurs, or has grown, fails.
#![cfg_attr(
    test,
    allow(
        clippy::disallowed_methods,
        reason = "tests write their own fixtures; the effect rule is for shipped code"
    )
)]

pub mod config;
pub mod graph;
pub mod lex;
pub mod outside;
pub mod rules;
pub mod scan;
pub mod source;
pub mod use_tree;
pub mod violation;

use config::House;
use std::path::{Path, PathBuf};
use violation::{covers, Cover, Violation};

/// What a check found.
#[derive(Debug, Default)]
pub struct Report {
    /// Every breach, listed in the debt or not.
    pub violations: Vec<Violation>,
    /// What fails the check: unlisted breaches, grown and stale debt.
    pub failures: Vec<String>,
    /// Figures worth printing.
    pub summary: Vec<String>,
    /// Debt entries that could be tightened.
    pub notes: Vec<String>,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// The repository root: the nearest folder up from `start` holding
/// `house.toml`.
pub fn find_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|d| d.join("house.toml").is_file())
        .map(Path::to_path_buf)
}

/// Checks the repository at `root` against its `house.toml`.
pub fn check(root: &Path) -> Result<Report, String> {
    let text = std::fs::read_to_string(root.join("house.toml"))
        .map_err(|e| format!("{}: {e}", root.join("house.toml").display()))?;
    let house = config::parse(&text)?;
    let mut report = Report::default();
    let mut out = Vec::new();
    let mut longest: Option<(usize, String)> = None;
    let mut largest: Option<(usize, String)> = None;
    for c in &house.crates {
        let files = source::load(root, &c.dir, &c.src())?;
        let m = rules::check_crate(&house, &c.name, &files, &mut out);
        let sizes: Vec<String> = m.circles.iter().map(usize::to_string).collect();
        report.summary.push(format!(
            "crate {}: {} files, {} circle(s){}",
            c.name,
            files.len(),
            m.circles.len(),
            if sizes.is_empty() {
                String::new()
            } else {
                format!(" of {} files", sizes.join(", "))
            }
        ));
        longest = longest.max(m.longest_fn);
        largest = largest.max(m.largest_file);
    }
    outside::crate_deps(root, &house, &mut out)?;
    outside::undeclared(root, &house, &mut out)?;
    let ui_largest = outside::ui_lengths(root, &house, &mut out)?;
    if let Some((n, f)) = longest {
        report
            .summary
            .push(format!("longest function: {f}, {n} lines"));
    }
    if let Some((n, f)) = largest {
        report
            .summary
            .push(format!("largest Rust file: {f}, {n} production lines"));
    }
    if let Some((n, f)) = ui_largest {
        report
            .summary
            .push(format!("largest UI file: {f}, {n} lines"));
    }
    if let Some(mock) = &house.mock {
        let n = outside::mock_files(root, mock, &mut out)?;
        report
            .summary
            .push(format!("UI mock: {n} files besides its fixtures"));
    }
    settle(&house, out, &mut report);
    Ok(report)
}

/// Sets each breach against the debt list.
fn settle(house: &House, violations: Vec<Violation>, report: &mut Report) {
    let mut used = vec![false; house.debt.len()];
    for v in &violations {
        let mut listed = false;
        for (i, d) in house.debt.iter().enumerate() {
            match covers(d, v) {
                Cover::No => continue,
                Cover::Yes => listed = true,
                Cover::Grew(how) => {
                    let text = violation::grown_circle(d, v)
                        .unwrap_or_else(|| format!("listed debt grew: {} ({how})", v.message()));
                    report.failures.push(text);
                    listed = true;
                }
            }
            used[i] = true;
        }
        if !listed {
            report.failures.push(v.message());
        }
    }
    for (d, used) in house.debt.iter().zip(used) {
        if !used {
            let what = d.file.clone().or_else(|| {
                d.from
                    .clone()
                    .map(|f| format!("{f} -> {}", d.to.clone().unwrap_or_default()))
            });
            let mut what = what.unwrap_or_else(|| d.files.join(", "));
            if let Some(function) = &d.function {
                what = format!("{what} fn {function}");
            }
            report.failures.push(format!(
                "stale debt in house.toml: {} {what} no longer occurs; remove the entry",
                d.kind
            ));
        }
    }
    notes(house, &violations, report);
    let listed = house.debt.len();
    report
        .summary
        .push(format!("debt listed in house.toml: {listed} entries"));
    report.violations = violations;
}

/// Circle entries listing more files than the circles they cover hold.
fn notes(house: &House, violations: &[Violation], report: &mut Report) {
    for d in house.debt.iter().filter(|d| d.kind == "circle") {
        let held: usize = violations
            .iter()
            .filter(|v| covers(d, v) == Cover::Yes)
            .map(|v| match v {
                Violation::Circle { files, .. } => files.len(),
                _ => 0,
            })
            .sum();
        if held > 0 && held < d.files.len() {
            report.notes.push(format!(
                "a circle entry lists {} files, its circles now hold {held}: shrink it",
                d.files.len()
            ));
        }
    }
}
