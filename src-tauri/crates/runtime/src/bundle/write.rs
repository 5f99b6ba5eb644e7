//! Writing a run's bundle: what it holds (the thread's runs and the
//! blobs they reference) and the file. The use case,
//! `Application::export_bundle`, is in `app/bundles.rs`.

use super::manifest::Manifest;
use super::scrub::Scrubbed;
use crate::artifacts::export::referenced_hashes;
use crate::artifacts::secrets::secret_hashes;
use crate::AppError;
use bearagent_kernel::{ContentHash, EventEnvelope, EventPayload, RunId};
use bearagent_store::Store;
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;

/// Blobs by their hash.
pub(crate) type Blobs = BTreeMap<ContentHash, Vec<u8>>;

/// The blobs the thread's events reference, by hash, and the hashes
/// withheld (versions of secret-looking files).
pub(crate) fn shipped_blobs(
    store: &Store,
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
                let bytes = store.get_blob(slot.key())?.ok_or_else(|| {
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
pub(crate) fn thread_runs(
    store: &Store,
    run_id: RunId,
) -> Result<Vec<Vec<EventEnvelope>>, AppError> {
    let mut chain = Vec::new();
    let mut next = Some(run_id);
    while let Some(id) = next {
        if chain.len() > crate::thread::MAX_THREAD_DEPTH {
            return Err(AppError::Corrupt(format!(
                "run {run_id}'s thread is too deep"
            )));
        }
        let events = store.all_events(id)?;
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

/// The bundle file: written beside `file`, then renamed over it.
#[expect(
    clippy::disallowed_methods,
    reason = "a bundle the user asked for, written to the file they named, not a workspace effect"
)]
pub(crate) fn pack(file: &Path, manifest: &Manifest, contents: &Scrubbed) -> Result<(), AppError> {
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
