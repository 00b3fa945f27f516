//! Capping one output stream: head and tail with the omitted count, the summary lines of the
//! omitted middle (test results, compiler errors, panics), and the whole stream in a spill file.
//!
//! The tail matters most (a build's verdict is at its end), the head shows what started, and
//! the middle of a long `cargo test` run is mostly noise except for lines like
//! `test result: FAILED` or `error[E0308]`, which are kept so the model does not need a second
//! call to learn why a run failed.

use std::sync::OnceLock;

use regex::Regex;

/// A stream up to this many lines and bytes is shown whole.
pub const WHOLE_LINES: usize = 200;
pub const WHOLE_BYTES: usize = 20 * 1024;
/// Otherwise the first lines up to these limits...
pub const HEAD_LINES: usize = 60;
pub const HEAD_BYTES: usize = 6 * 1024;
/// ...the last lines up to these...
pub const TAIL_LINES: usize = 100;
pub const TAIL_BYTES: usize = 10 * 1024;
/// ...and at most this many summary lines from the middle, each cut to [`SUMMARY_LINE_CHARS`].
pub const SUMMARY_LINES: usize = 40;
pub const SUMMARY_LINE_CHARS: usize = 300;

/// A stream ready to show.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Capped {
    pub text: String,
    pub truncated: bool,
    pub total_lines: usize,
    pub omitted_lines: usize,
    pub omitted_bytes: usize,
    pub summary_lines: usize,
}

