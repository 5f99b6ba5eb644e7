use crate::dto::ApiError;
use bearagent_runtime::{AppError, Application, LiveEvent, LiveFeed};
use std::sync::{Arc, Mutex};

/// The application, or why it could not be opened.
pub struct AppState {
    app: Result<Arc<Application>, ApiError>,
    /// A run bundle the app was started to open (a double-click on a
    /// `.bearagent-run` file); taken once by the window.
    opened_file: Mutex<Option<String>>,
    /// Live updates waiting for the window to pull them.
    live: Arc<LiveFeed<LiveEvent>>,
}

impl AppState {
    pub fn new(app: Result<Arc<Application>, AppError>) -> Self {
        Self {
            app: app.map_err(|e| ApiError::from(&e)),
            opened_file: Mutex::new(None),
            live: Arc::new(LiveFeed::new(crate::live::FEED_CAPACITY)),
        }
    }

    /// Remembers the bundle given on the command line.
    pub fn with_opened_file(self, file: Option<String>) -> Self {
        Self {
            opened_file: Mutex::new(file),
            ..self
        }
    }

    /// The bundle the app was started with, once.
    pub fn take_opened_file(&self) -> Option<String> {
        self.opened_file.lock().ok().and_then(|mut f| f.take())
    }

    pub fn live(&self) -> Arc<LiveFeed<LiveEvent>> {
        self.live.clone()
    }

    pub fn app(&self) -> Result<Arc<Application>, ApiError> {
        self.app.clone()
    }
}
