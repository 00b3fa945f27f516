//! The network policy: `[network]` in `.codesmith/config.toml`.
//!
//! ```toml
//! [network]
//! default = "prompt"                 # allow | deny (or block) | prompt
//! allow = ["docs.rs", ".github.com"] # ".x" and "*.x" match subdomains of x only
//! deny = ["evil.example"]            # deny wins over allow
//! trusted_cidrs = ["198.18.0.0/15"]  # exempt resolved addresses from the restricted table
//! ```
//!
//! The file is written by people and read by a security gate, so it is read defensively: every
//! value that is missing, mistyped or unknown falls to the narrower reading. A misspelled
//! `default` is `prompt`, never `allow`; a malformed `allow` entry is dropped (it can only have
//! meant to widen); a malformed `deny` entry cannot be trusted to deny, so while one is present
//! nothing is allowed without asking. What was dropped is kept in [`Policy::problems`] so a
//! tool can say so instead of failing silently.

use std::net::IpAddr;

use ipnet::IpNet;

use crate::session::config::Config;

/// What the policy says about a host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Decision {
    Allow,
    Deny,
    /// Ask a person (`approval_required`).
    Prompt,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Deny => "deny",
            Decision::Prompt => "prompt",
        }
    }
}

/// One entry of an allow or deny list.
#[derive(Debug, Clone, PartialEq, Eq)]
enum HostPattern {
    /// `example.com`: that host only.
    Exact(String),
    /// `.example.com` or `*.example.com`: strict subdomains of `example.com`, not itself.
    Subdomains(String),
    /// `*`: every host.
    Any,
}

impl HostPattern {
    fn parse(entry: &str) -> Option<HostPattern> {
        let entry = entry.trim();
        if entry == "*" {
            return Some(HostPattern::Any);
        }
        let (subdomains, rest) = if let Some(rest) = entry.strip_prefix("*.") {
            (true, rest)
        } else if let Some(rest) = entry.strip_prefix('.') {
            (true, rest)
        } else {
            (false, entry)
        };
        let host = canonical_host(&normalize_host(rest));
        let valid = !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | ':'));
        if !valid || host.starts_with('.') || host.contains("..") {
            return None;
        }
        Some(if subdomains {
            HostPattern::Subdomains(host)
        } else {
            HostPattern::Exact(host)
        })
    }

    fn matches(&self, host: &str) -> bool {
        match self {
            HostPattern::Exact(exact) => host == exact,
            HostPattern::Subdomains(parent) => host
                .strip_suffix(parent.as_str())
                .is_some_and(|prefix| prefix.len() > 1 && prefix.ends_with('.')),
            HostPattern::Any => true,
        }
    }
}

/// The canonical spelling of a host for matching: lowercase, no trailing dot, no IPv6 brackets.
pub fn normalize_host(host: &str) -> String {
    let host = host.trim();
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase()
}

/// The one spelling of a host that the policy, approvals and `--persist` use, from any
/// spelling (case, trailing dot, brackets, IDNA, every IPv4 form the URL parser reads):
/// names in lowercase punycode, IPv4 dotted, IPv6 compressed lowercase, and an IPv4-mapped
/// IPv6 address (`::ffff:127.0.0.1`, `::ffff:7f00:1`) as the IPv4 it carries, since that is
/// where a connection to it goes. A deny entry for `127.0.0.1` therefore also denies
/// `[::ffff:127.0.0.1]`, `2130706433` and `127.1`.
pub fn canonical(host: &str) -> String {
    canonical_host(&normalize_host(host))
}

/// [`canonical`] for a host already through [`normalize_host`].
fn canonical_host(host: &str) -> String {
    let bracketed;
    let input = if host.contains(':') {
        bracketed = format!("[{host}]");
        bracketed.as_str()
    } else {
        host
    };
    match url::Host::parse(input) {
        Ok(url::Host::Domain(domain)) => domain,
        Ok(url::Host::Ipv4(ip)) => ip.to_string(),
        Ok(url::Host::Ipv6(ip)) => match ip.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => ip.to_string(),
        },
        Err(_) => host.to_string(),
    }
}

/// The `[network]` section, interpreted.
#[derive(Debug, Clone)]
pub struct Policy {
    default: Decision,
    allow: Vec<HostPattern>,
    deny: Vec<HostPattern>,
    /// Set when the deny list could not be read in full: then nothing is allowed unasked.
    deny_unreadable: bool,
    trusted_cidrs: Vec<IpNet>,
    problems: Vec<String>,
}

impl Default for Policy {
    /// No `[network]` section: every host is asked about.
    fn default() -> Policy {
        Policy {
            default: Decision::Prompt,
            allow: Vec::new(),
            deny: Vec::new(),
            deny_unreadable: false,
            trusted_cidrs: Vec::new(),
            problems: Vec::new(),
        }
    }
}

