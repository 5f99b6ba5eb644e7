//! Given text with secrets of each kind, the redactor replaces each with
//! its marker and counts distinct values; ordinary code is left alone.

use super::*;
use serde_json::json;

fn redact(known: Vec<(String, &'static str)>, text: &str) -> (Option<String>, Vec<Redaction>) {
    let mut tally = Tally::default();
    let out = Redactor::new(known).text(text, &mut tally);
    (out, tally.summary())
}

fn counts(r: &[Redaction]) -> Vec<(&str, usize)> {
    r.iter().map(|r| (r.kind.as_str(), r.count)).collect()
}

#[test]
fn every_pattern_compiles() {
    assert_eq!(COMPILED.len(), PATTERNS.len());
}

#[test]
fn each_token_shape_is_redacted_with_its_kind() {
    let github = format!("ghp_{}", "a1B2".repeat(9));
    let cases = [
        ("AKIAIOSFODNN7EXAMPLE", "token:aws"),
        ("sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "token:anthropic"),
        ("sk-proj-abcdefghijklmnopqrstuv", "token:openai"),
        (github.as_str(), "token:github"),
        (
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
            "token:github",
        ),
        ("xoxb-1234567890-abcdefghij", "token:slack"),
        ("AIzaSyA1234567890abcdefghijklmnopqrstuv", "token:google"),
    ];
    for (token, kind) in cases {
        let (out, tally) = redact(Vec::new(), &format!("token = \"{token}\"; again {token}"));
        let out = out.unwrap_or_else(|| panic!("{token} not found"));
        assert!(!out.contains(token), "{out}");
        assert_eq!(
            out,
            format!("token = \"[REDACTED:{kind}]\"; again [REDACTED:{kind}]")
        );
        assert_eq!(counts(&tally), [(kind, 1)], "{token}");
    }
}

#[test]
fn a_private_key_block_goes_whole() {
    let pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQQQ=\n-----END OPENSSH PRIVATE KEY-----";
    let (out, tally) = redact(Vec::new(), &format!("key:\n{pem}\nend"));
    assert_eq!(out.as_deref(), Some("key:\n[REDACTED:private-key]\nend"));
    assert_eq!(counts(&tally), [("private-key", 1)]);
}

#[test]
fn known_values_go_first_longest_first_and_are_counted_once() {
    let known = vec![
        ("hunter2-password-x".to_owned(), "env-file"),
        ("hunter2-password-x-long".to_owned(), "provider-key"),
        ("hunter2-password-x".to_owned(), "provider-key"),
    ];
    let (out, tally) = redact(
        known,
        "a hunter2-password-x-long b hunter2-password-x c hunter2-password-x",
    );
    assert_eq!(
        out.as_deref(),
        Some("a [REDACTED:provider-key] b [REDACTED:env-file] c [REDACTED:env-file]")
    );
    assert_eq!(counts(&tally), [("env-file", 1), ("provider-key", 1)]);
}

#[test]
fn json_strings_are_redacted_and_the_json_stays_valid() {
    let secret = "va\"lue-with-quote-123";
    let mut value = json!({"arguments": {"content": format!("KEY={secret}\n"), "n": 3},
        "list": [secret, true]});
    let mut tally = Tally::default();
    Redactor::new(vec![(secret.to_owned(), "env-file")]).json(&mut value, &mut tally);
    assert_eq!(
        value,
        json!({"arguments": {"content": "KEY=[REDACTED:env-file]\n", "n": 3},
            "list": ["[REDACTED:env-file]", true]})
    );
    assert!(!value.to_string().contains("lue-with-quote"));
}

#[test]
fn ordinary_code_is_not_touched() {
    let code = r#"
fn main() {
    let api_key = std::env::var("OPENAI_API_KEY")?; // sk-... goes here
    let task_name = "ask-for-more-than-twenty-chars";
    let sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    println!("ghp_ tokens are 36 chars; AKIA ids are 20; xoxb- is Slack");
    // -----BEGIN PUBLIC KEY----- is no secret
}
"#;
    let (out, tally) = redact(Vec::new(), code);
    assert_eq!(out, None);
    assert!(tally.is_empty());
}

#[test]
fn a_secret_file_gives_its_values_not_its_names_or_plain_words() {
    let env = "# comment=ignored-comment-value\nexport API_KEY=\"abc123def456ghi\"\nDEBUG=0\n\
               NODE_ENV=production\nTOKEN='tok_99887766'\nEMPTY=\nnot a line\n\
               //registry.npmjs.org/:_authToken=npm_0123456789abcdef\n";
    let values: Vec<String> = file_values(env).into_iter().map(|(v, _)| v).collect();
    assert_eq!(
        values,
        ["abc123def456ghi", "tok_99887766", "npm_0123456789abcdef"]
    );
    let pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n";
    assert_eq!(file_values(pem), [(pem.trim_end().to_owned(), "key-file")]);
}
