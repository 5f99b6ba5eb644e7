//! The fixture's worktree run: its worktree applied and removed, and a
//! todo list on the way.

use super::{answer, completed, created, requested, started, usage};
use bearagent_kernel::{ApprovalMode, EventPayload};

/// A run in a git worktree that answered; its worktree applied (one file
/// merged, one refused), then discarded.
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
        EventPayload::WorktreeApplied {
            applied: vec!["calc.py".into()],
            merged: vec!["README.md".into()],
            refused: vec![bearagent_kernel::WorktreeRefusal {
                path: "notes.md".into(),
                reason: "the main checkout changed the same lines since the worktree's start"
                    .into(),
            }],
        },
        EventPayload::WorktreeRemoved { discarded: true },
    ]
}
