//! Run bundles' use cases: exporting a run with its thread to one file,
//! importing one as read-only runs. The format, its checks and the
//! redaction: `crate::bundle`.

use crate::app::Application;
use crate::bundle::read::{read_bundle, same_events};
use crate::bundle::redact::Redactor;
use crate::bundle::scrub::{scrub, Scrubbed};
use crate::bundle::write::{pack, shipped_blobs, thread_runs};
use crate::bundle::{
    BundleError, ExportOptions, ImportReport, Manifest, BUNDLE_FORMAT, BUNDLE_VERSION,
};
use crate::AppError;
use bearagent_kernel::{NewEvent, RunId};
use std::path::Path;
use tracing::instrument;

impl Application {
    /// Writes `run_id` with its thread's earlier runs and their blobs to
    /// `file` (replaced whole: written beside it, then renamed). A live
    /// run is refused: its bundle would be a moment, not a record. Secret
    /// values are redacted unless `options.include_secrets`.
    #[instrument(skip(self))]
    pub fn export_bundle(
        &self,
        run_id: RunId,
        file: &Path,
        options: ExportOptions,
    ) -> Result<Manifest, AppError> {
        let run = self.get_run(run_id)?;
        if run.status.is_live() {
            return Err(AppError::Conflict(format!(
                "run {run_id} is still {}: export it once it has ended",
                run.status.name()
            )));
        }
        let runs = thread_runs(&self.store, run_id)?;
        let (blobs, withheld) = shipped_blobs(&self.store, &runs)?;
        let scrubbed = if options.include_secrets {
            Scrubbed {
                runs,
                blobs,
                redactions: Vec::new(),
            }
        } else {
            let redactor = Redactor::new(self.known_secrets(&runs)?);
            scrub(&redactor, runs, blobs)?
        };
        let manifest = Manifest {
            format: BUNDLE_FORMAT.into(),
            version: BUNDLE_VERSION,
            run_id: run_id.to_string(),
            runs: scrubbed
                .runs
                .iter()
                .filter_map(|e| Some(e.first()?.run_id.to_string()))
                .collect(),
            withheld_blobs: withheld.into_iter().collect(),
            redactions: scrubbed.redactions.clone(),
            exported_at: self.clock.now().to_rfc3339(),
            producer: format!("bearagent {}", env!("CARGO_PKG_VERSION")),
        };
        pack(file, &manifest, &scrubbed)?;
        Ok(manifest)
    }

    /// Imports the bundle at `file` as read-only runs; an ancestor this
    /// store already has (the same events) is reused.
    #[instrument(skip(self))]
    pub fn import_bundle(&self, file: &Path) -> Result<ImportReport, AppError> {
        let contents = read_bundle(file)?;
        let source = file.file_name().map_or_else(
            || file.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let mut fresh = Vec::new();
        for (run_id, events) in &contents.runs {
            let here = self.store.all_events(*run_id)?;
            if here.is_empty() {
                fresh.push((*run_id, events));
            } else if !same_events(&here, events) {
                return Err(BundleError::Collides(*run_id).into());
            }
        }
        let at = self.clock.now();
        let blobs: Vec<&[u8]> = contents.blobs.values().map(Vec::as_slice).collect();
        self.store.put_blobs(blobs.iter().copied(), at)?;
        let mut added = Vec::new();
        for (run_id, events) in fresh {
            let new: Vec<NewEvent> = events
                .iter()
                .map(|e| NewEvent::new(e.at, e.cause, e.payload.clone()))
                .collect();
            self.store.append_imported(run_id, new, &source, at)?;
            added.push(run_id);
        }
        let run_id = contents.manifest.run_id.parse().map_err(|_| {
            BundleError::Damaged(format!("manifest run id {:?}", contents.manifest.run_id))
        })?;
        Ok(ImportReport {
            run_id,
            added,
            blobs: contents.blobs.len(),
            redactions: contents.manifest.redactions.clone(),
        })
    }
}

#[cfg(test)]
#[path = "bundles_tests.rs"]
mod tests;
