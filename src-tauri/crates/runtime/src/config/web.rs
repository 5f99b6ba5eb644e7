//! `[web]`: how `web_fetch` reaches the network. Hosts past the floor
//! (`allow_private_hosts`), per-domain rules (`rules`), and `offline`.
//! Read from the user's config only, never from a workspace (DESIGN 11).

use bearagent_kernel::{WebRule, WebRuleDecision};
use bearagent_tools::web::{DomainRule, DomainRules, FloorExceptions, RuleAction};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebEntry {
    /// Hosts (with an optional `:port`) fetches may reach although the
    /// floor refuses their addresses: a local dev server, an intranet wiki.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_private_hosts: Vec<String>,
    /// `[{ domain = "docs.rs", decision = "allow" }, …]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<WebRule>,
    /// No network: the cache answers what it can, other fetches fail.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub offline: bool,
}

impl WebEntry {
    /// `(field, message)` for the first entry that does not parse.
    pub fn check(&self) -> Result<(), (String, String)> {
        FloorExceptions::parse(&self.allow_private_hosts)
            .map_err(|e| ("web.allow_private_hosts".to_owned(), e.to_string()))?;
        domain_rules(&self.rules).map_err(|e| ("web.rules".to_owned(), e))?;
        Ok(())
    }
}

/// The recorded rules as the decision takes them. Err: a domain that is
/// not a host pattern (the config check refuses it before any run).
pub fn domain_rules(rules: &[WebRule]) -> Result<DomainRules, String> {
    rules
        .iter()
        .map(|r| {
            let action = match r.decision {
                WebRuleDecision::Allow => RuleAction::Allow,
                WebRuleDecision::Ask => RuleAction::Ask,
                WebRuleDecision::Deny => RuleAction::Deny,
            };
            DomainRule::parse(&r.domain, action).map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, _>>()
        .map(DomainRules::new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_hosts_and_patterns_name_their_field() {
        let mut web = WebEntry {
            allow_private_hosts: vec!["127.0.0.1:8080".into()],
            rules: vec![WebRule {
                domain: "*.docs.rs".into(),
                decision: WebRuleDecision::Allow,
            }],
            offline: false,
        };
        assert_eq!(web.check(), Ok(()));
        web.rules[0].domain = "https://x.test/".into();
        assert_eq!(web.check().unwrap_err().0, "web.rules");
        web.allow_private_hosts.push("a/b".into());
        assert_eq!(web.check().unwrap_err().0, "web.allow_private_hosts");
    }
}
