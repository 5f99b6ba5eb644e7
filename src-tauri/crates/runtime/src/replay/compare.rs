//! Whether the loop's next event is the recorded one: the same seq, kind,
//! cause and payload (times aside; a request digest only where one was
//! recorded), and if not, a short field-by-field difference. In a record
//! a bundle redacted, a difference at a `[REDACTED:` value (and in the
//! size and digest of a model request built from one) is the redaction,
//! not a divergence: it is counted, not reported.

use bearagent_kernel::{EventEnvelope, EventPayload, EventSeq};
use serde_json::Value;

/// The first place the re-driven loop left the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence {
    pub seq: EventSeq,
    /// The recorded event's kind (None: the record ended there).
    pub expected: Option<String>,
    /// What the loop did instead (None: it ended there).
    pub actual: Option<String>,
    /// `path: recorded → now` lines, the first few.
    pub fields: Vec<String>,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = |k: &Option<String>, none: &str| k.clone().unwrap_or_else(|| none.to_owned());
        write!(
            f,
            "diverged at #{}: recorded {}, now {}",
            self.seq.0,
            kind(&self.expected, "the end of the record"),
            kind(&self.actual, "the end of the loop")
        )?;
        for line in &self.fields {
            write!(f, "\n  {line}")?;
        }
        Ok(())
    }
}

/// Most differing fields listed.
const MAX_FIELDS: usize = 6;
/// Longest value shown for one field.
const MAX_VALUE: usize = 160;

/// How a record a bundle redacted is compared.
#[derive(Debug, Clone, Copy, Default)]
pub struct Redacted {
    /// The seq of the first recorded event holding a marker: requests
    /// after it were built from redacted text.
    pub first_marked: Option<EventSeq>,
}

/// Ok with the number of differences taken as the redaction's.
pub fn compare(
    seq: EventSeq,
    expected: Option<&EventEnvelope>,
    cause: Option<EventSeq>,
    payload: &EventPayload,
    redacted: Redacted,
) -> Result<usize, Divergence> {
    let actual_kind = Some(payload.type_name().to_owned());
    let Some(expected) = expected else {
        return Err(Divergence {
            seq,
            expected: None,
            actual: actual_kind,
            fields: Vec::new(),
        });
    };
    let want = comparable(&expected.payload, &expected.payload);
    let got = comparable(payload, &expected.payload);
    let mut fields = Vec::new();
    if expected.seq != seq {
        fields.push(format!("seq: {} → {}", expected.seq.0, seq.0));
    }
    if expected.cause != cause {
        fields.push(format!(
            "cause: {:?} → {:?}",
            expected.cause.map(|c| c.0),
            cause.map(|c| c.0)
        ));
    }
    let mut excused = Excused {
        request_built_from_redacted: matches!(
            expected.payload,
            EventPayload::ModelCallRequested { .. }
        ) && redacted.first_marked.is_some_and(|m| m < expected.seq),
        count: 0,
    };
    diff("payload", &want, &got, &mut fields, &mut excused);
    if fields.is_empty() {
        return Ok(excused.count);
    }
    fields.truncate(MAX_FIELDS);
    Err(Divergence {
        seq: expected.seq,
        expected: Some(expected.payload.type_name().to_owned()),
        actual: actual_kind,
        fields,
    })
}

/// The payload as compared: a request digest is left out when the record
/// has none (recorded before digests existed).
fn comparable(payload: &EventPayload, recorded: &EventPayload) -> Value {
    let mut value = serde_json::to_value(payload).unwrap_or(Value::Null);
    let undigested = matches!(
        recorded,
        EventPayload::ModelCallRequested {
            request_digest: None,
            ..
        }
    );
    if undigested {
        if let Some(map) = value
            .get_mut("ModelCallRequested")
            .and_then(Value::as_object_mut)
        {
            map.remove("request_digest");
        } else if let Some(map) = value.as_object_mut() {
            map.remove("request_digest");
        }
    }
    value
}

/// Differences the redaction explains, and how many were met.
struct Excused {
    request_built_from_redacted: bool,
    count: usize,
}

/// What a request's size and digest are recorded as.
const REQUEST_MEASURES: [&str; 3] = ["context_bytes", "estimated_tokens", "request_digest"];

