//! One fetch: hop by hop through the gates, redirects followed by hand, the body read under
//! its byte cap, every hop written to the audit log.
//!
//! ureq is told never to follow a redirect itself: a redirect is a new request to a new host,
//! and it must pass the same gates (and the same policy, and the same approvals) as the first.

use std::io::Read;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use url::Url;

use crate::error::{ErrorCode, FetchTarget, Field, Hint, ToolError, TransportFailure};
use crate::net::audit::{self, Entry};
use crate::net::body::{self, Format, Rendered};
use crate::net::coding;
use crate::net::gates::{self, Admission, Admitted};
use crate::net::policy::Policy;
use crate::notice::{NetNotice, Notice};
use crate::session::context::Context;

/// Redirects followed per call; the sixth is refused.
pub const MAX_REDIRECTS: usize = 5;

const USER_AGENT: &str = concat!("codesmith/", env!("CARGO_PKG_VERSION"), " (fetch_url)");
pub const ACCEPT: &str = "text/html, text/markdown, text/plain;q=0.9, application/json;q=0.9, */*;q=0.5";

pub struct Request {
    pub url: Url,
    pub max_bytes: usize,
    pub timeout: Duration,
    pub format: Format,
    /// Headers sent to the URL asked for and never to a redirect target: a search provider's
    /// key must not follow a redirect to another host.
    pub headers: Vec<(&'static str, String)>,
    /// A JSON body: the request is a POST (to the URL asked for; a redirect is followed with GET).
    pub json_body: Option<String>,
    /// The Accept header; [`ACCEPT`] for a page.
    pub accept: &'static str,
}

impl Request {
    /// A GET of `url` as fetch_url sends it.
    pub fn get(url: Url, max_bytes: usize, timeout: Duration, format: Format) -> Request {
        Request {
            url,
            max_bytes,
            timeout,
            format,
            headers: Vec::new(),
            json_body: None,
            accept: ACCEPT,
        }
    }
}

pub struct Fetched {
    pub final_url: Url,
    pub status: u16,
    pub reason: String,
    pub content_type: Option<String>,
    pub rendered: Rendered,
    pub bytes_read: usize,
    pub truncated: bool,
    pub redirects: Vec<String>,
    pub address: SocketAddr,
    pub admission: Admission,
    /// Side observations for the caller's notices (e.g. an audit log that could not be written).
    pub notices: Vec<Notice>,
}

type Response = ureq::http::Response<ureq::Body>;

/// The audit log of one fetch, and the notices it leaves (a log line that could not be written
/// is said once).
struct Audit<'a> {
    ctx: &'a Context,
    notices: Vec<Notice>,
}

impl Audit<'_> {
    fn log(&mut self, entry: Entry) {
        if let Some(notice) = audit::record(self.ctx, &entry) {
            if !self.notices.contains(&notice) {
                self.notices.push(notice);
            }
        }
    }
}

pub fn fetch(ctx: &Context, policy: &Policy, request: &Request) -> Result<Fetched, ToolError> {
    let deadline = Instant::now() + request.timeout;
    let mut audit = Audit {
        ctx,
        notices: Vec::new(),
    };
    let mut url = request.url.clone();
    let mut redirects: Vec<String> = Vec::new();
    loop {
        let host = gates::policy_host(&url);
        let candidates = match gates::admit(&url, policy, ctx, deadline) {
            Ok(candidates) => candidates,
            Err(refusal) => {
                audit.log(Entry {
                    url: url.as_str(),
                    host: &host,
                    address: refusal.address,
                    decision: "deny",
                    error: Some(refusal.error.code().as_str()),
                    ..Entry::default()
                });
                return Err(at_hop(
                    as_timeout(*refusal.error, request),
                    request,
                    &redirects,
                    &url,
                ));
            }
        };
        let hop = Hop {
            url: &url,
            host: &host,
            redirects: &redirects,
        };
        let (admitted, response) = connect(&mut audit, request, &hop, &candidates, deadline)?;
        let status = response.status().as_u16();
        let mut unfollowed = None;
        if matches!(status, 301 | 302 | 303 | 307 | 308) {
            let location = response
                .headers()
                .get("location")
                .and_then(|value| location_text(value.as_bytes()));
            let Some(location) = location else {
                unfollowed = Some(NetNotice::RedirectWithoutLocation { status }.into());
                return answer(&mut audit, request, &hop, admitted, response, unfollowed);
            };
            audit.log(Entry {
                status: Some(status),
                ..hop_entry(&url, &host, admitted)
            });
            let next = follow(&mut audit, request, &hop, &location)?;
            redirects.push(next.to_string());
            url = next;
            continue;
        }
        return answer(&mut audit, request, &hop, admitted, response, unfollowed);
    }
}

