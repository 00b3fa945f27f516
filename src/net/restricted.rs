//! The restricted address table: where fetch_url never connects.
//!
//! A model can be talked into fetching whatever a web page, an issue or a file tells it to. The
//! dangerous targets are the ones only this machine can reach: loopback services (databases,
//! debug ports, the docker socket proxy), the private network behind it, and the cloud metadata
//! endpoint at 169.254.169.254 that hands out credentials. So every address fetch_url would
//! connect to — a literal in the URL or any answer from DNS — is checked against this table,
//! and only `trusted_cidrs` in the policy can exempt a range.
//!
//! IPv6 has several ways to carry an IPv4 address (mapped `::ffff:a.b.c.d`, the old compatible
//! `::a.b.c.d`, NAT64 `64:ff9b::/96` and the local-use `64:ff9b:1::/48`, 6to4 `2002::/16`,
//! Teredo `2001::/32`); each of these reaches the IPv4 it carries, so it is judged as that
//! IPv4. Otherwise `[::ffff:127.0.0.1]` would be a second spelling of loopback.
//!
//! The tables hold every entry of the IANA IPv4 and IPv6 Special-Purpose Address Registries
//! that is not globally reachable (as published in 2025, with RFC 9602's SRv6 SIDs, RFC 9637's
//! documentation prefix and RFC 9780's dummy prefix), the more specific entries first so the
//! refusal names the right one, plus multicast, class E and the deprecated site-local range.
//! Two of those entries carry an IPv4 (IPv4-mapped, local-use NAT64): they are judged as the
//! IPv4 first, for the clearer message, and refused whatever it is. Inside 2001::/23 the
//! registry marks some blocks globally reachable (anycast, AMT, AS112, ORCHIDv2, DETs); those
//! stay reachable, and Teredo is judged by the IPv4 it carries.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::{IpNet, Ipv4Net, Ipv6Net};

use crate::error::RestrictedRange;

/// Why an address is refused: the range it fell in, and the IPv4 it carried if it was judged
/// as one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restricted {
    pub address: IpAddr,
    /// The restricted range (of `embedded` when there is one).
    pub range: IpNet,
    /// What the range is, in words.
    pub label: &'static str,
    /// The IPv4 address carried inside an IPv6 one, which is what was judged.
    pub embedded: Option<Ipv4Addr>,
}

impl Restricted {
    /// The address and its range as an error carries them (and words them).
    pub fn fields(&self) -> RestrictedRange {
        RestrictedRange {
            address: self.address.to_string(),
            range: self.range.to_string(),
            label: self.label,
            embedded: self.embedded.map(|v4| v4.to_string()),
        }
    }
}

const V4: &[(&str, &str)] = &[
    ("255.255.255.255/32", "broadcast"),
    ("0.0.0.0/32", "this host on this network, reaches the local host"),
    ("0.0.0.0/8", "this network, reaches the local host"),
    ("10.0.0.0/8", "private network"),
    ("100.64.0.0/10", "carrier-grade NAT shared space"),
    ("127.0.0.0/8", "loopback"),
    (
        "169.254.0.0/16",
        "link-local, incl. the cloud metadata endpoint 169.254.169.254",
    ),
    ("172.16.0.0/12", "private network"),
    ("192.0.0.0/29", "IPv4 service continuity prefix"),
    ("192.0.0.8/32", "IPv4 dummy address"),
    ("192.0.0.170/32", "NAT64/DNS64 discovery"),
    ("192.0.0.171/32", "NAT64/DNS64 discovery"),
    ("192.0.0.0/24", "IETF protocol assignments"),
    ("192.0.2.0/24", "documentation (TEST-NET-1)"),
    ("192.168.0.0/16", "private network"),
    ("198.18.0.0/15", "benchmarking, also used by fake-ip proxies"),
    ("198.51.100.0/24", "documentation (TEST-NET-2)"),
    ("203.0.113.0/24", "documentation (TEST-NET-3)"),
    ("224.0.0.0/4", "multicast"),
    ("240.0.0.0/4", "reserved (class E)"),
];

