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

/// What a terminal would show for `text`, as plain lines: escape sequences removed, `\r\n`
/// (a terminal's line end) as `\n`, a carriage return going back to the start of its line (so
/// a progress bar redrawn in place leaves its last state), a backspace erasing the character
/// before it (an echoed correction), and other control characters dropped.
pub fn screen_text(text: &str) -> String {
    let text = strip_escapes(text);
    let mut out = String::with_capacity(text.len());
    for (at, line) in text.split('\n').enumerate() {
        if at > 0 {
            out.push('\n');
        }
        let mut cells: Vec<char> = Vec::new();
        let mut column: usize = 0;
        for c in line.chars() {
            match c {
                '\r' => column = 0,
                '\u{8}' => column = column.saturating_sub(1),
                '\t' => {
                    column = cells.len().max(column);
                    cells.resize(column, ' ');
                    cells.push('\t');
                    column += 1;
                }
                c if c.is_control() => {}
                c => {
                    if column < cells.len() {
                        cells[column] = c;
                    } else {
                        cells.push(c);
                    }
                    column += 1;
                }
            }
        }
        // An echoed backspace erases with `\b \b`: the blank it leaves at the end is not text.
        while cells.last() == Some(&' ') && column < cells.len() {
            cells.pop();
        }
        out.extend(cells);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_output_reads_as_the_screen_shows_it() {
        assert_eq!(screen_text(">>> 1+1\r\n2\r\n>>> "), ">>> 1+1\n2\n>>> ");
        assert_eq!(screen_text("10%\r50%\r100%\r\ndone"), "100%\ndone");
        assert_eq!(screen_text("ab\u{8} \u{8}c\x1b[?2004h\x07"), "ac");
        assert_eq!(screen_text("long line\rX"), "Xong line");
    }

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
