//! Where a URL came from. A URL the user wrote (goal or follow-up) or one
//! that appeared in an earlier fetched page may be fetched under the normal
//! read rules; any other — made up or assembled by the model, the way data
//! would be smuggled out in a query string — asks, showing the full URL.
//! Pure functions over text: the runtime feeds them what it recorded.

use reqwest::Url;
use std::collections::HashSet;

/// The origin of a requested URL, most trusted first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UrlOrigin {
    UserWritten,
    FromFetchedPage,
    ModelMade,
}

/// Characters that end a URL in running text.
fn ends_url(c: char) -> bool {
    c.is_whitespace() || matches!(c, '<' | '>' | '"' | '`' | '{' | '}' | '|' | '\\' | '^')
}

/// Absolute `http(s)://` URLs in `text` (and `www.` ones, as https), with
/// the punctuation that closes a sentence or a bracket trimmed off. In the
/// order they appear, duplicates kept once.
pub fn extract_urls(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let mut found = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let Some((start, prefix)) = next_start(&lower, at) else {
            break;
        };
        let end = text[start..]
            .char_indices()
            .find(|(_, c)| ends_url(*c))
            .map_or(text.len(), |(i, _)| start + i);
        let candidate = trim_tail(&text[start..end]);
        let url = match prefix {
            Prefix::Www => format!("https://{candidate}"),
            Prefix::Scheme => candidate.to_owned(),
        };
        if has_host(&url) && !found.contains(&url) {
            found.push(url);
        }
        at = end.max(start + 1);
    }
    found
}

#[derive(Clone, Copy)]
enum Prefix {
    Scheme,
    Www,
}

fn has_host(url: &str) -> bool {
    Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(|h| !h.is_empty()))
        .unwrap_or(false)
}

/// The next place a URL starts at or after `from`: a scheme, or `www.` at
/// the start of a word.
fn next_start(lower: &str, from: usize) -> Option<(usize, Prefix)> {
    let rest = &lower[from..];
    let scheme = ["https://", "http://"]
        .iter()
        .filter_map(|p| rest.find(p))
        .min()
        .map(|i| (from + i, Prefix::Scheme));
    let www = rest
        .match_indices("www.")
        .map(|(i, _)| from + i)
        .find(|&i| {
            lower[..i]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric() && !matches!(c, '.' | '/' | '-' | '@'))
        })
        .map(|i| (i, Prefix::Www));
    match (scheme, www) {
        (Some(s), Some(w)) => Some(if w.0 < s.0 { w } else { s }),
        (s, w) => s.or(w),
    }
}

/// Drop trailing sentence punctuation and closing brackets that have no
/// opening one inside the URL (`(see https://a.test/x)` → `…/x`).
fn trim_tail(mut s: &str) -> &str {
    loop {
        let Some(last) = s.chars().next_back() else {
            return s;
        };
        let unbalanced = |open: char, close: char| {
            last == close && s.matches(close).count() > s.matches(open).count()
        };
        let drop = matches!(last, '.' | ',' | ';' | ':' | '!' | '?' | '\'' | '*' | '_')
            || unbalanced('(', ')')
            || unbalanced('[', ']');
        if !drop {
            return s;
        }
        s = &s[..s.len() - last.len_utf8()];
    }
}

/// Markdown link targets (`[text](target)`), relative ones resolved
/// against the page's URL — converted pages keep their links as written.
pub fn extract_links(page_url: &str, text: &str) -> Vec<String> {
    let Ok(base) = Url::parse(page_url) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (i, _) in text.match_indices("](") {
        let rest = &text[i + 2..];
        let end = rest
            .find(|c: char| c == ')' || c.is_whitespace())
            .unwrap_or(rest.len());
        let target = rest[..end].trim_matches(['<', '>']);
        if let Ok(url) = base.join(target) {
            if matches!(url.scheme(), "http" | "https") {
                found.push(url.to_string());
            }
        }
    }
    found
}

/// The form two URLs are compared in: parsed (host lowercased, default
/// port dropped), fragment dropped, `http` counted as `https` (fetches
/// upgrade it anyway). Anything else — path, query — must match exactly.
pub fn match_key(url: &str) -> Option<String> {
    let mut url = Url::parse(url.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    url.set_fragment(None);
    if url.scheme() == "http" {
        let port = url.port();
        url.set_scheme("https").ok()?;
        if port == Some(80) {
            url.set_port(None).ok()?;
        }
    }
    Some(url.to_string())
}

/// The URLs a run has seen: written by the user, or in fetched pages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KnownUrls {
    user: HashSet<String>,
    fetched: HashSet<String>,
}

impl KnownUrls {
    pub fn new() -> Self {
        Self::default()
    }

    /// The goal or a follow-up message.
    pub fn add_user_text(&mut self, text: &str) {
        self.user
            .extend(extract_urls(text).iter().filter_map(|u| match_key(u)));
    }

    /// A fetch result: its absolute URLs and its links, relative ones
    /// resolved against `page_url` (the fetch's final URL).
    pub fn add_fetched_page(&mut self, page_url: &str, text: &str) {
        let urls = extract_urls(text)
            .into_iter()
            .chain(extract_links(page_url, text));
        self.fetched.extend(urls.filter_map(|u| match_key(&u)));
    }

    pub fn classify(&self, url: &str) -> UrlOrigin {
        let Some(key) = match_key(url) else {
            return UrlOrigin::ModelMade;
        };
        if self.user.contains(&key) {
            UrlOrigin::UserWritten
        } else if self.fetched.contains(&key) {
            UrlOrigin::FromFetchedPage
        } else {
            UrlOrigin::ModelMade
        }
    }
}

#[cfg(test)]
#[path = "provenance_tests.rs"]
mod tests;
