//! A response body: what kind it is, read up to the cap while it streams,
//! hashed, and turned into text (HTML through `htmd`, text and JSON as is).

use sha2::{Digest, Sha256};

/// How a body becomes text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    Html,
    Text,
    /// No Content-Type: decided from the bytes once read.
    Unknown,
    Binary,
}

/// Classify a Content-Type header value (parameters ignored).
pub fn kind_of(content_type: Option<&str>) -> BodyKind {
    let Some(ct) = content_type else {
        return BodyKind::Unknown;
    };
    let mime = ct
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if mime.is_empty() {
        return BodyKind::Unknown;
    }
    if mime == "text/html" || mime == "application/xhtml+xml" {
        return BodyKind::Html;
    }
    let textual_app = [
        "application/json",
        "application/xml",
        "application/javascript",
        "application/ecmascript",
        "application/x-javascript",
        "application/toml",
        "application/yaml",
        "application/x-yaml",
        "application/x-sh",
        "application/sql",
        "application/graphql",
    ];
    if mime.starts_with("text/")
        || textual_app.contains(&mime.as_str())
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
    {
        BodyKind::Text
    } else {
        BodyKind::Binary
    }
}

/// Bytes that look like a binary file: a NUL in the first 8 KiB.
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8 * 1024).any(|b| *b == 0)
}

/// Hex sha256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The body as the model reads it. Invalid UTF-8 is shown as U+FFFD (other
/// charsets are rare on the pages an agent reads; the raw bytes stay in
/// the record).
pub fn to_text(kind: BodyKind, bytes: &[u8]) -> String {
    let raw = String::from_utf8_lossy(bytes);
    match kind {
        BodyKind::Html => html_to_markdown(&raw),
        _ => raw.into_owned(),
    }
}

/// HTML to Markdown with `htmd`; what a reader never sees (scripts, styles,
/// forms' hidden parts) is dropped. A document `htmd` cannot read comes back
/// as its raw text rather than nothing.
pub fn html_to_markdown(html: &str) -> String {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(vec![
            "script", "style", "noscript", "template", "svg", "head", "iframe",
        ])
        .build();
    match converter.convert(html) {
        Ok(md) => md.trim().to_owned(),
        Err(_) => html.to_owned(),
    }
}

/// Bytes collected up to a cap: the rest of the stream is never read.
#[derive(Debug, Default)]
pub struct CappedBody {
    pub bytes: Vec<u8>,
    /// More bytes were offered than the cap kept.
    pub cut: bool,
}

impl CappedBody {
    /// Take a chunk; false once the cap is reached (stop reading).
    pub fn push(&mut self, chunk: &[u8], cap: usize) -> bool {
        let room = cap.saturating_sub(self.bytes.len());
        if chunk.len() > room {
            self.bytes.extend_from_slice(&chunk[..room]);
            self.cut = true;
            return false;
        }
        self.bytes.extend_from_slice(chunk);
        self.bytes.len() < cap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_are_classified() {
        assert_eq!(kind_of(Some("text/html; charset=utf-8")), BodyKind::Html);
        assert_eq!(kind_of(Some("TEXT/PLAIN")), BodyKind::Text);
        assert_eq!(kind_of(Some("application/json")), BodyKind::Text);
        assert_eq!(kind_of(Some("application/ld+json")), BodyKind::Text);
        assert_eq!(kind_of(Some("image/png")), BodyKind::Binary);
        assert_eq!(kind_of(Some("application/pdf")), BodyKind::Binary);
        assert_eq!(kind_of(None), BodyKind::Unknown);
    }

    #[test]
    fn html_becomes_markdown_without_scripts() {
        let md = to_text(
            BodyKind::Html,
            b"<html><head><title>T</title><script>evil()</script></head>\
              <body><h1>Hello</h1><p>A <a href=\"/x\">link</a>.</p></body></html>",
        );
        assert!(md.contains("# Hello"), "{md}");
        assert!(md.contains("[link](/x)"), "{md}");
        assert!(!md.contains("evil"), "{md}");
    }

    #[test]
    fn the_cap_keeps_exactly_cap_bytes() {
        let mut body = CappedBody::default();
        assert!(body.push(b"abc", 5));
        assert!(!body.push(b"defg", 5));
        assert_eq!(body.bytes, b"abcde");
        assert!(body.cut);
        let mut exact = CappedBody::default();
        assert!(!exact.push(b"abcde", 5));
        assert!(!exact.cut, "reaching the cap exactly is not a cut yet");
    }

    #[test]
    fn sha256_is_hex() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
