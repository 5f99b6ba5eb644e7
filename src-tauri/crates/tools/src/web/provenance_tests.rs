use super::*;

#[test]
fn urls_are_found_in_running_text() {
    let text = "Read https://docs.rs/htmd/latest/htmd/. Also (see http://a.test/x_(y)) \
                and [the spec](https://b.test/spec?a=1&b=2#part), or www.c.test/page!";
    assert_eq!(
        extract_urls(text),
        [
            "https://docs.rs/htmd/latest/htmd/",
            "http://a.test/x_(y)",
            "https://b.test/spec?a=1&b=2#part",
            "https://www.c.test/page",
        ]
    );
}

#[test]
fn nothing_is_made_of_bare_schemes_or_embedded_www() {
    assert!(extract_urls("http:// and https://").is_empty());
    assert_eq!(
        extract_urls("mail me@www.x.test or see https://a.test/www.y"),
        ["https://a.test/www.y"]
    );
    assert_eq!(extract_urls("HTTPS://A.TEST/Z"), ["HTTPS://A.TEST/Z"]);
}

#[test]
fn markdown_links_resolve_against_the_page() {
    let md = "[a](/docs/x) [b](../up) [c](https://other.test/) [d](mailto:x@y) [e](#top)";
    assert_eq!(
        extract_links("https://site.test/guide/intro", md),
        [
            "https://site.test/docs/x",
            "https://site.test/up",
            "https://other.test/",
            "https://site.test/guide/intro#top",
        ]
    );
}

#[test]
fn classification_follows_where_the_url_was_seen() {
    let mut known = KnownUrls::new();
    known.add_user_text("compare https://Docs.rs/htmd and http://example.test:80/a#x");
    known.add_fetched_page(
        "https://docs.rs/htmd",
        "see [guide](/htmd/guide) and https://github.com/letmutex/htmd",
    );
    assert_eq!(
        known.classify("https://docs.rs/htmd"),
        UrlOrigin::UserWritten
    );
    assert_eq!(
        known.classify("https://example.test/a"),
        UrlOrigin::UserWritten,
        "http vs https, port 80, fragment: the same URL"
    );
    assert_eq!(
        known.classify("https://docs.rs/htmd/guide"),
        UrlOrigin::FromFetchedPage
    );
    assert_eq!(
        known.classify("https://github.com/letmutex/htmd#readme"),
        UrlOrigin::FromFetchedPage
    );
}

#[test]
fn assembled_urls_are_model_made() {
    let mut known = KnownUrls::new();
    known.add_user_text("look at https://a.test/search");
    for url in [
        "https://a.test/search?q=SECRET_TOKEN",
        "https://a.test/search/",
        "https://evil.test/?d=a.test",
        "https://a.test.evil.test/search",
        "not a url",
    ] {
        assert_eq!(known.classify(url), UrlOrigin::ModelMade, "{url}");
    }
}
