//! A run's helpers (delegation): the child runs its `task` calls started,
//! and theirs, as the app's nested cards show them with their approvals.

use crate::app::Application;
use crate::views::RunSummary;
use crate::AppError;
use bearagent_kernel::projection::PendingApproval;
use bearagent_kernel::{task_children, RunId};
use std::collections::VecDeque;

/// One helper of a run: its summary (which names the run and `task` call
/// that started it, and its depth) and the approval it waits on.
#[derive(Debug, Clone, PartialEq)]
pub struct HelperRun {
    pub summary: RunSummary,
    pub pending_approval: Option<PendingApproval>,
}

impl Application {
    /// Every run `run_id`'s `task` calls started, and every run theirs
    /// started, parents before their children, each parent's in call
    /// order. A child is found by the id its parent's call derives
    /// (`DelegatedBy::child_run_id`); a call whose child never started
    /// has none.
    pub fn helper_runs(&self, run_id: RunId) -> Result<Vec<HelperRun>, AppError> {
        self.get_run(run_id)?;
        let mut helpers = Vec::new();
        let mut parents = VecDeque::from([run_id]);
        while let Some(parent) = parents.pop_front() {
            let events = self.store.all_events(parent)?;
            for (_, child) in task_children(parent, &events) {
                let Some(projection) = self.store.get_run(child)? else {
                    continue;
                };
                if projection.delegated_by.as_ref().map(|d| d.run_id) != Some(parent) {
                    continue;
                }
                parents.push_back(child);
                let pending_approval = projection.pending_approval.clone();
                helpers.push(HelperRun {
                    summary: RunSummary {
                        imported_from: self.store.imported(child)?.map(|i| i.source),
                        ..RunSummary::from(projection)
                    },
                    pending_approval,
                });
            }
        }
        Ok(helpers)
    }
}

#[cfg(test)]
#[path = "helper_runs_tests.rs"]
mod tests;
