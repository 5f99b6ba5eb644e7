//! What the check finds, and how today's listed debt covers it.

use crate::config::Debt;
use std::collections::{HashMap, VecDeque};

/// One breach of the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Violation {
    /// Files of one crate that import each other round (a strongly
    /// connected component), with one cycle through them.
    /// `edges`: the imports inside the component.
    Circle {
        krate: String,
        files: Vec<String>,
        cycle: Vec<String>,
        edges: Vec<(String, String)>,
    },
    /// A file importing one on a higher floor.
    Floor {
        from: String,
        to: String,
        from_floor: usize,
        to_floor: usize,
        line: usize,
    },
    /// A crate depending on one it may not use.
    CrateDep {
        from: String,
        to: String,
    },
    LongFn {
        file: String,
        function: String,
        line: usize,
        lines: usize,
    },
    LongFile {
        file: String,
        lines: usize,
    },
    ImplApplication {
        file: String,
        line: usize,
    },
    MockFile {
        file: String,
    },
    /// A file of a floored folder that no floor names.
    Unplaced {
        file: String,
    },
    /// The declaration names something that is not there.
    Declaration {
        what: String,
    },
    /// A file the lexer could not read (its braces do not balance).
    Unreadable {
        file: String,
    },
}

impl Violation {
    pub fn kind(&self) -> &'static str {
        match self {
            Violation::Circle { .. } => "circle",
            Violation::Floor { .. } => "floor",
            Violation::CrateDep { .. } => "crate_dep",
            Violation::LongFn { .. } => "long_fn",
            Violation::LongFile { .. } => "long_file",
            Violation::ImplApplication { .. } => "impl_application",
            Violation::MockFile { .. } => "mock_file",
            Violation::Unplaced { .. } => "unplaced",
            Violation::Declaration { .. } => "declaration",
            Violation::Unreadable { .. } => "unreadable",
        }
    }

    /// One line naming the files and the arrow.
    pub fn message(&self) -> String {
        match self {
            Violation::Circle { krate, files, cycle, .. } => format!(
                "circle in crate {krate} ({} files): {}; files: {}",
                files.len(),
                cycle.join(" -> "),
                files.join(", ")
            ),
            Violation::Floor { from, to, from_floor, to_floor, line } => format!(
                "import against the floors: {from}:{line} (floor {from_floor}) -> {to} (floor {to_floor})"
            ),
            Violation::CrateDep { from, to } => {
                format!("crate dependency against the declared direction: {from} -> {to}")
            }
            Violation::LongFn { file, function, line, lines } => {
                format!("function over the limit: {file}:{line} fn {function} is {lines} lines")
            }
            Violation::LongFile { file, lines } => {
                format!("file over the limit: {file} has {lines} production lines")
            }
            Violation::ImplApplication { file, line } => {
                format!("impl Application outside its home: {file}:{line}")
            }
            Violation::MockFile { file } => {
                format!("mock file that is neither the fixture player nor a recorded fixture: {file}")
            }
            Violation::Unplaced { file } => format!("file on no floor: {file}"),
            Violation::Declaration { what } => format!("house.toml: {what}"),
            Violation::Unreadable { file } => {
                format!("cannot read {file}: its braces do not balance once comments and strings are out")
            }
        }
    }

    /// The `[[debt]]` entry that would list it.
    pub fn debt_toml(&self) -> String {
        let mut out = format!("[[debt]]\nkind = \"{}\"\n", self.kind());
        match self {
            Violation::Circle { files, .. } => {
                out += "files = [\n";
                for f in files {
                    out += &format!("  \"{f}\",\n");
                }
                out += "]\n";
            }
            Violation::Floor { from, to, .. } => {
                out += &format!("from = \"{from}\"\nto = \"{to}\"\n")
            }
            Violation::CrateDep { from, to } => {
                out += &format!("from = \"{from}\"\nto = \"{to}\"\n")
            }
            Violation::LongFn {
                file,
                function,
                lines,
                ..
            } => out += &format!("file = \"{file}\"\nfunction = \"{function}\"\nlines = {lines}\n"),
            Violation::LongFile { file, lines } => {
                out += &format!("file = \"{file}\"\nlines = {lines}\n")
            }
            Violation::ImplApplication { file, .. }
            | Violation::MockFile { file }
            | Violation::Unplaced { file } => out += &format!("file = \"{file}\"\n"),
            Violation::Declaration { what } => out += &format!("file = \"{what}\"\n"),
            Violation::Unreadable { file } => out += &format!("file = \"{file}\"\n"),
        }
        out + "reason = \"known debt, issue 52\"\n"
    }
}

