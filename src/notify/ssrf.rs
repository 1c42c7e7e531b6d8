//! The SSRF guard: addresses a webhook may not reach.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Which targets webhooks may reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SsrfPolicy {
    /// Allow loopback addresses (the local-development option that also
    /// permits `http://` loopback webhook URLs). Off by default.
    pub allow_loopback: bool,
}

impl SsrfPolicy {
    /// Whether `ip` may be contacted.
    pub fn permits(&self, ip: IpAddr) -> bool {
        if self.allow_loopback && ip.is_loopback() {
            return true;
        }
        !is_forbidden_target(ip)
    }
}

/// Whether `ip` is loopback, private, link-local (including cloud metadata
/// at 169.254.169.254), shared (CGNAT), multicast, unspecified, broadcast,
/// reserved or documentation space; IPv4 embedded in IPv6 is judged as IPv4.
/// Transition prefixes that can carry a private IPv4 address in a form this
/// check cannot see (local-use NAT64 `64:ff9b:1::/48`, 6to4 `2002::/16`,
/// Teredo `2001::/32`) are refused outright: no webhook receiver needs them.
pub fn is_forbidden_target(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => forbidden_v6(v6),
    }
}

fn forbidden_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_multicast()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // shared address space (RFC 6598)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240 // reserved
}

fn forbidden_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return forbidden_v4(v4);
    }
    let segments = ip.segments();
    // NAT64 (64:ff9b::/96) carries an IPv4 address in its last 32 bits.
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        let [.., hi, lo] = segments;
        return forbidden_v4(Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo)));
    }
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || segments[..3] == [0x64, 0xff9b, 0x0001] // local-use NAT64 (RFC 8215)
        || segments[0] == 0x2002 // 6to4 (RFC 3056, deprecated by RFC 7526)
        || segments[..2] == [0x2001, 0x0000] // Teredo (RFC 4380)
        || (segments[0] & 0xfe00) == 0xfc00 // unique local, incl. fd00:ec2::254 metadata
        || (segments[0] & 0xffc0) == 0xfe80 // link-local
        || (segments[0] & 0xffc0) == 0xfec0 // site-local (deprecated)
        || segments[0] == 0x2001 && segments[1] == 0x0db8 // documentation
        || segments[..6] == [0, 0, 0, 0, 0, 0] // IPv4-compatible (deprecated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_and_special_targets_are_forbidden() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "fd00:ec2::254",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "ff02::1",
            "::",
            "64:ff9b:1::a00:1",
            "64:ff9b:1:ffff::1",
            "2002:c0a8:101::1",
            "2002:808:808::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
        ] {
            assert!(is_forbidden_target(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "93.184.216.34",
            "8.8.8.8",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "2001:4860:4860::8888",
            "64:ff9b::808:808",
        ] {
            assert!(!is_forbidden_target(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn loopback_is_allowed_only_by_the_development_option() {
        let dev = SsrfPolicy {
            allow_loopback: true,
        };
        assert!(dev.permits("127.0.0.1".parse().unwrap()) && dev.permits("::1".parse().unwrap()));
        assert!(!dev.permits("10.0.0.1".parse().unwrap()));
        assert!(!SsrfPolicy::default().permits("127.0.0.1".parse().unwrap()));
    }
}
