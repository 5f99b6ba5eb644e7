//! What trusting a workspace's hooks pins: not only `.bearagent/hooks.toml`
//! but every file of the workspace's `.bearagent/` folder (where hook
//! scripts belong) and every file inside the workspace that a hook's
//! command line names (`python3 scripts/check.py`). A change to any of
//! them changes the digest, so the hooks are untrusted again: a
//! repository, or the agent, cannot rewrite a trusted hook's script.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The workspace folder whose whole content is pinned.
pub const PROJECT_FOLDER: &str = ".bearagent";
/// More pinned files than this are refused (a hostile repository's flood).
const MAX_FILES: usize = 512;
/// More pinned bytes than this are refused.
const MAX_BYTES: u64 = 8 * 1024 * 1024;

/// The digest trust keeps, and the files it covers (workspace-relative).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    pub digest: String,
    pub files: Vec<String>,
}

/// Pins `.bearagent/` of `folder` and the files `commands` name inside it.
pub fn pin(folder: &Path, commands: &[String]) -> Result<Pin, String> {
    let mut files = Vec::new();
    walk(folder, &folder.join(PROJECT_FOLDER), &mut files)?;
    for command in commands {
        for named in named_files(folder, command) {
            if !files.contains(&named) {
                files.push(named);
            }
        }
    }
    files.sort();
    if files.len() > MAX_FILES {
        return Err(format!(
            "hooks pin {} files; at most {MAX_FILES} can be trusted",
            files.len()
        ));
    }
    let mut total = 0u64;
    let mut hash = Sha256::new();
    for rel in &files {
        let (kind, content) = entry(&folder.join(rel))?;
        total += content.len() as u64;
        if total > MAX_BYTES {
            return Err(format!("hooks pin more than {MAX_BYTES} bytes"));
        }
        hash.update(rel.as_bytes());
        hash.update([0]);
        hash.update(kind.as_bytes());
        hash.update([0]);
        hash.update(Sha256::digest(&content));
    }
    let digest = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok(Pin { digest, files })
}

/// A pinned path's kind (with its mode: an exec bit is part of what runs)
/// and content; a link is pinned by its target, never followed.
fn entry(path: &Path) -> Result<(String, Vec<u8>), String> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(path).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok(("link".into(), target.display().to_string().into_bytes()));
    }
    let content = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((
        format!("file {:o}", meta.permissions().mode() & 0o777),
        content,
    ))
}

/// Every file and link under `dir` (none if it does not exist).
fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<(), String> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    };
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let kind = entry.file_type().map_err(|e| e.to_string())?;
        if kind.is_dir() {
            walk(root, &entry.path(), out)?;
        } else {
            out.push(relative(root, &entry.path()));
        }
        if out.len() > MAX_FILES {
            return Err(format!(
                "{PROJECT_FOLDER}/ holds more than {MAX_FILES} files; it cannot be trusted"
            ));
        }
    }
    Ok(())
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The scripts inside `folder` that a command line's words name: regular
/// files that are executable or have a script's extension. A redirection's
/// target (`>> hook-marker.txt`) is output, not code, and is not pinned —
/// or a hook's own first run would untrust it.
fn named_files(folder: &Path, command: &str) -> Vec<String> {
    let Ok(root) = folder.canonicalize() else {
        return Vec::new();
    };
    words_run(command)
        .into_iter()
        .filter_map(|word| inside(&root, &word))
        .filter(|rel| is_script(&root.join(rel)))
        .collect()
}

