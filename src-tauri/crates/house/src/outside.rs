//! The rules that read no Rust module tree: crate dependencies, the
//! declared crate list, the UI's file lengths and the UI mock's files.

use crate::config::{House, Mock, Ui};
use crate::source::walk;
use crate::violation::Violation;
use std::collections::HashMap;
use std::path::Path;

fn read_manifest(root: &Path, rel: &str) -> Result<toml::Table, String> {
    let text = std::fs::read_to_string(root.join(rel)).map_err(|e| format!("{rel}: {e}"))?;
    text.parse::<toml::Table>()
        .map_err(|e| format!("{rel}: {e}"))
}

/// Package names of `[dependencies]` and `[target.*.dependencies]`
/// (renamed ones by their `package`), not dev- or build-dependencies.
fn dependencies(manifest: &toml::Table) -> Vec<String> {
    let mut tables: Vec<&toml::Table> = Vec::new();
    if let Some(t) = manifest.get("dependencies").and_then(|d| d.as_table()) {
        tables.push(t);
    }
    for target in manifest
        .get("target")
        .and_then(|t| t.as_table())
        .into_iter()
        .flat_map(|t| t.values())
    {
        if let Some(t) = target.get("dependencies").and_then(|d| d.as_table()) {
            tables.push(t);
        }
    }
    let mut out = Vec::new();
    for (key, spec) in tables.into_iter().flatten() {
        let package = spec.get("package").and_then(|p| p.as_str()).unwrap_or(key);
        out.push(package.to_string());
    }
    out
}

/// Each crate's dependencies on our crates against its `may_use`.
pub fn crate_deps(root: &Path, house: &House, out: &mut Vec<Violation>) -> Result<(), String> {
    let mut manifests = Vec::new();
    let mut by_package = HashMap::new();
    for c in &house.crates {
        let manifest = read_manifest(root, &c.manifest())?;
        let package = manifest
            .get("package")
            .and_then(|p| p.get("name"))
            .and_then(|n| n.as_str());
        if let Some(package) = package {
            by_package.insert(package.to_string(), c.name.clone());
        }
        manifests.push((c, manifest));
    }
    for (c, manifest) in &manifests {
        for dep in dependencies(manifest) {
            let Some(target) = by_package.get(&dep) else {
                continue;
            };
            if !c.may_use.contains(target) {
                out.push(Violation::CrateDep {
                    from: c.name.clone(),
                    to: target.clone(),
                });
            }
        }
    }
    Ok(())
}

/// Every crate folder under `crates_home` is declared.
pub fn undeclared(root: &Path, house: &House, out: &mut Vec<Violation>) -> Result<(), String> {
    let Some(home) = &house.crates_home else {
        return Ok(());
    };
    let entries = std::fs::read_dir(root.join(home)).map_err(|e| format!("{home}: {e}"))?;
    let mut dirs: Vec<String> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("{home}: {e}"))?;
        if entry.path().join("Cargo.toml").is_file() {
            dirs.push(format!("{home}/{}", entry.file_name().to_string_lossy()));
        }
    }
    dirs.sort();
    for dir in dirs {
        if !house.crates.iter().any(|c| c.dir == dir) {
            out.push(Violation::Declaration {
                what: format!("crate {dir} is not declared"),
            });
        }
    }
    Ok(())
}

fn excluded(ui: &Ui, rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let by_name = ui.exclude_names.iter().any(|x| match x.strip_prefix('*') {
        Some(suffix) => name.ends_with(suffix),
        None => name == x,
    });
    by_name
        || rel
            .split('/')
            .any(|c| ui.exclude_dirs.iter().any(|d| d == c))
}

/// UI files over the limit; returns the largest `(lines, file)`.
pub fn ui_lengths(
    root: &Path,
    house: &House,
    out: &mut Vec<Violation>,
) -> Result<Option<(usize, String)>, String> {
    let Some(ui) = &house.ui else { return Ok(None) };
    let exts: Vec<&str> = ui.extensions.iter().map(String::as_str).collect();
    let mut largest: Option<(usize, String)> = None;
    for dir in &ui.dirs {
        for rel in walk(root, dir, &exts)? {
            if excluded(ui, &rel) {
                continue;
            }
            let text =
                std::fs::read_to_string(root.join(&rel)).map_err(|e| format!("{rel}: {e}"))?;
            let lines = text.lines().count();
            if largest.as_ref().is_none_or(|(n, _)| lines > *n) {
                largest = Some((lines, rel.clone()));
            }
            if lines > house.limits.file_lines {
                out.push(Violation::LongFile { file: rel, lines });
            }
        }
    }
    Ok(largest)
}

/// Files of the mock that are neither the player nor a fixture; returns
/// how many files the mock holds besides its fixtures.
pub fn mock_files(root: &Path, mock: &Mock, out: &mut Vec<Violation>) -> Result<usize, String> {
    let dir = mock.dir.trim_end_matches('/');
    let fixtures = format!("{dir}/{}/", mock.fixtures.trim_end_matches('/'));
    let mut count = 0;
    for rel in walk(root, dir, &[""])? {
        if rel.starts_with(&fixtures) {
            continue;
        }
        count += 1;
        let inner = rel
            .strip_prefix(dir)
            .unwrap_or(&rel)
            .trim_start_matches('/');
        if !mock.player.iter().any(|p| p == inner) {
            out.push(Violation::MockFile { file: rel });
        }
    }
    for p in &mock.player {
        if !root.join(dir).join(p).is_file() {
            out.push(Violation::Declaration {
                what: format!("{dir}: no player file {p}"),
            });
        }
    }
    Ok(count)
}
