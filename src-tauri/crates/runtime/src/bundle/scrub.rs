//! A thread's events and blobs with their secrets redacted, still a
//! record that imports: a blob whose text changed is renamed by its new
//! content hash, and every event naming the old hash names the new one.

use super::redact::{Redaction, Redactor, Tally};
use crate::AppError;
use bearagent_kernel::{ContentHash, EventEnvelope};
use serde_json::Value;
use std::collections::BTreeMap;

pub(crate) struct Scrubbed {
    pub runs: Vec<Vec<EventEnvelope>>,
    pub blobs: BTreeMap<ContentHash, Vec<u8>>,
    pub redactions: Vec<Redaction>,
}

pub(crate) fn scrub(
    redactor: &Redactor,
    runs: Vec<Vec<EventEnvelope>>,
    blobs: BTreeMap<ContentHash, Vec<u8>>,
) -> Result<Scrubbed, AppError> {
    let mut tally = Tally::default();
    let mut renamed = BTreeMap::new();
    let mut out_blobs = BTreeMap::new();
    for (hash, bytes) in blobs {
        // Only text: an image or an archive has no secret a marker could
        // stand in for without breaking it.
        let redacted = std::str::from_utf8(&bytes)
            .ok()
            .and_then(|text| redactor.text(text, &mut tally));
        match redacted {
            Some(text) => {
                let new = bearagent_store::hash_bytes(text.as_bytes());
                renamed.insert(hash.as_str().to_owned(), new.as_str().to_owned());
                out_blobs.insert(new, text.into_bytes());
            }
            None => {
                out_blobs.insert(hash, bytes);
            }
        }
    }
    let mut out_runs = Vec::with_capacity(runs.len());
    for events in runs {
        let mut out = Vec::with_capacity(events.len());
        for event in events {
            out.push(scrub_event(redactor, &renamed, event, &mut tally)?);
        }
        out_runs.push(out);
    }
    Ok(Scrubbed {
        runs: out_runs,
        blobs: out_blobs,
        redactions: tally.summary(),
    })
}

fn scrub_event(
    redactor: &Redactor,
    renamed: &BTreeMap<String, String>,
    event: EventEnvelope,
    tally: &mut Tally,
) -> Result<EventEnvelope, AppError> {
    let internal = |e: serde_json::Error| AppError::Internal(format!("redacting an event: {e}"));
    let mut value = serde_json::to_value(&event.payload).map_err(internal)?;
    let before = value.clone();
    redactor.json(&mut value, tally);
    if !renamed.is_empty() {
        rename(&mut value, renamed);
    }
    if value == before {
        return Ok(event);
    }
    Ok(EventEnvelope {
        payload: serde_json::from_value(value).map_err(internal)?,
        ..event
    })
}

/// Each string that is an old blob hash becomes the new one.
fn rename(value: &mut Value, renamed: &BTreeMap<String, String>) {
    match value {
        Value::String(s) => {
            if let Some(new) = renamed.get(s.as_str()) {
                s.clone_from(new);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rename(v, renamed)),
        Value::Object(map) => map.values_mut().for_each(|v| rename(v, renamed)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}
