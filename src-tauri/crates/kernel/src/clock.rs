//! Time is injected: code that stamps events takes a `Clock`, so events and
//! tests are deterministic.

use serde::{Deserialize, Serialize};
use std::fmt;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// A UTC instant, serialised as RFC 3339.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(OffsetDateTime);

impl Timestamp {
    pub fn from_datetime(at: OffsetDateTime) -> Self {
        Self(at.to_offset(time::UtcOffset::UTC))
    }
    pub fn from_unix_millis(ms: i64) -> Option<Self> {
        OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
            .ok()
            .map(Self)
    }
    pub fn unix_millis(&self) -> i64 {
        let ms = self.0.unix_timestamp_nanos() / 1_000_000;
        i64::try_from(ms).unwrap_or(i64::MAX)
    }
    pub fn as_datetime(&self) -> OffsetDateTime {
        self.0
    }
    pub fn to_rfc3339(&self) -> String {
        // Formatting a UTC datetime as RFC 3339 cannot fail for years 0..=9999.
        self.0.format(&Rfc3339).unwrap_or_default()
    }
    pub fn parse_rfc3339(s: &str) -> Result<Self, time::error::Parse> {
        OffsetDateTime::parse(s, &Rfc3339).map(Self::from_datetime)
    }
    /// Milliseconds from `earlier` to `self`, zero if `earlier` is later.
    pub fn millis_since(&self, earlier: Timestamp) -> u64 {
        let nanos = (self.0 - earlier.0).whole_milliseconds();
        u64::try_from(nanos).unwrap_or(0)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

impl Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_rfc3339())
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        Self::parse_rfc3339(&raw).map_err(serde::de::Error::custom)
    }
}

/// An RFC 3339 string on the wire.
#[cfg(feature = "specta")]
impl specta::Type for Timestamp {
    fn definition(types: &mut specta::Types) -> specta::datatype::DataType {
        <String as specta::Type>::definition(types)
    }
}

/// Source of the current time.
pub trait Clock: Send + Sync {
    fn now(&self) -> Timestamp;
}

/// A clock that always answers the same instant (tests, replays).
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub Timestamp);

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_round_trip_through_rfc3339() {
        let t = Timestamp::from_unix_millis(1_764_000_000_123).unwrap();
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, "\"2025-11-24T16:00:00.123Z\"");
        assert_eq!(serde_json::from_str::<Timestamp>(&json).unwrap(), t);
        assert_eq!(t.unix_millis(), 1_764_000_000_123);
    }

    #[test]
    fn millis_since_never_goes_negative() {
        let a = Timestamp::from_unix_millis(1000).unwrap();
        let b = Timestamp::from_unix_millis(3500).unwrap();
        assert_eq!(b.millis_since(a), 2500);
        assert_eq!(a.millis_since(b), 0);
    }
}
