//! Images on their way to the model. A request's history carries image
//! refs only; just before the call their bytes are read from the blob
//! store. For a model that cannot see, each image becomes a line of text
//! saying what it was. Floor 0 of `run/`.

use crate::AppError;
use bearagent_kernel::{HistoryItem, ImageRef};
use bearagent_providers::ModelRequest;
use bearagent_store::Store;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Tokens one image is counted as against the window: about what the
/// providers bill for a screenshot-sized image (Anthropic ~1.6k for 1.15
/// megapixels; OpenAI's high detail tiles are in the same range).
pub const TOKENS_PER_IMAGE: u64 = 1_600;

/// `request` ready to send: the bytes of every image it references
/// attached, or (the model does not read images) the images described in
/// text. A referenced blob that is missing is a corrupt store, not a
/// silent omission.
pub fn attach(
    store: &Store,
    vision: bool,
    mut request: ModelRequest,
) -> Result<ModelRequest, AppError> {
    if request.image_refs().next().is_none() {
        return Ok(request);
    }
    if !vision {
        request.history = Arc::new(request.history.iter().map(described).collect());
        return Ok(request);
    }
    let mut bytes = BTreeMap::new();
    for image in request.image_refs() {
        if bytes.contains_key(&image.blob) {
            continue;
        }
        let data = store.get_blob(&image.blob)?.ok_or_else(|| {
            AppError::Corrupt(format!(
                "the image {} (blob {}) is missing",
                image.name, image.blob
            ))
        })?;
        bytes.insert(image.blob.clone(), Arc::<[u8]>::from(data));
    }
    request.images = Arc::new(bytes);
    Ok(request)
}

/// Tokens the request's images add to its text's estimate.
pub fn estimated_tokens(request: &ModelRequest) -> u64 {
    request.image_refs().count() as u64 * TOKENS_PER_IMAGE
}

/// An item with its images replaced by a note in its text.
fn described(item: &HistoryItem) -> HistoryItem {
    match item {
        HistoryItem::Message(m) if !m.images.is_empty() => {
            let mut m = m.clone();
            m.content.push_str(&notes(&m.images));
            m.images.clear();
            HistoryItem::Message(m)
        }
        HistoryItem::ToolResult(r) if !r.images.is_empty() => {
            let mut r = r.clone();
            r.content.push_str(&notes(&r.images));
            r.images.clear();
            HistoryItem::ToolResult(r)
        }
        other => other.clone(),
    }
}

fn notes(images: &[ImageRef]) -> String {
    images
        .iter()
        .map(|i| {
            format!(
                "\n[image {} ({}, {} bytes) not shown: this model does not read images]",
                i.name,
                i.media_type.mime(),
                i.bytes
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bearagent_kernel::{ImageType, Message, Role, Timestamp};

    fn request_with(image: ImageRef) -> ModelRequest {
        ModelRequest {
            system: String::new(),
            history: Arc::new(vec![HistoryItem::Message(
                Message::new(Role::User, "what is wrong here?").with_images(vec![image]),
            )]),
            tools: Default::default(),
            max_output_tokens: None,
            images: Default::default(),
        }
    }

    fn stored(store: &Store, bytes: &[u8]) -> ImageRef {
        let at = Timestamp::from_unix_millis(0).unwrap();
        ImageRef {
            blob: store.put_blob(bytes, at).unwrap(),
            media_type: ImageType::Png,
            bytes: bytes.len() as u64,
            name: "shot.png".into(),
        }
    }

    #[test]
    fn a_vision_model_gets_the_bytes_and_a_text_model_a_description() {
        let home = tempfile::tempdir().unwrap();
        let store = Store::open_in(home.path()).unwrap();
        let image = stored(&store, b"\x89PNG\r\n\x1a\nfake");
        let seen = attach(&store, true, request_with(image.clone())).unwrap();
        assert_eq!(&*seen.images[&image.blob], b"\x89PNG\r\n\x1a\nfake");
        assert_eq!(estimated_tokens(&seen), TOKENS_PER_IMAGE);
        let told = attach(&store, false, request_with(image)).unwrap();
        assert!(told.images.is_empty());
        let HistoryItem::Message(m) = &told.history[0] else {
            panic!("a message")
        };
        assert!(m.images.is_empty());
        assert!(
            m.content.ends_with(
                "[image shot.png (image/png, 12 bytes) not shown: this model does not read images]"
            ),
            "{}",
            m.content
        );
    }

    #[test]
    fn a_missing_blob_is_a_corrupt_store() {
        let home = tempfile::tempdir().unwrap();
        let store = Store::open_in(home.path()).unwrap();
        let other = Store::open_in(tempfile::tempdir().unwrap().path()).unwrap();
        let image = stored(&other, b"\x89PNG\r\n\x1a\nelsewhere");
        let err = attach(&store, true, request_with(image)).unwrap_err();
        assert!(matches!(err, AppError::Corrupt(m) if m.contains("shot.png")));
    }
}
