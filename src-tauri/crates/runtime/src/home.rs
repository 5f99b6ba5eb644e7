//! Where BearAgent keeps its data: `$BEARAGENT_HOME`, else the platform
//! data directory (e.g. `~/.local/share/bearagent` on Linux).

use crate::AppError;
use std::path::PathBuf;

pub const HOME_ENV: &str = "BEARAGENT_HOME";

/// Resolves the data directory from the environment.
pub fn resolve() -> Result<PathBuf, AppError> {
    resolve_from(std::env::var_os(HOME_ENV).map(PathBuf::from))
}

/// The config file: `$BEARAGENT_HOME/config.toml` when that is set, else
/// the platform config dir (e.g. `~/.config/bearagent/config.toml`).
pub fn config_path(home: &std::path::Path) -> PathBuf {
    let explicit = std::env::var_os(HOME_ENV).is_some_and(|v| !v.is_empty());
    match directories::ProjectDirs::from("dev", "BearAgent", "bearagent") {
        Some(dirs) if !explicit => dirs.config_dir().join("config.toml"),
        _ => home.join("config.toml"),
    }
}

fn resolve_from(explicit: Option<PathBuf>) -> Result<PathBuf, AppError> {
    match explicit {
        Some(path) if !path.as_os_str().is_empty() => Ok(path),
        _ => directories::ProjectDirs::from("dev", "BearAgent", "bearagent")
            .map(|dirs| dirs.data_dir().to_path_buf())
            .ok_or(AppError::NoHome),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_explicit_home_wins_and_an_empty_one_is_ignored() {
        assert_eq!(
            resolve_from(Some("/x/y".into())).unwrap(),
            PathBuf::from("/x/y")
        );
        // With HOME set (always, in CI), the platform dir is used.
        let fallback = resolve_from(Some(PathBuf::new())).unwrap();
        assert!(fallback.ends_with("bearagent"));
    }
}
