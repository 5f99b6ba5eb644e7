//! Reading a bundle: every entry checked (name, kind, size, content) and
//! every run replayed through the reducer before anything is written, so
//! a bad bundle changes nothing. The use case,
//! `Application::import_bundle`, is in `app/bundles.rs`.

use super::manifest::{Manifest, BUNDLE_FORMAT, BUNDLE_VERSION};
use crate::artifacts::export::referenced_hashes;
use crate::AppError;
use bearagent_kernel::{apply, ContentHash, EventEnvelope, EventSeq, RunId, EVENT_SCHEMA_VERSION};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::Path;

/// The largest manifest, run log and blob a bundle may hold.
const MAX_MANIFEST: u64 = 1024 * 1024;
const MAX_RUN_LOG: u64 = 1024 * 1024 * 1024;
const MAX_BLOB: u64 = 256 * 1024 * 1024;
/// All entries together, unpacked.
const MAX_TOTAL: u64 = 4 * 1024 * 1024 * 1024;

/// Why a bundle was refused. Nothing was imported.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("{0} is not a readable BearAgent run bundle: {1}")]
    Unreadable(String, String),
    #[error("the bundle has an entry named {0:?}: only manifest.json, runs/<id>.jsonl and blobs/<sha256> may be in one")]
    BadEntry(String),
    #[error("the bundle's entry {name} is {size} bytes, more than the {limit} bytes allowed")]
    TooBig { name: String, size: u64, limit: u64 },
    #[error("the bundle is version {0}, newer than this BearAgent reads ({BUNDLE_VERSION}); use a newer BearAgent")]
    Newer(u32),
    #[error("the bundle's run {run} has events of schema {found}, newer than this BearAgent reads ({EVENT_SCHEMA_VERSION}); use a newer BearAgent")]
    NewerEvents { run: String, found: u16 },
    #[error("the bundle is damaged: {0}")]
    Damaged(String),
    #[error("a different run with id {0} is already in this store; the bundle was not imported")]
    Collides(RunId),
}

impl From<BundleError> for AppError {
    fn from(e: BundleError) -> AppError {
        match e {
            BundleError::Collides(_) => AppError::Conflict(e.to_string()),
            _ => AppError::InvalidInput(e.to_string()),
        }
    }
}

/// A bundle's checked contents.
pub(crate) struct Contents {
    pub(crate) manifest: Manifest,
    pub(crate) runs: Vec<(RunId, Vec<EventEnvelope>)>,
    pub(crate) blobs: BTreeMap<ContentHash, Vec<u8>>,
}

/// The same run: the same events, in the same order (time stamps too).
pub(crate) fn same_events(a: &[EventEnvelope], b: &[EventEnvelope]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

pub(crate) fn read_bundle(file: &Path) -> Result<Contents, BundleError> {
    let name = file.display().to_string();
    let opened = std::fs::File::open(file)
        .map_err(|e| BundleError::Unreadable(name.clone(), e.to_string()))?;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(opened));
    let entries = archive
        .entries()
        .map_err(|e| BundleError::Unreadable(name.clone(), e.to_string()))?;
    let mut manifest = None;
    let mut logs = BTreeMap::new();
    let mut blobs = BTreeMap::new();
    let mut total = 0u64;
    for entry in entries {
        let mut entry = entry.map_err(|e| BundleError::Unreadable(name.clone(), e.to_string()))?;
        let path = entry.path_bytes().into_owned();
        let entry_name = String::from_utf8_lossy(&path).into_owned();
        let kind =
            entry_kind(&entry_name).ok_or_else(|| BundleError::BadEntry(entry_name.clone()))?;
        if entry.header().entry_type() != tar::EntryType::Regular {
            return Err(BundleError::BadEntry(entry_name));
        }
        let size = entry.size();
        let limit = match kind {
            Entry::Manifest => MAX_MANIFEST,
            Entry::Run(_) => MAX_RUN_LOG,
            Entry::Blob(_) => MAX_BLOB,
        };
        total = total.saturating_add(size);
        if size > limit || total > MAX_TOTAL {
            return Err(BundleError::TooBig {
                name: entry_name,
                size,
                limit,
            });
        }
        let mut bytes = Vec::new();
        (&mut entry)
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| BundleError::Unreadable(name.clone(), format!("{entry_name}: {e}")))?;
        if bytes.len() as u64 != size {
            return Err(BundleError::Damaged(format!("{entry_name} is cut short")));
        }
        match kind {
            Entry::Manifest => manifest = Some(bytes),
            Entry::Run(run) => {
                logs.insert(run, bytes);
            }
            Entry::Blob(hash) => {
                if bearagent_store::hash_bytes(&bytes) != hash {
                    return Err(BundleError::Damaged(format!(
                        "{entry_name} does not hold what its name says"
                    )));
                }
                blobs.insert(hash, bytes);
            }
        }
    }
    // The gzip trailer (length and CRC) proves nothing was cut off, even
    // where the tar format would take a cut for its end.
    let mut rest = archive.into_inner();
    std::io::copy(&mut rest, &mut std::io::sink()).map_err(|e| {
        BundleError::Unreadable(name.clone(), format!("it is cut short or damaged: {e}"))
    })?;
    let manifest =
        manifest.ok_or_else(|| BundleError::Damaged("it has no manifest.json".into()))?;
    let manifest = parse_manifest(&manifest)?;
    let runs = check_runs(&manifest, logs)?;
    check_blobs(&manifest, &runs, &blobs)?;
    Ok(Contents {
        manifest,
        runs,
        blobs,
    })
}

