//! BearAgent's own folders are never inside a workspace: its config
//! folder, its data folder (database, blobs, logs) and the folder of its
//! binary. A workspace that is, or contains, one of them is refused when
//! it is opened (CLI, the app's picker, ACP sessions), and every file
//! tool refuses a path that resolves into one of them (a second line, in
//! `WorkspaceRoot::protecting`). Otherwise a run could rewrite the config
//! that grants its own approvals.

use crate::app::Application;
use crate::AppError;
use bearagent_tools::WorkspaceRoot;
use std::path::{Path, PathBuf};

impl Application {
    /// BearAgent's own folders, canonical where they exist.
    pub fn own_folders(&self) -> Vec<PathBuf> {
        let mut folders = vec![self.home.clone()];
        if let Some(dir) = self.config_path.parent() {
            if !dir.as_os_str().is_empty() {
                folders.push(dir.to_path_buf());
            }
        }
        if let Some(dir) = std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(Path::to_path_buf))
        {
            folders.push(dir);
        }
        let mut folders: Vec<PathBuf> = folders
            .into_iter()
            .map(|f| f.canonicalize().unwrap_or(f))
            .collect();
        folders.sort();
        folders.dedup();
        folders
    }

    /// Refuses `folder` (canonical) as a workspace when it is, or contains,
    /// one of BearAgent's own folders.
    pub fn check_workspace_folder(&self, folder: &Path) -> Result<(), AppError> {
        match self
            .own_folders()
            .into_iter()
            .find(|own| own.starts_with(folder))
        {
            Some(own) => Err(AppError::OwnFolderInWorkspace {
                workspace: folder.to_path_buf(),
                folder: own,
            }),
            None => Ok(()),
        }
    }

    /// The workspace at `path` for a run's tools: checked, and refusing
    /// every path into BearAgent's own folders.
    pub(crate) fn tool_root(&self, path: &str) -> Result<WorkspaceRoot, AppError> {
        let root = WorkspaceRoot::new(Path::new(path)).map_err(|e| {
            AppError::InvalidInput(format!("the run's workspace is not available: {e}"))
        })?;
        self.check_workspace_folder(root.path())?;
        Ok(root.protecting(&self.own_folders()))
    }
}

#[cfg(test)]
mod tests {
    use crate::app::Application;
    use crate::AppError;
    use bearagent_kernel::{FixedClock, Timestamp};
    use std::sync::Arc;

    fn app(home: &std::path::Path) -> Application {
        let clock = FixedClock(Timestamp::from_unix_millis(1_800_000_000_000).unwrap());
        Application::open(home, Arc::new(clock)).unwrap()
    }

    #[test]
    fn a_workspace_around_bearagents_data_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("inner/bearagent-home");
        std::fs::create_dir_all(&home).unwrap();
        let app = app(&home);
        for ws in [
            dir.path().to_path_buf(),
            dir.path().join("inner"),
            home.clone(),
        ] {
            let err = app.open_workspace(ws.to_str().unwrap()).unwrap_err();
            assert!(
                matches!(err, AppError::OwnFolderInWorkspace { .. }),
                "{ws:?}: {err}"
            );
            assert!(err.to_string().contains("bearagent-home"), "{err}");
        }
        let beside = dir.path().join("project");
        std::fs::create_dir_all(&beside).unwrap();
        app.open_workspace(beside.to_str().unwrap()).unwrap();
        assert!(app
            .open_workspace("/")
            .is_err_and(|e| matches!(e, AppError::OwnFolderInWorkspace { .. })));
    }
}
