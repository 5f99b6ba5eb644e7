//! Workspace confinement: every path a tool touches is resolved here and
//! must stay inside the canonical workspace root.

use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Why a path argument was refused. Messages are written for the model: they
/// say what was wrong and how to fix the call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("the path is empty; use \".\" for the workspace root")]
    Empty,
    #[error("the path contains a NUL byte")]
    NulByte,
    #[error(
        "absolute path {path} is outside the workspace {root}; use a path relative to the workspace root"
    )]
    AbsoluteOutside { path: String, root: String },
    #[error("path {path} escapes the workspace through '..'; use a path inside the workspace")]
    Escape { path: String },
    #[error(
        "path {path} goes through a symlink that resolves outside the workspace (to {target})"
    )]
    SymlinkOutside { path: String, target: String },
    #[error("path {path} goes through a dangling symlink; remove it or choose another path")]
    DanglingSymlink { path: String },
    #[error("refusing to write inside .git ({path}); repository internals are off limits")]
    GitDir { path: String },
    #[error("path {path} resolves into BearAgent's own folder {folder}, which no tool may touch")]
    OwnFolder { path: String, folder: String },
    #[error("no such file or directory: {path}")]
    NotFound { path: String },
    #[error("{path} is not a directory")]
    NotADirectory { path: String },
    #[error("cannot access {path}: {message}")]
    Io { path: String, message: String },
}

impl PathError {
    fn io(path: &str, err: &io::Error) -> Self {
        match err.kind() {
            io::ErrorKind::NotFound => PathError::NotFound { path: path.into() },
            io::ErrorKind::NotADirectory => PathError::NotADirectory { path: path.into() },
            _ => PathError::Io {
                path: path.into(),
                message: err.to_string(),
            },
        }
    }
}

/// The canonical absolute root of a workspace. Cheap to clone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceRoot {
    root: PathBuf,
    /// BearAgent's own folders (config, data, its binary's): no path may
    /// resolve into them, wherever they are.
    protected: Vec<PathBuf>,
}

impl WorkspaceRoot {
    /// The folder must exist and be a directory; it is canonicalised.
    pub fn new(path: &Path) -> Result<Self, PathError> {
        let shown = path.display().to_string();
        let root = fs::canonicalize(path).map_err(|e| PathError::io(&shown, &e))?;
        let meta = fs::metadata(&root).map_err(|e| PathError::io(&shown, &e))?;
        if !meta.is_dir() {
            return Err(PathError::NotADirectory { path: shown });
        }
        Ok(Self {
            root,
            protected: Vec::new(),
        })
    }

    /// The same root, refusing every path that resolves (symlinks
    /// followed) into one of `folders` — a second line behind the
    /// application's refusal to open a workspace around them.
    pub fn protecting(mut self, folders: &[PathBuf]) -> Self {
        // A folder around the root (a worktree kept in BearAgent's data
        // folder) needs no line: everything outside the root is refused.
        self.protected = folders
            .iter()
            .map(|f| fs::canonicalize(f).unwrap_or_else(|_| f.clone()))
            .filter(|f| !self.root.starts_with(f))
            .collect();
        self
    }

    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Resolve a path that must already exist (reads). The result is the
    /// canonical path, with every symlink resolved, inside the root.
    pub fn resolve_existing(&self, rel: &str) -> Result<PathBuf, PathError> {
        let normal = self.normalise(rel)?;
        let candidate = self.root.join(&normal);
        let real = fs::canonicalize(&candidate).map_err(|e| PathError::io(rel, &e))?;
        self.ensure_inside(rel, real)
    }

