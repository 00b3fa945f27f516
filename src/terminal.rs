//! Text that came from elsewhere (a command's output, a fetched body) made safe to hand on:
//! terminal escape sequences (colours, cursor moves, window titles) removed, and, for text that
//! is never meant for a terminal, every other control character too.

use std::sync::OnceLock;

use regex::Regex;

/// The text of a stream for the model: decoded (invalid UTF-8 becomes U+FFFD) and without
/// terminal escape sequences (colours, cursor moves, titles), which some tools print even with
/// `TERM=dumb` when they see `CI=true`, and which only cost the model tokens.
pub fn clean(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    strip_escapes(&text)
}

/// `text` without terminal escape sequences.
pub fn strip_escapes(text: &str) -> String {
    static ESCAPES: OnceLock<Option<Regex>> = OnceLock::new();
    if !text.contains('\u{1b}') {
        return text.to_string();
    }
    match ESCAPES.get_or_init(|| {
        Regex::new(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])").ok()
    }) {
        Some(pattern) => pattern.replace_all(text, "").into_owned(),
        None => text.to_string(),
    }
}

/// `text` without escape sequences and without control characters other than `\n` and `\t`
/// (a bell, a NUL, a lone ESC, a carriage return that would overwrite a line on a terminal).
pub fn printable(text: &str) -> String {
    let mut out = strip_escapes(text);
    out.retain(|c| c == '\n' || c == '\t' || !c.is_control());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_controls_are_removed() {
        assert_eq!(
            clean(b"\x1b[31;1mred\x1b[0m \x1b]0;title\x07ok\xff"),
            "red ok\u{fffd}"
        );
        assert_eq!(clean(b"plain\x07"), "plain\x07");
        assert_eq!(printable("a\x1b[2Jb\x07c\0d\r\n\te\u{9b}f\x1b"), "abcd\n\tef");
    }
}
