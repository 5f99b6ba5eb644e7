//! Project instructions: `AGENTS.md` files read into blobs and referenced
//! by `InstructionsLoaded` events, so "what the model saw" stays exact
//! after the file changes. Floor 1 of `run/`.

use super::recorder::Recorder;
use crate::AppError;
use bearagent_kernel::EventPayload;
use std::path::Path;

/// The instruction file's name, at the workspace root or in a folder.
pub const INSTRUCTIONS_FILE: &str = "AGENTS.md";
/// Longest instructions kept per file (as Codex's project docs); the rest
/// is cut with a note.
pub const MAX_INSTRUCTION_BYTES: usize = 32 * 1024;

/// Reads `rel_dir/AGENTS.md` under `root` into a blob and records it.
/// A missing file is nothing; an unreadable one is logged, never an error
/// of the run; one over the cap is cut with a note saying so.
pub fn load_instructions(rec: &mut Recorder, root: &Path, rel_dir: &str) -> Result<(), AppError> {
    if rec.tape().is_some() {
        return copy_recorded_instructions(rec);
    }
    let rel_path = if rel_dir.is_empty() || rel_dir == "." {
        INSTRUCTIONS_FILE.to_owned()
    } else {
        format!("{}/{INSTRUCTIONS_FILE}", rel_dir.trim_end_matches('/'))
    };
    let path = root.join(&rel_path);
    // Only a plain file inside the workspace: a symlink could point anywhere.
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_file() => {}
        Ok(_) => {
            tracing::warn!(path = %rel_path, "instructions are not a plain file; ignored");
            return Ok(());
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            tracing::warn!(path = %rel_path, error = %e, "instructions could not be read");
            return Ok(());
        }
    }
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            tracing::warn!(path = %rel_path, error = %e, "instructions could not be read");
            return Ok(());
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let truncated = text.len() > MAX_INSTRUCTION_BYTES;
    let kept = if truncated {
        let cut = bearagent_tools::floor_char_boundary(&text, MAX_INSTRUCTION_BYTES);
        format!(
            "{}\n[{rel_path} cut here: {} of its {} bytes are shown]",
            &text[..cut],
            cut,
            bytes.len()
        )
    } else {
        text.into_owned()
    };
    let blob = rec.store().put_blob(kept.as_bytes(), rec.clock().now())?;
    rec.record(
        rec.last_seq(),
        EventPayload::InstructionsLoaded {
            path: rel_path,
            blob,
            bytes: bytes.len() as u64,
            truncated,
        },
    )?;
    Ok(())
}

/// Before a write to `rel_path`: the `AGENTS.md` of each folder on its way
/// from the root that this run has not read yet is read now (nearest wins
/// in the prompt, which lists deeper folders last).
pub fn load_nested_for(rec: &mut Recorder, root: &Path, rel_path: &str) -> Result<(), AppError> {
    if rec.tape().is_some() {
        return copy_recorded_instructions(rec);
    }
    let loaded: std::collections::BTreeSet<String> = rec
        .events()
        .iter()
        .filter_map(|e| {
            if let EventPayload::InstructionsLoaded { path, .. } = &e.payload {
                Some(path.clone())
            } else {
                None
            }
        })
        .collect();
    let parts: Vec<&str> = rel_path.split('/').collect();
    let mut dir = String::new();
    for part in parts.iter().take(parts.len().saturating_sub(1)) {
        if !dir.is_empty() {
            dir.push('/');
        }
        dir.push_str(part);
        let candidate = format!("{dir}/{INSTRUCTIONS_FILE}");
        if !loaded.contains(&candidate) {
            load_instructions(rec, root, &dir)?;
        }
    }
    Ok(())
}

/// A replay reads no file: what the run read here is taken from its record.
fn copy_recorded_instructions(rec: &mut Recorder) -> Result<(), AppError> {
    rec.absorb_beside()?;
    while rec.tape().is_some_and(|t| {
        matches!(
            t.ahead().first().map(|e| &e.payload),
            Some(EventPayload::InstructionsLoaded { .. })
        )
    }) {
        rec.copy_recorded()?;
    }
    Ok(())
}