    /// Resolve the target of a write. The target and its parent directories
    /// may not exist yet (they are created on write), but every existing
    /// ancestor must resolve inside the root, and nothing inside `.git` may be
    /// written. An existing target is resolved through its symlinks.
    pub fn resolve_for_write(&self, rel: &str) -> Result<PathBuf, PathError> {
        let normal = self.normalise(rel)?;
        reject_git(rel, &normal)?;
        let parts: Vec<&OsStr> = normal.iter().collect();
        let mut existing = self.root.clone();
        let mut found = 0;
        for part in &parts {
            let next = existing.join(part);
            match fs::symlink_metadata(&next) {
                Ok(_) => {
                    existing = next;
                    found += 1;
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => break,
                Err(e) => return Err(PathError::io(rel, &e)),
            }
        }
        let real = match fs::canonicalize(&existing) {
            Ok(real) => real,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(PathError::DanglingSymlink {
                    path: self.relative(&existing),
                })
            }
            Err(e) => return Err(PathError::io(rel, &e)),
        };
        let real = self.ensure_inside(rel, real)?;
        let rest = &parts[found..];
        if !rest.is_empty() && !real.is_dir() {
            return Err(PathError::NotADirectory {
                path: self.relative(&real),
            });
        }
        let target = rest.iter().fold(real, |acc, part| acc.join(part));
        let shown = self.relative(&target);
        reject_git(&shown, Path::new(&shown))?;
        Ok(target)
    }

    /// Display form of a path under the root: workspace-relative and
    /// `/`-separated (`.` for the root itself). Paths outside the root are
    /// shown as they are.
    pub fn relative(&self, abs: &Path) -> String {
        match abs.strip_prefix(&self.root) {
            Ok(rel) => {
                let parts: Vec<String> = rel
                    .iter()
                    .map(|p| p.to_string_lossy().into_owned())
                    .collect();
                if parts.is_empty() {
                    ".".to_owned()
                } else {
                    parts.join("/")
                }
            }
            Err(_) => abs.display().to_string(),
        }
    }

    /// Lexically normalise `rel` into a relative path of plain components
    /// that stays inside the root (empty = the root itself).
    fn normalise(&self, rel: &str) -> Result<PathBuf, PathError> {
        if rel.contains('\0') {
            return Err(PathError::NulByte);
        }
        if rel.trim().is_empty() {
            return Err(PathError::Empty);
        }
        let path = Path::new(rel);
        if path.has_root() {
            let lexical = lexical_absolute(path);
            if let Ok(inside) = lexical.strip_prefix(&self.root) {
                return Ok(inside.to_path_buf());
            }
            // An existing path may reach the root through an alias (a
            // symlinked parent of the root, say): accept it if its canonical
            // form is inside.
            if let Ok(real) = fs::canonicalize(&lexical) {
                if let Ok(inside) = real.strip_prefix(&self.root) {
                    return Ok(inside.to_path_buf());
                }
            }
            return Err(PathError::AbsoluteOutside {
                path: rel.into(),
                root: self.root.display().to_string(),
            });
        }
        let mut out = PathBuf::new();
        for component in path.components() {
            match component {
                Component::CurDir => {}
                Component::ParentDir => {
                    if !out.pop() {
                        return Err(PathError::Escape { path: rel.into() });
                    }
                }
                Component::Normal(part) => out.push(part),
                Component::RootDir | Component::Prefix(_) => {
                    return Err(PathError::AbsoluteOutside {
                        path: rel.into(),
                        root: self.root.display().to_string(),
                    })
                }
            }
        }
        Ok(out)
    }

    fn ensure_inside(&self, rel: &str, real: PathBuf) -> Result<PathBuf, PathError> {
        if let Some(folder) = self.protected.iter().find(|f| real.starts_with(f)) {
            return Err(PathError::OwnFolder {
                path: rel.into(),
                folder: folder.display().to_string(),
            });
        }
        if real.starts_with(&self.root) {
            Ok(real)
        } else {
            Err(PathError::SymlinkOutside {
                path: rel.into(),
                target: real.display().to_string(),
            })
        }
    }
}

/// Whether any component of `path` is `.git` (ASCII case-insensitively, for
/// case-insensitive file systems).
pub(crate) fn has_git_component(path: &Path) -> bool {
    path.iter().any(|part| {
        part.to_str()
            .is_some_and(|s| s.eq_ignore_ascii_case(".git"))
    })
}

fn reject_git(shown: &str, path: &Path) -> Result<(), PathError> {
    if has_git_component(path) {
        Err(PathError::GitDir { path: shown.into() })
    } else {
        Ok(())
    }
}

/// Resolve `.` and `..` in an absolute path without touching the disk.
fn lexical_absolute(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
#[path = "workspace_tests.rs"]
mod tests;
