//! The fixture's worktree run: its worktree applied and removed, and a
//! todo list on the way.

use super::{answer, completed, created, requested, started, usage};
use bearagent_kernel::{ApprovalMode, EventPayload, WorktreeStep};

/// A run in a git worktree that answered; an apply interrupted and
/// settled, its worktree applied (one file merged, one refused), the apply
/// undone, then discarded.
pub fn worktree_run() -> Vec<EventPayload> {
    let mut created = created("fix add in a worktree", ApprovalMode::AllowAll, None, None);
    if let EventPayload::RunCreated {
        worktree,
        workspace_path,
        ..
    } = &mut created
    {
        *workspace_path = "/home/me/.local/share/bearagent/worktrees/project-1a2b3c4d/w1".into();
        *worktree = Some(bearagent_kernel::Worktree {
            repo: "/home/me/project".into(),
            path: workspace_path.clone(),
            branch: "bearagent/w1".into(),
            base: "a".repeat(40),
            start: "a".repeat(40),
            carried_changes: false,
        });
    }
    vec![
        created,
        EventPayload::RunStarted,
        EventPayload::TodoUpdated {
            items: vec![
                bearagent_kernel::TodoItem {
                    step: "fix add".into(),
                    status: bearagent_kernel::TodoStatus::Completed,
                },
                bearagent_kernel::TodoItem {
                    step: "run the tests".into(),
                    status: bearagent_kernel::TodoStatus::InProgress,
                },
            ],
        },
        requested(),
        started(),
        completed(answer("Done in the worktree."), usage(900, 20, 0), None),
        EventPayload::RunSucceeded {
            answer: "Done in the worktree.".into(),
        },
        apply_started(false),
        step(WorktreeStep::ApplySettled {
            undo: false,
            done: vec!["calc.py".into()],
            not_done: vec!["README.md".into()],
            neither: vec![],
        }),
        apply_started(false),
        EventPayload::WorktreeApplied {
            applied: vec!["calc.py".into()],
            merged: vec!["README.md".into()],
            refused: vec![bearagent_kernel::WorktreeRefusal {
                path: "notes.md".into(),
                reason: "the main checkout changed the same lines since the worktree's start"
                    .into(),
            }],
        },
        apply_started(true),
        step(WorktreeStep::ApplyUndone {
            restored: vec!["calc.py".into(), "README.md".into()],
        }),
        step(WorktreeStep::RemovalStarted {
            discarded: true,
            instance: "0190a0000000700080000000000000ff".into(),
            pid: 4242,
        }),
        EventPayload::WorktreeRemoved { discarded: true },
    ]
}

/// An apply's (or with `undo` its undo's) intent: calc.py changed and
/// made executable, README.md merged with the user's edit.
fn apply_started(undo: bool) -> EventPayload {
    let hash = |c: char| Some(bearagent_kernel::ContentHash::from_digest([c as u8; 32]));
    let change = |path: &str, before, after, modes: (u32, u32)| {
        let (mut before, mut after, mut modes) = (before, after, modes);
        if undo {
            std::mem::swap(&mut before, &mut after);
            modes = (modes.1, modes.0);
        }
        bearagent_kernel::WorktreeFileChange {
            path: path.into(),
            before,
            before_mode: Some(modes.0),
            after,
            after_mode: Some(modes.1),
        }
    };
    step(WorktreeStep::ApplyStarted {
        undo,
        forced: false,
        instance: "0190a0000000700080000000000000ff".into(),
        pid: 4242,
        files: vec![
            change("calc.py", hash('a'), hash('b'), (0o644, 0o755)),
            change("README.md", hash('c'), hash('d'), (0o644, 0o644)),
        ],
    })
}

fn step(step: WorktreeStep) -> EventPayload {
    EventPayload::WorktreeStep { step }
}
