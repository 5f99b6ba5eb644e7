//! Reading and writing the config file: unknown keys and bad values are
//! errors naming the file, line and field; a file written by a newer
//! BearAgent is refused and never rewritten.

use super::file::{invalid, ConfigError, ConfigFile, CONFIG_VERSION};
use super::validate::validate;
use serde::Deserialize;
use std::path::Path;

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// The dotted name of the key assigned on `line` (1-based), prefixed by
/// the table it sits in, e.g. `profiles.careful.max_model_calls`.
fn field_at_line(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let here = lines.get(line.checked_sub(1)?)?.trim();
    let (key, _) = here.split_once('=')?;
    let table = lines[..line - 1]
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| l.starts_with('[') && l.ends_with(']'))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_owned());
    let key = key.trim();
    Some(match table {
        Some(t) => format!("{t}.{key}"),
        None => key.to_owned(),
    })
}

#[derive(Deserialize)]
struct VersionOnly {
    version: Option<toml::Value>,
}

/// Parses and validates config text. `path` is only for messages.
pub fn parse(path: &Path, text: &str) -> Result<ConfigFile, ConfigError> {
    // Check the version first, so a newer file's new keys are not reported
    // as mistakes.
    if let Ok(VersionOnly { version: Some(v) }) = toml::from_str::<VersionOnly>(text) {
        if let Some(found) = v.as_integer() {
            if found > i64::from(CONFIG_VERSION) {
                return Err(ConfigError::NewerVersion {
                    path: path.to_path_buf(),
                    found: u32::try_from(found).unwrap_or(u32::MAX),
                });
            }
        }
    }
    let config: ConfigFile = toml::from_str(text).map_err(|e| {
        let (line, column) = e.span().map_or((0, 0), |s| line_col(text, s.start));
        let message = match field_at_line(text, line) {
            Some(field) => format!("field `{field}`: {}", e.message()),
            None => e.message().to_owned(),
        };
        ConfigError::Parse {
            path: path.to_path_buf(),
            line,
            column,
            message,
        }
    })?;
    validate(path, &config)?;
    Ok(config)
}

/// Reads the config; a missing file is an empty config.
pub fn load(path: &Path) -> Result<ConfigFile, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse(path, &text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ConfigFile::default()),
        Err(source) => Err(ConfigError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Read-modify-write of the config under an exclusive lock (a lock file
/// beside it, held across processes and threads), so the app, CLI runs and
/// parallel worktree runs never lose each other's updates: a lost `untrust`
/// or `rules forget` would bring a revoked trust or rule back.
pub fn update<E: From<ConfigError>>(
    path: &Path,
    change: impl FnOnce(&mut ConfigFile) -> Result<(), E>,
) -> Result<(), E> {
    let _lock = lock(path)?;
    let mut config = load(path)?;
    change(&mut config)?;
    Ok(save(path, &config)?)
}

/// The config's lock, released when the file is dropped.
#[expect(
    clippy::disallowed_methods,
    reason = "BearAgent's own config file, never a user's folder"
)]
fn lock(path: &Path) -> Result<std::fs::File, ConfigError> {
    let io = |source| ConfigError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(dir).map_err(io)?;
    let name = path
        .file_name()
        .map_or_else(|| "config.toml".into(), |n| n.to_string_lossy());
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(format!(".{name}.lock")))
        .map_err(io)?;
    file.lock().map_err(io)?;
    Ok(file)
}

/// Validates and writes the config atomically (temp file + rename). Use
/// `update` for a change: it holds the lock across the read and the write.
#[expect(
    clippy::disallowed_methods,
    reason = "BearAgent's own config file, never a user's folder"
)]
pub fn save(path: &Path, config: &ConfigFile) -> Result<(), ConfigError> {
    validate(path, config)?;
    // Never overwrite a file from a newer BearAgent.
    load(path)?;
    let io = |source| ConfigError::Io {
        path: path.to_path_buf(),
        source,
    };
    let text = toml::to_string_pretty(config)
        .map_err(|e| invalid(path, "(file)".into(), e.to_string()))?;
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    std::io::Write::write_all(
        &mut tmp,
        format!("# BearAgent configuration (version {CONFIG_VERSION}). Keys are never stored here.\n{text}").as_bytes(),
    )
    .map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}