impl Excused {
    fn covers(&self, path: &str, want: &Value) -> bool {
        let redacted_text = want
            .as_str()
            .is_some_and(|s| s.contains(crate::bundle::redact::MARKER_PREFIX));
        let measure = self.request_built_from_redacted
            && REQUEST_MEASURES
                .iter()
                .any(|m| path.rsplit('.').next() == Some(*m));
        redacted_text || measure
    }
}

/// Appends `path: recorded → now` for each differing leaf.
fn diff(path: &str, want: &Value, got: &Value, out: &mut Vec<String>, excused: &mut Excused) {
    if want == got || out.len() >= MAX_FIELDS {
        return;
    }
    if excused.covers(path, want) {
        excused.count += 1;
        return;
    }
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for key in keys {
                let null = Value::Null;
                diff(
                    &format!("{path}.{key}"),
                    a.get(key).unwrap_or(&null),
                    b.get(key).unwrap_or(&null),
                    out,
                    excused,
                );
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff(&format!("{path}[{i}]"), x, y, out, excused);
            }
        }
        _ => out.push(format!("{path}: {} → {}", short(want), short(got))),
    }
}

fn short(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= MAX_VALUE {
        return text;
    }
    let cut: String = text.chars().take(MAX_VALUE).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;
    use bearagent_kernel::{NewEvent, RunId};

    const NONE: Redacted = Redacted { first_marked: None };

    fn recorded(payload: EventPayload) -> EventEnvelope {
        NewEvent::new(bearagent_kernel::testkit::at(0), Some(EventSeq(1)), payload)
            .into_envelope(RunId::new(), EventSeq(2))
    }

    #[test]
    fn the_same_event_matches_and_a_changed_field_is_named() {
        let e = recorded(EventPayload::RunFailed { reason: "x".into() });
        assert!(compare(EventSeq(2), Some(&e), Some(EventSeq(1)), &e.payload, NONE).is_ok());
        let d = compare(
            EventSeq(2),
            Some(&e),
            Some(EventSeq(1)),
            &EventPayload::RunFailed { reason: "y".into() },
            NONE,
        )
        .unwrap_err();
        assert_eq!(d.fields, ["payload.reason: \"x\" → \"y\""]);
        assert!(d
            .to_string()
            .starts_with("diverged at #2: recorded run_failed, now run_failed"));
    }

    #[test]
    fn a_missing_digest_in_the_record_is_not_compared() {
        let requested = |digest| EventPayload::ModelCallRequested {
            context_version: "context-v3".into(),
            context_bytes: 10,
            estimated_tokens: Some(4),
            context_window: Some(100),
            request_digest: digest,
        };
        let old = recorded(requested(None));
        let hash = bearagent_kernel::ContentHash::parse(&"a".repeat(64)).unwrap();
        assert!(compare(
            EventSeq(2),
            Some(&old),
            Some(EventSeq(1)),
            &requested(Some(hash.clone())),
            NONE,
        )
        .is_ok());
        let new = recorded(requested(Some(hash)));
        let other = bearagent_kernel::ContentHash::parse(&"b".repeat(64)).unwrap();
        assert!(compare(
            EventSeq(2),
            Some(&new),
            Some(EventSeq(1)),
            &requested(Some(other.clone())),
            NONE,
        )
        .is_err());
        // Built from text a bundle redacted before it: its size and digest
        // differ by the redaction, and are counted, not reported.
        let marked = Redacted {
            first_marked: Some(EventSeq(1)),
        };
        let smaller = EventPayload::ModelCallRequested {
            context_version: "context-v3".into(),
            context_bytes: 8,
            estimated_tokens: Some(3),
            context_window: Some(100),
            request_digest: Some(other),
        };
        assert_eq!(
            compare(EventSeq(2), Some(&new), Some(EventSeq(1)), &smaller, marked),
            Ok(3)
        );
        assert!(compare(EventSeq(2), Some(&new), Some(EventSeq(1)), &smaller, NONE).is_err());
    }

    #[test]
    fn a_difference_at_a_redacted_value_is_counted_not_reported() {
        let e = recorded(EventPayload::RunFailed {
            reason: "key [REDACTED:provider-key] refused".into(),
        });
        let now = EventPayload::RunFailed {
            reason: "key sk-other refused".into(),
        };
        assert_eq!(
            compare(EventSeq(2), Some(&e), Some(EventSeq(1)), &now, NONE),
            Ok(1)
        );
        let plain = recorded(EventPayload::RunFailed { reason: "x".into() });
        assert!(compare(EventSeq(2), Some(&plain), Some(EventSeq(1)), &now, NONE).is_err());
    }
}
