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

const REDACTED: &str = "[REDACTED]";

struct Rule {
    pattern: Regex,
    replacement: &'static str,
}

fn rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        let table: &[(&str, &str)] = &[
            // Terminal escape sequences, before control characters drop their ESC.
            (r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?", ""),
            // Tags (and comments) of markup.
            (r"<!--.*?-->|</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>", ""),
            // Userinfo in URLs: scheme://user:pass@host.
            (r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@?#]+@", "${1}[REDACTED]@"),
            // Credentials in query strings and key=value text.
            (
                r"(?i)\b((?:x-)?(?:api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|id[_-]?token|auth[_-]?token|token|secret|client[_-]?secret|password|passwd|pwd|signature|sig)(?:%3D|=|:\s*))[^\s&#'\x22<>,;`()\[\]{}]+",
                "${1}[REDACTED]",
            ),
            // Well-known token shapes.
            (r"\bsk-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_-]{8,}", REDACTED),
            (r"\b(?:gh[pousr]_[A-Za-z0-9]{10,}|github_pat_[A-Za-z0-9_]{10,})", REDACTED),
            (r"\bxox[abposr]-[A-Za-z0-9-]{8,}", REDACTED),
            (r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b", REDACTED),
            (r"\bglpat-[A-Za-z0-9_-]{10,}", REDACTED),
            (r"\bAIza[0-9A-Za-z_-]{30,}", REDACTED),
            (r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", REDACTED),
        ];
        table
            .iter()
            .filter_map(|(pattern, replacement)| {
                Regex::new(pattern).ok().map(|pattern| Rule {
                    pattern,
                    replacement,
                })
            })
            .collect()
    })
}

/// `Bearer …` and `Basic …` credentials. English ("a bearer token", "basic auth") stays: a
/// credential has a digit, an uppercase letter or token punctuation in it.
fn auth_scheme() -> Option<&'static Regex> {
    static RULE: OnceLock<Option<Regex>> = OnceLock::new();
    RULE.get_or_init(|| Regex::new(r"(?i)\b(bearer|basic)(\s+)([A-Za-z0-9._~+/=-]{4,})").ok())
        .as_ref()
}

/// `text` with escape sequences, control characters (except newlines) and tags removed and
/// secrets redacted.
pub fn scrub(text: &str) -> String {
    let mut out = text.to_string();
    for (index, rule) in rules().iter().enumerate() {
        out = rule.pattern.replace_all(&out, rule.replacement).into_owned();
        if index == 0 {
            out.retain(|c| c == '\n' || !c.is_control());
        }
    }
    let Some(auth) = auth_scheme() else {
        return out;
    };
    auth.replace_all(&out, |caps: &regex::Captures| {
        let token = &caps[3];
        let credential = token
            .chars()
            .any(|c| c.is_ascii_digit() || c.is_ascii_uppercase() || "._~+/=-".contains(c));
        if credential {
            format!("{}{}{REDACTED}", &caps[1], &caps[2])
        } else {
            caps[0].to_string()
        }
    })
    .into_owned()
}

/// Scrubs a tool error's message and every string field beside it.
pub fn scrub_error(mut error: crate::error::ToolError) -> crate::error::ToolError {
    error.message = scrub(&error.message);
    for value in error.details.values_mut() {
        scrub_value(value);
    }
    error
}

fn scrub_value(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(text) => *text = scrub(text),
        serde_json::Value::Array(items) => items.iter_mut().for_each(scrub_value),
        serde_json::Value::Object(map) => map.values_mut().for_each(scrub_value),
        _ => {}
    }
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
    fn strips_tags_and_control_characters() {
        assert_eq!(
            scrub("<html><body><h1>502 Bad Gateway</h1><!-- x --></body></html>"),
            "502 Bad Gateway"
        );
        assert_eq!(scrub("a\x1b[31mred\x1b[0m\x07b\rc\td"), "aredbcd");
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