/// One hop of a fetch: the URL asked for, its policy host, and the redirects that led here.
struct Hop<'a> {
    url: &'a Url,
    host: &'a str,
    redirects: &'a [String],
}

/// Sends the request to the first admitted address that answers; an unreachable address
/// moves on to the next.
fn connect<'c>(
    audit: &mut Audit,
    request: &Request,
    hop: &Hop,
    candidates: &'c [Admitted],
    deadline: Instant,
) -> Result<(&'c Admitted, Response), ToolError> {
    let mut attempt = 0;
    loop {
        let admitted = &candidates[attempt];
        match send(request, hop, admitted, deadline) {
            Ok(response) => return Ok((admitted, response)),
            Err(err) => {
                let next = attempt + 1 < candidates.len() && unreachable(&err);
                let error = transport_error(err, hop.url, admitted, request);
                audit.log(Entry {
                    error: Some(error.code().as_str()),
                    ..hop_entry(hop.url, hop.host, admitted)
                });
                if !next {
                    return Err(at_hop(error, request, hop.redirects, hop.url));
                }
                attempt += 1;
            }
        }
    }
}

/// The URL a redirect to `location` leads to, once it passes the redirect gate and the
/// redirect limit; a refusal is logged against the target.
fn follow(audit: &mut Audit, request: &Request, hop: &Hop, location: &str) -> Result<Url, ToolError> {
    // The hop this Location asks for, absolute when it can be made so.
    let target = hop
        .url
        .join(location)
        .map_or(location.to_string(), |next| next.to_string());
    let refused = if hop.redirects.len() == MAX_REDIRECTS {
        let repeats = |seen: &str| {
            Url::parse(seen).is_ok_and(|mut seen| {
                seen.set_fragment(None);
                Url::parse(&target).is_ok_and(|mut target| {
                    target.set_fragment(None);
                    seen == target
                })
            })
        };
        let looped = repeats(request.url.as_str()) || hop.redirects.iter().any(|seen| repeats(seen));
        Err(too_many_redirects(&request.url, &target, looped))
    } else {
        gates::check_redirect(hop.url, location)
    };
    refused.map_err(|error| {
        let host = Url::parse(&target).map_or(String::new(), |t| gates::policy_host(&t));
        audit.log(Entry {
            url: &target,
            host: &host,
            decision: "deny",
            error: Some(error.code().as_str()),
            ..Entry::default()
        });
        let mut hops = hop.redirects.to_vec();
        hops.push(target.clone());
        at_hop(error, request, &hops, &target)
    })
}

