//! Why fetch_url's request failed once the connection was allowed: the transport's failure,
//! named from ureq's and the operating system's errors by `net::fetch`, worded here with what
//! to do about it.

use super::net::BROKEN_ANSWER;
use super::{ErrorCode, Field, ToolError};

/// Where the request went: the URL, the host with the address it reached (`host (addr)`),
/// and the same URL over plain HTTP when it names a port (the way out of a TLS failure).
pub struct FetchTarget<'a> {
    pub url: &'a str,
    pub target: &'a str,
    pub host: &'a str,
    pub plain_http: Option<&'a str>,
}

/// A transport failure. Texts are the underlying library's or system's own words.
pub enum TransportFailure {
    HostNotFound,
    Refused,
    /// A TLS failure: the handshake's own message.
    Tls {
        detail: String,
    },
    /// Over https, the server hung up without answering.
    ClosedOverHttps,
    ClosedAbruptly,
    ClosedEarly,
    NoRoute,
    /// Another I/O failure of the connection.
    Io {
        detail: String,
    },
    /// Not valid HTTP (the protocol error's words).
    NotHttp {
        detail: String,
    },
    HeadersTooLarge {
        size: usize,
        limit: usize,
    },
    ConnectionFailed,
    Other {
        detail: String,
    },
}

const UNREACHABLE: &str = "Check the URL; if it is right, the server is down or unreachable, so try again \
                           later or use another source.";

impl ToolError {
    /// fetch_url's request failed in transport.
    pub fn fetch_failed(to: &FetchTarget, failure: &TransportFailure) -> ToolError {
        let target = to.target;
        let tls_way_out = || match to.plain_http {
            Some(plain) => format!(
                "If that port serves plain HTTP, call fetch_url with url=\"{plain}\"; otherwise the \
                 server's TLS set-up is at fault and retrying will not help, so use another source."
            ),
            None => "The server's TLS set-up is at fault and retrying will not help, so use another source."
                .to_string(),
        };
        let (what, way_out) = match failure {
            TransportFailure::HostNotFound => (
                format!("`{}` could not be resolved", to.host),
                UNREACHABLE.to_string(),
            ),
            TransportFailure::Refused => (
                format!("the connection to {target} was refused: nothing is listening on that port"),
                UNREACHABLE.to_string(),
            ),
            TransportFailure::Tls { detail } => (
                format!(
                    "the TLS handshake with {target} failed ({detail}): the server may not speak HTTPS \
                     at that port, or its certificate is invalid, expired or issued for another name"
                ),
                tls_way_out(),
            ),
            TransportFailure::ClosedOverHttps => (
                format!(
                    "{target} closed the connection without answering; over https that usually \
                     means the TLS handshake failed: the server may not speak HTTPS at that port"
                ),
                tls_way_out(),
            ),
            TransportFailure::NotHttp { detail } => (
                format!("{target} did not answer with valid HTTP ({detail})"),
                BROKEN_ANSWER.to_string(),
            ),
            TransportFailure::HeadersTooLarge { size, limit } => (
                format!(
                    "the response headers from {target} are larger than fetch_url reads ({size} bytes \
                     or more; the limit is {} KB)",
                    limit / 1024
                ),
                BROKEN_ANSWER.to_string(),
            ),
            unreachable => (unreachable_what(unreachable, target), UNREACHABLE.to_string()),
        };
        ToolError::new(
            ErrorCode::IoError,
            format!("could not fetch `{}`: {what}. {way_out}", to.url),
        )
        .with(Field::Url, to.url)
    }
}

/// What failed, for the failures whose way out is to check the URL or try later.
fn unreachable_what(failure: &TransportFailure, target: &str) -> String {
    match failure {
        TransportFailure::ClosedAbruptly => format!("{target} closed the connection abruptly"),
        TransportFailure::ClosedEarly => {
            format!("{target} closed the connection before the response was complete")
        }
        TransportFailure::NoRoute => format!("{target} cannot be reached from here (no route to it)"),
        TransportFailure::Io { detail } => format!("the connection to {target} failed: {detail}"),
        TransportFailure::ConnectionFailed => format!("the connection to {target} failed"),
        TransportFailure::Other { detail } => format!("the request failed: {detail}"),
        _ => String::new(),
    }
}
