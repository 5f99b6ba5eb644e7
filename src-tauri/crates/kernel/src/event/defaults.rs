//! Serde defaults of the event payloads: what a field missing from an
//! older record reads as.

/// Three identical calls with identical results make a loop.
pub const DEFAULT_MAX_REPEATED_CALLS: u32 = 3;

/// Serde's `skip_serializing_if` for flags that are usually off, so events
/// without them serialise as before.
pub(super) fn is_false(flag: &bool) -> bool {
    !*flag
}

pub(super) fn default_max_repeated_calls() -> u32 {
    DEFAULT_MAX_REPEATED_CALLS
}
