//! The gates every hop of a fetch passes, in order, before a single packet leaves:
//!
//! 1. scheme: http or https, judged on the URL as the `url` crate (a WHATWG parser, as
//!    browsers and clients use) understands it, so `HTTP://`, surrounding whitespace, tabs and
//!    backslashes are judged on what a client would actually connect to; a URL without one
//!    gets the call with the scheme that fits;
//! 2. the network policy's deny (→ `network_denied`);
//! 3. `localhost` names, which resolve to loopback without asking DNS, refused by name;
//! 4. IP literals, in every spelling the parser accepts (decimal `2130706433`, octal `0177.1`,
//!    hex `0x7f.1`, short `127.1`, bracketed IPv6), checked against the restricted table;
//! 5. names resolved, and every answer checked: one restricted answer refuses the request,
//!    because which answer a client uses is not ours to predict; only then the policy's
//!    prompt (→ `approval_required` unless granted), so no one is asked to approve a request
//!    that would be refused anyway (the price: a prompt host's name is looked up before the
//!    approval, which sends no byte to the host itself);
//! 6. the connection pinned to the checked addresses through [`PinnedResolver`], so nothing
//!    resolves the name a second time (no DNS rebinding between check and connect). The first
//!    answer is used; the next only when the first cannot be reached at all (an IPv6 answer on
//!    a machine without IPv6 routes).
//!
//! The seventh gate, redirects, lives in `fetch`: each Location goes through all of these again.
//! `trusted_cidrs` exempts a restricted address only when the policy names its range.

use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::mpsc;
use std::time::Instant;

use url::{Host, Url};

use crate::error::{Reached, RedirectProblem, ToolError, Unresolved, UrlShape};
use crate::net::policy::{canonical, normalize_host, Decision, Policy};
use crate::net::restricted;
use crate::notice::ApprovalReason;
use crate::session::approval::{ApprovalKind, ApprovalRequest};
use crate::session::context::Context;

/// Names that mean this machine without asking DNS (RFC 6761 and the usual /etc/hosts aliases).
const LOCAL_NAMES: &[&str] = &[
    "localhost",
    "localhost.localdomain",
    "ip6-localhost",
    "ip6-loopback",
];

/// How a hop was let through, for the audit log. A policy approval outranks the exemption
/// (which is recorded beside it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    Allow,
    Approved,
    TrustedCidr,
}

impl Admission {
    pub fn as_str(self) -> &'static str {
        match self {
            Admission::Allow => "allow",
            Admission::Approved => "approved",
            Admission::TrustedCidr => "trusted-cidr",
        }
    }
}

/// A hop that passed every gate: where to connect, and why it was allowed.
#[derive(Debug, Clone)]
pub struct Admitted {
    pub host: String,
    pub addr: SocketAddr,
    pub admission: Admission,
    /// The `trusted_cidrs` range that exempted a restricted answer, if one did.
    pub trusted_range: Option<ipnet::IpNet>,
}

/// A refused hop: the error, and the address that was judged (when one was).
#[derive(Debug)]
pub struct Refusal {
    pub error: Box<ToolError>,
    pub address: Option<IpAddr>,
}

impl From<ToolError> for Refusal {
    fn from(error: ToolError) -> Refusal {
        Refusal {
            error: Box::new(error),
            address: None,
        }
    }
}

/// Gate 1 for the URL the model passed: parses it and checks scheme, host and userinfo.
pub fn parse_requested(text: &str) -> Result<Url, ToolError> {
    let parsed = Url::parse(text);
    let schemeless = match &parsed {
        Ok(url) => !matches!(url.scheme(), "http" | "https") && !text.contains("://"),
        Err(_) => true,
    };
    if let Some(fixed) = schemeless.then(|| with_scheme(text)).flatten() {
        return Err(ToolError::url_without_scheme(text.trim(), &fixed));
    }
    let url = parsed.map_err(|err| ToolError::not_a_url(text, &err))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ToolError::unsupported_scheme(url.scheme()));
    }
    check_shape(&url).map_err(|reason| {
        let mut without = url.clone();
        let _ = without.set_username("");
        let _ = without.set_password(None);
        ToolError::bad_url_shape(&reason, without.as_str())
    })?;
    Ok(url)
}

