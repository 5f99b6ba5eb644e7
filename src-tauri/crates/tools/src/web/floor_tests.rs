use super::*;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

#[test]
fn public_addresses_pass() {
    for s in [
        "93.184.216.34",
        "1.1.1.1",
        "8.8.8.8",
        "172.32.0.1",
        "100.128.0.1",
        "2606:4700::1111",
        "2a00:1450:4001::200e",
    ] {
        assert_eq!(check_ip(ip(s)), Ok(()), "{s}");
    }
}

#[test]
fn the_floor_refuses_each_range_with_its_reason() {
    let cases = [
        ("127.0.0.1", FloorReason::Loopback),
        ("127.255.0.9", FloorReason::Loopback),
        ("0.0.0.0", FloorReason::Unspecified),
        ("10.1.2.3", FloorReason::Private),
        ("172.16.0.1", FloorReason::Private),
        ("172.31.255.255", FloorReason::Private),
        ("192.168.1.1", FloorReason::Private),
        ("169.254.169.254", FloorReason::CloudMetadata),
        ("169.254.170.2", FloorReason::CloudMetadata),
        ("100.100.100.200", FloorReason::CloudMetadata),
        ("169.254.1.1", FloorReason::LinkLocal),
        ("100.64.0.1", FloorReason::SharedAddressSpace),
        ("224.0.0.1", FloorReason::Multicast),
        ("255.255.255.255", FloorReason::Reserved),
        ("192.0.2.1", FloorReason::Reserved),
        ("::1", FloorReason::Loopback),
        ("::", FloorReason::Unspecified),
        ("::ffff:127.0.0.1", FloorReason::Loopback),
        ("::ffff:169.254.169.254", FloorReason::CloudMetadata),
        ("64:ff9b::a00:1", FloorReason::Private),
        ("2002:7f00:1::", FloorReason::Loopback),
        ("fe80::1", FloorReason::LinkLocal),
        ("fc00::1", FloorReason::Private),
        ("fd12:3456::1", FloorReason::Private),
        ("fd00:ec2::254", FloorReason::CloudMetadata),
        ("ff02::1", FloorReason::Multicast),
        ("2001:0:4136:e378::1", FloorReason::Tunnel),
        ("::127.0.0.1", FloorReason::Reserved),
    ];
    for (s, reason) in cases {
        assert_eq!(check_ip(ip(s)), Err(reason), "{s}");
    }
}

#[test]
fn local_names_are_refused_before_dns() {
    for name in [
        "localhost",
        "LOCALHOST.",
        "api.localhost",
        "metadata.google.internal",
    ] {
        assert_eq!(check_name(name), Err(FloorReason::LocalName), "{name}");
    }
    assert_eq!(check_name("example.com"), Ok(()));
    assert_eq!(check_name("localhost.example.com"), Ok(()));
}

#[test]
fn exceptions_match_host_and_optional_port() {
    let ex = FloorExceptions::parse(&["127.0.0.1:8080", "wiki.corp", "[::1]"]).unwrap();
    assert!(ex.exempts("127.0.0.1", 8080));
    assert!(!ex.exempts("127.0.0.1", 6379));
    assert!(ex.exempts("WIKI.corp", 443));
    assert!(ex.exempts("[::1]", 3000));
    assert!(!ex.exempts("localhost", 8080));
}

#[test]
fn exceptions_normalise_like_urls_and_reject_non_hosts() {
    let ex = FloorExceptions::parse(&["0x7f.1:9000"]).unwrap();
    assert!(ex.exempts("127.0.0.1", 9000));
    for bad in ["", "http://x/", "a@b", "x/y"] {
        assert!(FloorExceptions::parse(&[bad]).is_err(), "{bad}");
    }
}
