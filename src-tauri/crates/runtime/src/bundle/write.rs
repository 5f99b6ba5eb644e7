//! Writing a run's bundle.

use super::manifest::{ExportOptions, Manifest, BUNDLE_FORMAT, BUNDLE_VERSION};
use super::redact::Redactor;
use super::scrub::{scrub, Scrubbed};
use crate::app::Application;
use crate::artifacts::export::referenced_hashes;
use crate::artifacts::secrets::secret_hashes;
use crate::AppError;
use bearagent_kernel::{ContentHash, EventEnvelope, EventPayload, RunId};
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};

/// Blobs by their hash.
type Blobs = BTreeMap<ContentHash, Vec<u8>>;
use std::io::Write;
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
        let runs = self.thread_runs(run_id)?;
        let (blobs, withheld) = self.shipped_blobs(&runs)?;
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

    /// The blobs the thread's events reference, by hash, and the hashes
    /// withheld (versions of secret-looking files).
    fn shipped_blobs(
        &self,
        runs: &[Vec<EventEnvelope>],
    ) -> Result<(Blobs, BTreeSet<String>), AppError> {
        let mut blobs = BTreeMap::new();
        let mut withheld = BTreeSet::new();
        for events in runs {
            let secret = secret_hashes(events);
            for hash in referenced_hashes(events) {
                if secret.contains(&hash) {
                    withheld.insert(hash.to_string());
                } else if let Entry::Vacant(slot) = blobs.entry(hash) {
                    let bytes = self.store.get_blob(slot.key())?.ok_or_else(|| {
                        AppError::Corrupt(format!(
                            "blob {} referenced by the run is missing",
                            slot.key()
                        ))
                    })?;
                    slot.insert(bytes);
                }
            }
        }
        Ok((blobs, withheld))
    }

    /// The run and the runs it continues, each whole, oldest first.
    pub(crate) fn thread_runs(&self, run_id: RunId) -> Result<Vec<Vec<EventEnvelope>>, AppError> {
        let mut chain = Vec::new();
        let mut next = Some(run_id);
        while let Some(id) = next {
            if chain.len() > crate::thread::MAX_THREAD_DEPTH {
                return Err(AppError::Corrupt(format!(
                    "run {run_id}'s thread is too deep"
                )));
            }
            let events = self.store.all_events(id)?;
            next = match events.first().map(|e| &e.payload) {
                Some(EventPayload::RunCreated { parent, .. }) => parent.map(|p| p.run_id),
                _ => {
                    return Err(AppError::NotFound {
                        what: "run",
                        id: id.to_string(),
                    })
                }
            };
            chain.push(events);
        }
        chain.reverse();
        Ok(chain)
    }
}

/// The bundle file: written beside `file`, then renamed over it.
#[expect(
    clippy::disallowed_methods,
    reason = "a bundle the user asked for, written to the file they named, not a workspace effect"
)]
fn pack(file: &Path, manifest: &Manifest, contents: &Scrubbed) -> Result<(), AppError> {
    let io = |source| AppError::Io {
        path: file.to_path_buf(),
        source,
    };
    let dir = file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut temp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    {
        let gz = flate2::write::GzEncoder::new(temp.as_file_mut(), flate2::Compression::default());
        let mut tar = tar::Builder::new(gz);
        let json =
            serde_json::to_vec_pretty(manifest).map_err(|e| AppError::Internal(e.to_string()))?;
        append(&mut tar, "manifest.json", &json).map_err(io)?;
        for events in &contents.runs {
            let Some(first) = events.first() else {
                continue;
            };
            let name = format!("runs/{}.jsonl", first.run_id);
            append(&mut tar, &name, &jsonl(events)?).map_err(io)?;
        }
        for (hash, bytes) in &contents.blobs {
            append(&mut tar, &format!("blobs/{hash}"), bytes).map_err(io)?;
        }
        tar.into_inner()
            .map_err(io)?
            .finish()
            .map_err(io)?
            .flush()
            .map_err(io)?;
    }
    temp.persist(file).map_err(|e| io(e.error))?;
    Ok(())
}

fn jsonl(events: &[EventEnvelope]) -> Result<Vec<u8>, AppError> {
    let mut out = Vec::new();
    for e in events {
        serde_json::to_writer(&mut out, e).map_err(|e| AppError::Internal(e.to_string()))?;
        out.push(b'\n');
    }
    Ok(out)
}

fn append<W: Write>(tar: &mut tar::Builder<W>, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let mut header = tar::Header::new_gnu();
    header.set_size(bytes.len() as u64);
    header.set_mode(0o644);
    header.set_entry_type(tar::EntryType::Regular);
    header.set_mtime(0);
    tar.append_data(&mut header, name, bytes)
}
