//! Why a URL or a host is refused before any connection: a redirect target fetch_url does not
//! follow, a host name that does not resolve. The parser's and the resolver's messages are
//! their own words, passed through.

use super::UrlShape;

/// Why a redirect's Location is not followed, as a sentence.
#[derive(Debug, thiserror::Error)]
pub enum RedirectProblem {
    /// The Location, joined to the URL it came from, does not parse (the parser's words).
    #[error("it is not a valid URL ({0}).")]
    NotAUrl(url::ParseError),
    #[error("`{0}:` is not http or https.")]
    Scheme(String),
    #[error("{0}")]
    Shape(UrlShape),
}

/// Why a host name gave no address.
#[derive(Debug, thiserror::Error)]
pub enum Unresolved {
    #[error("no address")]
    NoAddress,
    /// The lookup failed (the operating system's words).
    #[error("{0}")]
    Lookup(std::io::Error),
}

/// How fetch_url came to a restricted address: written in the URL, or among a name's answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reached {
    Literal,
    /// One of the `answers` addresses the host name resolved to.
    Resolved {
        answers: usize,
    },
}

/// `10.1.2.3 is in 10.0.0.0/8 (private network)`, or for an IPv6 address carrying an IPv4
/// one, `... carries the IPv4 address 127.0.0.1, which is in 127.0.0.0/8 (loopback)`.
impl std::fmt::Display for super::RestrictedRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.embedded {
            Some(v4) => write!(
                f,
                "{} carries the IPv4 address {v4}, which is in {} ({})",
                self.address, self.range, self.label
            ),
            None => write!(f, "{} is in {} ({})", self.address, self.range, self.label),
        }
    }
}

/// The config line that exempts `cidr`, as a user would write it.
pub(super) fn trusted_cidrs_line(cidr: &str) -> String {
    format!("`trusted_cidrs = [\"{cidr}\"]` (or \"{cidr}\" added to the trusted_cidrs list it has)")
}