impl Policy {
    /// Reads `[network]` from the workspace config. Never fails: see the module comment.
    pub fn load(config: &Config) -> Policy {
        match config.section("network") {
            Some(table) => Policy::from_table(table),
            None => Policy::default(),
        }
    }

    pub fn from_table(table: &toml::Table) -> Policy {
        let mut policy = Policy::default();
        policy.default = match table.get("default") {
            None => Decision::Prompt,
            Some(toml::Value::String(value)) => match value.trim().to_ascii_lowercase().as_str() {
                // Only the exact word widens; `Allow ` is read as a slip and asked about.
                "allow" if value == "allow" => Decision::Allow,
                "deny" | "block" => Decision::Deny,
                "prompt" => Decision::Prompt,
                _ => {
                    policy.problems.push(format!(
                        "[network] default = {value:?} is not allow, deny or prompt; treated as prompt"
                    ));
                    Decision::Prompt
                }
            },
            Some(other) => {
                policy.problems.push(format!(
                    "[network] default = {other} is not a string; treated as prompt"
                ));
                Decision::Prompt
            }
        };
        // A dropped allow entry only narrows; a dropped deny entry would widen (see above).
        (policy.allow, _) = host_list(table, "allow", &mut policy.problems);
        let (deny, deny_complete) = host_list(table, "deny", &mut policy.problems);
        policy.deny = deny;
        policy.deny_unreadable = !deny_complete;
        policy.trusted_cidrs = cidr_list(table, &mut policy.problems);
        policy
    }

    /// The decision for `host` (any spelling: see [`canonical`]). Deny wins over allow; a host
    /// on neither list gets the default.
    pub fn decide(&self, host: &str) -> Decision {
        let host = canonical(host);
        if self.deny.iter().any(|p| p.matches(&host)) {
            return Decision::Deny;
        }
        let decision = if self.allow.iter().any(|p| p.matches(&host)) {
            Decision::Allow
        } else {
            self.default
        };
        self.narrowed(decision)
    }

    /// Whether `host` is refused by the deny list itself (rather than by the default).
    pub fn on_deny_list(&self, host: &str) -> bool {
        let host = canonical(host);
        self.deny.iter().any(|p| p.matches(&host))
    }

    /// The decision for a host on neither list.
    pub fn default_decision(&self) -> Decision {
        self.narrowed(self.default)
    }

    fn narrowed(&self, decision: Decision) -> Decision {
        if decision == Decision::Allow && self.deny_unreadable {
            Decision::Prompt
        } else {
            decision
        }
    }

    /// Whether `ip` lies in one of `trusted_cidrs` (an IPv4-mapped IPv6 address counts as its IPv4).
    pub fn trusted(&self, ip: IpAddr) -> bool {
        self.trusted_range(ip).is_some()
    }

    /// The trusted range containing `ip`, for the audit log and messages.
    pub fn trusted_range(&self, ip: IpAddr) -> Option<IpNet> {
        let v4 = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4),
            IpAddr::V4(_) => None,
        };
        self.trusted_cidrs
            .iter()
            .copied()
            .find(|net| net.contains(&ip) || v4.is_some_and(|v4| net.contains(&v4)))
    }

    /// Entries that were dropped or values that were read narrowly, in words for a person.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }
}

/// Reads a list of host patterns. Returns the patterns and whether every entry was readable.
/// A single string is taken as a one-entry list.
fn host_list(table: &toml::Table, key: &str, problems: &mut Vec<String>) -> (Vec<HostPattern>, bool) {
    let entries: Vec<&toml::Value> = match table.get(key) {
        None => return (Vec::new(), true),
        Some(toml::Value::Array(items)) => items.iter().collect(),
        Some(value @ toml::Value::String(_)) => vec![value],
        Some(other) => {
            problems.push(format!(
                "[network] {key} = {other} is not a list of hosts; ignored"
            ));
            return (Vec::new(), false);
        }
    };
    let mut all_ok = true;
    let mut patterns = Vec::new();
    for entry in entries {
        match entry.as_str().and_then(HostPattern::parse) {
            Some(pattern) => patterns.push(pattern),
            None => {
                all_ok = false;
                problems.push(format!(
                    "[network] {key} entry {entry} is not a host name; ignored"
                ));
            }
        }
    }
    (patterns, all_ok)
}