const V6: &[(&str, &str)] = &[
    ("::/128", "unspecified, reaches the local host"),
    ("::1/128", "loopback"),
    ("100::/64", "discard-only"),
    ("100:0:0:1::/64", "dummy IPv6 prefix"),
    ("2001:2::/48", "benchmarking"),
    ("2001::/23", "IETF protocol assignments"),
    ("2001:db8::/32", "documentation"),
    ("3fff::/20", "documentation"),
    ("5f00::/16", "segment routing (SRv6) SIDs"),
    ("fc00::/7", "unique local (private network)"),
    ("fe80::/10", "link-local"),
    ("fec0::/10", "site-local (deprecated, private network)"),
    ("ff00::/8", "multicast"),
];

/// Entries that carry an IPv4 address: judged as that IPv4 first, then refused in any case.
const V6_CARRIERS: &[(&str, &str)] = &[
    ("::ffff:0:0/96", "IPv4-mapped"),
    ("64:ff9b:1::/48", "local-use IPv4/IPv6 translation"),
];

/// Blocks inside a refused entry (2001::/23) that the registry marks globally reachable, and
/// Teredo, which is judged by the IPv4 it carries.
const V6_REACHABLE_INSIDE: &[&str] = &[
    "2001:1::1/128",
    "2001:1::2/128",
    "2001:1::3/128",
    "2001:3::/32",
    "2001:4:112::/48",
    "2001:20::/28",
    "2001:30::/28",
    "2001::/32",
];

/// The range `address` falls in, or `None` when fetch_url may connect to it.
pub fn check(address: IpAddr) -> Option<Restricted> {
    match address {
        IpAddr::V4(v4) => check_v4(v4).map(|(range, label)| Restricted {
            address,
            range: IpNet::V4(range),
            label,
            embedded: None,
        }),
        IpAddr::V6(v6) => {
            if let Some((range, label)) = check_v6(v6) {
                return Some(Restricted {
                    address,
                    range: IpNet::V6(range),
                    label,
                    embedded: None,
                });
            }
            let carried = embedded_v4(v6).into_iter().find_map(|v4| {
                check_v4(v4).map(|(range, label)| Restricted {
                    address,
                    range: IpNet::V4(range),
                    label,
                    embedded: Some(v4),
                })
            });
            carried.or_else(|| {
                find_in(V6_CARRIERS, v6).map(|(range, label)| Restricted {
                    address,
                    range: IpNet::V6(range),
                    label,
                    embedded: None,
                })
            })
        }
    }
}

fn check_v4(address: Ipv4Addr) -> Option<(Ipv4Net, &'static str)> {
    V4.iter().find_map(|(range, label)| {
        let range: Ipv4Net = range.parse().ok()?;
        range.contains(&address).then_some((range, *label))
    })
}

fn check_v6(address: Ipv6Addr) -> Option<(Ipv6Net, &'static str)> {
    let reachable = V6_REACHABLE_INSIDE
        .iter()
        .filter_map(|range| range.parse::<Ipv6Net>().ok())
        .any(|range| range.contains(&address));
    if reachable {
        return None;
    }
    find_in(V6, address)
}