/// The final answer: its body decoded, read under the byte cap and rendered.
fn answer(
    audit: &mut Audit,
    request: &Request,
    hop: &Hop,
    admitted: &Admitted,
    mut response: Response,
    unfollowed: Option<Notice>,
) -> Result<Fetched, ToolError> {
    let status = response.status().as_u16();
    let reason = response
        .status()
        .canonical_reason()
        .unwrap_or_default()
        .to_string();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .map(str::to_string);
    let failed = |audit: &mut Audit, error: ToolError| {
        audit.log(Entry {
            status: Some(status),
            error: Some(error.code().as_str()),
            ..hop_entry(hop.url, hop.host, admitted)
        });
        at_hop(error, request, hop.redirects, hop.url)
    };
    let codings = content_codings(&response)
        .map_err(|unknown| failed(audit, unsupported_coding(hop.url, &unknown.name)))?;
    let body = response.body_mut();
    let mime = body.mime_type().map(str::to_string);
    let charset = body.charset().map(str::to_string);
    let read =
        coding::decoder(body.as_reader(), &codings).and_then(|reader| read_capped(reader, request.max_bytes));
    let (bytes, truncated) = read.map_err(|err| {
        let error = match coding::split_error(err) {
            Ok(err) => transport_error(ureq::Error::from(err), hop.url, admitted, request),
            Err(err) => corrupt_coding(hop.url, &codings, &err),
        };
        failed(audit, error)
    })?;
    audit.log(Entry {
        status: Some(status),
        bytes: Some(bytes.len()),
        ..hop_entry(hop.url, hop.host, admitted)
    });
    let mut rendered = body::render(
        &bytes,
        mime.as_deref(),
        charset.as_deref(),
        !truncated,
        request.format,
    );
    if rendered.rendering == "markdown" {
        rendered.text = crate::net::html::absolute_links(&rendered.text, hop.url);
    }
    let mut notices = std::mem::take(&mut audit.notices);
    notices.extend(unfollowed);
    notices.extend(rendered.notice.take());
    Ok(Fetched {
        final_url: hop.url.clone(),
        status,
        reason,
        content_type,
        rendered,
        bytes_read: bytes.len(),
        truncated,
        redirects: hop.redirects.to_vec(),
        address: admitted.addr,
        admission: admitted.admission,
        notices,
    })
}

/// The Content-Encoding codings of a response, or the name of one fetch_url cannot decode. A
/// header value that is not text is an unknown coding too: never guess.
fn content_codings(response: &Response) -> Result<Vec<coding::Coding>, coding::UnknownCoding> {
    let values: Vec<String> = response
        .headers()
        .get_all("content-encoding")
        .iter()
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
        .collect();
    coding::parse(values.iter().map(String::as_str))
}

/// A Location header as a URL reference: bytes that are not printable ASCII (UTF-8 or Latin-1
/// text, spaces, controls) are percent-encoded as curl does, so `/tést path` is followed as
/// `/t%C3%A9st%20path`. An empty value is no location.
fn location_text(bytes: &[u8]) -> Option<String> {
    let bytes = bytes.trim_ascii();
    if bytes.is_empty() {
        return None;
    }
    let mut text = String::with_capacity(bytes.len());
    for &byte in bytes {
        if byte.is_ascii_graphic() {
            text.push(char::from(byte));
        } else {
            text.push_str(&format!("%{byte:02X}"));
        }
    }
    Some(text)
}

fn hop_entry<'a>(url: &'a Url, host: &'a str, admitted: &Admitted) -> Entry<'a> {
    Entry {
        url: url.as_str(),
        host,
        address: Some(admitted.addr.ip()),
        decision: admitted.admission.as_str(),
        trusted_cidr: admitted.trusted_range.map(|range| range.to_string()),
        ..Entry::default()
    }
}

/// Whether a failed attempt never reached the server, so the next checked address may be tried.
fn unreachable(err: &ureq::Error) -> bool {
    use std::io::ErrorKind;
    match err {
        ureq::Error::Io(io) => matches!(
            io.kind(),
            ErrorKind::ConnectionRefused
                | ErrorKind::NetworkUnreachable
                | ErrorKind::HostUnreachable
                | ErrorKind::AddrNotAvailable
                | ErrorKind::NetworkDown
        ),
        ureq::Error::ConnectionFailed => true,
        _ => false,
    }
}

