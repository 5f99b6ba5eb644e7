//! Finding secrets in text and putting a marker in their place: the values
//! BearAgent knows are secret (keys it holds, values of secret-looking
//! files the run saw) and well-known token shapes. Pure: no IO, so the same
//! inputs always give the same bundle.

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

/// What a marker starts with; replay knows a redacted spot by it.
pub const MARKER_PREFIX: &str = "[REDACTED:";

/// How many distinct values of one kind a bundle redacted (never the
/// values themselves).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Redaction {
    pub kind: String,
    pub count: usize,
}

/// Token shapes worth redacting wherever they appear, more specific first
/// (an Anthropic key is also an `sk-` key).
const PATTERNS: &[(&str, &str)] = &[
    (
        r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?-----END [A-Z0-9 ]*PRIVATE KEY-----",
        "private-key",
    ),
    (r"\bAKIA[0-9A-Z]{16}\b", "token:aws"),
    (r"\bsk-ant-[A-Za-z0-9_-]{20,}", "token:anthropic"),
    (r"\bsk-[A-Za-z0-9_-]{20,}", "token:openai"),
    (r"\bgh[pousr]_[A-Za-z0-9]{36}\b", "token:github"),
    (r"\bgithub_pat_[A-Za-z0-9_]{22,}", "token:github"),
    (r"\bxox[abprs]-[A-Za-z0-9-]{10,}", "token:slack"),
    (r"\bAIza[0-9A-Za-z_-]{35}", "token:google"),
];

/// The patterns, compiled once. They are constants (a test compiles each),
/// so none is ever left out.
static COMPILED: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    PATTERNS
        .iter()
        .filter_map(|(p, kind)| Some((Regex::new(p).ok()?, *kind)))
        .collect()
});

/// The distinct values redacted so far, by kind.
#[derive(Debug, Default)]
pub struct Tally(BTreeMap<&'static str, BTreeSet<String>>);

impl Tally {
    fn note(&mut self, kind: &'static str, value: &str) {
        self.0.entry(kind).or_default().insert(value.to_owned());
    }

    /// Counts per kind, in kind order.
    pub fn summary(&self) -> Vec<Redaction> {
        self.0
            .iter()
            .map(|(kind, values)| Redaction {
                kind: (*kind).to_owned(),
                count: values.len(),
            })
            .collect()
    }
}

/// Known secret values (longest first, so a value that contains another
/// goes whole) and the token shapes.
pub struct Redactor {
    literals: Vec<(String, &'static str)>,
}

impl Redactor {
    /// `known`: values with their kind; blank or duplicate values are
    /// dropped, the first kind named for a value wins.
    pub fn new(known: Vec<(String, &'static str)>) -> Self {
        let mut seen = BTreeSet::new();
        let mut literals: Vec<(String, &'static str)> = known
            .into_iter()
            .filter(|(v, _)| !v.trim().is_empty() && seen.insert(v.clone()))
            .collect();
        literals.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        Self { literals }
    }

    /// `text` with each secret replaced by `[REDACTED:kind]`; None when
    /// nothing was found.
    pub fn text(&self, text: &str, tally: &mut Tally) -> Option<String> {
        let mut out: Option<String> = None;
        for (value, kind) in &self.literals {
            let current = out.as_deref().unwrap_or(text);
            if current.contains(value.as_str()) {
                tally.note(kind, value);
                out = Some(current.replace(value.as_str(), &marker(kind)));
            }
        }
        for (re, kind) in COMPILED.iter() {
            let current = out.as_deref().unwrap_or(text);
            if !re.is_match(current) {
                continue;
            }
            let replaced = re.replace_all(current, |c: &regex::Captures<'_>| {
                tally.note(kind, &c[0]);
                marker(kind)
            });
            out = Some(replaced.into_owned());
        }
        out
    }

    /// Every string in `value` (object keys aside) redacted in place, so
    /// the JSON stays valid whatever the secret's characters.
    pub fn json(&self, value: &mut Value, tally: &mut Tally) {
        match value {
            Value::String(s) => {
                if let Some(new) = self.text(s, tally) {
                    *s = new;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.json(v, tally)),
            Value::Object(map) => map.values_mut().for_each(|v| self.json(v, tally)),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

fn marker(kind: &str) -> String {
    format!("{MARKER_PREFIX}{kind}]")
}

/// The secret values of a secret-looking file's text: the value of each
/// `KEY=VALUE` line (quotes stripped) and each PEM block whole. Short
/// values and plain words (`DEBUG=0`, `ENV=production`) are left: they
/// would redact ordinary text all over the run and are not secrets.
pub fn file_values(text: &str) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    static PEM: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"(?s)-----BEGIN [A-Z0-9 ]+-----.*?-----END [A-Z0-9 ]+-----").ok()
    });
    if let Some(pem) = PEM.as_ref() {
        out.extend(
            pem.find_iter(text)
                .map(|m| (m.as_str().to_owned(), "key-file")),
        );
    }
    for line in text.lines() {
        let line = line.trim();
        let line = line.strip_prefix("export ").unwrap_or(line);
        if line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim();
        if key.is_empty() || key.contains(char::is_whitespace) {
            continue;
        }
        let value = unquote(value.trim());
        if secret_like(value) {
            out.push((value.to_owned(), "env-file"));
        }
    }
    out
}

fn unquote(v: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = v.strip_prefix(q).and_then(|v| v.strip_suffix(q)) {
            return inner;
        }
    }
    v
}

/// Long enough, and not a plain word.
pub fn secret_like(value: &str) -> bool {
    let n = value.chars().count();
    n >= 8 && (n >= 16 || !value.chars().all(char::is_alphabetic))
}

#[cfg(test)]
#[path = "redact_tests.rs"]
mod tests;
