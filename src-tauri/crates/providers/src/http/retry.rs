//! Backoff: exponential with jitter, or what the server asked for
//! (`retry-after-ms`, `retry-after` in seconds or as an HTTP date), always
//! capped by the policy's `max_delay`.

use super::config::RetryPolicy;
use reqwest::header::HeaderMap;
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, SystemTime};

/// The delay a response asks for, if any.
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_secs_f64(ms.min(1e12) / 1000.0));
        }
    }
    let value = text("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(1e9)));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// `x-should-retry: true|false`, an explicit server hint that overrides the
/// status-based decision (OpenAI and Anthropic send it).
pub(crate) fn should_retry_hint(headers: &HeaderMap) -> Option<bool> {
    match headers.get("x-should-retry")?.to_str().ok()?.trim() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// The delay before retry number `attempt` (1 for the first retry).
pub(crate) fn delay(policy: &RetryPolicy, attempt: u32, hint: Option<Duration>) -> Duration {
    if let Some(hint) = hint {
        return hint.min(policy.max_delay);
    }
    let factor = 2u32.saturating_pow(attempt.saturating_sub(1).min(30));
    let full = policy
        .base_delay
        .saturating_mul(factor)
        .min(policy.max_delay);
    // Half fixed, half random: spreads clients without ever waiting ~0.
    let half = full / 2;
    half + half.mul_f64(jitter())
}

/// A number in [0, 1) that differs between calls, from the std hasher's
/// random keys; good enough for jitter, no RNG dependency needed.
fn jitter() -> f64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default(),
    );
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn retry_after_in_all_forms() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777);
        assert_eq!(
            retry_after(&headers(&[("retry-after", "2")]), now),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "1.5")]), now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after-ms", "250"), ("retry-after", "9")]),
                now
            ),
            Some(Duration::from_millis(250))
        );
        // Sun, 06 Nov 1994 08:49:37 GMT is 784111777 s after the epoch.
        let date = headers(&[("retry-after", "Sun, 06 Nov 1994 08:49:40 GMT")]);
        assert_eq!(retry_after(&date, now), Some(Duration::from_secs(3)));
        let past = headers(&[("retry-after", "Sun, 06 Nov 1994 08:49:30 GMT")]);
        assert_eq!(retry_after(&past, now), Some(Duration::ZERO));
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")]), now), None);
        assert_eq!(retry_after(&headers(&[("retry-after", "-1")]), now), None);
        assert_eq!(retry_after(&HeaderMap::new(), now), None);
    }

    #[test]
    fn delays_grow_with_jitter_and_are_capped() {
        let policy = RetryPolicy {
            max_retries: 10,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(1000),
        };
        for attempt in 1..=10u32 {
            let full = Duration::from_millis(100 * 2u64.pow(attempt - 1)).min(policy.max_delay);
            let d = delay(&policy, attempt, None);
            assert!(d >= full / 2 && d <= full, "attempt {attempt}: {d:?}");
        }
        assert_eq!(
            delay(&policy, 1, Some(Duration::from_secs(60))),
            Duration::from_millis(1000)
        );
        assert_eq!(
            delay(&policy, 3, Some(Duration::from_millis(7))),
            Duration::from_millis(7)
        );
        assert!(delay(&policy, u32::MAX, None) <= policy.max_delay);
    }

    #[test]
    fn should_retry_header() {
        assert_eq!(
            should_retry_hint(&headers(&[("x-should-retry", "false")])),
            Some(false)
        );
        assert_eq!(
            should_retry_hint(&headers(&[("x-should-retry", "true")])),
            Some(true)
        );
        assert_eq!(should_retry_hint(&HeaderMap::new()), None);
    }
}
