//! Exporting a run to the folder the user names: one JSON file and a
//! Markdown report (what they hold: `crate::artifacts::export`).

use crate::app::Application;
use crate::artifacts::export::{export_document, report};
use crate::artifacts::Exported;
use crate::AppError;
use bearagent_kernel::RunId;
use std::path::Path;

/// Maps an IO error to one naming `path`.
fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> AppError {
    let path = path.to_path_buf();
    move |source| AppError::Io { path, source }
}

impl Application {
    /// Writes `<dir>/bearagent-run-<id>.json` and `.md`.
    #[expect(
        clippy::disallowed_methods,
        reason = "an export the user asked for, written to the folder they named, not a workspace effect"
    )]
    pub fn export_run(&self, run_id: RunId, dir: &Path) -> Result<Exported, AppError> {
        let run = self.get_run(run_id)?;
        let events = self.store.all_events(run_id)?;
        let document = export_document(&self.store, &run, &events)?;
        std::fs::create_dir_all(dir).map_err(io_at(dir))?;
        let json_path = dir.join(format!("bearagent-run-{run_id}.json"));
        let text = serde_json::to_string_pretty(&document)
            .map_err(|e| AppError::Corrupt(e.to_string()))?;
        std::fs::write(&json_path, text).map_err(io_at(&json_path))?;

        let md = report(&self.store, run_id, &run, &events)?;
        let md_path = dir.join(format!("bearagent-run-{run_id}.md"));
        std::fs::write(&md_path, md).map_err(io_at(&md_path))?;
        Ok(Exported {
            json: json_path,
            markdown: md_path,
        })
    }
}
