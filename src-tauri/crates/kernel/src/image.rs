//! Images in a conversation: what a reference to one says (its blob, its
//! type by magic bytes, its size) and the limits an image must meet before
//! anything is sent. The bytes live in the blob store; events and history
//! carry only the reference, so "what the model saw" stays exact.

use crate::ids::ContentHash;
use crate::units::human_bytes;
use serde::{Deserialize, Serialize};

/// Largest image accepted (the providers' own limits are near this).
pub const MAX_IMAGE_BYTES: u64 = 20 * 1024 * 1024;
/// Most images one goal or reply may carry.
pub const MAX_IMAGES: usize = 8;

/// The image types every supported protocol takes.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageType {
    Png,
    Jpeg,
    Webp,
    Gif,
}

impl ImageType {
    /// The MIME type the protocols name it by.
    pub fn mime(self) -> &'static str {
        match self {
            ImageType::Png => "image/png",
            ImageType::Jpeg => "image/jpeg",
            ImageType::Webp => "image/webp",
            ImageType::Gif => "image/gif",
        }
    }

    /// The type the bytes say they are, whatever a file name claims.
    pub fn sniff(bytes: &[u8]) -> Option<ImageType> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(ImageType::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(ImageType::Jpeg)
        } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(ImageType::Gif)
        } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
            Some(ImageType::Webp)
        } else {
            None
        }
    }
}

/// An image as events and history carry it: the bytes are the blob `blob`.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageRef {
    pub blob: ContentHash,
    pub media_type: ImageType,
    pub bytes: u64,
    /// Where it came from, for people: a file name, "pasted image", a tool.
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    #[error("{name} is not a PNG, JPEG, WebP or GIF image (its first bytes say otherwise)")]
    UnsupportedType { name: String },
    #[error("{name} is {}; images may be at most {}", human_bytes(*bytes), human_bytes(MAX_IMAGE_BYTES))]
    TooLarge { name: String, bytes: u64 },
    #[error("{name} is empty")]
    Empty { name: String },
    #[error("{count} images given; at most {MAX_IMAGES} may go with one message")]
    TooMany { count: usize },
}

/// The image's type if it meets the limits: a known type by magic bytes,
/// not empty, not larger than `MAX_IMAGE_BYTES`.
pub fn check_image(name: &str, bytes: &[u8]) -> Result<ImageType, ImageError> {
    let name = name.to_owned();
    if bytes.is_empty() {
        return Err(ImageError::Empty { name });
    }
    let size = bytes.len() as u64;
    if size > MAX_IMAGE_BYTES {
        return Err(ImageError::TooLarge { name, bytes: size });
    }
    ImageType::sniff(bytes).ok_or(ImageError::UnsupportedType { name })
}

/// The count limit, checked before any image is read or stored.
pub fn check_image_count(count: usize) -> Result<(), ImageError> {
    if count > MAX_IMAGES {
        return Err(ImageError::TooMany { count });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_come_from_magic_bytes_not_names() {
        assert_eq!(
            ImageType::sniff(b"\x89PNG\r\n\x1a\n...."),
            Some(ImageType::Png)
        );
        assert_eq!(
            ImageType::sniff(&[0xFF, 0xD8, 0xFF, 0xE0]),
            Some(ImageType::Jpeg)
        );
        assert_eq!(ImageType::sniff(b"GIF89a.."), Some(ImageType::Gif));
        assert_eq!(
            ImageType::sniff(b"RIFF\0\0\0\0WEBPVP8 "),
            Some(ImageType::Webp)
        );
        assert_eq!(ImageType::sniff(b"RIFF\0\0\0\0WAVEfmt "), None);
        assert_eq!(ImageType::sniff(b"not an image at all"), None);
        assert_eq!(ImageType::Webp.mime(), "image/webp");
    }

    #[test]
    fn limits_name_the_image_and_the_limit() {
        let text = check_image("shot.png", b"hello, I am text").unwrap_err();
        assert!(text.to_string().contains("shot.png is not a PNG"), "{text}");
        let huge = vec![0x89u8; (MAX_IMAGE_BYTES + 1) as usize];
        let err = check_image("big.png", &huge).unwrap_err();
        assert!(err.to_string().contains("at most 20.0 MB"), "{err}");
        assert!(matches!(
            check_image("e.png", b""),
            Err(ImageError::Empty { .. })
        ));
        assert!(check_image_count(MAX_IMAGES).is_ok());
        assert!(check_image_count(MAX_IMAGES + 1).is_err());
    }
}