/// `text` with the scheme it most likely lacks: `http://` for an IP address or a local name
/// (which rarely serve TLS), `https://` otherwise. `None` when `text` is no host (and port,
/// path) at all.
fn with_scheme(text: &str) -> Option<String> {
    let text = text.trim();
    if text.is_empty() || text.contains("://") || text.contains(char::is_whitespace) {
        return None;
    }
    let text = text.strip_prefix("//").unwrap_or(text);
    let authority = &text[..text.find(['/', '?', '#']).unwrap_or(text.len())];
    let host = match authority.strip_prefix('[') {
        Some(rest) => {
            let (inside, after) = rest.split_once(']')?;
            inside.parse::<std::net::Ipv6Addr>().ok()?;
            if !(after.is_empty() || after.strip_prefix(':')?.bytes().all(|b| b.is_ascii_digit())) {
                return None;
            }
            inside
        }
        None => match authority.rsplit_once(':') {
            Some((host, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => host,
            Some(_) => return None,
            None => authority,
        },
    };
    let is_name = !host.is_empty()
        && host.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
    let ip = host.parse::<IpAddr>().is_ok();
    if !(is_name || ip) {
        return None;
    }
    let name = host.to_ascii_lowercase();
    let local = ip
        || !name.contains('.')
        || LOCAL_NAMES.contains(&name.as_str())
        || [".localhost", ".local", ".internal", ".lan", ".home.arpa", ".test"]
            .iter()
            .any(|suffix| name.ends_with(suffix));
    let scheme = if local { "http" } else { "https" };
    Some(format!("{scheme}://{text}"))
}

/// Gate 1 for a redirect target: the same checks, reported as a refused redirect.
pub fn check_redirect(from: &Url, location: &str) -> Result<Url, ToolError> {
    let refuse = |reason: RedirectProblem| ToolError::redirect_refused(from.as_str(), location, &reason);
    let url = from
        .join(location)
        .map_err(|err| refuse(RedirectProblem::NotAUrl(err)))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(refuse(RedirectProblem::Scheme(url.scheme().to_string())));
    }
    check_shape(&url).map_err(|shape| refuse(RedirectProblem::Shape(shape)))?;
    Ok(url)
}

fn check_shape(url: &Url) -> Result<(), UrlShape> {
    if url.host().is_none() {
        return Err(UrlShape::NoHost);
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(UrlShape::Credentials {
            host: url.host_str().unwrap_or_default().to_string(),
        });
    }
    Ok(())
}

/// The host as the policy, approvals and `--persist` see it: its [`canonical`] spelling.
pub fn policy_host(url: &Url) -> String {
    canonical(url.host_str().unwrap_or_default())
}

/// Gates 2 to 6 for one hop. Returns the checked addresses to connect to, in order (never empty).
pub fn admit(url: &Url, policy: &Policy, ctx: &Context, deadline: Instant) -> Result<Vec<Admitted>, Refusal> {
    let host = policy_host(url);
    // Gate 2: the policy's deny.
    let decision = policy.decide(&host);
    if decision == Decision::Deny {
        return Err(denied(&host, policy).into());
    }
    let port = url.port_or_known_default().unwrap_or(80);
    let addresses = match url.host() {
        // Gate 3: names of this machine.
        Some(Host::Domain(name)) => {
            let name = normalize_host(name);
            if LOCAL_NAMES.contains(&name.as_str()) || name.ends_with(".localhost") {
                return Err(blocked_name(url, &host).into());
            }
            // Gate 5: resolve, then judge every answer.
            resolve(&host, port, deadline)?
        }
        // Gate 4: literals, already normalized by the parser from whichever spelling was used.
        Some(Host::Ipv4(ip)) => vec![IpAddr::V4(ip)],
        Some(Host::Ipv6(ip)) => vec![IpAddr::V6(ip)],
        None => return Err(ToolError::url_without_host().into()),
    };
    let literal = !matches!(url.host(), Some(Host::Domain(_)));
    for &address in &addresses {
        if let Some(restricted) = restricted::check(address) {
            if !policy.trusted(address) {
                return Err(Refusal {
                    error: Box::new(blocked(&host, literal, addresses.len(), &restricted)),
                    address: Some(address),
                });
            }
        }
    }
    // Only now the policy's prompt: every answer may be connected to once approved.
    let admission = match decision {
        Decision::Prompt => {
            ctx.require_approval(&approval_request(&host))?;
            Admission::Approved
        }
        _ => Admission::Allow,
    };
    // Gate 6: every answer is good; the connection is pinned to them, in the resolver's order
    // (a later one is tried only when an earlier one cannot be reached at all), and nothing
    // resolves the name again.
    if addresses.is_empty() {
        return Err(ToolError::unresolved(&host, &Unresolved::NoAddress).into());
    }
    Ok(addresses
        .into_iter()
        .map(|address| {
            let trusted_range = restricted::check(address).and(policy.trusted_range(address));
            let admission = match admission {
                Admission::Allow if trusted_range.is_some() => Admission::TrustedCidr,
                other => other,
            };
            Admitted {
                host: host.clone(),
                addr: SocketAddr::new(address, port),
                admission,
                trusted_range,
            }
        })
        .collect())
}

/// The approval a prompt host needs.
pub fn approval_request(host: &str) -> ApprovalRequest {
    ApprovalRequest {
        kind: ApprovalKind::Network,
        subject: host.to_string(),
        reason: ApprovalReason::HostNeedsApproval {
            host: host.to_string(),
        },
        scope: String::new(),
    }
}

fn denied(host: &str, policy: &Policy) -> ToolError {
    ToolError::denied_by_policy(host, policy.on_deny_list(host))
}

fn blocked_name(url: &Url, host: &str) -> ToolError {
    let loopback = if host.contains("ip6") {
        "[::1]"
    } else {
        "127.0.0.1"
    };
    let mut by_address = url.clone();
    let _ = by_address.set_host(Some(loopback));
    let cidr = if loopback == "[::1]" {
        "::1/128"
    } else {
        "127.0.0.1/32"
    };
    ToolError::localhost_name(host, cidr, by_address.as_str())
}

fn blocked(host: &str, literal: bool, answers: usize, restricted: &restricted::Restricted) -> ToolError {
    let reached = if literal {
        Reached::Literal
    } else {
        Reached::Resolved { answers }
    };
    let exact = match restricted.address {
        IpAddr::V4(ip) => format!("{ip}/32"),
        IpAddr::V6(ip) => format!("{ip}/128"),
    };
    ToolError::blocked_address(reached, &exact, host, restricted.fields())
}

/// Resolves `host` within the deadline. The lookup runs on a thread because getaddrinfo has
/// no timeout of its own; a lookup that outlives the deadline is abandoned.
fn resolve(host: &str, port: u16, deadline: Instant) -> Result<Vec<IpAddr>, ToolError> {
    let remaining = deadline.saturating_duration_since(Instant::now());
    let (sender, receiver) = mpsc::sync_channel(1);
    let name = host.to_string();
    std::thread::spawn(move || {
        let answer = (name.as_str(), port)
            .to_socket_addrs()
            .map(|addrs| addrs.map(|a| a.ip()).collect::<Vec<_>>());
        let _ = sender.send(answer);
    });
    match receiver.recv_timeout(remaining) {
        Ok(Ok(addresses)) => {
            let mut unique: Vec<IpAddr> = Vec::new();
            for address in addresses {
                if !unique.contains(&address) {
                    unique.push(address);
                }
            }
            if unique.is_empty() {
                Err(ToolError::unresolved(host, &Unresolved::NoAddress))
            } else {
                Ok(unique)
            }
        }
        Ok(Err(err)) => Err(ToolError::unresolved(host, &Unresolved::Lookup(err))),
        Err(_) => Err(ToolError::resolve_timeout(host)),
    }
}

/// A ureq resolver that answers with the one address the gates checked, for the one host they
/// checked. ureq never performs a lookup of its own.
#[derive(Debug)]
pub struct PinnedResolver {
    pub host: String,
    pub addr: SocketAddr,
}

impl ureq::unversioned::resolver::Resolver for PinnedResolver {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        _config: &ureq::config::Config,
        _timeout: ureq::unversioned::transport::NextTimeout,
    ) -> Result<ureq::unversioned::resolver::ResolvedSocketAddrs, ureq::Error> {
        if uri.host().map(canonical).as_deref() != Some(self.host.as_str()) {
            return Err(ureq::Error::HostNotFound);
        }
        let mut addrs = self.empty();
        addrs.push(self.addr);
        Ok(addrs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn requested_urls_are_judged_as_parsed() {
        let url = parse_requested("  HTTP://Example.COM.:80/a\\b  ").expect("url");
        assert_eq!(url.as_str(), "http://example.com./a/b");
        assert_eq!(policy_host(&url), "example.com");
        for bad in ["ftp://a/", "file:///x"] {
            let err = parse_requested(bad).expect_err(bad);
            assert_eq!(err.code(), ErrorCode::NetworkDenied, "{bad}");
        }
        for bad in ["http://u@a.com/", "http://:p@a.com/", "/relative", "http://"] {
            let err = parse_requested(bad).expect_err(bad);
            assert_eq!(err.code(), ErrorCode::InvalidArguments, "{bad}");
        }
    }

    #[test]
    fn redirect_targets_are_joined_then_judged() {
        let from = Url::parse("https://a.com/dir/page").expect("url");
        let next = check_redirect(&from, "../other?x=1").expect("relative");
        assert_eq!(next.as_str(), "https://a.com/other?x=1");
        let next = check_redirect(&from, "//b.com/").expect("scheme-relative");
        assert_eq!(next.as_str(), "https://b.com/");
        for bad in [
            "file:///etc/passwd",
            "gopher://b.com/",
            "http://user@b.com/",
            "javascript:alert(1)",
        ] {
            let err = check_redirect(&from, bad).expect_err(bad);
            assert_eq!(err.code(), ErrorCode::NetworkDenied, "{bad}");
            assert!(err.message().contains("does not follow"), "{}", err.message());
        }
    }
}
