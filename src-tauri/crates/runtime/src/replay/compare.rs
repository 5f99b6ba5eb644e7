//! Whether the loop's next event is the recorded one: the same seq, kind,
//! cause and payload (times aside; a request digest only where one was
//! recorded), and if not, a short field-by-field difference.

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

pub fn compare(
    seq: EventSeq,
    expected: Option<&EventEnvelope>,
    cause: Option<EventSeq>,
    payload: &EventPayload,
) -> Result<(), Divergence> {
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
    diff("payload", &want, &got, &mut fields);
    if fields.is_empty() {
        return Ok(());
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

/// Appends `path: recorded → now` for each differing leaf.
fn diff(path: &str, want: &Value, got: &Value, out: &mut Vec<String>) {
    if want == got || out.len() >= MAX_FIELDS {
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
                );
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff(&format!("{path}[{i}]"), x, y, out);
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

    fn recorded(payload: EventPayload) -> EventEnvelope {
        NewEvent::new(bearagent_kernel::testkit::at(0), Some(EventSeq(1)), payload)
            .into_envelope(RunId::new(), EventSeq(2))
    }

    #[test]
    fn the_same_event_matches_and_a_changed_field_is_named() {
        let e = recorded(EventPayload::RunFailed { reason: "x".into() });
        assert!(compare(EventSeq(2), Some(&e), Some(EventSeq(1)), &e.payload).is_ok());
        let d = compare(
            EventSeq(2),
            Some(&e),
            Some(EventSeq(1)),
            &EventPayload::RunFailed { reason: "y".into() },
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
            &requested(Some(hash.clone()))
        )
        .is_ok());
        let new = recorded(requested(Some(hash)));
        let other = bearagent_kernel::ContentHash::parse(&"b".repeat(64)).unwrap();
        assert!(compare(
            EventSeq(2),
            Some(&new),
            Some(EventSeq(1)),
            &requested(Some(other))
        )
        .is_err());
    }
}
