//! Reading numbers and ids out of a server's JSON without trusting it.

use serde_json::Value;

/// The longest model id taken.
const MAX_ID_CHARS: usize = 512;

/// A positive whole number, also when sent as `4096.0` or `"4096"`.
pub(super) fn count(v: Option<&Value>) -> Option<u64> {
    let n = match v? {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.is_finite() && *f >= 1.0)
                .map(|f| f as u64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }?;
    (n > 0).then_some(n)
}

pub(super) fn id_of(v: &Value) -> Option<String> {
    let id = v.as_str()?.trim();
    (!id.is_empty() && id.chars().count() <= MAX_ID_CHARS).then(|| id.to_owned())
}
