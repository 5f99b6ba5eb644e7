//! The workspace a replay prepares calls against: a scratch folder that
//! holds the run's files as the record knows them at each step, so a
//! replay needs neither the run's folder (an imported run's is on another
//! machine) nor its present state (later runs changed it), and nothing it
//! does can touch the user's files.
//!
//! Before the loop starts, each file the run changed is put back as it was
//! before the run's first change to it, and each path a recorded call found
//! (a file it read, a folder it listed or ran in) is made; as the replay
//! copies a recorded change (a tool's or a command's artifact, the
//! watcher's note), the file is changed the same way. Only plain names
//! below the stage are written: a hostile record's `../` or absolute path
//! is skipped, never followed.

use bearagent_kernel::{ContentHash, EventEnvelope, EventPayload};
use bearagent_store::Store;
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

pub struct Stage {
    dir: tempfile::TempDir,
    /// The recorded workspace folder: absolute paths below it in a call's
    /// arguments are read below the stage instead.
    recorded_root: PathBuf,
    store: Arc<Store>,
}

/// What a recorded call's path argument must be for its prepare to pass.
#[derive(Clone, Copy)]
enum Kind {
    File,
    Folder,
}

impl Stage {
    /// A scratch workspace holding what the run's calls found before it.
    pub fn build(
        store: Arc<Store>,
        recorded_root: &str,
        events: &[EventEnvelope],
    ) -> std::io::Result<Self> {
        let stage = Self {
            dir: tempfile::Builder::new()
                .prefix("bearagent-replay-")
                .tempdir()?,
            recorded_root: PathBuf::from(recorded_root),
            store,
        };
        let mut tracked = HashSet::new();
        for event in events {
            if let EventPayload::ArtifactRecorded {
                path, before_hash, ..
            }
            | EventPayload::EffectIntended {
                path, before_hash, ..
            } = &event.payload
            {
                if tracked.insert(path.clone()) {
                    stage.put(path, before_hash.as_ref());
                }
            }
        }
        for (rel, kind) in found_paths(events) {
            if let Some(rel) = stage.relative(&rel) {
                if !tracked.contains(&rel) {
                    stage.make(&rel, kind);
                }
            }
        }
        Ok(stage)
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn recorded_root(&self) -> &Path {
        &self.recorded_root
    }

    /// A recorded change copied into the replay, made on the stage too.
    pub fn apply(&self, payload: &EventPayload) {
        match payload {
            EventPayload::ArtifactRecorded {
                path, after_hash, ..
            } => self.put(path, after_hash.as_ref()),
            EventPayload::ExternalChangeObserved { path, hash } => self.put(path, hash.as_ref()),
            _ => {}
        }
    }

    /// The call's arguments with a recorded absolute path (below the run's
    /// folder) moved below the stage, so prepare reads the stage.
    pub fn rebased(&self, args: &Map<String, Value>) -> Map<String, Value> {
        let mut args = args.clone();
        for key in PATH_ARGS {
            if let Some(Value::String(raw)) = args.get_mut(*key) {
                if let Ok(below) = Path::new(raw.as_str()).strip_prefix(&self.recorded_root) {
                    *raw = self.root().join(below).to_string_lossy().into_owned();
                }
            }
        }
        args
    }

    /// A message about the stage as the run said it: the stage's folder
    /// named as the recorded one.
    pub fn as_recorded(&self, message: &str) -> String {
        message.replace(
            &self.root().display().to_string(),
            &self.recorded_root.display().to_string(),
        )
    }

    /// A workspace-relative path as plain names, or None for one that
    /// leaves the workspace (`..` past the top, an absolute path elsewhere).
    fn relative(&self, raw: &str) -> Option<String> {
        let path = Path::new(raw);
        let path = path.strip_prefix(&self.recorded_root).unwrap_or(path);
        let mut names: Vec<&str> = Vec::new();
        for part in path.components() {
            match part {
                Component::Normal(name) => names.push(name.to_str()?),
                Component::CurDir => {}
                Component::ParentDir => {
                    names.pop()?;
                }
                Component::RootDir | Component::Prefix(_) => return None,
            }
        }
        Some(names.join("/"))
    }

    /// The file at `rel` holding the blob (empty when the blob is not kept:
    /// prepare asks only whether it is there), or gone for None.
    #[expect(
        clippy::disallowed_methods,
        reason = "a replay's staging copy in a temp folder, never the user's workspace"
    )]
    fn put(&self, rel: &str, hash: Option<&ContentHash>) {
        let Some(target) = self.target(rel) else {
            return;
        };
        let outcome = match hash {
            Some(hash) => {
                let bytes = self.store.get_blob(hash).ok().flatten().unwrap_or_default();
                target
                    .parent()
                    .map_or(Ok(()), std::fs::create_dir_all)
                    .and_then(|()| std::fs::write(&target, bytes))
            }
            None => match std::fs::remove_file(&target) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                other => other,
            },
        };
        if let Err(e) = outcome {
            tracing::debug!(path = rel, error = %e, "replay stage: file not staged");
        }
    }

    #[expect(
        clippy::disallowed_methods,
        reason = "a replay's staging copy in a temp folder, never the user's workspace"
    )]
    fn make(&self, rel: &str, kind: Kind) {
        let Some(target) = self.target(rel) else {
            return;
        };
        let outcome = match kind {
            Kind::Folder => std::fs::create_dir_all(&target),
            Kind::File if target.exists() => Ok(()),
            Kind::File => target
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(&target, b"")),
        };
        if let Err(e) = outcome {
            tracing::debug!(path = rel, error = %e, "replay stage: path not made");
        }
    }

    /// Where `rel` lives on the stage: only plain names below it.
    fn target(&self, rel: &str) -> Option<PathBuf> {
        let parts: Vec<&str> = rel.split('/').filter(|p| !p.is_empty()).collect();
        let plain = !parts.is_empty() && parts.iter().all(|p| is_plain_name(p));
        plain.then(|| {
            parts
                .iter()
                .fold(self.root().to_path_buf(), |at, p| at.join(p))
        })
    }
}

