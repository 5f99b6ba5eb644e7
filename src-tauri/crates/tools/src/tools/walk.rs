//! Directory walking with ripgrep's default ignore rules.

use ignore::WalkBuilder;
use std::path::Path;

/// A walker over `start` with ripgrep's defaults: `.gitignore` (inside a git
/// repository), `.git/info/exclude`, the global git excludes, `.ignore` and
/// `.rgignore` files (including those of parent directories) are honoured;
/// hidden files are skipped; symlinks are not followed (so a walk never
/// leaves the workspace through one).
pub(crate) fn rg_walker(start: &Path) -> WalkBuilder {
    let mut builder = WalkBuilder::new(start);
    builder
        .add_custom_ignore_filename(".rgignore")
        .follow_links(false);
    builder
}
