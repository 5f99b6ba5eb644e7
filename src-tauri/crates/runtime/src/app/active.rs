//! The runs whose loop is alive in this process (the watcher attributes
//! changes to them; the application cancels and awaits them).

use crate::AppError;
use bearagent_kernel::RunId;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// A run whose loop is alive in this process.
pub(crate) struct ActiveRun {
    pub cancel: CancellationToken,
    /// Ends with the loop's error when the run's events could not be stored.
    pub handle: Option<JoinHandle<Result<(), AppError>>>,
    /// A hook of the run is writing (see `RunHooks::writing`).
    pub hooks_writing: Arc<AtomicBool>,
}

impl ActiveRun {
    pub(crate) fn new(
        cancel: CancellationToken,
        handle: JoinHandle<Result<(), AppError>>,
        hooks_writing: Arc<AtomicBool>,
    ) -> Self {
        Self {
            cancel,
            handle: Some(handle),
            hooks_writing,
        }
    }
}

/// Whether a hook of `run_id` is writing now.
pub(crate) fn hooks_writing(active: &Mutex<HashMap<RunId, ActiveRun>>, run_id: RunId) -> bool {
    active.lock().is_ok_and(|a| {
        a.get(&run_id)
            .is_some_and(|r| r.hooks_writing.load(Ordering::SeqCst))
    })
}

/// The runs in `active` whose loop has not finished.
pub(crate) fn running_ids(active: &Mutex<HashMap<RunId, ActiveRun>>) -> Vec<RunId> {
    active
        .lock()
        .map(|a| {
            a.iter()
                .filter(|(_, r)| r.handle.as_ref().is_none_or(|h| !h.is_finished()))
                .map(|(id, _)| *id)
                .collect()
        })
        .unwrap_or_default()
}
