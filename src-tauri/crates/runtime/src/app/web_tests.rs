//! Approvals that learn, for the web: a remembered domain is an allow
//! rule in the user's config.

use super::tests::fixture;
use bearagent_kernel::WebRuleDecision;

#[test]
fn a_remembered_domain_is_an_allow_rule_in_the_config_kept_once() {
    let f = fixture();
    f.app.remember_web_domain("Docs.RS").unwrap();
    f.app.remember_web_domain("docs.rs").unwrap();
    let rules = f.app.config().unwrap().web.rules;
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0].domain, "docs.rs");
    assert_eq!(rules[0].decision, WebRuleDecision::Allow);
    assert!(f.app.remember_web_domain("https://x.test/").is_err());
}
