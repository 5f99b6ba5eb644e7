//! The client side of the session as rmcp sees it: what BearAgent tells the
//! server about itself, and where the server's notifications go.

use rmcp::model::{
    ClientCapabilities, ClientConfig, Implementation, ProgressNotificationParam, ProgressToken,
    ProtocolVersion,
};
use rmcp::service::{NotificationContext, RoleClient};
use rmcp::ClientHandler;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::mpsc;

/// Progress notifications that arrive before their call has subscribed
/// (rmcp hands them over on separate tasks) are held this many deep.
const EARLY_PROGRESS: usize = 64;

/// State shared between the handler (inside rmcp's service task) and the
/// connection.
#[derive(Default)]
pub(crate) struct Shared {
    progress: Mutex<Progress>,
    /// Tool names from the last `tools/list`; `None` until listed, or after
    /// the server said its list changed.
    tool_names: Mutex<Option<HashSet<String>>>,
}

#[derive(Default)]
struct Progress {
    routes: HashMap<ProgressToken, mpsc::UnboundedSender<ProgressNotificationParam>>,
    early: VecDeque<ProgressNotificationParam>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    /// Progress for `token` from now on, plus any that raced ahead.
    pub fn subscribe(
        self: &Arc<Self>,
        token: ProgressToken,
    ) -> (
        ProgressRoute,
        mpsc::UnboundedReceiver<ProgressNotificationParam>,
    ) {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut p = lock(&self.progress);
        p.early.retain(|n| {
            if n.progress_token == token {
                let _ = tx.send(n.clone());
                false
            } else {
                true
            }
        });
        p.routes.insert(token.clone(), tx);
        drop(p);
        let route = ProgressRoute {
            shared: self.clone(),
            token,
        };
        (route, rx)
    }

    fn route(&self, n: ProgressNotificationParam) {
        let mut p = lock(&self.progress);
        if let Some(tx) = p.routes.get(&n.progress_token) {
            let _ = tx.send(n);
        } else {
            p.early.push_back(n);
            if p.early.len() > EARLY_PROGRESS {
                p.early.pop_front();
            }
        }
    }

    pub fn set_tool_names(&self, names: HashSet<String>) {
        *lock(&self.tool_names) = Some(names);
    }

    /// False only when the last listing is current and lacks `tool`.
    pub fn may_have_tool(&self, tool: &str) -> bool {
        lock(&self.tool_names)
            .as_ref()
            .is_none_or(|names| names.contains(tool))
    }
}

/// Unsubscribes its token when the call ends, however it ends.
pub(crate) struct ProgressRoute {
    shared: Arc<Shared>,
    token: ProgressToken,
}

impl Drop for ProgressRoute {
    fn drop(&mut self) {
        lock(&self.shared.progress).routes.remove(&self.token);
    }
}

pub(crate) struct Handler {
    server: String,
    shared: Arc<Shared>,
}

impl Handler {
    pub fn new(server: &str) -> (Self, Arc<Shared>) {
        let shared = Arc::new(Shared::default());
        let handler = Self {
            server: server.to_owned(),
            shared: shared.clone(),
        };
        (handler, shared)
    }
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        // No roots, sampling or elicitation: BearAgent offers the server
        // nothing but tool calls. The last version with an `initialize`
        // handshake is the one every current server understands.
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("bearagent", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.shared.route(params);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::debug!(server = %self.server, "tool list changed");
        *lock(&self.shared.tool_names) = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::NumberOrString;

    fn note(token: u32, progress: f64) -> ProgressNotificationParam {
        ProgressNotificationParam::new(
            ProgressToken(NumberOrString::Number(token.into())),
            progress,
        )
    }

    #[test]
    fn early_progress_is_delivered_on_subscribe_and_routes_end_with_the_call() {
        let shared = Arc::new(Shared::default());
        shared.route(note(7, 1.0));
        shared.route(note(8, 9.0));
        let token = ProgressToken(NumberOrString::Number(7));
        let (route, mut rx) = shared.subscribe(token);
        shared.route(note(7, 2.0));
        assert_eq!(rx.try_recv().map(|n| n.progress).ok(), Some(1.0));
        assert_eq!(rx.try_recv().map(|n| n.progress).ok(), Some(2.0));
        drop(route);
        assert!(lock(&shared.progress).routes.is_empty());
        assert_eq!(lock(&shared.progress).early.len(), 1);
    }

    #[test]
    fn the_early_buffer_is_bounded() {
        let shared = Shared::default();
        for i in 0..1000 {
            shared.route(note(i, 0.0));
        }
        assert_eq!(lock(&shared.progress).early.len(), EARLY_PROGRESS);
    }

    #[test]
    fn tool_names_gate_calls_only_when_known() {
        let shared = Shared::default();
        assert!(shared.may_have_tool("x"));
        shared.set_tool_names(["echo".to_owned()].into());
        assert!(shared.may_have_tool("echo"));
        assert!(!shared.may_have_tool("x"));
    }
}
