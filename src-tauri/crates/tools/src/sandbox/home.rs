//! What a command sees of the user's home folder besides the profile's
//! toolchain folders: the version managers its PATH points into, bound
//! read-only so `python3` inside is the one the user's shell runs.

use std::path::{Path, PathBuf};

/// Toolchain and version-manager roots under the home folder. A PATH
/// entry inside one makes the whole root readable: shims and `current`
/// links point into the versions kept beside them.
pub const TOOLCHAIN_ROOTS: &[&str] = &[
    ".pyenv",
    ".nvm",
    ".asdf",
    ".local/share/mise",
    ".rbenv",
    ".sdkman",
    ".local/bin",
    ".cargo/bin",
    ".rustup",
    ".volta",
    ".bun",
    ".deno",
    ".local/share/pnpm",
    "go/bin",
    ".conda",
    "miniconda3",
    "anaconda3",
    "miniforge3",
];

/// `entry` relative to `home` (given as is, or canonical when it is a
/// symlink), when it lies under it.
pub(crate) fn under_home<'a>(entry: &'a Path, home: &Path) -> Option<&'a Path> {
    entry.strip_prefix(home).ok().or_else(|| {
        let canonical = std::fs::canonicalize(home).ok()?;
        entry.strip_prefix(canonical).ok()
    })
}

/// The roots of [`TOOLCHAIN_ROOTS`] (as paths under `home`) that entries
/// of the user's `path` point into, each once, in PATH order.
pub fn toolchain_roots_on_path(home: &Path, path: &[PathBuf]) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    for entry in path {
        let Some(relative) = under_home(entry, home) else {
            continue;
        };
        let root = TOOLCHAIN_ROOTS
            .iter()
            .map(Path::new)
            .find(|root| relative.starts_with(root));
        if let Some(root) = root.map(|root| home.join(root)) {
            if !roots.contains(&root) {
                roots.push(root);
            }
        }
    }
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_entries_into_version_managers_name_their_roots() {
        let home = Path::new("/home/u");
        let path: Vec<PathBuf> = [
            "/home/u/.pyenv/plugins/pyenv-virtualenv/shims",
            "/home/u/.pyenv/shims",
            "/home/u/.nvm/versions/node/v20.1.0/bin",
            "/home/u/.local/share/mise/shims",
            "/home/u/.sdkman/candidates/java/current/bin",
            "/home/u/.secret-tool/bin",
            "/usr/local/bin",
            "/home/u/.local/bin",
        ]
        .into_iter()
        .map(PathBuf::from)
        .collect();
        let roots = toolchain_roots_on_path(home, &path);
        let expected: Vec<PathBuf> = [
            ".pyenv",
            ".nvm",
            ".local/share/mise",
            ".sdkman",
            ".local/bin",
        ]
        .into_iter()
        .map(|root| home.join(root))
        .collect();
        assert_eq!(roots, expected);
    }
}
