//! Why an edit_file search did not match, worded so the next call can succeed: edit_file's
//! diagnosis finds the cause and the lines and numbers that show it; the words are here.

use std::fmt::Write as _;

use super::{ErrorCode, Field, ToolError};

/// Lines are shown cut to this many characters.
const SHOW_CHARS: usize = 160;
/// At most this many of the file lines that out-of-order prefixes name are quoted.
const NAMED_SHOWN: usize = 3;

/// A line-number prefix form pasted from a listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinePrefix {
    /// read_file's `    12│ `.
    Bar,
    /// `    12→`.
    Arrow,
    /// cat -n's `    12<TAB>`.
    Tab,
    /// grep -n's `12:` / `12-`.
    Grep,
}

impl LinePrefix {
    fn example(self) -> &'static str {
        match self {
            LinePrefix::Bar => "`    12│ `",
            LinePrefix::Arrow => "`    12→`",
            LinePrefix::Tab => "`    12<TAB>` (cat -n)",
            LinePrefix::Grep => "`12:` / `12-` (grep -n)",
        }
    }
}

/// Why a search (`search`, `search_start` or `search_end`) is not in the file. Line numbers are
/// 1-based; quoted lines are as the file or the search has them (messages cut long ones).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoMatchCause {
    EmptyFile,
    /// Every line of the search carries a line-number prefix of one form, the numbers
    /// increasing; `then` says what the numbers name.
    Numbered {
        prefix: LinePrefix,
        then: NumberedMiss,
    },
    /// Only the first line carries a read_file or `→` prefix; `at` is where the text occurs
    /// without it.
    FirstLineNumbered {
        prefix: LinePrefix,
        at: Option<usize>,
    },
    /// Every line carries a prefix, but the numbers do not increase (they are listed as given);
    /// `named` are the file lines some of them name, with their text.
    OutOfOrder {
        prefix: LinePrefix,
        numbers: Vec<usize>,
        named: Vec<(usize, String)>,
        without: Box<Unprefixed>,
    },
    /// The text is at lines `first..=last` if whitespace is ignored.
    Whitespace {
        first: usize,
        last: usize,
        differs: WhitespaceDiff,
    },
    /// Line `line` of the search (`None` for a one-line search), trimmed to `text`, is not in
    /// the file; `closest` is the most similar file line, exactly as in the file.
    MissingLine {
        line: Option<usize>,
        text: String,
        closest: Option<(usize, String)>,
    },
    /// Every line is in the file, but not together; `first_at` are the lines (up to five)
    /// where the first one occurs.
    NotOneBlock {
        first_at: Vec<usize>,
    },
}

/// What the numbers of a fully prefixed search name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NumberedMiss {
    /// Without the prefixes the text occurs at this line.
    Elsewhere(usize),
    NotConsecutive,
    /// The first number is past the file's `lines`.
    PastEnd {
        lines: usize,
        first: usize,
    },
    /// Line `line` of the file is `now`, not the search's first line `was`.
    Changed {
        line: usize,
        now: String,
        was: String,
    },
}

/// An out-of-order prefixed search without its prefixes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unprefixed {
    /// It occurs at this line.
    At(usize),
    /// It does not occur, for this reason.
    Missing(NoMatchCause),
}

/// How the whitespace of a search differs from the file where the rest matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WhitespaceDiff {
    /// The first differing pair, trimmed: file line `line` is `file`, the search has `search`.
    Line {
        line: usize,
        file: String,
        search: String,
    },
    /// The search has `search` lines where the file has `file`.
    Breaks { search: usize, file: usize },
    /// The lines pair up and no trimmed pair differs.
    Unseen,
}

/// Where a search_end that does not follow search_start does occur.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RangeEndMiss {
    /// Only inside search_start's own match, at this line.
    InsideStart(usize),
    /// Only before search_start, at this line.
    Before(usize),
    /// Nowhere, for this reason.
    Absent(NoMatchCause),
}

