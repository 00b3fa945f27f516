//! The scrubber every network error text passes before it reaches the model or the audit log.
//!
//! Error texts carry pieces of the outside world: a URL the model was handed (with a token in
//! its query or credentials in its userinfo), a header echoed by a TLS library, the reason
//! phrase of a hostile server. Those pieces must neither leak secrets into transcripts and logs
//! nor smuggle markup or terminal escapes into what the model reads. So: escape sequences and
//! control characters go, tags go, and anything shaped like a credential is replaced with
//! `[REDACTED]`.

use std::sync::OnceLock;

use regex::Regex;

use crate::terminal::UnterminatedOsc;

const REDACTED: &str = "[REDACTED]";

/// Tags (and comments) of markup: removed from the text as it is.
fn tags() -> Option<&'static Regex> {
    static TAGS: OnceLock<Option<Regex>> = OnceLock::new();
    TAGS.get_or_init(|| Regex::new(r"<!--.*?-->|</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>").ok())
        .as_ref()
}

/// One secret shape. The part to redact is the group named `s` (the whole match without one);
/// `keep` can spare a match that only looks like a secret.
struct Rule {
    pattern: Regex,
    keep: Option<Keep>,
}

/// Whether a match is spared.
type Keep = fn(&Found) -> bool;

/// A match, seen both in the decoded view the rules run on and in the original text.
struct Found<'a> {
    secret: &'a str,
    /// The original text of the whole match (`%20` and `+` still spelled so).
    original: &'a str,
    /// Whether the character before the match is a letter, digit or `_`.
    glued: bool,
}

/// What a key=value credential's value looks like; `[REDACTED]` counts, so the key rules run
/// over already redacted text without redacting the marker's neighbours.
/// The scheme word stays in view (`Authorization: Bearer [REDACTED]`).
const VALUE: &str = r#"(?:(?:bearer|basic|token)\s+)?(?P<s>\[REDACTED\]|[^\s&#'"<>,;`()\[\]{}]+)"#;

fn rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        let table: Vec<(String, Option<Keep>)> = vec![
            // Private key blocks, up to their END line (or the end of the text when it is cut).
            (
                r"(?P<s>-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z))".into(),
                None,
            ),
            // Userinfo in URLs: scheme://user:pass@host.
            (r"(?i)\b[a-z][a-z0-9+.-]*://(?P<s>[^/\s@?#]+)@".into(), None),
            // `Bearer …` and `Basic …` credentials (see `plain_word`).
            (
                r"(?i)\b(?:bearer|basic)\s+(?P<s>[A-Za-z0-9._~+/=-]{4,})".into(),
                Some(plain_word),
            ),
            // key=value (query strings, environment lines): any name with one of these words.
            (
                format!(
                    r"(?i)[A-Za-z0-9_.-]*(?:token|secret|pass|pwd|signature|sig|auth|key|credential|session|cookie)[A-Za-z0-9_.-]*\s*=\s*{VALUE}"
                ),
                None,
            ),
            // key: value (headers, prose): the names that only ever precede a secret.
            (
                format!(
                    r"(?i)\b(?:x-)?(?:api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|id[_-]?token|auth[_-]?token|token|secret|client[_-]?secret|password|passwd|pwd|signature|(?:proxy-)?authorization|(?:[a-z0-9]+[_-])*(?:secret|private|access)[_-]?key|credentials?|passphrase|(?:set-)?cookie|session[_-]?(?:id|token)?):\s*{VALUE}"
                ),
                None,
            ),
            // Well-known token shapes.
            (r"(?P<s>sk-[A-Za-z0-9_-]{8,})".into(), Some(weak_sk)),
            (r"(?P<s>\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{8,})".into(), None),
            (r"(?P<s>(?:gh[pousr]_[A-Za-z0-9]{10,}|github_pat_[A-Za-z0-9_]{10,}))".into(), None),
            (r"(?P<s>xox[abposr]-[A-Za-z0-9-]{8,})".into(), None),
            (r"(?:^|[^A-Za-z0-9])(?P<s>(?:hf|npm)_[A-Za-z0-9]{20,})".into(), None),
            (r"\b(?P<s>(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16})\b".into(), None),
            (r"(?P<s>glpat-[A-Za-z0-9_-]{10,})".into(), None),
            (r"(?P<s>AIza[0-9A-Za-z_-]{30,})".into(), None),
            // SendGrid API keys and Google OAuth access tokens.
            (r"\b(?P<s>SG\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})".into(), None),
            (r"\b(?P<s>ya29\.[A-Za-z0-9_-]{8,})".into(), None),
            (
                r"(?P<s>eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})".into(),
                None,
            ),
        ];
        table
            .into_iter()
            .filter_map(|(pattern, keep)| Regex::new(&pattern).ok().map(|pattern| Rule { pattern, keep }))
            .collect()
    })
}

/// English ("a bearer token", "basic auth") stays: a credential has a digit, an uppercase
/// letter or token punctuation in it, or was joined to its scheme by `%20` or `+` (no prose is).
fn plain_word(found: &Found) -> bool {
    let credential = found
        .secret
        .chars()
        .any(|c| c.is_ascii_digit() || c.is_ascii_uppercase() || "._~+/=-".contains(c));
    !credential && !found.original.contains(['%', '+'])
}