/// A command line's words, without options and redirection targets.
fn words_run(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut redirected = false;
    let flush = |word: &mut String, redirected: &mut bool, words: &mut Vec<String>| {
        if !word.is_empty() {
            if !*redirected && !word.starts_with('-') {
                words.push(std::mem::take(word));
            }
            word.clear();
            *redirected = false;
        }
    };
    for c in command.chars() {
        if c == '<' || c == '>' {
            flush(&mut word, &mut redirected, &mut words);
            redirected = true;
        } else if c.is_whitespace() || ";|&()'\"`=".contains(c) {
            flush(&mut word, &mut redirected, &mut words);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut redirected, &mut words);
    words
}

/// Code a hook runs: executable, or a script by its extension.
fn is_script(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    const SCRIPTS: &[&str] = &[
        "sh", "bash", "zsh", "fish", "py", "js", "mjs", "cjs", "ts", "rb", "pl", "php", "lua",
        "ps1", "tcl", "awk", "sed", "jar",
    ];
    let executable = std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0);
    let by_name = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SCRIPTS.contains(&e.to_ascii_lowercase().as_str()));
    executable || by_name
}

/// `word` as a path to a regular file inside `root`, workspace-relative.
fn inside(root: &Path, word: &str) -> Option<String> {
    let path = PathBuf::from(word);
    let path = if path.is_absolute() {
        path
    } else {
        root.join(path)
    };
    let real = path.canonicalize().ok()?;
    (real.starts_with(root) && real.is_file()).then(|| relative(root, &real))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".bearagent/lib")).unwrap();
        std::fs::create_dir_all(dir.path().join("scripts")).unwrap();
        std::fs::write(dir.path().join(".bearagent/hooks.toml"), "x").unwrap();
        std::fs::write(dir.path().join(".bearagent/lib/check.py"), "ok").unwrap();
        std::fs::write(dir.path().join("scripts/fmt.sh"), "fmt").unwrap();
        dir
    }

    #[test]
    fn pins_the_folder_and_the_scripts_a_command_names() {
        let dir = folder();
        let commands = vec!["sh scripts/fmt.sh --check && python3 /usr/bin/env".to_owned()];
        let p = pin(dir.path(), &commands).unwrap();
        assert_eq!(
            p.files,
            [
                ".bearagent/hooks.toml",
                ".bearagent/lib/check.py",
                "scripts/fmt.sh"
            ]
        );
    }

    #[test]
    fn any_change_to_a_pinned_file_or_its_mode_changes_the_digest() {
        let dir = folder();
        let commands = vec!["sh scripts/fmt.sh".to_owned()];
        let before = pin(dir.path(), &commands).unwrap().digest;
        std::fs::write(dir.path().join("scripts/fmt.sh"), "rm -rf ~").unwrap();
        let script = pin(dir.path(), &commands).unwrap().digest;
        assert_ne!(before, script);
        std::fs::write(dir.path().join(".bearagent/new.sh"), "x").unwrap();
        let added = pin(dir.path(), &commands).unwrap().digest;
        assert_ne!(script, added);
        let mut perms = std::fs::metadata(dir.path().join(".bearagent/new.sh"))
            .unwrap()
            .permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(dir.path().join(".bearagent/new.sh"), perms).unwrap();
        assert_ne!(added, pin(dir.path(), &commands).unwrap().digest);
    }

    #[test]
    fn output_a_hook_writes_is_not_pinned_so_its_first_run_does_not_untrust_it() {
        let dir = folder();
        std::fs::write(dir.path().join("hook-marker.txt"), "ran").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "data").unwrap();
        let commands = vec![
            "echo ran >> hook-marker.txt; sh scripts/fmt.sh < notes.txt".to_owned(),
            "cat notes.txt".to_owned(),
        ];
        let p = pin(dir.path(), &commands).unwrap();
        assert_eq!(
            p.files,
            [
                ".bearagent/hooks.toml",
                ".bearagent/lib/check.py",
                "scripts/fmt.sh"
            ]
        );
    }

    #[test]
    fn a_file_outside_the_workspace_is_not_pinned() {
        let dir = folder();
        let outside = tempfile::NamedTempFile::new().unwrap();
        let commands = vec![format!("cat {} ../x", outside.path().display())];
        let p = pin(dir.path(), &commands).unwrap();
        assert_eq!(p.files.len(), 2);
    }
}
