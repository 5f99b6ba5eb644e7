//! A run's images read back for people: the goal's screenshots and the
//! images tools returned, as the run's events reference them.

use crate::app::Application;
use crate::AppError;
use bearagent_kernel::{ContentHash, EventPayload, ImageRef, RunId};
use tracing::instrument;

/// An image's type and bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunImage {
    pub image: ImageRef,
    pub bytes: Vec<u8>,
}

impl Application {
    /// The image `blob` of `run_id`: only a blob one of the run's events
    /// references as an image is given out.
    #[instrument(skip(self))]
    pub fn run_image(&self, run_id: RunId, blob: &ContentHash) -> Result<RunImage, AppError> {
        let not_found = || AppError::NotFound {
            what: "image",
            id: blob.to_string(),
        };
        let events = self.store.all_events(run_id)?;
        let image = events
            .iter()
            .flat_map(|e| images_of(&e.payload))
            .find(|i| &i.blob == blob)
            .cloned()
            .ok_or_else(not_found)?;
        let bytes = self.store.get_blob(blob)?.ok_or_else(not_found)?;
        Ok(RunImage { image, bytes })
    }
}

/// The images an event references.
pub(crate) fn images_of(payload: &EventPayload) -> &[ImageRef] {
    match payload {
        EventPayload::RunCreated { images, .. } => images,
        EventPayload::ToolCallCompleted { result, .. }
        | EventPayload::ToolCallFailed { result } => &result.images,
        _ => &[],
    }
}
