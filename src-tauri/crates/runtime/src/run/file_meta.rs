//! What the snapshot and the safety net both read of a file: its
//! metadata, whether a folder is a tagged cache, and its path below the
//! workspace root.

use std::io::Read;
use std::path::Path;

/// What `stat` says about a file; equal metadata means the same content
/// as far as the snapshot is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileMeta {
    pub(super) len: u64,
    pub(super) modified_ns: i128,
    pub(super) inode: u64,
    /// Permission bits (`0o7777`).
    pub(super) mode: u32,
}

impl FileMeta {
    pub(crate) fn modified_ns(&self) -> i128 {
        self.modified_ns
    }

    pub fn mode(&self) -> u32 {
        self.mode
    }

    pub(crate) fn of(meta: &std::fs::Metadata) -> Self {
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(meta);
        #[cfg(not(unix))]
        let inode = 0;
        #[cfg(unix)]
        let mode = std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o7777;
        #[cfg(not(unix))]
        let mode = 0;
        let modified_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        Self {
            len: meta.len(),
            modified_ns,
            inode,
            mode,
        }
    }
}

/// The first bytes of a valid cache directory tag
/// (<https://bford.info/cachedir/>).
const CACHEDIR_SIGNATURE: &[u8; 43] = b"Signature: 8a477f597d28d172789f06886806bc55";

/// Whether `dir` holds a `CACHEDIR.TAG` starting with the standard
/// signature: its contents are regenerable build output or cache.
pub fn is_cache_dir(dir: &Path) -> bool {
    let Ok(mut tag) = std::fs::File::open(dir.join("CACHEDIR.TAG")) else {
        return false;
    };
    let mut head = [0u8; CACHEDIR_SIGNATURE.len()];
    tag.read_exact(&mut head).is_ok() && &head == CACHEDIR_SIGNATURE
}

/// `path` below `root`, with `/` (on Unix the path's own text: this runs
/// for every file of the tree, so no per-component joining).
pub(crate) fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    match rel.to_str() {
        Some(text) if std::path::MAIN_SEPARATOR == '/' => Some(text.to_owned()),
        _ => Some(
            rel.components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
        ),
    }
}