fn is_summary(line: &str) -> bool {
    static PATTERN: OnceLock<Option<Regex>> = OnceLock::new();
    PATTERN
        .get_or_init(|| {
            Regex::new(
                r"(?x)
                ^\s*(?:
                    test\ result: | error\[ | error: | warning: | FAILED | FAIL\b | failures: |
                    ----\ .*\ stdout\ ---- | Error: | ERROR\b | Traceback\  | npm\ ERR! |
                    \d+\ (?:passed|failed)\b | Tests:\  | AssertionError
                )
                | panicked\ at
                | \.\.\.\ FAILED\b
                | :\d+(?::\d+)?:\ (?:fatal\ )?(?:error|warning):",
            )
            .ok()
        })
        .as_ref()
        .is_some_and(|pattern| pattern.is_match(line))
}

/// Shared with fetch_url, which cleans fetched bodies the same way.
pub use crate::terminal::clean;

/// Caps `text`. `spill` stores the whole text and returns its path; it is called only when
/// something is cut. `name` is the stream's name for the marker line.
pub fn cap(text: &str, name: &str, spill: impl FnOnce(&str) -> Option<String>) -> Capped {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total_lines = lines.len();
    if total_lines <= WHOLE_LINES && text.len() <= WHOLE_BYTES {
        return Capped {
            text: text.to_string(),
            total_lines,
            ..Capped::default()
        };
    }
    let (head_end, head_text) = take_head(&lines);
    let head_text_is_empty = head_text.is_empty();
    let (tail_start, tail_text) = take_tail(&lines, head_end);
    let middle = &lines[head_end..tail_start];
    let omitted_bytes = text.len() - head_text.len() - tail_text.len();
    let omitted_lines = middle.len();
    let mut summary: Vec<String> = middle
        .iter()
        .filter(|line| is_summary(line))
        .map(|line| cut_line(line.trim_end_matches(['\n', '\r'])))
        .collect();
    let summary_total = summary.len();
    summary.truncate(SUMMARY_LINES);
    let where_ = match spill(text) {
        Some(path) => format!("full {name}: {path}"),
        None => format!("the full {name} could not be saved"),
    };
    let mut out = head_text;
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    // A line cut inside (a first line longer than the head's budget, a last one longer than
    // the tail's) is partly shown, so it is not counted as an omitted line.
    let head_cut = head_end == 0 && !head_text_is_empty;
    let tail_cut = tail_start == lines.len() && !tail_text.is_empty();
    let cut_lines = if omitted_lines == 1 && head_cut && tail_cut {
        1
    } else {
        usize::from(head_cut) + usize::from(tail_cut)
    };
    let whole = omitted_lines.saturating_sub(cut_lines);
    let what = match (whole, cut_lines) {
        (0, 0) => format!("{omitted_bytes} bytes"),
        (whole, 0) => format!("{} ({omitted_bytes} bytes)", count(whole, "line")),
        (0, 1) => format!("{omitted_bytes} bytes from the middle of a long line"),
        (0, _) => format!("{omitted_bytes} bytes from the middle of long lines"),
        (whole, _) => format!(
            "{} and parts of long lines ({omitted_bytes} bytes)",
            count(whole, "whole line")
        ),
    };
    out.push_str(&format!("[... {what} omitted; {where_} ...]\n"));
    if !summary.is_empty() {
        let more = summary_total - summary.len();
        out.push_str(&format!(
            "[summary lines from the omitted part{}:]\n",
            if more > 0 {
                format!(", first {SUMMARY_LINES} of {summary_total}")
            } else {
                String::new()
            }
        ));
        for line in &summary {
            out.push_str(line);
            out.push('\n');
        }
        out.push_str("[end of summary lines]\n");
    }
    out.push_str(&tail_text);
    Capped {
        text: out,
        truncated: true,
        total_lines,
        omitted_lines,
        omitted_bytes,
        summary_lines: summary.len(),
    }
}

/// The head: whole lines up to the limits. A first line longer than the byte budget shows
/// its start, and counts as omitted (it is not shown whole).
fn take_head(lines: &[&str]) -> (usize, String) {
    let mut text = String::new();
    let mut count = 0;
    for line in lines.iter().take(HEAD_LINES) {
        if text.len() + line.len() > HEAD_BYTES {
            if count == 0 {
                text.push_str(prefix_within(line, HEAD_BYTES));
            }
            break;
        }
        text.push_str(line);
        count += 1;
    }
    (count, text)
}

/// The tail: whole lines from the end, not reaching back into the head.
fn take_tail(lines: &[&str], head_end: usize) -> (usize, String) {
    let mut start = lines.len();
    let mut bytes = 0;
    while start > head_end && lines.len() - start < TAIL_LINES {
        let line = lines[start - 1];
        if bytes + line.len() > TAIL_BYTES {
            if start == lines.len() {
                // One huge last line: keep its end.
                let piece = suffix_within(line, TAIL_BYTES);
                return (start, piece.to_string());
            }
            break;
        }
        bytes += line.len();
        start -= 1;
    }
    (start, lines[start..].concat())
}

fn prefix_within(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn suffix_within(text: &str, max: usize) -> &str {
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// `1 line`, `3 lines`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn cut_line(line: &str) -> String {
    match line.char_indices().nth(SUMMARY_LINE_CHARS) {
        Some((at, _)) => format!("{}[...]", &line[..at]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_removed() {
        assert_eq!(
            clean(b"\x1b[31;1mred\x1b[0m \x1b]0;title\x07ok\xff"),
            "red ok\u{fffd}"
        );
        assert_eq!(clean(b"plain"), "plain");
    }

    #[test]
    fn short_streams_are_whole() {
        let capped = cap("a\nb\n", "stdout", |_| panic!("no spill"));
        assert_eq!(capped.text, "a\nb\n");
        assert!(!capped.truncated);
    }

    #[test]
    fn long_streams_keep_head_tail_and_summaries() {
        let mut text = String::new();
        for i in 0..1000 {
            text.push_str(&format!("line {i}\n"));
            if i == 500 {
                text.push_str("test result: FAILED. 1 passed; 2 failed\n");
                text.push_str("thread 'x' panicked at src/lib.rs:3:5:\n");
                text.push_str("error[E0308]: mismatched types\n");
            }
        }
        let capped = cap(&text, "stdout", |_| Some(".codesmith/spill/x.txt".into()));
        assert!(capped.truncated);
        assert!(capped.text.starts_with("line 0\n"));
        assert!(capped.text.ends_with("line 999\n"));
        assert!(capped.text.contains("test result: FAILED. 1 passed; 2 failed\n"));
        assert!(capped.text.contains("thread 'x' panicked at"));
        assert!(capped.text.contains("error[E0308]"));
        assert!(capped.text.contains("full stdout: .codesmith/spill/x.txt"));
        assert!(!capped.text.contains("line 500\n"));
        assert_eq!(capped.summary_lines, 3);
        assert_eq!(capped.total_lines, 1003);
        let shown = capped.total_lines - capped.omitted_lines;
        assert_eq!(shown, HEAD_LINES + TAIL_LINES);
    }

    #[test]
    fn one_huge_line_is_cut_both_ends() {
        let text = "x".repeat(100_000);
        let capped = cap(&text, "stdout", |_| None);
        assert!(capped.truncated);
        assert!(capped.text.len() < HEAD_BYTES + TAIL_BYTES + 200);
        assert!(capped.text.contains("could not be saved"));
        assert!(
            capped
                .text
                .contains("[... 83616 bytes from the middle of a long line omitted;"),
            "{}",
            capped.text
        );
    }

    #[test]
    fn per_test_failures_and_compiler_locations_are_summary_lines() {
        for line in [
            "test foo::bar ... FAILED",
            "src/a.rs:3:5: error: something",
            "main.c:10: warning: unused variable",
            "x.c:1:2: fatal error: y.h: No such file",
        ] {
            assert!(is_summary(line), "{line}");
        }
        for line in ["test foo::bar ... ok", "reading config: done", "line 150"] {
            assert!(!is_summary(line), "{line}");
        }
    }

    #[test]
    fn whole_omitted_lines_are_counted_in_the_singular_too() {
        let mut text = "line\n".repeat(250);
        text.push_str(&"y".repeat(100));
        let capped = cap(&text, "stdout", |_| None);
        assert!(
            capped.text.contains("[... 91 lines (455 bytes) omitted;"),
            "{}",
            capped.text
        );
        assert_eq!(count(1, "line"), "1 line");
        assert_eq!(count(2, "whole line"), "2 whole lines");
    }
}
