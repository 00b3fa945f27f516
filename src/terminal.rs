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

/// How an OSC sequence (`ESC ]`: a window title, a hyperlink) that is never terminated is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnterminatedOsc {
    /// Only its `ESC ]` goes: a command's own output keeps the text after it.
    KeepText,
    /// It runs to the next escape or the end of the text: text a remote server wrote loses the
    /// payload it tried to smuggle.
    StripText,
}

/// `text` without terminal escape sequences (see [`strip_escapes_with`]); an unterminated OSC
/// keeps its text.
pub fn strip_escapes(text: &str) -> String {
    strip_escapes_with(text, UnterminatedOsc::KeepText)
}

/// `text` without terminal escape sequences: CSI (`ESC [` … final byte: colours, cursor moves),
/// OSC (`ESC ]` … BEL or `ESC \`: titles, hyperlinks) and the two-byte sequences (`ESC` and
/// one of `@`–`Z`, `\`, `]`, `^`, `_`: `ESC M`, `ESC \`, …). The one grammar of escapes every
/// text from elsewhere is cleaned with.
pub fn strip_escapes_with(text: &str, osc: UnterminatedOsc) -> String {
    static KEEP: OnceLock<Option<Regex>> = OnceLock::new();
    static STRIP: OnceLock<Option<Regex>> = OnceLock::new();
    if !text.contains('\u{1b}') {
        return text.to_string();
    }
    let (cell, terminator) = match osc {
        UnterminatedOsc::KeepText => (&KEEP, ""),
        UnterminatedOsc::StripText => (&STRIP, "?"),
    };
    let pattern = cell.get_or_init(|| {
        Regex::new(&format!(
            r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\){terminator}|[@-Z\\-_])"
        ))
        .ok()
    });
    match pattern {
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

    #[test]
    fn an_unterminated_osc_keeps_or_loses_its_text_as_asked() {
        let text = "a\x1b]0;title\nb\x1b[1mc";
        assert_eq!(
            strip_escapes_with(text, UnterminatedOsc::KeepText),
            "a0;title\nbc"
        );
        assert_eq!(strip_escapes_with(text, UnterminatedOsc::StripText), "ac");
        for osc in [UnterminatedOsc::KeepText, UnterminatedOsc::StripText] {
            assert_eq!(strip_escapes_with("a\x1b]8;;u\x1b\\b\x1bMc", osc), "abc");
        }
    }
}
