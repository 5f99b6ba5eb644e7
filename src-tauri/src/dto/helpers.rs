//! Helpers (delegation) as the UI shows them: a run's helpers with the
//! approval each waits on.

use super::RunSummaryView;
use bearagent_kernel::projection::PendingApproval;
use bearagent_runtime::HelperRun;
use serde::Serialize;

/// One helper of a run (at any depth): its summary, whose `delegatedBy`
/// names its parent, and the approval it waits on (answered with its own
/// run id).
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct HelperRunView {
    pub run: RunSummaryView,
    pub pending_approval: Option<PendingApproval>,
}

impl From<HelperRun> for HelperRunView {
    fn from(h: HelperRun) -> Self {
        Self {
            run: RunSummaryView::from(h.summary),
            pending_approval: h.pending_approval,
        }
    }
}
