//! fetch_url's refusals and failures: the URL gates, the network policy, restricted addresses,
//! resolution, transport, decoding and redirects.

use super::{ErrorCode, Field, Reached, RedirectProblem, ToolError, Unresolved};

/// The tail of a message whose failure will not change on a retry.
pub const BROKEN_ANSWER: &str =
    "The server answered, but not with something fetch_url can read; retrying will \
                                 most likely give the same, so use another source.";

/// A URL of a shape fetch_url refuses, as a sentence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlShape {
    #[error("the URL has no host.")]
    NoHost,
    /// Credentials in a URL end up in logs and transcripts, and `a.com@b.com` tricks a reader
    /// about where the request goes.
    #[error(
        "the URL carries a user name or password before `@`, so its host is `{host}`, not what \
         precedes the `@`; fetch_url sends no credentials."
    )]
    Credentials { host: String },
}

impl ToolError {
    /// A URL whose scheme is not http or https.
    pub fn unsupported_scheme(scheme: &str) -> ToolError {
        let hint = match scheme {
            "file" => " To read a local file, call read_file with its path instead.",
            "ftp" | "sftp" | "ssh" | "git" | "ws" | "wss" => {
                " Use the http or https address of the resource if it has one; other protocols \
                 go through exec_shell (and its approval)."
            }
            _ => " Pass an http or https URL.",
        };
        // The same code as a redirect to such a scheme: the scheme gate refused it.
        ToolError::new(
            ErrorCode::NetworkDenied,
            format!(
                "fetch_url fetches http and https URLs only, not `{scheme}:`.{hint} Nothing was fetched."
            ),
        )
        .with(Field::Scheme, scheme)
    }

    /// A URL without a scheme; `fixed` is it with the scheme it most likely lacks.
    pub fn url_without_scheme(text: &str, fixed: &str) -> ToolError {
        ToolError::invalid(format!(
            "`{text}` has no scheme, so it is not an absolute URL. Call fetch_url with url=\"{fixed}\"."
        ))
        .with(Field::Suggestion, fixed)
    }

    /// Text that does not parse as a URL (`why`, the parser's words).
    pub fn not_a_url(text: &str, why: &url::ParseError) -> ToolError {
        ToolError::invalid(format!(
            "`{text}` is not an absolute URL ({why}). Pass a full http or https URL, e.g. \
             call fetch_url with url=\"https://docs.rs/regex\"."
        ))
    }

    /// A URL of a shape fetch_url refuses; `without` is it without the credentials.
    pub fn bad_url_shape(reason: &UrlShape, without: &str) -> ToolError {
        ToolError::invalid(format!(
            "{reason} Nothing was fetched. Call fetch_url with url=\"{without}\" if that host is \
             the one you mean."
        ))
    }

    /// A URL without a host.
    pub fn url_without_host() -> ToolError {
        ToolError::invalid("the URL has no host. Nothing was fetched.")
    }

    /// A redirect that fetch_url does not follow, and why.
    pub fn redirect_refused(from: &str, location: &str, reason: &RedirectProblem) -> ToolError {
        let error = ToolError::new(
            ErrorCode::NetworkDenied,
            format!(
                "`{from}` redirected to `{location}`, which fetch_url does not follow: {reason} \
                 Nothing more was fetched; do not retry this URL expecting another result."
            ),
        )
        .with(Field::Location, location);
        match reason {
            RedirectProblem::Scheme(scheme) => error.with(Field::Scheme, scheme.as_str()),
            _ => error,
        }
    }

    /// The network policy denies the host (its deny list, or a default of deny).
    pub fn denied_by_policy(host: &str, on_deny_list: bool) -> ToolError {
        let why = if on_deny_list {
            "The host is on the deny list of [network] in .codesmith/config.toml, and deny wins over \
             allow. Do not retry it or another spelling of it; only the user can lift this, by \
             removing it from `deny`."
        } else {
            "The policy's default is deny and the host is not on the allow list of [network] in \
             .codesmith/config.toml. Do not retry it or another spelling of it; if the user wants this \
             host reachable, they can add it to `allow`."
        };
        // The wording of the first sentence is documented in the README.
        ToolError::new(
            ErrorCode::NetworkDenied,
            format!("network call to '{host}' blocked by network policy. {why}"),
        )
        .with(Field::Host, host)
    }

    /// A localhost name; `cidr` is the loopback address as a one-address CIDR, which
    /// `trusted_cidrs` would exempt, and `by_address` the URL with that address in place of the
    /// name.
    pub fn localhost_name(host: &str, cidr: &str, by_address: &str) -> ToolError {
        let line = super::url::trusted_cidrs_line(cidr);
        ToolError::new(
            ErrorCode::BlockedAddress,
            format!(
                "`{host}` names this machine (localhost), and fetch_url refuses localhost names by \
                 name, whatever trusted_cidrs holds; nothing was sent. Do not retry with another \
                 spelling of the name. If the user runs that server on purpose, they can add \
                 {line} to [network] in .codesmith/config.toml; then call fetch_url with \
                 url=\"{by_address}\". Otherwise use exec_shell."
            ),
        )
        .with(Field::Host, host)
        .with(Field::Range, "localhost")
    }

