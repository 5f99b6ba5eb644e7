//! The approval gate: a waiting tool call parks here until a front end
//! decides. Decisions are recorded as events by the loop, not here.

use bearagent_kernel::{ApprovalScope, CallId, RunId};
use std::collections::HashMap;
use std::sync::Mutex;
use tokio::sync::oneshot;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub approve: bool,
    pub scope: ApprovalScope,
    /// Shown to the model on a denial.
    pub reason: Option<String>,
    /// Who decided, e.g. "user" or "cli:no-terminal".
    pub by: String,
    /// With an approval of a command: commands starting with these words
    /// are allowed for the rest of the run ("always allow `cargo test`").
    pub allow_prefix: Option<String>,
    /// With an approval of a command: it gets the network in the sandbox
    /// (and so do the commands `allow_prefix` allows).
    pub network: bool,
}

#[derive(Default)]
pub struct ApprovalGate {
    waiting: Mutex<HashMap<(RunId, CallId), oneshot::Sender<Decision>>>,
}

impl ApprovalGate {
    /// Registers a wait for `(run, call)`; the receiver yields the decision.
    pub fn wait(&self, run: RunId, call: CallId) -> oneshot::Receiver<Decision> {
        let (tx, rx) = oneshot::channel();
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.insert((run, call), tx);
        }
        rx
    }

    /// Delivers a decision. False when nothing waits for it.
    pub fn decide(&self, run: RunId, call: &CallId, decision: Decision) -> bool {
        let sender = self
            .waiting
            .lock()
            .ok()
            .and_then(|mut w| w.remove(&(run, call.clone())));
        match sender {
            Some(tx) => tx.send(decision).is_ok(),
            None => false,
        }
    }

    pub fn forget(&self, run: RunId, call: &CallId) {
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.remove(&(run, call.clone()));
        }
    }
}
