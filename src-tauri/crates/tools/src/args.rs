//! Strict reading of a model's argument object: unknown keys, missing keys
//! and wrong types are `ArgumentError`s. A JSON `null` counts as "not given"
//! for optional arguments (models often send explicit nulls).

use crate::error::ArgumentError;
use crate::workspace::WorkspaceRoot;
use bearagent_kernel::message::json_kind;
use serde_json::{Map, Value};
use std::path::PathBuf;

pub(crate) struct Args<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    /// Reject any key not in `allowed`.
    pub(crate) fn new(
        map: &'a Map<String, Value>,
        allowed: &[&str],
    ) -> Result<Self, ArgumentError> {
        if let Some(name) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(ArgumentError::Unknown {
                name: name.clone(),
                allowed: allowed.join(", "),
            });
        }
        Ok(Self { map })
    }

    fn get(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name).filter(|v| !v.is_null())
    }

    pub(crate) fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    pub(crate) fn required_str(&self, name: &str) -> Result<&'a str, ArgumentError> {
        self.optional_str(name)?
            .ok_or_else(|| ArgumentError::Missing { name: name.into() })
    }

    pub(crate) fn optional_str(&self, name: &str) -> Result<Option<&'a str>, ArgumentError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(wrong_type(name, "a string", other)),
        }
    }

    pub(crate) fn bool_or(&self, name: &str, default: bool) -> Result<bool, ArgumentError> {
        match self.get(name) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(wrong_type(name, "a boolean", other)),
        }
    }

    /// An optional integer in `min..=max`.
    pub(crate) fn optional_uint(
        &self,
        name: &str,
        min: u64,
        max: u64,
    ) -> Result<Option<u64>, ArgumentError> {
        let Some(value) = self.get(name) else {
            return Ok(None);
        };
        let Some(n) = value.as_u64() else {
            return Err(match value {
                Value::Number(_) => ArgumentError::OutOfRange {
                    name: name.into(),
                    min,
                    max,
                    value: value.to_string(),
                },
                other => wrong_type(name, "an integer", other),
            });
        };
        if n < min || n > max {
            return Err(ArgumentError::OutOfRange {
                name: name.into(),
                min,
                max,
                value: n.to_string(),
            });
        }
        Ok(Some(n))
    }

    pub(crate) fn uint_or(
        &self,
        name: &str,
        default: u64,
        min: u64,
        max: u64,
    ) -> Result<u64, ArgumentError> {
        Ok(self.optional_uint(name, min, max)?.unwrap_or(default))
    }

    /// A path argument (default `default` when absent) that must exist.
    /// Returns the canonical absolute path and its workspace-relative form.
    pub(crate) fn existing_path(
        &self,
        name: &str,
        default: Option<&str>,
        ws: &WorkspaceRoot,
    ) -> Result<(PathBuf, String), ArgumentError> {
        let raw = match (self.optional_str(name)?, default) {
            (Some(raw), _) => raw,
            (None, Some(default)) => default,
            (None, None) => return Err(ArgumentError::Missing { name: name.into() }),
        };
        let abs = ws
            .resolve_existing(raw)
            .map_err(|e| ArgumentError::path(name, e))?;
        let rel = ws.relative(&abs);
        Ok((abs, rel))
    }

    /// A required path argument naming the target of a write.
    pub(crate) fn write_path(
        &self,
        name: &str,
        ws: &WorkspaceRoot,
    ) -> Result<(PathBuf, String), ArgumentError> {
        let raw = self.required_str(name)?;
        let abs = ws
            .resolve_for_write(raw)
            .map_err(|e| ArgumentError::path(name, e))?;
        let rel = ws.relative(&abs);
        Ok((abs, rel))
    }
}

/// "`name` must be {expected}, got {what `found` is}".
pub fn wrong_type(name: &str, expected: &'static str, found: &Value) -> ArgumentError {
    ArgumentError::WrongType {
        name: name.into(),
        expected,
        found: json_kind(found),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::obj;
    use serde_json::json;

    #[test]
    fn unknown_keys_are_rejected_with_the_allowed_list() {
        let map = obj(json!({"path": "a", "bogus": 1}));
        let err = Args::new(&map, &["path", "depth"]).err().unwrap();
        assert_eq!(
            err.to_string(),
            "unknown argument `bogus`; this tool accepts: path, depth"
        );
    }

    #[test]
    fn types_are_checked_and_null_means_absent() {
        let map = obj(json!({"s": 1, "b": "yes", "n": -1, "f": 2.5, "z": null, "big": 99}));
        let args = Args::new(&map, &["s", "b", "n", "f", "z", "big"]).unwrap();
        assert!(matches!(
            args.required_str("s"),
            Err(ArgumentError::WrongType {
                found: "a number",
                ..
            })
        ));
        assert!(matches!(
            args.bool_or("b", false),
            Err(ArgumentError::WrongType { .. })
        ));
        assert!(matches!(
            args.uint_or("n", 1, 1, 8),
            Err(ArgumentError::OutOfRange { .. })
        ));
        assert!(matches!(
            args.uint_or("f", 1, 1, 8),
            Err(ArgumentError::OutOfRange { .. })
        ));
        assert!(matches!(
            args.uint_or("big", 1, 1, 8),
            Err(ArgumentError::OutOfRange { .. })
        ));
        assert_eq!(args.uint_or("z", 2, 1, 8), Ok(2));
        assert_eq!(args.optional_str("z"), Ok(None));
        assert!(matches!(
            args.required_str("z"),
            Err(ArgumentError::Missing { .. })
        ));
        assert!(!args.has("z"));
    }
}
