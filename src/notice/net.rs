//! Notices of fetch_url and web_search: a body cut or shown plainer than asked, a redirect not
//! followed, an audit line not written.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetNotice {
    /// The audit log could not be appended to (`error`).
    AuditNotWritten { error: String },
    /// A redirect answer (`status`) without a usable Location header.
    RedirectWithoutLocation { status: u16 },
    /// A page nested deeper than `max` levels, found before converting it.
    TooDeepToConvert { max: usize },
    /// A page nested `depth` levels deep, more than the `max` of the markdown conversion.
    TooDeepForMarkdown { depth: usize, max: usize },
    /// The body is longer than `max_bytes`; `bytes_read` of it were read. `more` is the call
    /// that reads more, when a larger cap exists.
    Truncated {
        max_bytes: usize,
        bytes_read: usize,
        more: Option<ReadMore>,
    },
}

/// The fetch_url call that reads more of a cut body: its `url` as a call argument (quoted), and a
/// larger `max_bytes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadMore {
    pub url_arg: String,
    pub max_bytes: u64,
}

impl fmt::Display for NetNotice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetNotice::AuditNotWritten { error } => {
                write!(f, "could not append to .codesmith/audit.log: {error}")
            }
            NetNotice::RedirectWithoutLocation { status } => write!(
                f,
                "the server answered {status} (a redirect) without a usable Location header, so \
                 the redirect could not be followed; what is shown is the redirect response itself."
            ),
            NetNotice::TooDeepToConvert { max } => write!(
                f,
                "the page nests its elements more than {max} levels deep, too deep \
                 to convert, so it is shown as plain text (format=\"text\") with its tags stripped."
            ),
            NetNotice::TooDeepForMarkdown { depth, max } => write!(
                f,
                "the page nests its elements {depth} levels deep, more than the \
                 {max} the markdown conversion goes, so it is shown as \
                 plain text (format=\"text\")."
            ),
            NetNotice::Truncated {
                max_bytes,
                bytes_read,
                more,
            } => {
                write!(
                    f,
                    "truncated: the body is longer than max_bytes={max_bytes}; only its first {bytes_read} \
                     bytes were read."
                )?;
                match more {
                    Some(ReadMore { url_arg, max_bytes }) => write!(
                        f,
                        " To read more, call fetch_url with url={url_arg} max_bytes={max_bytes}."
                    ),
                    None => f.write_str(" That is the largest body fetch_url reads."),
                }
            }
        }
    }
}