/// One request on a connection pinned to the admitted address: the request's own headers and
/// body for the URL asked for, a plain GET for a redirect target.
fn send(
    request: &Request,
    hop: &Hop,
    admitted: &Admitted,
    deadline: Instant,
) -> Result<ureq::http::Response<ureq::Body>, ureq::Error> {
    let remaining = deadline.saturating_duration_since(Instant::now());
    if remaining.is_zero() {
        return Err(ureq::Error::Timeout(ureq::Timeout::Global));
    }
    let config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .max_redirects_will_error(false)
        // An environment proxy would carry the request past every gate.
        .proxy(None)
        .timeout_global(Some(remaining))
        .user_agent(USER_AGENT)
        .accept(request.accept)
        .accept_encoding(coding::ACCEPT_ENCODING)
        .max_idle_connections(0)
        .build();
    let resolver = gates::PinnedResolver {
        host: admitted.host.clone(),
        addr: admitted.addr,
    };
    let agent = ureq::Agent::with_parts(
        config,
        ureq::unversioned::transport::DefaultConnector::new(),
        resolver,
    );
    let mut target = hop.url.clone();
    target.set_fragment(None);
    if !hop.redirects.is_empty() {
        return agent.get(target.as_str()).call();
    }
    match &request.json_body {
        Some(body) => {
            let mut post = agent
                .post(target.as_str())
                .header("content-type", "application/json");
            for (name, value) in &request.headers {
                post = post.header(*name, value.as_str());
            }
            post.send(body.as_bytes())
        }
        None => {
            let mut get = agent.get(target.as_str());
            for (name, value) in &request.headers {
                get = get.header(*name, value.as_str());
            }
            get.call()
        }
    }
}

/// Reads at most `max_bytes` of the body, plus one byte to learn whether more was there. The
/// cap is applied while reading, so a 10 GB response costs `max_bytes`, not 10 GB.
fn read_capped(reader: impl Read, max_bytes: usize) -> std::io::Result<(Vec<u8>, bool)> {
    let mut bytes = Vec::with_capacity(max_bytes.min(256 * 1024));
    reader.take(max_bytes as u64 + 1).read_to_end(&mut bytes)?;
    let truncated = bytes.len() > max_bytes;
    bytes.truncate(max_bytes);
    Ok((bytes, truncated))
}

fn timeout_error(url: &Url, request: &Request) -> ToolError {
    let ms = request.timeout.as_millis();
    let longer = (ms < u128::from(super::MAX_TIMEOUT_MS))
        .then(|| (ms * 2).min(u128::from(super::MAX_TIMEOUT_MS)) as u64);
    ToolError::fetch_timeout(url.as_str(), ms as u64, longer)
}

fn as_timeout(error: ToolError, request: &Request) -> ToolError {
    if error.code() == ErrorCode::Timeout {
        timeout_error(&request.url, request)
    } else {
        error
    }
}

/// A transport failure in plain words, with what to do about it. Only a failure to reach the
/// server is worth retrying later; a broken answer or a TLS failure says so instead.
fn transport_error(err: ureq::Error, url: &Url, admitted: &Admitted, request: &Request) -> ToolError {
    let failure = match err {
        ureq::Error::Timeout(_) => return timeout_error(url, request),
        ureq::Error::Io(ref io) => match io_failure(io, url) {
            Some(failure) => failure,
            None => return timeout_error(url, request),
        },
        ureq::Error::HostNotFound => TransportFailure::HostNotFound,
        ureq::Error::Tls(what) => TransportFailure::Tls {
            detail: what.to_string(),
        },
        ureq::Error::Rustls(ref error) => TransportFailure::Tls {
            detail: error.to_string(),
        },
        ureq::Error::Protocol(ref proto) => TransportFailure::NotHttp {
            detail: proto.to_string(),
        },
        ureq::Error::LargeResponseHeader(size, limit) => TransportFailure::HeadersTooLarge { size, limit },
        ureq::Error::ConnectionFailed => TransportFailure::ConnectionFailed,
        other => TransportFailure::Other {
            detail: other.to_string(),
        },
    };
    // After a TLS failure: plain HTTP on the same port, if the URL names a port.
    let mut plain = url.clone();
    let plain_http = (url.port().is_some() && plain.set_scheme("http").is_ok()).then(|| plain.to_string());
    let target = format!("{} ({})", admitted.host, admitted.addr);
    let to = FetchTarget {
        url: url.as_str(),
        target: &target,
        host: &admitted.host,
        plain_http: plain_http.as_deref(),
    };
    ToolError::fetch_failed(&to, &failure)
}