fn cidr_list(table: &toml::Table, problems: &mut Vec<String>) -> Vec<IpNet> {
    let entries: Vec<&toml::Value> = match table.get("trusted_cidrs") {
        None => return Vec::new(),
        Some(toml::Value::Array(items)) => items.iter().collect(),
        Some(value @ toml::Value::String(_)) => vec![value],
        Some(other) => {
            problems.push(format!(
                "[network] trusted_cidrs = {other} is not a list of ranges; ignored"
            ));
            return Vec::new();
        }
    };
    let mut nets = Vec::new();
    for entry in entries {
        let text = entry.as_str().map(str::trim).unwrap_or_default();
        let net = text
            .parse::<IpNet>()
            .ok()
            .or_else(|| text.parse::<IpAddr>().ok().map(IpNet::from));
        match net {
            Some(net) => nets.push(net.trunc()),
            None => problems.push(format!(
                "[network] trusted_cidrs entry {entry} is not an address range; ignored"
            )),
        }
    }
    nets
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(toml_text: &str) -> Policy {
        let table: toml::Table = toml_text.parse().expect("toml");
        Policy::load(&Config::from_table(table))
    }

    #[test]
    fn missing_section_prompts() {
        let p = policy("");
        assert_eq!(p.decide("example.com"), Decision::Prompt);
        assert_eq!(p.default_decision(), Decision::Prompt);
        assert!(p.problems().is_empty());
    }

    #[test]
    fn default_values() {
        for (value, expected) in [
            ("\"allow\"", Decision::Allow),
            ("\"deny\"", Decision::Deny),
            ("\"block\"", Decision::Deny),
            ("\"DENY\"", Decision::Deny),
            ("\"prompt\"", Decision::Prompt),
            ("\"alow\"", Decision::Prompt),
            ("\"allow \"", Decision::Prompt),
            ("\"Allow\"", Decision::Prompt),
            ("\"yes\"", Decision::Prompt),
            ("\"\"", Decision::Prompt),
            ("true", Decision::Prompt),
            ("1", Decision::Prompt),
            ("[\"allow\"]", Decision::Prompt),
            ("{ allow = true }", Decision::Prompt),
        ] {
            let p = policy(&format!("[network]\ndefault = {value}\n"));
            assert_eq!(p.decide("example.com"), expected, "default = {value}");
        }
        assert_eq!(policy("[network]\ndefault = \"alow\"").problems().len(), 1);
    }

    #[test]
    fn a_non_table_section_prompts() {
        assert_eq!(policy("network = \"allow\"").decide("a.com"), Decision::Prompt);
    }

    #[test]
    fn exact_hosts_ignore_case_and_trailing_dot() {
        let p = policy("[network]\ndefault = \"deny\"\nallow = [\"Docs.RS.\"]");
        for host in ["docs.rs", "DOCS.rs", "docs.rs.", "Docs.Rs."] {
            assert_eq!(p.decide(host), Decision::Allow, "{host}");
        }
        assert_eq!(p.decide("sub.docs.rs"), Decision::Deny);
        assert_eq!(p.decide("xdocs.rs"), Decision::Deny);
        assert_eq!(p.decide("docs.rs.evil.com"), Decision::Deny);
    }

    #[test]
    fn leading_dot_and_star_match_subdomains_only() {
        for pattern in [".example.com", "*.example.com", "*.EXAMPLE.com."] {
            let p = policy(&format!("[network]\ndefault = \"deny\"\nallow = [\"{pattern}\"]"));
            assert_eq!(p.decide("a.example.com"), Decision::Allow, "{pattern}");
            assert_eq!(p.decide("a.b.example.com."), Decision::Allow, "{pattern}");
            assert_eq!(p.decide("example.com"), Decision::Deny, "{pattern}");
            assert_eq!(p.decide("badexample.com"), Decision::Deny, "{pattern}");
            assert_eq!(p.decide("example.com.evil"), Decision::Deny, "{pattern}");
        }
        let both = policy("[network]\ndefault = \"deny\"\nallow = [\"example.com\", \".example.com\"]");
        assert_eq!(both.decide("example.com"), Decision::Allow);
        assert_eq!(both.decide("www.example.com"), Decision::Allow);
    }

    #[test]
    fn deny_wins_over_allow_and_default() {
        let p = policy(
            "[network]\ndefault = \"allow\"\nallow = [\"evil.example\", \".corp.example\"]\n\
             deny = [\"EVIL.example\", \"secret.corp.example\"]",
        );
        assert_eq!(p.decide("evil.example"), Decision::Deny);
        assert_eq!(p.decide("secret.corp.example."), Decision::Deny);
        assert_eq!(p.decide("www.corp.example"), Decision::Allow);
        assert_eq!(p.decide("other.example"), Decision::Allow);
        let star = policy("[network]\ndefault = \"allow\"\nallow = [\"a.com\"]\ndeny = [\"*\"]");
        assert_eq!(star.decide("a.com"), Decision::Deny);
    }

    #[test]
    fn allow_list_under_prompt_default() {
        let p = policy("[network]\nallow = [\"docs.rs\"]");
        assert_eq!(p.decide("docs.rs"), Decision::Allow);
        assert_eq!(p.decide("crates.io"), Decision::Prompt);
    }

    #[test]
    fn malformed_allow_entries_are_dropped() {
        let p = policy("[network]\nallow = [\"docs.rs\", 42, \"https://x.com/\", \"\", \"a b\"]");
        assert_eq!(p.decide("docs.rs"), Decision::Allow);
        assert_eq!(p.decide("x.com"), Decision::Prompt);
        assert_eq!(p.problems().len(), 4);
        let wrong_type = policy("[network]\nallow = 5");
        assert_eq!(wrong_type.decide("docs.rs"), Decision::Prompt);
    }

    #[test]
    fn a_broken_deny_list_allows_nothing_unasked() {
        for deny in [
            "42",
            "[\"evil.com\", 7]",
            "{ host = \"evil.com\" }",
            "[\"https://evil.com\"]",
        ] {
            let p = policy(&format!(
                "[network]\ndefault = \"allow\"\nallow = [\"docs.rs\"]\ndeny = {deny}"
            ));
            assert_eq!(p.decide("docs.rs"), Decision::Prompt, "deny = {deny}");
            assert_eq!(p.decide("other.com"), Decision::Prompt, "deny = {deny}");
            assert_eq!(p.default_decision(), Decision::Prompt, "deny = {deny}");
        }
        // The readable part of a broken list still denies.
        let p = policy("[network]\ndefault = \"allow\"\ndeny = [\"evil.com\", 7]");
        assert_eq!(p.decide("evil.com"), Decision::Deny);
        // A single string is a one-entry list.
        let single = policy("[network]\ndefault = \"allow\"\ndeny = \"evil.com\"");
        assert_eq!(single.decide("evil.com"), Decision::Deny);
        assert_eq!(single.decide("good.com"), Decision::Allow);
    }

    #[test]
    fn trusted_cidrs() {
        let p = policy(
            "[network]\ntrusted_cidrs = [\"198.18.0.0/15\", \"127.0.0.7\", \"fd00::/8\", \"bogus\", 3]",
        );
        assert!(p.trusted("198.19.255.1".parse().expect("ip")));
        assert!(!p.trusted("198.20.0.1".parse().expect("ip")));
        assert!(p.trusted("127.0.0.7".parse().expect("ip")));
        assert!(!p.trusted("127.0.0.8".parse().expect("ip")));
        assert!(p.trusted("::ffff:127.0.0.7".parse().expect("ip")));
        assert!(p.trusted("fd12::1".parse().expect("ip")));
        assert_eq!(p.problems().len(), 2);
        assert_eq!(
            p.trusted_range("198.18.3.4".parse().expect("ip")),
            Some("198.18.0.0/15".parse().expect("net"))
        );
    }

    #[test]
    fn entries_are_spelled_as_urls_spell_hosts() {
        let p = policy(
            "[network]\ndefault = \"deny\"\nallow = [\"Bücher.de\", \".müller.example\", \"[::0:1]\"]",
        );
        assert_eq!(p.decide("xn--bcher-kva.de"), Decision::Allow);
        assert_eq!(p.decide("www.xn--mller-kva.example"), Decision::Allow);
        assert_eq!(p.decide("[::1]"), Decision::Allow);
    }

    #[test]
    fn every_spelling_of_an_address_is_one_host() {
        let p = policy(
            "[network]\ndefault = \"allow\"\ndeny = [\"127.0.0.1\", \"::ffff:10.0.0.2\", \"[2001:DB8::0:1]\"]",
        );
        for host in [
            "127.0.0.1",
            "[::ffff:127.0.0.1]",
            "::ffff:7f00:1",
            "[::FFFF:7F00:1]",
            "[0:0:0:0:0:ffff:127.0.0.1]",
            "2130706433",
            "0x7f.1",
            "127.1",
            "0177.0.0.1",
            "10.0.0.2",
            "2001:db8::1",
        ] {
            assert_eq!(p.decide(host), Decision::Deny, "{host}");
        }
        assert_eq!(p.decide("127.0.0.2"), Decision::Allow);
        assert_eq!(canonical("[::FFFF:7F00:2]"), "127.0.0.2");
        assert_eq!(canonical("[2001:0DB8:0:0::1]"), "2001:db8::1");
        assert_eq!(canonical("0x7f.1"), "127.0.0.1");
        assert_eq!(canonical("Docs.RS."), "docs.rs");
    }

    #[test]
    fn ipv6_hosts_match_without_brackets() {
        let p = policy("[network]\ndefault = \"deny\"\nallow = [\"[2606:4700::1]\"]");
        assert_eq!(p.decide("[2606:4700::1]"), Decision::Allow);
        assert_eq!(p.decide("2606:4700::1"), Decision::Allow);
    }
}