    /// An address in a restricted range, `reached` from `host` (a literal, or one of its
    /// answers); `exact` is the address as a one-address CIDR, which `trusted_cidrs` would
    /// exempt.
    pub fn blocked_address(reached: Reached, exact: &str, host: &str, range: RestrictedRange) -> ToolError {
        let what = match reached {
            Reached::Literal => format!("the address {range}"),
            Reached::Resolved { answers } if answers > 1 => {
                format!("`{host}` resolves to {answers} addresses and one of them is restricted: {range}")
            }
            Reached::Resolved { .. } => format!("`{host}` resolves to {range}"),
        };
        let line = super::url::trusted_cidrs_line(exact);
        ToolError::new(
            ErrorCode::BlockedAddress,
            format!(
                "{what}. fetch_url never connects to loopback, private, link-local, metadata or other \
                 internal addresses, so nothing was sent and no approval can change that. Do not retry \
                 with another spelling of the address. If this is a service the user runs on purpose \
                 (a test server, a fake-ip proxy), the user can exempt this address by adding {line} to \
                 [network] in .codesmith/config.toml."
            ),
        )
        .with(Field::TrustedCidr, exact)
        .with(Field::Host, host)
        .with(Field::Address, range.address)
        .with(Field::Range, range.range)
        .with(Field::RangeLabel, range.label)
    }

    /// The host name did not resolve.
    pub fn unresolved(host: &str, why: &Unresolved) -> ToolError {
        ToolError::new(
            ErrorCode::IoError,
            format!(
                "could not resolve `{host}`: {why}. Check the spelling of the host; if it is right, \
                 the name does not exist or DNS is unreachable from here."
            ),
        )
        .with(Field::Host, host)
    }

    /// Resolution outlived the fetch's deadline.
    pub fn resolve_timeout(host: &str) -> ToolError {
        ToolError::new(
            ErrorCode::Timeout,
            format!("resolving `{host}` took longer than the time left for this fetch."),
        )
    }

    /// The fetch ran out of time; `longer` is the timeout_ms worth retrying with, if any.
    pub fn fetch_timeout(url: &str, ms: u64, longer: Option<u64>) -> ToolError {
        let way_out = match longer {
            Some(longer) => {
                format!("If the server is just slow, call fetch_url with url=\"{url}\" timeout_ms={longer}.")
            }
            None => {
                "That is the longest wait allowed; the server is too slow or unreachable, try again later \
                     or another source."
                    .to_string()
            }
        };
        ToolError::new(
            ErrorCode::Timeout,
            format!("fetching `{url}` did not finish within timeout_ms={ms}. {way_out}"),
        )
        .with(Field::TimeoutMs, ms)
    }

    /// A body in a Content-Encoding fetch_url did not ask for (`accepted` is what it asks for).
    pub fn unsupported_coding(url: &str, name: &str, accepted: &str) -> ToolError {
        ToolError::new(
            ErrorCode::IoError,
            format!(
                "could not fetch `{url}`: the body is sent with Content-Encoding `{name}`, which \
                 fetch_url cannot decode (it asks for `{accepted}` only), so it is not shown. {BROKEN_ANSWER}"
            ),
        )
        .with(Field::Url, url)
        .with(Field::ContentEncoding, name)
    }

    /// A compressed body that does not decompress (`codings` as in `gzip+deflate`).
    pub fn corrupt_coding(url: &str, codings: &str, err: &std::io::Error) -> ToolError {
        ToolError::new(
            ErrorCode::IoError,
            format!(
                "could not fetch `{url}`: the body is sent {codings}-compressed (Content-Encoding) but does \
                 not decompress ({err}): the server sent a corrupt body. {BROKEN_ANSWER}"
            ),
        )
        .with(Field::Url, url)
    }

    /// A redirect chain over the limit of `max` hops; `looped` when `next` was visited before.
    pub fn too_many_redirects(start: &str, next: &str, looped: bool, max: usize) -> ToolError {
        let message = if looped {
            format!(
                "`{start}` redirected {max} times and then again to `{next}`, a URL the chain \
                 already visited: the redirects form a loop, so fetch_url stopped there. Retrying this \
                 URL or any URL of the chain will loop the same way; the site is misconfigured (or \
                 expects cookies, which fetch_url does not keep), so use another source."
            )
        } else {
            format!(
                "`{start}` redirected {max} times and then again to `{next}`; fetch_url \
                 follows at most {max} redirects, so it stopped there. If the last location \
                 is what you want, call fetch_url with url=\"{next}\"."
            )
        };
        ToolError::new(ErrorCode::IoError, message)
            .with(Field::Redirects, max as u64)
            .with(Field::Location, next)
            .with(Field::Loop, looped)
    }

    /// `.codesmith/config.toml` cannot take the host `approve --persist` adds: it does not
    /// parse (`why`, the TOML parser's message, passed through as it is), or its `network` is
    /// not a table (`why` is `None`).
    pub fn persist_config_refused(config: &str, host: &str, why: Option<&str>) -> ToolError {
        let message = match why {
            Some(why) => format!(
                "{config} does not parse, so `{host}` was not added to [network] allow: {why}. Fix the \
                 file, then run `codesmith approve ID --persist` again."
            ),
            None => format!(
                "`network` in {config} is not a table, so `{host}` was not added to its allow list. \
                 Make it a `[network]` section, then run `codesmith approve ID --persist` again."
            ),
        };
        ToolError::new(ErrorCode::InvalidArguments, message)
    }
}

/// A restricted address and the range it falls in, as `error` fields.
pub struct RestrictedRange {
    pub address: String,
    pub range: String,
    pub label: &'static str,
    /// The IPv4 address carried inside an IPv6 one, which is what was judged (not a field).
    pub embedded: Option<String>,
}
