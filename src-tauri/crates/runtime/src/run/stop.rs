//! The guard before every model and tool call: a cancelled run or one out
//! of budget ends here, fail closed. Floor 1 of `run/`.

use super::deps::LoopDeps;
use super::recorder::Recorder;
use crate::AppError;
use bearagent_kernel::{EventPayload, NextCall};
use std::time::Duration;

/// Ends the run if cancelled or out of budget. True when it ended.
pub(crate) fn stop_if_needed(
    rec: &mut Recorder,
    deps: &LoopDeps,
    next: NextCall,
) -> Result<bool, AppError> {
    if deps.cancel.is_cancelled() {
        rec.record_user_cancel()?;
        return Ok(true);
    }
    let now = rec.clock().now();
    // What its children reserved and spent counts as the run's own.
    let ledger = deps.ledger.lock().map(|l| *l).unwrap_or_default();
    let exhausted = rec.state().and_then(|s| {
        let spent = ledger.counted(s.spent(now));
        s.budgets.exhausted_before(next, &spent)
    });
    if let Some(which) = exhausted {
        rec.record(rec.last_seq(), EventPayload::BudgetExhausted { which })?;
        return Ok(true);
    }
    Ok(false)
}

/// What is left of the run's wall-time budget (a model call races it).
pub(crate) fn remaining_wall_time(rec: &Recorder) -> Duration {
    let now = rec.clock().now();
    rec.state().map_or(Duration::ZERO, |s| {
        let spent = s.spent(now).elapsed_ms;
        Duration::from_millis(s.budgets.max_wall_time_ms.saturating_sub(spent))
    })
}