/// What an I/O failure of the connection was; `None` for a timeout.
fn io_failure(io: &std::io::Error, url: &Url) -> Option<TransportFailure> {
    use std::io::ErrorKind;
    Some(match io.kind() {
        ErrorKind::TimedOut | ErrorKind::WouldBlock => return None,
        ErrorKind::ConnectionRefused => TransportFailure::Refused,
        _ if url.scheme() == "https" && looks_like_tls(&io.to_string()) => TransportFailure::Tls {
            detail: io.to_string(),
        },
        // A plain-HTTP server that gets a TLS hello often just hangs up.
        ErrorKind::ConnectionReset | ErrorKind::UnexpectedEof if url.scheme() == "https" => {
            TransportFailure::ClosedOverHttps
        }
        ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted | ErrorKind::BrokenPipe => {
            TransportFailure::ClosedAbruptly
        }
        ErrorKind::UnexpectedEof => TransportFailure::ClosedEarly,
        ErrorKind::NetworkUnreachable | ErrorKind::HostUnreachable | ErrorKind::NetworkDown => {
            TransportFailure::NoRoute
        }
        _ => TransportFailure::Io {
            detail: io.to_string(),
        },
    })
}

fn unsupported_coding(url: &Url, name: &str) -> ToolError {
    ToolError::unsupported_coding(url.as_str(), name, coding::ACCEPT_ENCODING)
}

fn corrupt_coding(url: &Url, codings: &[coding::Coding], err: &std::io::Error) -> ToolError {
    let names: Vec<&str> = codings
        .iter()
        .map(|coding| match coding {
            coding::Coding::Gzip => "gzip",
            coding::Coding::Deflate => "deflate",
        })
        .collect();
    ToolError::corrupt_coding(url.as_str(), &names.join("+"), err)
}

/// rustls failures reach us wrapped in `io::Error`; their texts name what went wrong.
fn looks_like_tls(text: &str) -> bool {
    let text = text.to_ascii_lowercase();
    [
        "certificate",
        "corrupt message",
        "handshake",
        "tls",
        "alert",
        "peer misbehaved",
    ]
    .iter()
    .any(|word| text.contains(word))
}

/// An error at a redirect hop (`hops` are the redirect targets so far, the failed one last)
/// names the URL that was asked for, the hop and its URL, before saying what went wrong.
fn at_hop(error: ToolError, request: &Request, hops: &[String], target: impl std::fmt::Display) -> ToolError {
    if hops.is_empty() {
        return error;
    }
    let hop = hops.len();
    error
        .hint(Hint::AtRedirectHop {
            requested: request.url.to_string(),
            hop,
            target: target.to_string(),
        })
        .with(Field::RequestedUrl, request.url.as_str())
        .with(Field::RedirectHop, hop as u64)
        .with(Field::HopUrl, target.to_string())
}

/// `looped`: the next location is one the chain already visited, so following it (or fetching
/// it afresh) only goes round again.
fn too_many_redirects(start: &Url, next: &str, looped: bool) -> ToolError {
    ToolError::too_many_redirects(start.as_str(), next, looped, MAX_REDIRECTS)
}