impl NoMatchCause {
    /// The diagnosis as the message says it; `what` names the argument.
    pub fn describe(&self, what: &str) -> String {
        match self {
            NoMatchCause::EmptyFile => "The file is empty.".to_string(),
            NoMatchCause::Numbered { prefix, then } => numbered(*prefix, then, what),
            NoMatchCause::FirstLineNumbered { prefix, at } => {
                let mut text = format!(
                    "The first line of {what} starts with a line-number prefix like {}, copied from read_file \
                     output; it is not part of the file, so remove it from {what} (and from replace).",
                    prefix.example()
                );
                if let Some(line) = at {
                    let _ = write!(text, " Without it the text occurs at line {line}.");
                }
                text
            }
            NoMatchCause::OutOfOrder {
                prefix,
                numbers,
                named,
                without,
            } => out_of_order(*prefix, numbers, named, without, what),
            NoMatchCause::Whitespace { first, last, differs } => whitespace(*first, *last, differs, what),
            NoMatchCause::MissingLine { line, text, closest } => {
                let mut message = match line {
                    None => format!("{what}, {}, is not in the file.", show(text)),
                    Some(k) => format!("Line {k} of {what}, {}, is not in the file.", show(text)),
                };
                match closest {
                    Some((n, line)) => {
                        let _ = write!(message, " The closest line is {n}: {}.", show(line));
                    }
                    None => message.push_str(" No line of the file is similar to it."),
                }
                message
            }
            NoMatchCause::NotOneBlock { first_at } => {
                let lines = first_at
                    .iter()
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(", ");
                format!(
                    "Every line of {what} is in the file, but not as one block in this order (its first \
                     line is at line {lines}). Something between them differs: re-read the region, or \
                     replace a long range with search_start and search_end."
                )
            }
        }
    }
}

fn pasted_prefixes(prefix: LinePrefix, what: &str) -> String {
    format!(
        "{what} carries line-number prefixes like {} on every line, copied from a listing; they \
         are not part of the file, so remove them from {what} (and from replace).",
        prefix.example()
    )
}

fn numbered(prefix: LinePrefix, then: &NumberedMiss, what: &str) -> String {
    let mut text = pasted_prefixes(prefix, what);
    let _ = match then {
        NumberedMiss::Elsewhere(line) => write!(
            text,
            " Without them the text occurs at line {line}, not at the lines the numbers name."
        ),
        NumberedMiss::NotConsecutive => {
            write!(
                text,
                " The numbers are not consecutive, so they do not name one block of lines."
            )
        }
        NumberedMiss::PastEnd { lines, first } => write!(
            text,
            " The file has {lines} lines, so line {first} does not exist."
        ),
        NumberedMiss::Changed { line, now, was } => write!(
            text,
            " Line {line} of the file is now {}, not {}.",
            show(now),
            show(was)
        ),
    };
    text
}

fn out_of_order(
    prefix: LinePrefix,
    numbers: &[usize],
    named: &[(usize, String)],
    without: &Unprefixed,
    what: &str,
) -> String {
    let mut text = pasted_prefixes(prefix, what);
    let numbers: Vec<String> = numbers.iter().map(|n| n.to_string()).collect();
    let _ = write!(
        text,
        " Its numbers are out of order ({}), so they were not stripped: edit_file strips pasted \
         prefixes only when the numbers increase line by line.",
        numbers.join(", ")
    );
    if !named.is_empty() {
        let quoted: Vec<String> = named
            .iter()
            .take(NAMED_SHOWN)
            .map(|(n, line)| format!("line {n} is {}", show(line)))
            .collect();
        let _ = write!(text, " In the file, {}.", quoted.join(", "));
    }
    match without {
        Unprefixed::At(line) => {
            let _ = write!(text, " Without the prefixes the text occurs at line {line}.");
        }
        Unprefixed::Missing(cause) => {
            let rest = cause.describe(what);
            let mut chars = rest.chars();
            let rest: String = chars
                .next()
                .map_or_else(String::new, |c| c.to_lowercase().chain(chars).collect());
            let _ = write!(text, " Without the prefixes, {rest}");
        }
    }
    text
}

