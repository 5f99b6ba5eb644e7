//! Per-domain rules (`allow` / `ask` / `deny`, for an exact host or
//! `*.example.com`) and the decision for one fetch: the rules first, then
//! where the URL came from. The floor is not here — no rule lifts it; the
//! fetcher enforces it on every hop.

use crate::web::provenance::UrlOrigin;
use reqwest::Url;
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RuleAction {
    Allow,
    Ask,
    Deny,
}

impl FromStr for RuleAction {
    type Err = RuleError;
    fn from_str(s: &str) -> Result<Self, RuleError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "allow" => Ok(RuleAction::Allow),
            "ask" => Ok(RuleAction::Ask),
            "deny" => Ok(RuleAction::Deny),
            other => Err(RuleError::BadAction(other.to_owned())),
        }
    }
}

impl fmt::Display for RuleAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RuleAction::Allow => "allow",
            RuleAction::Ask => "ask",
            RuleAction::Deny => "deny",
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("`{0}` is not a rule action; use allow, ask or deny")]
    BadAction(String),
    #[error("`{0}` is not a host pattern; use example.com, *.example.com or *")]
    BadPattern(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum HostPattern {
    /// `*`: every host (the least specific rule).
    Any,
    Exact(String),
    /// `*.example.com`: hosts under example.com, not example.com itself.
    Subdomains(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainRule {
    pattern: HostPattern,
    pub action: RuleAction,
}

impl DomainRule {
    /// `pattern`: `example.com`, `*.example.com` or `*`. Hosts are
    /// normalised as URLs normalise them (lowercase, punycode).
    pub fn parse(pattern: &str, action: RuleAction) -> Result<Self, RuleError> {
        let raw = pattern.trim().to_ascii_lowercase();
        if raw == "*" {
            return Ok(Self {
                pattern: HostPattern::Any,
                action,
            });
        }
        let (wild, host) = match raw.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, raw.as_str()),
        };
        let host = normal_host(host.trim_end_matches('.'))
            .ok_or_else(|| RuleError::BadPattern(pattern.to_owned()))?;
        let pattern = match wild {
            true => HostPattern::Subdomains(host),
            false => HostPattern::Exact(host),
        };
        Ok(Self { pattern, action })
    }

    /// How specifically this rule names `host`; None when it does not.
    fn specificity(&self, host: &str) -> Option<usize> {
        match &self.pattern {
            HostPattern::Any => Some(0),
            HostPattern::Exact(h) => (h == host).then_some(usize::MAX),
            HostPattern::Subdomains(h) => host
                .strip_suffix(h.as_str())
                .is_some_and(|head| head.ends_with('.') && head.len() > 1)
                .then_some(h.len() + 1),
        }
    }
}

impl fmt::Display for DomainRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.pattern {
            HostPattern::Any => write!(f, "{} *", self.action),
            HostPattern::Exact(h) => write!(f, "{} {h}", self.action),
            HostPattern::Subdomains(h) => write!(f, "{} *.{h}", self.action),
        }
    }
}

fn normal_host(host: &str) -> Option<String> {
    if host.is_empty() || host.contains(['/', ':', '@', '?', '#', '*', ' ']) {
        return None;
    }
    let url = Url::parse(&format!("https://{host}/")).ok()?;
    url.host_str().map(str::to_owned)
}

/// The user's rules. The most specific rule naming a host decides (an exact
/// host over `*.domain`, a longer domain over a shorter, any over `*`); on a
/// tie the stricter action wins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DomainRules {
    rules: Vec<DomainRule>,
}

impl DomainRules {
    pub fn new(rules: Vec<DomainRule>) -> Self {
        Self { rules }
    }

    pub fn rule_for(&self, host: &str) -> Option<&DomainRule> {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.rules
            .iter()
            .filter_map(|r| r.specificity(&host).map(|s| (s, r.action, r)))
            .max_by_key(|(s, action, _)| (*s, *action))
            .map(|(_, _, r)| r)
    }
}

/// What to do with one fetch before it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebDecision {
    /// No rule names the host and the URL is the user's or a fetched
    /// page's: the normal read rules (the approval mode) decide.
    AsRead,
    /// An `allow` rule names the host.
    Allow,
    /// Ask the user, showing the full URL and why.
    Ask {
        url: String,
        reason: String,
    },
    Deny {
        url: String,
        reason: String,
    },
}

