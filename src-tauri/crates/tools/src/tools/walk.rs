//! Directory walking with ripgrep's ignore rules, plus `.gitignore` in any
//! workspace (a workspace need not be a git repository) and
//! `.bearagentignore`.

use ignore::WalkBuilder;
use std::path::Path;

/// A walker over `start` with ripgrep's rules as `rg --no-require-git` applies
/// them: `.gitignore` (in a git repository or not), `.git/info/exclude`, the
/// global git excludes, `.ignore`, `.rgignore` and `.bearagentignore` files
/// (including those of parent directories) are honoured;
/// hidden files are skipped; symlinks are not followed (so a walk never
/// leaves the workspace through one).
pub(crate) fn rg_walker(start: &Path) -> WalkBuilder {
    let mut builder = WalkBuilder::new(start);
    builder
        .require_git(false)
        .add_custom_ignore_filename(".rgignore")
        .add_custom_ignore_filename(".bearagentignore")
        .follow_links(false);
    builder
}