/// `sk-` inside a word (`disk-partition`) is a key only when it looks like one: long, with a
/// digit or an uppercase letter.
fn weak_sk(found: &Found) -> bool {
    let tail = &found.secret[3..];
    found.glued
        && !(tail.len() >= 16 && tail.chars().any(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
            || tail.len() >= 32)
}

/// How many rounds of percent-decoding the rules see through (`%2573k-` is `sk-` after two).
const DECODE_ROUNDS: usize = 3;

/// The text as a URL decoder would read it, decoded again while that changes it (at most
/// [`DECODE_ROUNDS`] times), with the original byte offset of every byte of it (and of its end).
fn decoded_view(text: &str) -> (String, Vec<usize>) {
    let (mut view, mut map) = decode_once(text);
    for _ in 1..DECODE_ROUNDS {
        if !view.contains('%') {
            break;
        }
        let (next, next_map) = decode_once(&view);
        if next == view {
            break;
        }
        map = next_map.iter().map(|&at| map[at]).collect();
        view = next;
    }
    (view, map)
}

/// One round of URL decoding (`%XX` for printable ASCII decoded, `+` a space), with the
/// offset in `text` of every byte of the result (and of its end).
fn decode_once(text: &str) -> (String, Vec<usize>) {
    let bytes = text.as_bytes();
    let mut view = Vec::with_capacity(bytes.len());
    let mut map = Vec::with_capacity(bytes.len() + 1);
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        let escaped = match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) => match (hex(h), hex(l)) {
                (Some(h), Some(l)) if (0x20..0x7f).contains(&(h * 16 + l)) => Some((h * 16 + l) as u8),
                _ => None,
            },
            _ => None,
        };
        map.push(i);
        match escaped {
            Some(byte) => {
                view.push(byte);
                i += 3;
            }
            None => {
                view.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
                i += 1;
            }
        }
    }
    map.push(bytes.len());
    // Only ASCII bytes were replaced by ASCII bytes, so the view is still UTF-8.
    (String::from_utf8_lossy(&view).into_owned(), map)
}