/// The rules first, then the URL's origin: a URL the model made asks.
pub fn decide(url: &str, origin: UrlOrigin, rules: &DomainRules) -> WebDecision {
    let Some(host) = Url::parse(url.trim())
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
    else {
        return WebDecision::Deny {
            url: url.to_owned(),
            reason: "not a URL with a host".into(),
        };
    };
    let url = url.to_owned();
    match rules.rule_for(&host) {
        Some(rule) if rule.action == RuleAction::Deny => WebDecision::Deny {
            url,
            reason: format!("your rule `{rule}` refuses {host}"),
        },
        Some(rule) if rule.action == RuleAction::Ask => WebDecision::Ask {
            url,
            reason: format!("your rule `{rule}` asks for {host}"),
        },
        Some(_) => WebDecision::Allow,
        None => match origin {
            UrlOrigin::UserWritten | UrlOrigin::FromFetchedPage => WebDecision::AsRead,
            UrlOrigin::ModelMade => WebDecision::Ask {
                url,
                reason: "the model wrote this URL: it is not in your messages or in a page \
                         fetched earlier, and a URL can carry data out"
                    .into(),
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(list: &[(&str, RuleAction)]) -> DomainRules {
        DomainRules::new(
            list.iter()
                .map(|(p, a)| DomainRule::parse(p, *a).unwrap())
                .collect(),
        )
    }

    #[test]
    fn patterns_parse_and_reject_non_hosts() {
        assert!(DomainRule::parse("Docs.RS", RuleAction::Allow).is_ok());
        assert!(DomainRule::parse("*.example.com", RuleAction::Deny).is_ok());
        for bad in ["", "a/b", "*.", "ex*ample.com", "https://x.test", "a b"] {
            assert!(DomainRule::parse(bad, RuleAction::Ask).is_err(), "{bad}");
        }
        assert_eq!("DENY".parse::<RuleAction>(), Ok(RuleAction::Deny));
        assert!("maybe".parse::<RuleAction>().is_err());
    }

    #[test]
    fn the_most_specific_rule_wins_and_ties_go_strict() {
        use RuleAction::*;
        let r = rules(&[
            ("*", Deny),
            ("*.example.com", Ask),
            ("docs.example.com", Allow),
            ("*.b.example.com", Allow),
            ("x.test", Allow),
            ("x.test", Deny),
        ]);
        let action = |h: &str| r.rule_for(h).map(|r| r.action);
        assert_eq!(action("docs.example.com"), Some(Allow));
        assert_eq!(action("a.example.com"), Some(Ask));
        assert_eq!(action("c.b.example.com"), Some(Allow));
        assert_eq!(action("example.com"), Some(Deny), "*.x does not name x");
        assert_eq!(action("evilexample.com"), Some(Deny));
        assert_eq!(action("x.test"), Some(Deny));
        assert_eq!(rules(&[]).rule_for("a.test"), None);
    }

    #[test]
    fn decisions_combine_rules_and_origin() {
        use RuleAction::*;
        let r = rules(&[
            ("docs.rs", Allow),
            ("*.evil.test", Deny),
            ("wiki.test", Ask),
        ]);
        let d = |url: &str, origin| decide(url, origin, &r);
        assert_eq!(
            d("https://docs.rs/x?q=1", UrlOrigin::ModelMade),
            WebDecision::Allow
        );
        assert!(matches!(
            d("https://a.evil.test/", UrlOrigin::UserWritten),
            WebDecision::Deny { .. }
        ));
        assert!(matches!(
            d("https://wiki.test/", UrlOrigin::UserWritten),
            WebDecision::Ask { .. }
        ));
        assert_eq!(
            d("https://a.test/", UrlOrigin::UserWritten),
            WebDecision::AsRead
        );
        assert_eq!(
            d("https://a.test/", UrlOrigin::FromFetchedPage),
            WebDecision::AsRead
        );
        let made = d("https://a.test/?leak=1", UrlOrigin::ModelMade);
        assert!(
            matches!(&made, WebDecision::Ask { url, .. } if url == "https://a.test/?leak=1"),
            "{made:?}"
        );
        assert!(matches!(
            d("nonsense", UrlOrigin::UserWritten),
            WebDecision::Deny { .. }
        ));
    }
}
