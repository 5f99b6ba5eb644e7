//! The SSRF floor: addresses no rule lifts. A fetch may never reach the
//! machine itself, the local network or a cloud metadata service, however
//! the address is spelled — the check runs on the address DNS answered (and
//! on IP literals, which the URL parser has already normalised from forms
//! like `2130706433` or `0x7f.1`). The only way past it is a host the
//! user's own config lists explicitly ([`FloorExceptions`]).

use reqwest::Url;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is on the floor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloorReason {
    Loopback,
    Unspecified,
    Private,
    LinkLocal,
    CloudMetadata,
    /// Carrier-grade NAT (100.64.0.0/10), where some clouds keep metadata.
    SharedAddressSpace,
    Multicast,
    /// Broadcast, reserved, documentation and benchmarking ranges: never a
    /// public web server.
    Reserved,
    /// IPv6 forms that tunnel an IPv4 address we cannot see past (Teredo).
    Tunnel,
    /// A name that always means this machine (`localhost`, `*.localhost`)
    /// or a metadata service (`metadata.google.internal`).
    LocalName,
}

impl fmt::Display for FloorReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FloorReason::Loopback => "a loopback address (this machine)",
            FloorReason::Unspecified => "the unspecified address (this machine)",
            FloorReason::Private => "a private network address",
            FloorReason::LinkLocal => "a link-local address",
            FloorReason::CloudMetadata => "a cloud metadata service",
            FloorReason::SharedAddressSpace => "a carrier-grade NAT address",
            FloorReason::Multicast => "a multicast address",
            FloorReason::Reserved => "a reserved address",
            FloorReason::Tunnel => "a tunnelled IPv6 address",
            FloorReason::LocalName => "a name for this machine or a metadata service",
        })
    }
}

/// Known metadata endpoints, named before the wider range they sit in so
/// the refusal says what was at stake.
const METADATA_V4: [Ipv4Addr; 3] = [
    Ipv4Addr::new(169, 254, 169, 254), // AWS, GCP, Azure, Oracle, DigitalOcean
    Ipv4Addr::new(169, 254, 170, 2),   // AWS ECS task metadata
    Ipv4Addr::new(100, 100, 100, 200), // Alibaba Cloud
];

/// `Err` when `ip` is on the floor.
pub fn check_ip(ip: IpAddr) -> Result<(), FloorReason> {
    match ip {
        IpAddr::V4(v4) => check_v4(v4),
        IpAddr::V6(v6) => check_v6(v6),
    }
}

fn check_v4(ip: Ipv4Addr) -> Result<(), FloorReason> {
    let [a, b, c, _] = ip.octets();
    let reason = if METADATA_V4.contains(&ip) {
        FloorReason::CloudMetadata
    } else if a == 0 {
        FloorReason::Unspecified // 0.0.0.0/8 reaches this machine on Linux
    } else if a == 127 {
        FloorReason::Loopback
    } else if a == 10 || (a == 172 && (16..=31).contains(&b)) || (a == 192 && b == 168) {
        FloorReason::Private
    } else if a == 169 && b == 254 {
        FloorReason::LinkLocal
    } else if a == 100 && (64..=127).contains(&b) {
        FloorReason::SharedAddressSpace
    } else if (224..=239).contains(&a) {
        FloorReason::Multicast
    } else if a >= 240
        || (a == 192 && b == 0 && (c == 0 || c == 2))
        || (a == 198 && (b == 18 || b == 19))
        || (a == 198 && b == 51 && c == 100)
        || (a == 203 && b == 0 && c == 113)
    {
        FloorReason::Reserved
    } else {
        return Ok(());
    };
    Err(reason)
}

