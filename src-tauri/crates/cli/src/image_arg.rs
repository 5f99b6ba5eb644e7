//! `--image PATH`: image files read for a goal or prompt. The count and
//! each file's size are checked before it is read, so a huge file is never
//! loaded; its type is checked by the application (by magic bytes).

use bearagent_kernel::{check_image_count, ImageError, MAX_IMAGE_BYTES};
use bearagent_runtime::ImageInput;
use std::path::PathBuf;

/// The files as images, in order, or a usage message naming the first
/// that cannot be one.
pub fn read_images(paths: &[PathBuf]) -> Result<Vec<ImageInput>, String> {
    check_image_count(paths.len()).map_err(|e| e.to_string())?;
    paths
        .iter()
        .map(|path| {
            let name = path.display().to_string();
            let meta = std::fs::metadata(path).map_err(|e| format!("image {name}: {e}"))?;
            if !meta.is_file() {
                return Err(format!("image {name} is not a file"));
            }
            if meta.len() > MAX_IMAGE_BYTES {
                return Err(ImageError::TooLarge {
                    name,
                    bytes: meta.len(),
                }
                .to_string());
            }
            let bytes = std::fs::read(path).map_err(|e| format!("image {name}: {e}"))?;
            let name = path
                .file_name()
                .map_or(name, |n| n.to_string_lossy().into_owned());
            Ok(ImageInput { name, bytes })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_file_is_refused_without_being_read_and_a_folder_is_not_an_image() {
        let dir = tempfile::tempdir().unwrap();
        let huge = dir.path().join("huge.png");
        let file = std::fs::File::create(&huge).unwrap();
        file.set_len(30 * 1024 * 1024).unwrap();
        let err = read_images(std::slice::from_ref(&huge)).unwrap_err();
        assert!(
            err.contains("huge.png is 30.0 MB; images may be at most 20.0 MB"),
            "{err}"
        );
        let err = read_images(&[dir.path().to_path_buf()]).unwrap_err();
        assert!(err.ends_with("is not a file"), "{err}");
        let many = vec![huge; 9];
        assert!(read_images(&many).unwrap_err().contains("at most 8"));
    }
}
