//! The file-import graph of one crate: each path a file names resolved to
//! the file defining the longest module prefix of it (following `use`
//! re-exports to the file that defines the item), its circles, and a cycle
//! through each.

use crate::source::SourceFile;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// Files (by index into the crate's files) and who imports whom.
#[derive(Debug, Default)]
pub struct Graph {
    /// `from -> to -> line` of the first import.
    pub edges: BTreeMap<usize, BTreeMap<usize, usize>>,
}

type Modules = HashMap<Vec<String>, usize>;
type Aliases = HashMap<usize, HashMap<String, Vec<String>>>;

/// The absolute module path `segments` names, written in module `cur`.
fn to_abs(cur: &[String], segments: &[String], modules: &Modules) -> Option<Vec<String>> {
    let first = segments.first()?;
    match first.as_str() {
        "crate" => Some(segments[1..].to_vec()),
        "self" => Some([cur, &segments[1..]].concat()),
        "super" => {
            let ups = segments.iter().take_while(|s| *s == "super").count();
            let base = cur.get(..cur.len().checked_sub(ups)?)?;
            Some([base, &segments[ups..]].concat())
        }
        _ => {
            let child = [cur, &segments[..1]].concat();
            modules
                .contains_key(&child)
                .then(|| [cur, segments].concat())
        }
    }
}

/// The file defining the longest module prefix of `abs`, and the rest.
fn longest_prefix<'a>(abs: &'a [String], modules: &Modules) -> Option<(usize, &'a [String])> {
    (0..=abs.len())
        .rev()
        .find_map(|n| modules.get(&abs[..n]).map(|f| (*f, &abs[n..])))
}

/// Follows re-exports (`pub use x::Y;`) to the file defining the item.
fn resolve(mut abs: Vec<String>, modules: &Modules, aliases: &Aliases) -> Option<usize> {
    let mut file = None;
    for _ in 0..8 {
        let (f, rest) = longest_prefix(&abs, modules)?;
        file = Some(f);
        let Some(target) = rest.first().and_then(|name| aliases.get(&f)?.get(name)) else {
            break;
        };
        let next = [target.as_slice(), &rest[1..]].concat();
        if next == abs {
            break;
        }
        abs = next;
    }
    file
}

/// Builds the graph of the files that have a module path.
pub fn build(files: &[SourceFile]) -> Graph {
    let modules: Modules = files
        .iter()
        .enumerate()
        .filter_map(|(i, f)| f.module.clone().map(|m| (m, i)))
        .collect();
    let mut aliases: Aliases = HashMap::new();
    for (i, f) in files.iter().enumerate() {
        let Some(module) = &f.module else { continue };
        for p in f
            .facts
            .paths
            .iter()
            .filter(|p| p.is_use && p.inline.is_empty())
        {
            if let (Some(alias), Some(abs)) = (&p.alias, to_abs(module, &p.segments, &modules)) {
                aliases.entry(i).or_default().insert(alias.clone(), abs);
            }
        }
    }
    let mut graph = Graph::default();
    for (i, f) in files.iter().enumerate() {
        let Some(module) = &f.module else { continue };
        for p in &f.facts.paths {
            let cur = [module.as_slice(), &p.inline].concat();
            let Some(abs) = to_abs(&cur, &p.segments, &modules) else {
                continue;
            };
            match resolve(abs, &modules, &aliases) {
                Some(to) if to != i => {
                    graph
                        .edges
                        .entry(i)
                        .or_default()
                        .entry(to)
                        .or_insert(p.line);
                }
                _ => {}
            }
        }
    }
    graph
}

struct Tarjan<'a> {
    graph: &'a Graph,
    index: HashMap<usize, usize>,
    low: HashMap<usize, usize>,
    stack: Vec<usize>,
    on_stack: BTreeSet<usize>,
    out: Vec<Vec<usize>>,
}

impl Tarjan<'_> {
    fn visit(&mut self, v: usize) {
        let n = self.index.len();
        self.index.insert(v, n);
        self.low.insert(v, n);
        self.stack.push(v);
        self.on_stack.insert(v);
        let targets: Vec<usize> = self
            .graph
            .edges
            .get(&v)
            .map(|m| m.keys().copied().collect())
            .unwrap_or_default();
        for w in targets {
            if !self.index.contains_key(&w) {
                self.visit(w);
                let lw = self.low[&w];
                self.low.entry(v).and_modify(|l| *l = (*l).min(lw));
            } else if self.on_stack.contains(&w) {
                let iw = self.index[&w];
                self.low.entry(v).and_modify(|l| *l = (*l).min(iw));
            }
        }
        if self.low[&v] == self.index[&v] {
            let mut comp = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on_stack.remove(&w);
                comp.push(w);
                if w == v {
                    break;
                }
            }
            comp.sort_unstable();
            self.out.push(comp);
        }
    }
}

/// The strongly connected components with more than one file.
pub fn circles(graph: &Graph, nodes: impl Iterator<Item = usize>) -> Vec<Vec<usize>> {
    let mut t = Tarjan {
        graph,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in nodes {
        if !t.index.contains_key(&v) {
            t.visit(v);
        }
    }
    let mut out: Vec<Vec<usize>> = t.out.into_iter().filter(|c| c.len() > 1).collect();
    out.sort();
    out
}

/// A shortest cycle through the component's first file, as a path that
/// starts and ends there.
pub fn cycle(graph: &Graph, comp: &[usize]) -> Vec<usize> {
    let Some(&start) = comp.first() else {
        return Vec::new();
    };
    let inside: BTreeSet<usize> = comp.iter().copied().collect();
    let mut prev: HashMap<usize, usize> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in graph.edges.get(&v).into_iter().flat_map(|m| m.keys()) {
            if w == start {
                let mut path = vec![v];
                let mut at = v;
                while let Some(&p) = prev.get(&at) {
                    path.push(p);
                    at = p;
                }
                path.reverse();
                path.push(start);
                return path;
            }
            if inside.contains(&w) && w != start && !prev.contains_key(&w) {
                prev.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    vec![start]
}

/// The imports between files of the component.
pub fn inner_edges(graph: &Graph, comp: &[usize]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for &from in comp {
        for &to in graph.edges.get(&from).into_iter().flat_map(|m| m.keys()) {
            if comp.contains(&to) {
                out.push((from, to));
            }
        }
    }
    out
}