fn whitespace(first: usize, last: usize, differs: &WhitespaceDiff, what: &str) -> String {
    let mut text = format!(
        "The text is in the file at {}, but its whitespace differs from {what} (spaces inside \
         lines, tabs, or line breaks), which edit_file does not forgive.",
        if last > first {
            format!("lines {first}-{last}")
        } else {
            format!("line {first}")
        }
    );
    let _ = match differs {
        WhitespaceDiff::Line { line, file, search } => write!(
            text,
            " First difference (· is a space, → a tab): line {line} of the file is {}, {what} has {}.",
            show(&visible(file)),
            show(&visible(search))
        ),
        WhitespaceDiff::Breaks { search, file } => write!(
            text,
            " The line breaks differ: {what} has {} where the file has {}.",
            lines(*search),
            lines(*file)
        ),
        WhitespaceDiff::Unseen => Ok(()),
    };
    text
}

fn lines(n: usize) -> String {
    format!("{n} line{}", if n == 1 { "" } else { "s" })
}

fn visible(line: &str) -> String {
    line.replace(' ', "·").replace('\t', "→")
}

/// A line in backticks, cut to [`SHOW_CHARS`] characters.
fn show(line: &str) -> String {
    let count = line.chars().count();
    if count <= SHOW_CHARS {
        format!("`{line}`")
    } else {
        let cut: String = line.chars().take(SHOW_CHARS).collect();
        format!("`{cut}…` ({} more characters)", count - SHOW_CHARS)
    }
}

impl ToolError {
    /// `search` (or search_start, search_end: `what`) matches no text in the file (`display`,
    /// named in a call as `call_arg`); `cause` says why, and the read it names starts a few
    /// lines before `near_line`.
    pub fn no_match(
        what: &str,
        display: &str,
        call_arg: &str,
        cause: &NoMatchCause,
        near_line: Option<usize>,
    ) -> ToolError {
        let tried = if what == "search" {
            " (tried exactly, then forgiving indentation, typographic punctuation and pasted line numbers)"
        } else {
            ""
        };
        let read_call = match near_line {
            Some(line) if line > 5 => format!("read_file with path={call_arg} start_line={}", line - 5),
            _ => format!("read_file with path={call_arg}"),
        };
        let error = ToolError::new(
            ErrorCode::NoMatch,
            format!(
                "{what} was not found in `{display}`{tried}. {} Call {read_call} to see the current text, \
                 then retry with {what} copied exactly from it (without the line-number prefixes).",
                cause.describe(what)
            ),
        )
        .with(Field::Path, display);
        match near_line {
            Some(line) => error.with(Field::NearLine, line),
            None => error,
        }
    }

    /// search_end does not follow search_start (at `start_line`); `miss` says where it does
    /// occur, if anywhere.
    pub fn no_range_end(display: &str, start_line: usize, miss: &RangeEndMiss, call_arg: &str) -> ToolError {
        let where_ = match miss {
            RangeEndMiss::InsideStart(line) => format!(
                " It matches only at line {line}, inside search_start's own match; search_end is \
                 looked for after the end of search_start, so it must be text that follows it."
            ),
            RangeEndMiss::Before(line) => format!(
                " search_end occurs only before it, at line {line}: the range runs from search_start \
                 forward."
            ),
            RangeEndMiss::Absent(cause) => format!(" {}", cause.describe("search_end")),
        };
        ToolError::new(
            ErrorCode::NoMatch,
            format!(
                "search_end has no match after search_start (line {start_line}) in `{display}`.{where_} Call \
                 read_file with path={call_arg} start_line={start_line} to see the text after search_start, \
                 then retry with a search_end copied from it."
            ),
        )
        .with(Field::Path, display)
        .with(Field::SearchStartLine, start_line)
    }
}