/// Applies one rule: matches are found in the decoded view, and the secret's span in the
/// original text is what is replaced.
fn redact(text: &str, rule: &Rule) -> String {
    let (view, map) = decoded_view(text);
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for caps in rule.pattern.captures_iter(&view) {
        let (Some(whole), secret) = (caps.get(0), caps.name("s")) else {
            continue;
        };
        let secret = secret.unwrap_or(whole);
        let (start, end) = (map[secret.start()], map[secret.end()]);
        let glued = view[..secret.start()]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        let found = Found {
            secret: secret.as_str(),
            original: text.get(map[whole.start()]..map[whole.end()]).unwrap_or_default(),
            glued,
        };
        if rule.keep.is_some_and(|keep| keep(&found)) || text.get(start..end) == Some(REDACTED) {
            continue;
        }
        spans.push((start, end));
    }
    if spans.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end) in spans {
        if start < at || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push_str(REDACTED);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// `text` with escape sequences, control characters (except newlines) and tags removed and
/// secrets redacted, in the text as written and as a URL decoder reads it (`Bearer%20…`,
/// `x+sk-…`).
pub fn scrub(text: &str) -> String {
    // Escape sequences go before control characters drop their ESC.
    let mut out = crate::terminal::strip_escapes_with(text, UnterminatedOsc::StripText);
    out.retain(|c| c == '\n' || !c.is_control());
    if let Some(tags) = tags() {
        out = tags.replace_all(&out, "").into_owned();
    }
    for rule in rules() {
        out = redact(&out, rule);
    }
    out
}

/// Scrubs a tool error's message and every string field beside it.
pub fn scrub_error(error: crate::error::ToolError) -> crate::error::ToolError {
    error.redacted(scrub)
}

#[cfg(test)]
mod tests {
    use super::scrub;

    #[test]
    fn redacts_secrets() {
        for (input, expected) in [
            (
                "Authorization: Bearer abc.def-ghi",
                "Authorization: Bearer [REDACTED]",
            ),
            ("basic dXNlcjpwYXNz", "basic [REDACTED]"),
            ("key sk-proj-abcdefghijklmnop", "key [REDACTED]"),
            ("sk-ant-api03-abcdefghijkl ok", "[REDACTED] ok"),
            ("ghp_abcdefghij0123456789 x", "[REDACTED] x"),
            ("github_pat_11ABCDEFG_xyz012345", "[REDACTED]"),
            ("xoxb-1234-5678-abcdefgh", "[REDACTED]"),
            ("id AKIAIOSFODNN7EXAMPLE.", "id [REDACTED]."),
            (
                "https://a.com/x?api_key=s3cr3t&page=2",
                "https://a.com/x?api_key=[REDACTED]&page=2",
            ),
            (
                "https://a.com/?q=1&token=abc#frag",
                "https://a.com/?q=1&token=[REDACTED]#frag",
            ),
            (
                "https://a.com/?access_token=abc",
                "https://a.com/?access_token=[REDACTED]",
            ),
            ("https://user:pw@a.com/p", "https://[REDACTED]@a.com/p"),
            ("http://tok@a.com", "http://[REDACTED]@a.com"),
            ("password: hunter2 then", "password: [REDACTED] then"),
            (
                "`https://a.com/?token=abc`: refused",
                "`https://a.com/?token=[REDACTED]`: refused",
            ),
        ] {
            assert_eq!(scrub(input), expected, "{input}");
        }
    }

    #[test]
    fn redacts_encoded_and_glued_secrets() {
        for (input, expected) in [
            (
                "Location: /x?h=Bearer%20abc.def",
                "Location: /x?h=Bearer%20[REDACTED]",
            ),
            ("a Bearer+abcdefgh b", "a Bearer+[REDACTED] b"),
            (
                "/?authorization=Bearer%20tok123",
                "/?authorization=Bearer%20[REDACTED]",
            ),
            (
                "/?authorization=Bearer%20tok",
                "/?authorization=Bearer%20[REDACTED]",
            ),
            ("/?q=x%20sk-abcdefghijkl", "/?q=x%20[REDACTED]"),
            ("id_sk-abcdef0123456789xyz", "id_[REDACTED]"),
            ("the disk-partitioning tool", "the disk-partitioning tool"),
            ("k sk_live_abcdefgh1234", "k [REDACTED]"),
            ("t hf_abcdefghijklmnopqrstuvwxyz", "t [REDACTED]"),
            ("t npm_abcdefghijklmnopqrstuvwxyz0123", "t [REDACTED]"),
            (
                "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG",
                "aws_secret_access_key=[REDACTED]",
            ),
            ("SECRET_KEY=abc123 next", "SECRET_KEY=[REDACTED] next"),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY----- after",
                "[REDACTED] after",
            ),
            ("cut -----BEGIN PRIVATE KEY-----MIIEow", "cut [REDACTED]"),
            ("x gho_abcdefghij0123456789", "x [REDACTED]"),
            ("xoxp-1234-abcdefgh", "[REDACTED]"),
            ("k=AIzaSyA-abcdefghijklmnopqrstuvwxyz123", "k=[REDACTED]"),
            ("jwt eyJhbGciOi.eyJzdWIiOi.sig_nature", "jwt [REDACTED]"),
            (
                "/cb?Key=v1&SIGNATURE=v2&Auth=v3&Password=v4&page=2",
                "/cb?Key=[REDACTED]&SIGNATURE=[REDACTED]&Auth=[REDACTED]&Password=[REDACTED]&page=2",
            ),
            (
                "/a?next=http%3A%2F%2Fu%3Apw%40b.com%2F",
                "/a?next=http%3A%2F%2F[REDACTED]%40b.com%2F",
            ),
        ] {
            assert_eq!(scrub(input), expected, "{input}");
        }
        for (input, expected) in [
            ("/?passphrase=pp1&x=1", "/?passphrase=[REDACTED]&x=1"),
            (
                "/?sessionid=s1&session=s2&cookie=c3",
                "/?sessionid=[REDACTED]&session=[REDACTED]&cookie=[REDACTED]",
            ),
            ("Cookie: abc=def", "Cookie: [REDACTED]"),
            ("k SG.abcdefghij_klmn.opqrstuvwxyz0123", "k [REDACTED]"),
            ("t ya29.a0AfH6SMBx-yz0123", "t [REDACTED]"),
            ("/?q=%2573k-zyxwvutsrqpo9876", "/?q=[REDACTED]"),
            ("/?q=%252573k-zyxwvutsrqpo9876", "/?q=[REDACTED]"),
        ] {
            assert_eq!(scrub(input), expected, "{input}");
        }
        // Scrubbing twice changes nothing more.
        let once = scrub("/?authorization=Bearer%20tok123&token=abc");
        assert_eq!(scrub(&once), once);
    }

    #[test]
    fn strips_tags_and_control_characters() {
        assert_eq!(
            scrub("<html><body><h1>502 Bad Gateway</h1><!-- x --></body></html>"),
            "502 Bad Gateway"
        );
        assert_eq!(scrub("a\x1b[31mred\x1b[0m\x07b\rc\td"), "aredbcd");
        // Two-byte sequences go whole (their letter used to stay behind), and an OSC that is
        // never terminated takes its payload with it.
        assert_eq!(scrub("a\x1bMb\x1bPc\x1b]0;title"), "abc");
        assert_eq!(scrub("line one\nline two"), "line one\nline two");
        assert_eq!(scrub("1 < 2 and 3 > 2"), "1 < 2 and 3 > 2");
        assert_eq!(scrub("<script>alert(1)</script>"), "alert(1)");
    }

    #[test]
    fn leaves_plain_words_alone() {
        let text = "could not connect to `docs.rs:443`: connection refused. Call fetch_url with \
                    url=\"https://docs.rs/\" timeout_ms=60000";
        assert_eq!(scrub(text), text);
    }
}
