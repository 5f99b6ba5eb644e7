//! Where a fetch may go: the URL as asked, normalised (HTTPS unless plain
//! HTTP was asked for or the host is one the user's config lists), and each
//! hop checked against the floor before anything connects. IP literals are
//! checked here because no resolver sees them; names are checked by the
//! resolver on the addresses it answers.

use crate::web::floor::{self, FloorExceptions};
use crate::web::outcome::FetchError;
use reqwest::Url;
use std::net::IpAddr;

/// Parse and normalise a URL to fetch: http(s) only, no credentials, no
/// fragment; `http` becomes `https` unless `plain_http` or the host is
/// listed in `exceptions`.
pub fn normalise(
    raw: &str,
    plain_http: bool,
    exceptions: &FloorExceptions,
) -> Result<Url, FetchError> {
    let invalid = |reason: &str| FetchError::InvalidUrl {
        url: raw.to_owned(),
        reason: reason.to_owned(),
    };
    let mut url = Url::parse(raw.trim()).map_err(|e| invalid(&e.to_string()))?;
    check_shape(&url).map_err(invalid)?;
    url.set_fragment(None);
    if url.scheme() == "http" && !plain_http && !is_exempt(&url, exceptions) {
        upgrade(&mut url).map_err(|()| invalid("cannot switch it to https"))?;
    }
    Ok(url)
}

/// The URL as a call names it (checked shape, fragment dropped, scheme as
/// written): what a tool call prepares and the user approves. The fetch
/// upgrades `http` itself.
pub fn parse_url(raw: &str) -> Result<Url, FetchError> {
    normalise(raw, true, &FloorExceptions::none())
}

/// http(s), a host, and no user:password (a URL is shown to the user and
/// recorded; credentials in it would leak both ways).
fn check_shape(url: &Url) -> Result<(), &'static str> {
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err("only http and https URLs are fetched");
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("no host");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("URLs with a user name or password are not fetched");
    }
    Ok(())
}

/// `http://host[:80]/…` → `https://host/…`; another explicit port is kept.
fn upgrade(url: &mut Url) -> Result<(), ()> {
    let port = url.port();
    url.set_scheme("https")?;
    if port == Some(80) {
        url.set_port(None)?;
    }
    Ok(())
}

/// The host as [`FloorExceptions`] compares it, and the port in use.
pub fn host_port(url: &Url) -> (String, u16) {
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    (host, url.port_or_known_default().unwrap_or(0))
}

/// Whether the user's config lists this URL's host (and port).
pub fn is_exempt(url: &Url, exceptions: &FloorExceptions) -> bool {
    let (host, port) = host_port(url);
    exceptions.exempts(&host, port)
}

/// Before a hop connects: an IP literal on the floor is refused here (the
/// resolver never sees it); names are refused by the resolver.
pub fn check_hop(url: &Url, exempt: bool) -> Result<(), FetchError> {
    if exempt {
        return Ok(());
    }
    let ip = match url.host() {
        Some(url::Host::Ipv4(v4)) => IpAddr::V4(v4),
        Some(url::Host::Ipv6(v6)) => IpAddr::V6(v6),
        Some(url::Host::Domain(name)) => {
            return floor::check_name(name).map_err(|reason| FetchError::Blocked {
                address: name.to_owned(),
                reason,
            });
        }
        None => return Ok(()),
    };
    floor::check_ip(ip).map_err(|reason| FetchError::Blocked {
        address: ip.to_string(),
        reason,
    })
}

/// Where a redirect goes, resolved against the URL that answered it.
pub fn redirect_target(
    from: &Url,
    location: &str,
    plain_http: bool,
    exceptions: &FloorExceptions,
) -> Result<Url, FetchError> {
    let joined = from.join(location.trim()).map_err(|e| FetchError::Http {
        detail: format!("redirect to an invalid URL `{location}`: {e}"),
    })?;
    normalise(joined.as_str(), plain_http, exceptions)
}

/// Redirects are followed within one host only (scheme and port may
/// change; every hop is checked again).
pub fn same_host(a: &Url, b: &Url) -> bool {
    a.host_str().map(str::to_ascii_lowercase) == b.host_str().map(str::to_ascii_lowercase)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::floor::FloorReason;

    fn none() -> FloorExceptions {
        FloorExceptions::none()
    }

    #[test]
    fn http_is_upgraded_unless_asked_or_listed() {
        let url = normalise("http://example.com/a#frag", false, &none()).unwrap();
        assert_eq!(url.as_str(), "https://example.com/a");
        let url = normalise("http://example.com:8080/", false, &none()).unwrap();
        assert_eq!(url.as_str(), "https://example.com:8080/");
        let url = normalise("http://example.com/", true, &none()).unwrap();
        assert_eq!(url.scheme(), "http");
        let listed = FloorExceptions::parse(&["127.0.0.1:9"]).unwrap();
        let url = normalise("http://127.0.0.1:9/", false, &listed).unwrap();
        assert_eq!(url.scheme(), "http");
    }

    #[test]
    fn bad_shapes_are_refused() {
        for raw in [
            "ftp://example.com/",
            "file:///etc/passwd",
            "https://user:pw@example.com/",
            "not a url",
        ] {
            assert!(
                matches!(
                    normalise(raw, false, &none()),
                    Err(FetchError::InvalidUrl { .. })
                ),
                "{raw}"
            );
        }
    }

    #[test]
    fn ip_literals_in_every_spelling_hit_the_floor() {
        for raw in [
            "http://2130706433/",
            "http://0x7f.1/",
            "http://0177.0.0.1/",
            "http://127.1/",
            "http://[::ffff:7f00:1]/",
        ] {
            let url = normalise(raw, true, &none()).unwrap();
            assert!(
                matches!(
                    check_hop(&url, false),
                    Err(FetchError::Blocked {
                        reason: FloorReason::Loopback,
                        ..
                    })
                ),
                "{raw}"
            );
        }
    }

    #[test]
    fn redirects_resolve_relative_and_compare_hosts() {
        let from = Url::parse("https://a.test/x/y").unwrap();
        let to = redirect_target(&from, "../z", false, &none()).unwrap();
        assert_eq!(to.as_str(), "https://a.test/z");
        assert!(same_host(&from, &to));
        let other = redirect_target(&from, "https://B.test/", false, &none()).unwrap();
        assert!(!same_host(&from, &other));
    }
}