enum Entry {
    Manifest,
    Run(RunId),
    Blob(ContentHash),
}

/// Only three kinds of names, with no folder of their own: nothing can
/// land outside the store, whatever the names say.
fn entry_kind(name: &str) -> Option<Entry> {
    if name == "manifest.json" {
        return Some(Entry::Manifest);
    }
    if let Some(id) = name
        .strip_prefix("runs/")
        .and_then(|r| r.strip_suffix(".jsonl"))
    {
        return id.parse().ok().map(Entry::Run);
    }
    let hash = name.strip_prefix("blobs/")?;
    ContentHash::parse(hash).ok().map(Entry::Blob)
}

fn parse_manifest(bytes: &[u8]) -> Result<Manifest, BundleError> {
    let manifest: Manifest = serde_json::from_slice(bytes)
        .map_err(|e| BundleError::Damaged(format!("manifest.json: {e}")))?;
    if manifest.format != BUNDLE_FORMAT {
        return Err(BundleError::Damaged(format!(
            "manifest.json names format {:?}, not {BUNDLE_FORMAT}",
            manifest.format
        )));
    }
    if manifest.version > BUNDLE_VERSION {
        return Err(BundleError::Newer(manifest.version));
    }
    Ok(manifest)
}

/// Each listed run's log: decodable, of a schema this BearAgent reads,
/// seqs from 1 without a gap, accepted by the reducer, ended, and each
/// run's parent before it.
fn check_runs(
    manifest: &Manifest,
    mut logs: BTreeMap<RunId, Vec<u8>>,
) -> Result<Vec<(RunId, Vec<EventEnvelope>)>, BundleError> {
    if manifest.runs.last() != Some(&manifest.run_id) {
        return Err(BundleError::Damaged(
            "the manifest's run is not the last of its runs".into(),
        ));
    }
    let mut runs = Vec::new();
    let mut seen = BTreeSet::new();
    for listed in &manifest.runs {
        let run_id: RunId = listed.parse().map_err(|_| {
            BundleError::Damaged(format!("the manifest lists {listed:?}, not a run id"))
        })?;
        let log = logs
            .remove(&run_id)
            .ok_or_else(|| BundleError::Damaged(format!("run {run_id} is listed but missing")))?;
        let events = check_log(run_id, &log)?;
        let parent = match events.first().map(|e| &e.payload) {
            Some(bearagent_kernel::EventPayload::RunCreated { parent, .. }) => *parent,
            _ => {
                return Err(BundleError::Damaged(format!(
                    "run {run_id} does not start with its creation"
                )))
            }
        };
        if let Some(p) = parent.filter(|p| !seen.contains(&p.run_id)) {
            return Err(BundleError::Damaged(format!(
                "run {run_id} continues run {}, which is not before it in the bundle",
                p.run_id
            )));
        }
        seen.insert(run_id);
        runs.push((run_id, events));
    }
    if let Some(extra) = logs.keys().next() {
        return Err(BundleError::Damaged(format!(
            "run {extra} is in the bundle but not listed"
        )));
    }
    Ok(runs)
}

fn check_log(run_id: RunId, log: &[u8]) -> Result<Vec<EventEnvelope>, BundleError> {
    let mut events = Vec::new();
    let mut state = None;
    for (i, line) in log
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        let value: serde_json::Value = serde_json::from_slice(line)
            .map_err(|e| BundleError::Damaged(format!("run {run_id}, line {}: {e}", i + 1)))?;
        let schema = value
            .get("schema_version")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0);
        if schema > u64::from(EVENT_SCHEMA_VERSION) {
            return Err(BundleError::NewerEvents {
                run: run_id.to_string(),
                found: u16::try_from(schema).unwrap_or(u16::MAX),
            });
        }
        let event: EventEnvelope = serde_json::from_value(value)
            .map_err(|e| BundleError::Damaged(format!("run {run_id}, line {}: {e}", i + 1)))?;
        if event.run_id != run_id || event.seq != EventSeq(i as u64 + 1) {
            return Err(BundleError::Damaged(format!(
                "run {run_id}, line {}: event {} of run {} is out of place",
                i + 1,
                event.seq.0,
                event.run_id
            )));
        }
        let next = apply(state.as_ref(), &event)
            .map_err(|e| BundleError::Damaged(format!("run {run_id}: {e}")))?;
        state = Some(next);
        events.push(event);
    }
    match state {
        Some(s) if !s.status.is_live() => Ok(events),
        Some(_) => Err(BundleError::Damaged(format!("run {run_id} had not ended"))),
        None => Err(BundleError::Damaged(format!("run {run_id} has no events"))),
    }
}

/// Every blob the events reference is in the bundle, or withheld.
fn check_blobs(
    manifest: &Manifest,
    runs: &[(RunId, Vec<EventEnvelope>)],
    blobs: &BTreeMap<ContentHash, Vec<u8>>,
) -> Result<(), BundleError> {
    let withheld: BTreeSet<&str> = manifest.withheld_blobs.iter().map(String::as_str).collect();
    for (run_id, events) in runs {
        for hash in referenced_hashes(events) {
            if !blobs.contains_key(&hash) && !withheld.contains(hash.as_str()) {
                return Err(BundleError::Damaged(format!(
                    "blob {hash} of run {run_id} is missing"
                )));
            }
        }
    }
    Ok(())
}
