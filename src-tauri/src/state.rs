use crate::dto::ApiError;
use bearagent_runtime::{AppError, Application};
use std::sync::Arc;

/// The application, or why it could not be opened.
pub struct AppState {
    app: Result<Arc<Application>, ApiError>,
}

impl AppState {
    pub fn new(app: Result<Arc<Application>, AppError>) -> Self {
        Self {
            app: app.map_err(|e| ApiError::from(&e)),
        }
    }

    pub fn app(&self) -> Result<Arc<Application>, ApiError> {
        self.app.clone()
    }
}
