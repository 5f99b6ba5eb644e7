//! What the three wire formats share about images: the words used when an
//! image's bytes did not reach the adapter.

use bearagent_kernel::ImageRef;

/// Text sent in place of an image whose bytes were not attached to the
/// request (the runtime attaches every one; this keeps a bug visible to
/// the model and in the request rather than dropping the image silently).
pub(super) fn missing(image: &ImageRef) -> String {
    format!(
        "[image {} ({}, {} bytes) could not be attached]",
        image.name,
        image.media_type.mime(),
        image.bytes
    )
}