/// How a violation stands against one debt entry.
#[derive(Debug, PartialEq, Eq)]
pub enum Cover {
    No,
    /// Listed, within the listed size.
    Yes,
    /// Listed, and grown past it (the listed lines or files).
    Grew(String),
}

/// Whether `debt` lists `v`.
pub fn covers(debt: &Debt, v: &Violation) -> Cover {
    if debt.kind != v.kind() {
        return Cover::No;
    }
    let file = debt.file.as_deref();
    let pair = (debt.from.as_deref(), debt.to.as_deref());
    let listed = match v {
        Violation::Circle { files, .. } => return circle_cover(debt, files),
        Violation::Floor { from, to, .. } | Violation::CrateDep { from, to } => {
            pair == (Some(from.as_str()), Some(to.as_str()))
        }
        Violation::LongFn {
            file: f,
            function,
            lines,
            ..
        } => {
            if file != Some(f.as_str()) || debt.function.as_deref() != Some(function.as_str()) {
                return Cover::No;
            }
            return lines_cover(debt, *lines);
        }
        Violation::LongFile { file: f, lines } => {
            if file != Some(f.as_str()) {
                return Cover::No;
            }
            return lines_cover(debt, *lines);
        }
        Violation::ImplApplication { file: f, .. }
        | Violation::MockFile { file: f }
        | Violation::Unplaced { file: f } => file == Some(f.as_str()),
        Violation::Declaration { .. } | Violation::Unreadable { .. } => false,
    };
    if listed {
        Cover::Yes
    } else {
        Cover::No
    }
}

fn lines_cover(debt: &Debt, lines: usize) -> Cover {
    match debt.lines {
        Some(max) if lines > max => Cover::Grew(format!("{lines} lines, listed at {max}")),
        _ => Cover::Yes,
    }
}

/// A circle is covered by an entry listing the same files or more; one
/// sharing files with an entry but reaching beyond it has grown.
fn circle_cover(debt: &Debt, files: &[String]) -> Cover {
    let outside: Vec<&String> = files.iter().filter(|f| !debt.files.contains(f)).collect();
    if outside.is_empty() {
        Cover::Yes
    } else if outside.len() < files.len() {
        let names: Vec<&str> = outside.iter().map(|s| s.as_str()).collect();
        Cover::Grew(format!("it now also ties {}", names.join(", ")))
    } else {
        Cover::No
    }
}

/// A shortest cycle from `start` back to it along `edges`.
pub fn cycle_through(edges: &[(String, String)], start: &str) -> Vec<String> {
    let mut prev: HashMap<&str, &str> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for (_, w) in edges.iter().filter(|(from, _)| from == v) {
            if w == start {
                let mut path = vec![v.to_string()];
                let mut at = v;
                while let Some(&p) = prev.get(at) {
                    path.push(p.to_string());
                    at = p;
                }
                path.reverse();
                path.push(start.to_string());
                return path;
            }
            if !prev.contains_key(w.as_str()) && w != start {
                prev.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    vec![start.to_string()]
}

/// For a circle that grew past its entry: the new files and a cycle
/// through the first of them (the arrow that made it grow).
pub fn grown_circle(debt: &Debt, v: &Violation) -> Option<String> {
    let Violation::Circle {
        krate,
        files,
        edges,
        ..
    } = v
    else {
        return None;
    };
    let new: Vec<&str> = files
        .iter()
        .filter(|f| !debt.files.contains(f))
        .map(String::as_str)
        .collect();
    let first = new.first()?;
    Some(format!(
        "listed debt grew: the circle in crate {krate} listed with {} files now ties {} ({} new: {}); through the first: {}",
        debt.files.len(),
        files.len(),
        new.len(),
        new.join(", "),
        cycle_through(edges, first).join(" -> ")
    ))
}
