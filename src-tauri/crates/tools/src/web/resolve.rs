//! Name resolution with the floor inside it. reqwest connects to exactly the
//! addresses this resolver hands back, so the addresses checked are the ones
//! connected to: a DNS answer that changes between a check and a connect
//! (rebinding) cannot slip past, because there is no second question.

use crate::web::floor::{self, FloorReason};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;

/// A DNS lookup: the system's in production, a table in tests (so a name
/// resolving to 127.0.0.1, or to several addresses, can be tested offline).
pub trait Lookup: Send + Sync {
    fn lookup(&self, host: &str) -> Pin<Box<dyn Future<Output = io::Result<Vec<IpAddr>>> + Send>>;
}

/// The system resolver (getaddrinfo on a blocking thread, via tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemLookup;

impl Lookup for SystemLookup {
    fn lookup(&self, host: &str) -> Pin<Box<dyn Future<Output = io::Result<Vec<IpAddr>>> + Send>> {
        let host = host.to_owned();
        Box::pin(async move {
            let addrs = tokio::net::lookup_host((host.as_str(), 0)).await?;
            Ok(addrs.map(|a| a.ip()).collect())
        })
    }
}

/// The floor refused an address (or a name) this fetch would have reached.
/// Travels inside reqwest's error and is found again by downcasting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{address} is {reason}")]
pub struct Refused {
    pub address: String,
    pub reason: FloorReason,
}

/// DNS gave no answer: the usual face of being offline.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot resolve {host}: {detail}")]
pub struct LookupFailed {
    pub host: String,
    pub detail: String,
}

/// reqwest's resolver: looks the name up and, unless `checked` is off (the
/// client for hosts the user's config lists), refuses the whole answer when
/// any address in it is on the floor — a name that answers both a public and
/// a private address is a rebinding attempt, not a choice.
pub(crate) struct FloorResolver {
    lookup: Arc<dyn Lookup>,
    checked: bool,
}

impl FloorResolver {
    pub(crate) fn new(lookup: Arc<dyn Lookup>, checked: bool) -> Self {
        Self { lookup, checked }
    }
}

impl Resolve for FloorResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        let lookup = Arc::clone(&self.lookup);
        let checked = self.checked;
        Box::pin(async move {
            let ips = resolve_checked(lookup.as_ref(), &host, checked).await?;
            let addrs: Addrs = Box::new(ips.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

async fn resolve_checked(
    lookup: &dyn Lookup,
    host: &str,
    checked: bool,
) -> Result<Vec<IpAddr>, BoxError> {
    if checked {
        floor::check_name(host).map_err(|reason| refused(host, reason))?;
    }
    let ips = lookup.lookup(host).await.map_err(|e| LookupFailed {
        host: host.to_owned(),
        detail: e.to_string(),
    })?;
    if ips.is_empty() {
        return Err(Box::new(LookupFailed {
            host: host.to_owned(),
            detail: "no addresses".into(),
        }));
    }
    if checked {
        for ip in &ips {
            floor::check_ip(*ip).map_err(|reason| refused(&format!("{host} ({ip})"), reason))?;
        }
    }
    Ok(ips)
}

fn refused(address: &str, reason: FloorReason) -> BoxError {
    Box::new(Refused {
        address: address.to_owned(),
        reason,
    })
}

/// Our own error somewhere down reqwest's error chain.
pub(crate) fn find_in_chain<'a, T: std::error::Error + 'static>(
    err: &'a (dyn std::error::Error + 'static),
) -> Option<&'a T> {
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = current {
        if let Some(found) = e.downcast_ref::<T>() {
            return Some(found);
        }
        current = e.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Answers a public address first, then loopback: a rebinding server.
    struct Flip(AtomicUsize);

    impl Lookup for Flip {
        fn lookup(
            &self,
            _host: &str,
        ) -> Pin<Box<dyn Future<Output = io::Result<Vec<IpAddr>>> + Send>> {
            let first = self.0.fetch_add(1, Ordering::SeqCst) == 0;
            let ip: IpAddr = if first {
                [93, 184, 216, 34]
            } else {
                [127, 0, 0, 1]
            }
            .into();
            Box::pin(async move { Ok(vec![ip]) })
        }
    }

    async fn resolve(r: &FloorResolver, name: &str) -> Result<Vec<SocketAddr>, BoxError> {
        let name = Name::from_str(name).map_err(|_| "bad name")?;
        r.resolve(name).await.map(Iterator::collect)
    }

    #[tokio::test]
    async fn every_answer_is_checked_where_it_is_used() {
        let r = FloorResolver::new(Arc::new(Flip(AtomicUsize::new(0))), true);
        let first = resolve(&r, "rebind.test").await.unwrap();
        assert_eq!(first, [SocketAddr::from(([93, 184, 216, 34], 0))]);
        let second = resolve(&r, "rebind.test").await.unwrap_err();
        let refused = second.downcast_ref::<Refused>().unwrap();
        assert_eq!(refused.reason, FloorReason::Loopback);
        assert_eq!(refused.address, "rebind.test (127.0.0.1)");
    }

    #[tokio::test]
    async fn the_unchecked_resolver_is_for_listed_hosts_only() {
        let r = FloorResolver::new(Arc::new(Flip(AtomicUsize::new(1))), false);
        let addrs = resolve(&r, "wiki.corp").await.unwrap();
        assert_eq!(addrs, [SocketAddr::from(([127, 0, 0, 1], 0))]);
    }
}
