//! The application's one [`Fetcher`]: built from the config's `[web]`
//! table and shared by every run of this process, so its per-URL cache is
//! shared too. Built again only when `[web]` changed.

use super::Application;
use bearagent_kernel::{WebRule, WebRuleDecision};
use bearagent_tools::web::{FetchConfig, Fetcher, FloorExceptions};
use std::sync::Arc;

impl Application {
    /// The fetcher for a run starting now. Err: why `web_fetch` cannot
    /// run (an unreadable config, a client that would not build); the run
    /// goes on, and each fetch fails with it.
    pub(crate) fn fetcher(&self) -> Result<Arc<Fetcher>, String> {
        let web = self
            .config()
            .map_err(|e| format!("the config could not be read: {e}"))?
            .web;
        let mut slot = self
            .web
            .lock()
            .map_err(|_| "the fetcher's lock is poisoned".to_owned())?;
        if let Some((built_from, fetcher)) = slot.as_ref() {
            if *built_from == web {
                return Ok(fetcher.clone());
            }
        }
        let exceptions =
            FloorExceptions::parse(&web.allow_private_hosts).map_err(|e| e.to_string())?;
        let config = FetchConfig {
            exceptions,
            offline: web.offline,
            ..FetchConfig::default()
        };
        let fetcher =
            Arc::new(Fetcher::new(config, self.clock.clone()).map_err(|e| e.to_string())?);
        *slot = Some((web, fetcher.clone()));
        Ok(fetcher)
    }
}

impl Application {
    /// Remembers "allow fetches of `domain`" from an approval, in the
    /// user's config (`[web] rules`, never a workspace's): new runs take it
    /// with the other domain rules, where a more specific or stricter rule
    /// still wins. The same domain is kept once, its last decision winning.
    pub fn remember_web_domain(&self, domain: &str) -> Result<WebRule, crate::AppError> {
        let rule = WebRule {
            domain: domain.trim().to_ascii_lowercase(),
            decision: WebRuleDecision::Allow,
        };
        crate::config::web::domain_rules(std::slice::from_ref(&rule))
            .map_err(|e| crate::AppError::InvalidInput(format!("web domain: {e}")))?;
        let kept = rule.clone();
        self.update_config(move |config| {
            config.web.rules.retain(|r| r.domain != kept.domain);
            config.web.rules.push(kept);
            Ok(())
        })?;
        Ok(rule)
    }
}
