//! A run's children as `bearagent run` follows them (delegation): each
//! child's events are printed indented under the parent's timeline, and
//! its approval requests are answered at the same prompt, labelled with
//! the child's description. `bearagent runs` lists children under their
//! parent the same way, and `bearagent events --children` prints a
//! finished tree from the store.

use crate::render;
use crate::run_approval::{handle, Flow};
use crate::timeline::Timeline;
use bearagent_kernel::{EventEnvelope, EventPayload, RunId};
use bearagent_runtime::Application;
use std::collections::HashMap;
use std::sync::Arc;

/// A child of the followed run (at any depth).
struct Child {
    depth: u32,
    label: String,
    timeline: Timeline,
}

/// The followed run's descendants, learnt from their `RunCreated`.
#[derive(Default)]
pub(crate) struct Tree {
    children: HashMap<RunId, Child>,
}

impl Tree {
    /// Whether `envelope` belongs to a descendant of `root` (a new child's
    /// creation adds it). Its line is printed and its approvals answered.
    pub(crate) async fn follow(
        &mut self,
        app: &Arc<Application>,
        root: RunId,
        envelope: &EventEnvelope,
        json: bool,
        interactive: bool,
    ) -> bool {
        if let EventPayload::RunCreated {
            delegated_by: Some(by),
            ..
        } = &envelope.payload
        {
            if by.run_id == root || self.children.contains_key(&by.run_id) {
                self.children.insert(
                    envelope.run_id,
                    Child {
                        depth: by.depth,
                        label: by.description.clone(),
                        timeline: Timeline::new(None),
                    },
                );
            }
        }
        let Some(child) = self.children.get_mut(&envelope.run_id) else {
            return false;
        };
        if json {
            println!(
                "{}",
                serde_json::json!({"kind": "child_event", "depth": child.depth, "event": envelope})
            );
        } else {
            let indent = "    ".repeat(child.depth as usize);
            println!(
                "{indent}[{}] {}",
                child.label,
                child.timeline.line(envelope)
            );
        }
        let asking = interactive.then_some(&child.timeline);
        let label = format!("helper \"{}\"", child.label);
        if handle(app, envelope.run_id, envelope, asking, Some(&label)).await == Flow::Settled {
            self.children.remove(&envelope.run_id);
        }
        true
    }
}

/// The runs as `bearagent runs` lists them: each child right under its
/// parent, indented by its depth (a child whose parent is not in the list
/// stands at the top).
pub(crate) fn grouped(
    app: &Application,
    runs: &[bearagent_runtime::RunSummary],
) -> Vec<(u32, Option<RunId>, usize)> {
    let parents: HashMap<RunId, Option<(RunId, u32)>> = runs
        .iter()
        .map(|r| {
            let by = app
                .get_run(r.run_id)
                .ok()
                .and_then(|p| p.delegated_by)
                .map(|d| (d.run_id, d.depth));
            (r.run_id, by)
        })
        .collect();
    let mut out = Vec::new();
    let tops = runs.iter().enumerate().filter(|(_, r)| {
        parents
            .get(&r.run_id)
            .and_then(|p| *p)
            .is_none_or(|(parent, _)| !parents.contains_key(&parent))
    });
    for (i, top) in tops {
        push_with_children(runs, &parents, top.run_id, i, &mut out);
    }
    out
}

fn push_with_children(
    runs: &[bearagent_runtime::RunSummary],
    parents: &HashMap<RunId, Option<(RunId, u32)>>,
    id: RunId,
    index: usize,
    out: &mut Vec<(u32, Option<RunId>, usize)>,
) {
    let (parent, depth) = match parents.get(&id).and_then(|p| *p) {
        Some((parent, depth)) => (Some(parent), depth),
        None => (None, 0),
    };
    out.push((depth, parent, index));
    // Oldest child first, under its parent.
    for (i, r) in runs.iter().enumerate().rev() {
        if parents.get(&r.run_id).and_then(|p| *p).map(|(p, _)| p) == Some(id) {
            push_with_children(runs, parents, r.run_id, i, out);
        }
    }
}

/// One line of `bearagent runs`, indented under its parent.
pub(crate) fn runs_line(
    r: &bearagent_runtime::RunSummary,
    depth: u32,
    json: bool,
    parent: Option<RunId>,
) -> String {
    if json {
        let mut v = render::run_summary_json(r);
        if let Some(parent) = parent {
            v["parent_run_id"] = serde_json::json!(parent);
            v["depth"] = serde_json::json!(depth);
        }
        return v.to_string();
    }
    match depth {
        0 => render::run_summary_line(r),
        d => format!(
            "{}└ {}",
            "  ".repeat(d as usize),
            render::run_summary_line(r)
        ),
    }
}

/// A run's `events` page with every descendant's events (found from the
/// `task` calls: a child's id is derived from its parent's and the call's),
/// merged in time order; a child's line indented and labelled as `run`
/// prints it live.
pub(crate) fn print_with_children(
    app: &Application,
    run: RunId,
    events: &[EventEnvelope],
    started: Option<bearagent_kernel::Timestamp>,
    json: bool,
) -> crate::exit::Exit {
    let mut lines: Vec<(u32, Option<String>, EventEnvelope)> =
        events.iter().map(|e| (0, None, e.clone())).collect();
    let mut parents: Vec<(u32, RunId, Vec<EventEnvelope>)> = vec![(0, run, events.to_vec())];
    while let Some((depth, parent, of)) = parents.pop() {
        for (call, child) in bearagent_kernel::task_children(parent, &of) {
            let label = call.arguments.get("description").and_then(|d| d.as_str());
            let label = label.unwrap_or("helper").to_owned();
            let found = match app.list_events(child, bearagent_kernel::EventSeq(0), 100_000) {
                Ok(found) => found,
                // A helper that could not start has no run: its call's
                // failure in the parent says why.
                Err(e) if e.code() == bearagent_runtime::ErrorCode::NotFound => continue,
                Err(e) => return crate::exit::report(&e),
            };
            lines.extend(
                found
                    .iter()
                    .map(|e| (depth + 1, Some(label.clone()), e.clone())),
            );
            parents.push((depth + 1, child, found));
        }
    }
    // Stable: a run's own events keep their order at equal times.
    lines.sort_by_key(|(_, _, e)| e.at);
    let mut timeline = Timeline::new(started);
    for (depth, label, e) in &lines {
        match (json, label) {
            (true, None) => println!("{}", render::event_json(e)),
            (true, Some(_)) => println!(
                "{}",
                serde_json::json!({"kind": "child_event", "depth": depth, "event": e})
            ),
            (false, None) => println!("{}", timeline.line(e)),
            (false, Some(label)) => println!(
                "{}[{label}] {}",
                "    ".repeat(*depth as usize),
                timeline.line(e)
            ),
        }
    }
    crate::exit::Exit::Succeeded
}
