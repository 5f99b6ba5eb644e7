//! The editor's sessions in this process: each is a BearAgent thread in
//! one workspace. Its id is the id of its first run (given to that run
//! when the first prompt starts it), so a later process can load it.

use bearagent_kernel::{ApprovalMode, RunId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

#[derive(Clone)]
pub struct Session {
    /// The workspace folder (canonical).
    pub workspace: String,
    pub mode: ApprovalMode,
    /// The id the session's first run takes.
    pub first_run: RunId,
    /// The newest run of the thread: a next prompt follows it up.
    pub last_run: Option<RunId>,
    /// The run of the prompt in progress, and what cancels its waiting.
    pub active: Option<(Option<RunId>, CancellationToken)>,
}

#[derive(Default, Clone)]
pub struct Sessions {
    inner: Arc<Mutex<HashMap<String, Session>>>,
}

/// Why a session cannot do what was asked (said to the editor as an
/// invalid-params error).
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("unknown session {0}: start one with session/new or load one with session/load")]
    Unknown(String),
    #[error("session {0} is already answering a prompt; cancel it or wait")]
    Busy(String),
}

impl Sessions {
    pub fn insert(&self, id: String, session: Session) {
        self.lock().insert(id, session);
    }

    pub fn set_mode(&self, id: &str, mode: ApprovalMode) -> Result<(), SessionError> {
        let mut all = self.lock();
        let session = all
            .get_mut(id)
            .ok_or_else(|| SessionError::Unknown(id.to_owned()))?;
        session.mode = mode;
        Ok(())
    }

    /// Marks a prompt as started: refused while another one runs.
    pub fn begin(&self, id: &str, cancel: CancellationToken) -> Result<Session, SessionError> {
        let mut all = self.lock();
        let session = all
            .get_mut(id)
            .ok_or_else(|| SessionError::Unknown(id.to_owned()))?;
        if session.active.is_some() {
            return Err(SessionError::Busy(id.to_owned()));
        }
        // The run is named once it exists; the token cancels at once.
        session.active = Some((None, cancel));
        Ok(session.clone())
    }

    /// The prompt's run is `run`: a cancel from now on cancels it.
    pub fn running(&self, id: &str, run: RunId) {
        if let Some(Some((active, _))) = self.lock().get_mut(id).map(|s| s.active.as_mut()) {
            *active = Some(run);
        }
    }

    /// The prompt ended; `run` (if one started) is the thread's newest.
    pub fn end(&self, id: &str, run: Option<RunId>) {
        if let Some(session) = self.lock().get_mut(id) {
            session.active = None;
            if run.is_some() {
                session.last_run = run;
            }
        }
    }

    /// What a cancel of the session stops: its run, if one is in progress.
    pub fn cancel(&self, id: &str) -> Option<RunId> {
        let all = self.lock();
        let (run, token) = all.get(id)?.active.as_ref()?;
        token.cancel();
        *run
    }

    /// Cancels every prompt in progress (the editor went away): their runs.
    pub fn cancel_all(&self) -> Vec<RunId> {
        let all = self.lock();
        all.values()
            .filter_map(|s| s.active.as_ref())
            .filter_map(|(run, token)| {
                token.cancel();
                *run
            })
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Session>> {
        // A panic while holding the lock cannot leave a session half-written
        // (every change is one assignment), so a poisoned map is still sound.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}
