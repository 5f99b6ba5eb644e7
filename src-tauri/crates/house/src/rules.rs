//! The rules over one crate's Rust files: lengths, circles, floors and
//! where `impl Application` lives.

use crate::config::{Floors, House};
use crate::graph::{build, circles, cycle, inner_edges, Graph};
use crate::source::SourceFile;
use crate::violation::Violation;

/// What one crate measured, beside its violations.
#[derive(Debug, Default)]
pub struct Measured {
    /// Sizes of its circles (listed or not).
    pub circles: Vec<usize>,
    /// `(lines, "file fn name")` of its longest production function.
    pub longest_fn: Option<(usize, String)>,
    /// `(lines, file)` of its largest production file.
    pub largest_file: Option<(usize, String)>,
}

/// Checks one crate; pushes what it finds into `out`.
pub fn check_crate(
    house: &House,
    krate: &str,
    files: &[SourceFile],
    out: &mut Vec<Violation>,
) -> Measured {
    let mut m = Measured::default();
    lengths(house, files, out, &mut m);
    let graph = build(files);
    let nodes = files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.module.is_some())
        .map(|(i, _)| i);
    for comp in circles(&graph, nodes) {
        m.circles.push(comp.len());
        let name = |i: &usize| files[*i].rel.clone();
        let mut names: Vec<String> = comp.iter().map(name).collect();
        names.sort();
        let path = cycle(&graph, &comp).iter().map(name).collect();
        let edges = inner_edges(&graph, &comp)
            .iter()
            .map(|(a, b)| (name(a), name(b)))
            .collect();
        out.push(Violation::Circle {
            krate: krate.to_string(),
            files: names,
            edges,
            cycle: path,
        });
    }
    for floors in house.floors.iter().filter(|f| f.krate == krate) {
        check_floors(floors, files, &graph, out);
    }
    if let Some(app) = house.application.as_ref().filter(|a| a.krate == krate) {
        let home = format!("{}/", app.home.trim_end_matches('/'));
        for f in files
            .iter()
            .filter(|f| !f.test && !f.rel.starts_with(&home))
        {
            for &line in &f.facts.impl_application {
                out.push(Violation::ImplApplication {
                    file: f.rel.clone(),
                    line,
                });
            }
        }
    }
    m
}

fn lengths(house: &House, files: &[SourceFile], out: &mut Vec<Violation>, m: &mut Measured) {
    for f in files.iter().filter(|f| f.facts.unbalanced) {
        out.push(Violation::Unreadable {
            file: f.rel.clone(),
        });
    }
    for f in files.iter().filter(|f| !f.test) {
        let lines = f.production_lines();
        if m.largest_file.as_ref().is_none_or(|(n, _)| lines > *n) {
            m.largest_file = Some((lines, f.rel.clone()));
        }
        if lines > house.limits.file_lines {
            out.push(Violation::LongFile {
                file: f.rel.clone(),
                lines,
            });
        }
        for func in &f.facts.fns {
            if m.longest_fn.as_ref().is_none_or(|(n, _)| func.lines > *n) {
                m.longest_fn = Some((func.lines, format!("{} fn {}", f.rel, func.name)));
            }
            if func.lines > house.limits.function_lines {
                out.push(Violation::LongFn {
                    file: f.rel.clone(),
                    function: func.name.clone(),
                    line: func.line,
                    lines: func.lines,
                });
            }
        }
    }
}

/// The floor of a file of the floored folder: `None` for the door
/// (`mod.rs`) and for files outside the folder.
fn floor_of(floors: &Floors, rel: &str) -> Option<Result<usize, ()>> {
    let inner = rel
        .strip_prefix(floors.dir.trim_end_matches('/'))?
        .strip_prefix('/')?;
    let stem = inner.split('/').next()?.trim_end_matches(".rs");
    if inner == "mod.rs" {
        return None;
    }
    Some(
        floors
            .floor
            .iter()
            .position(|names| names.iter().any(|n| n == stem))
            .ok_or(()),
    )
}

fn check_floors(floors: &Floors, files: &[SourceFile], graph: &Graph, out: &mut Vec<Violation>) {
    let dir = floors.dir.trim_end_matches('/');
    for name in floors.floor.iter().flatten() {
        let present = files.iter().any(|f| {
            f.rel == format!("{dir}/{name}.rs") || f.rel.starts_with(&format!("{dir}/{name}/"))
        });
        if !present {
            out.push(Violation::Declaration {
                what: format!("{dir}: no file for floor name {name}"),
            });
        }
    }
    for f in files.iter().filter(|f| !f.test) {
        if let Some(Err(())) = floor_of(floors, &f.rel) {
            out.push(Violation::Unplaced {
                file: f.rel.clone(),
            });
        }
    }
    for (&from, targets) in &graph.edges {
        let Some(Ok(from_floor)) = floor_of(floors, &files[from].rel) else {
            continue;
        };
        for (&to, &line) in targets {
            let Some(Ok(to_floor)) = floor_of(floors, &files[to].rel) else {
                continue;
            };
            if to_floor > from_floor {
                out.push(Violation::Floor {
                    from: files[from].rel.clone(),
                    to: files[to].rel.clone(),
                    from_floor,
                    to_floor,
                    line,
                });
            }
        }
    }
}
