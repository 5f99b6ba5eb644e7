//! Typed ids so that ids of different kinds cannot be swapped.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use uuid::Uuid;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    #[error("{kind} must not be blank")]
    Blank { kind: &'static str },
    #[error("{kind} {value:?} is not a valid id: {reason}")]
    Malformed {
        kind: &'static str,
        value: String,
        reason: String,
    },
}

macro_rules! uuid_id {
    ($(#[$doc:meta])* $name:ident, $kind:literal) => {
        $(#[$doc])*
        #[cfg_attr(feature = "specta", derive(specta::Type))]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(Uuid);

        impl $name {
            /// A new time-ordered (UUIDv7) id.
            pub fn new() -> Self {
                Self(Uuid::now_v7())
            }
            pub fn from_uuid(uuid: Uuid) -> Self {
                Self(uuid)
            }
            pub fn as_uuid(&self) -> Uuid {
                self.0
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = IdError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(s.trim()).map(Self).map_err(|e| IdError::Malformed {
                    kind: $kind,
                    value: s.chars().take(64).collect(),
                    reason: e.to_string(),
                })
            }
        }
    };
}

uuid_id!(
    /// Identifies one run of the agent.
    RunId,
    "run id"
);
uuid_id!(
    /// Identifies a workspace folder known to BearAgent.
    WorkspaceId,
    "workspace id"
);

/// Position of an event in its run's log, starting at 1.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(transparent)]
pub struct EventSeq(pub u64);

impl EventSeq {
    pub const FIRST: EventSeq = EventSeq(1);
    pub fn next(self) -> EventSeq {
        EventSeq(self.0.saturating_add(1))
    }
    pub fn get(self) -> u64 {
        self.0
    }
}

impl fmt::Display for EventSeq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident, $kind:literal) => {
        $(#[$doc])*
        #[cfg_attr(feature = "specta", derive(specta::Type))]
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            pub fn new(value: impl Into<String>) -> Result<Self, IdError> {
                let value = value.into();
                if value.trim().is_empty() {
                    return Err(IdError::Blank { kind: $kind });
                }
                Ok(Self(value))
            }
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let raw = String::deserialize(d)?;
                Self::new(raw).map_err(serde::de::Error::custom)
            }
        }
    };
}

string_id!(
    /// The id a model gave a tool call; tool results answer it.
    CallId,
    "call id"
);
string_id!(
    /// The exact registry name of a tool.
    ToolName,
    "tool name"
);

/// SHA-256 of some content, lowercase hex. Names blobs and file versions.
/// Shared text: a snapshot holds one per file and clones it on every
/// unchanged file.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct ContentHash(std::sync::Arc<str>);

impl ContentHash {
    pub fn parse(value: &str) -> Result<Self, IdError> {
        let ok = value.len() == 64
            && value
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if ok {
            Ok(Self(value.into()))
        } else {
            Err(IdError::Malformed {
                kind: "content hash",
                value: value.chars().take(80).collect(),
                reason: "expected 64 lowercase hex digits".into(),
            })
        }
    }
    /// The hash whose raw SHA-256 digest is `digest`.
    pub fn from_digest(digest: [u8; 32]) -> Self {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut s = String::with_capacity(64);
        for b in digest {
            s.push(char::from(HEX[usize::from(b >> 4)]));
            s.push(char::from(HEX[usize::from(b & 0x0f)]));
        }
        Self(s.into())
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ContentHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for ContentHash {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        Self::parse(&raw).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_are_time_ordered_and_round_trip() {
        let a = RunId::new();
        let b = RunId::new();
        assert!(a < b);
        assert_eq!(a.to_string().parse::<RunId>(), Ok(a));
    }

    #[test]
    fn malformed_run_id_is_a_typed_error() {
        assert!(matches!(
            "not-a-uuid".parse::<RunId>(),
            Err(IdError::Malformed { kind: "run id", .. })
        ));
    }

    #[test]
    fn blank_call_id_and_tool_name_are_rejected() {
        assert_eq!(CallId::new("  "), Err(IdError::Blank { kind: "call id" }));
        assert_eq!(ToolName::new(""), Err(IdError::Blank { kind: "tool name" }));
        assert!(serde_json::from_str::<CallId>("\" \"").is_err());
    }

    #[test]
    fn content_hash_requires_lowercase_sha256_hex() {
        assert!(ContentHash::parse(&"a".repeat(64)).is_ok());
        assert!(ContentHash::parse(&"A".repeat(64)).is_err());
        assert!(ContentHash::parse("abc").is_err());
    }
}