fn check_v6(ip: Ipv6Addr) -> Result<(), FloorReason> {
    // Forms that carry an IPv4 address are judged by that address.
    if let Some(v4) = embedded_v4(ip) {
        return check_v4(v4);
    }
    let s = ip.segments();
    let reason = if ip.is_loopback() {
        FloorReason::Loopback
    } else if ip.is_unspecified() {
        FloorReason::Unspecified
    } else if s[0] == 0xfd00 && s[1] == 0x0ec2 {
        FloorReason::CloudMetadata // AWS fd00:ec2::254
    } else if (s[0] & 0xfe00) == 0xfc00 {
        FloorReason::Private // unique local fc00::/7
    } else if (s[0] & 0xffc0) == 0xfe80 || (s[0] & 0xffc0) == 0xfec0 {
        FloorReason::LinkLocal // fe80::/10, and the old site-local fec0::/10
    } else if (s[0] & 0xff00) == 0xff00 {
        FloorReason::Multicast
    } else if s[0] == 0x2001 && s[1] == 0 {
        FloorReason::Tunnel // Teredo 2001::/32
    } else if (s[0] == 0x2001 && s[1] == 0x0db8)
        || (s[0] == 0x0100 && s[1..4] == [0, 0, 0])
        || s[0..6] == [0, 0, 0, 0, 0, 0]
    {
        // Documentation, discard-only, and the rest of ::/96 (the
        // deprecated IPv4-compatible form).
        FloorReason::Reserved
    } else {
        return Ok(());
    };
    Err(reason)
}

/// The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`), NAT64
/// (`64:ff9b::a.b.c.d`) or 6to4 (`2002:AABB:CCDD::`) address.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    let s = ip.segments();
    let o = ip.octets();
    if s[0] == 0x0064 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0] {
        return Some(Ipv4Addr::new(o[12], o[13], o[14], o[15]));
    }
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new(o[2], o[3], o[4], o[5]));
    }
    None
}

/// Names refused before any DNS question: they mean this machine or a
/// metadata service whatever a resolver might answer.
pub fn check_name(host: &str) -> Result<(), FloorReason> {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let local = host == "localhost"
        || host.ends_with(".localhost")
        || host == "localhost.localdomain"
        || host == "ip6-localhost"
        || host == "ip6-loopback";
    let metadata = host == "metadata.google.internal" || host == "metadata";
    if local || metadata {
        Err(FloorReason::LocalName)
    } else {
        Ok(())
    }
}

/// Hosts the user's config lists explicitly: the floor is lifted for them
/// (a local dev server, an intranet wiki). An entry is a host with an
/// optional port (`127.0.0.1:8080`, `[::1]`, `wiki.corp`); with a port it
/// lifts the floor for that port only.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FloorExceptions {
    entries: Vec<(String, Option<u16>)>,
}

/// A config entry that is not a host.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{entry}` is not a host name or address (with an optional :port)")]
pub struct BadException {
    pub entry: String,
}

impl FloorExceptions {
    pub fn none() -> Self {
        Self::default()
    }

    /// Parse the config's list. Hosts are normalised the way URLs are, so
    /// `0x7f.0.0.1` and `127.0.0.1` name the same exception.
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> Result<Self, BadException> {
        let mut parsed = Vec::new();
        for entry in entries {
            let entry = entry.as_ref().trim();
            let bad = || BadException {
                entry: entry.to_owned(),
            };
            if entry.is_empty() || entry.contains(['/', '@', '?', '#']) {
                return Err(bad());
            }
            let url = Url::parse(&format!("http://{entry}/")).map_err(|_| bad())?;
            let host = url.host_str().ok_or_else(bad)?.to_ascii_lowercase();
            parsed.push((host, url.port()));
        }
        Ok(Self { entries: parsed })
    }

    /// Whether `host` (as [`Url::host_str`] gives it) on `port` is listed.
    pub fn exempts(&self, host: &str, port: u16) -> bool {
        let host = host.to_ascii_lowercase();
        self.entries
            .iter()
            .any(|(h, p)| *h == host && p.is_none_or(|p| p == port))
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
#[path = "floor_tests.rs"]
mod tests;