/// One file or folder name: no separator, not `.` or `..`, not a root.
fn is_plain_name(name: &str) -> bool {
    !name.contains('\\')
        && matches!(
            Path::new(name).components().collect::<Vec<_>>()[..],
            [Component::Normal(_)]
        )
}

/// The argument names that hold a workspace path, in every built-in tool.
pub(crate) const PATH_ARGS: &[&str] = &["path", "cwd"];

/// The paths recorded calls found there: what the tool needed (a file to
/// read or edit, a folder to list or run in), for every call whose
/// arguments were not refused.
fn found_paths(events: &[EventEnvelope]) -> Vec<(String, Kind)> {
    let refused: HashSet<&str> = events
        .iter()
        .filter_map(|e| match &e.payload {
            EventPayload::ToolCallFailed { result }
                if result.content.starts_with("invalid arguments") =>
            {
                Some(result.call_id.as_str())
            }
            _ => None,
        })
        .collect();
    events
        .iter()
        .filter_map(|e| match &e.payload {
            EventPayload::ToolCallRequested { call, .. }
                if !refused.contains(call.call_id.as_str()) =>
            {
                Some(call)
            }
            _ => None,
        })
        .filter_map(|call| {
            let (key, kind) = match call.tool_name.as_str() {
                "read_file" | "edit_file" => ("path", Kind::File),
                "list_dir" | "search_text" => ("path", Kind::Folder),
                "run_command" => ("cwd", Kind::Folder),
                _ => return None,
            };
            let raw = call.arguments.get(key)?.as_str()?;
            Some((raw.to_owned(), kind))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stage, and the folder of its store (kept while the test runs).
    fn stage() -> (Stage, tempfile::TempDir) {
        let data = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(&data.path().join("s.sqlite")).unwrap());
        let stage = Stage {
            dir: tempfile::tempdir().unwrap(),
            recorded_root: PathBuf::from("/home/someone/project"),
            store,
        };
        (stage, data)
    }

    #[test]
    fn a_hostile_path_is_never_followed_out_of_the_stage() {
        let (stage, _data) = stage();
        assert_eq!(stage.target("../escape"), None);
        assert_eq!(stage.target("a/../b"), None);
        assert_eq!(stage.relative("/etc/passwd"), None);
        assert_eq!(stage.relative("a/../../b"), None);
        assert_eq!(
            stage
                .relative("/home/someone/project/src/./lib.rs")
                .as_deref(),
            Some("src/lib.rs")
        );
    }

    #[test]
    fn recorded_changes_are_made_on_the_stage() {
        let (stage, _data) = stage();
        let hash = stage
            .store
            .put_blob(b"v1", bearagent_kernel::testkit::at(0))
            .unwrap();
        stage.put("src/a.txt", Some(&hash));
        assert_eq!(
            std::fs::read(stage.root().join("src/a.txt")).unwrap(),
            b"v1"
        );
        stage.apply(&EventPayload::ExternalChangeObserved {
            path: "src/a.txt".into(),
            hash: None,
        });
        assert!(!stage.root().join("src/a.txt").exists());
        stage.make("docs", Kind::Folder);
        assert!(stage.root().join("docs").is_dir());
    }

    #[test]
    fn absolute_paths_in_the_recorded_folder_are_read_on_the_stage() {
        let (stage, _data) = stage();
        let mut args = Map::new();
        args.insert("path".into(), "/home/someone/project/src/lib.rs".into());
        args.insert("content".into(), "/home/someone/project/x".into());
        let rebased = stage.rebased(&args);
        assert_eq!(
            rebased["path"].as_str().unwrap(),
            stage.root().join("src/lib.rs").to_str().unwrap()
        );
        assert_eq!(rebased["content"], args["content"]);
    }
}