fn find_in(table: &[(&str, &'static str)], address: Ipv6Addr) -> Option<(Ipv6Net, &'static str)> {
    table.iter().find_map(|(range, label)| {
        let range: Ipv6Net = range.parse().ok()?;
        range.contains(&address).then_some((range, *label))
    })
}

/// The IPv4 addresses an IPv6 address carries, by the transition mechanism its prefix names.
fn embedded_v4(address: Ipv6Addr) -> Vec<Ipv4Addr> {
    let s = address.segments();
    let last32 = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    let mut carried = Vec::new();
    // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (SIIT translated), ::a.b.c.d (compatible).
    if s[..5] == [0; 5] && (s[5] == 0xffff || s[5] == 0) {
        carried.push(last32);
    }
    if s[..4] == [0; 4] && s[4] == 0xffff && s[5] == 0 {
        carried.push(last32);
    }
    // NAT64: the well-known prefix 64:ff9b::/96 and the local-use 64:ff9b:1::/48, whose
    // deployments put the IPv4 in the last 32 bits (a /96 inside the /48).
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] || s[..3] == [0x64, 0xff9b, 1] {
        carried.push(last32);
    }
    // 6to4: 2002:AABB:CCDD::/48 routes to AA.BB.CC.DD.
    if s[0] == 0x2002 {
        carried.push(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    // Teredo: 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC, server in clear, client inverted.
    if s[0] == 0x2001 && s[1] == 0 {
        carried.push(Ipv4Addr::new(
            (s[2] >> 8) as u8,
            s[2] as u8,
            (s[3] >> 8) as u8,
            s[3] as u8,
        ));
        carried.push(Ipv4Addr::from(!u32::from(last32)));
    }
    carried
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(text: &str) -> Option<Restricted> {
        check(text.parse().expect("ip"))
    }

    #[test]
    fn every_listed_range_is_refused_at_both_ends() {
        for (range, _) in V4 {
            let net: Ipv4Net = range.parse().expect("net");
            assert!(check(IpAddr::V4(net.network())).is_some(), "{range}");
            assert!(check(IpAddr::V4(net.broadcast())).is_some(), "{range}");
        }
        for (range, _) in V6.iter().chain(V6_CARRIERS) {
            let net: Ipv6Net = range.parse().expect("net");
            assert!(check(IpAddr::V6(net.network())).is_some(), "{range}");
            assert!(check(IpAddr::V6(net.broadcast())).is_some(), "{range}");
        }
    }

    #[test]
    fn public_addresses_pass() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.216.34",
            "100.63.255.255",
            "100.128.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
            "2606:4700::1111",
            "2a00:1450:4001::200e",
            "64:ff9b::808:808",
            "2001:1::1",
            "2001:3::1",
            "2001:4:112::1",
            "2001:20::1",
            "2001:30::1",
            "2001:0:808:808:0:0:f7f7:fbfb",
            "2002:808:808::1",
        ] {
            assert_eq!(blocked(ip), None, "{ip}");
        }
    }

    #[test]
    fn ranges_are_named() {
        let r = blocked("169.254.169.254").expect("blocked");
        assert_eq!(r.range.to_string(), "169.254.0.0/16");
        assert!(r.label.contains("metadata"));
        assert_eq!(blocked("255.255.255.255").expect("b").label, "broadcast");
        assert_eq!(blocked("::1").expect("b").label, "loopback");
        assert!(blocked("10.1.2.3")
            .expect("b")
            .fields()
            .to_string()
            .contains("10.0.0.0/8"));
    }

    #[test]
    fn embedded_ipv4_is_judged() {
        for (ip, v4) in [
            ("::ffff:127.0.0.1", "127.0.0.1"),
            ("::ffff:a9fe:a9fe", "169.254.169.254"),
            ("::ffff:0:10.0.0.1", "10.0.0.1"),
            ("::127.0.0.1", "127.0.0.1"),
            ("::a00:1", "10.0.0.1"),
            ("64:ff9b::7f00:1", "127.0.0.1"),
            ("64:ff9b::a9fe:a9fe", "169.254.169.254"),
            ("64:ff9b:1::c0a8:1", "192.168.0.1"),
            ("64:ff9b:1:abcd::a00:1", "10.0.0.1"),
            ("2002:7f00:1::", "127.0.0.1"),
            ("2002:a9fe:a9fe::1", "169.254.169.254"),
            ("2001:0:7f00:1::", "127.0.0.1"),
            ("2001:0:808:808:0:0:f5ff:fffe", "10.0.0.1"),
        ] {
            let r = blocked(ip).unwrap_or_else(|| panic!("{ip} passed"));
            assert_eq!(r.embedded, Some(v4.parse().expect("v4")), "{ip}");
            let described = r.fields().to_string();
            assert!(described.contains(v4), "{described}");
        }
    }
}
