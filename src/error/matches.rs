//! edit_file's refusals when its search text matches more than once, or an occurrence it was
//! told to pick is not there: the tool gives the lines of the matches; the words are here.

use super::{ErrorCode, Field, ToolError};

/// Line numbers listed in a message before "and N more".
const LISTED_LINES: usize = 20;

/// What a fuzzy level of edit_file's matching ladder forgave to find the search text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forgiven {
    Indentation,
    Punctuation,
    LineNumbers,
}

impl Forgiven {
    /// The phrase that follows "forgiving".
    pub fn phrase(self) -> &'static str {
        match self {
            Forgiven::Indentation => "differences in leading/trailing whitespace",
            Forgiven::Punctuation => "typographic punctuation (curly quotes, dashes, special spaces)",
            Forgiven::LineNumbers => "the line-number prefixes pasted into search",
        }
    }
}

/// Sorted 1-based line numbers as a message lists them: each line once, the first
/// [`LISTED_LINES`], then how many more.
pub fn line_list(lines: &[usize]) -> String {
    let mut unique = lines.to_vec();
    unique.dedup();
    let shown: Vec<String> = unique.iter().take(LISTED_LINES).map(|n| n.to_string()).collect();
    let mut text = shown.join(", ");
    if unique.len() > LISTED_LINES {
        text.push_str(&format!(" and {} more", unique.len() - LISTED_LINES));
    }
    text
}

impl ToolError {
    /// occurrence=N past the matches of `what` (search or search_start), which start at `lines`.
    pub fn occurrence_out_of_range(n: i64, what: &str, display: &str, lines: &[usize]) -> ToolError {
        let count = lines.len();
        let listed = line_list(lines);
        let (times, line_word, the_one) = if count == 1 {
            ("", "", " to replace the one match")
        } else {
            ("s", "s", "")
        };
        ToolError::invalid(format!(
            "occurrence={n} is out of range: {what} matches {count} time{times} in `{display}` (line{line_word} {listed}). \
             Pass occurrence=N (1..={count}), or leave occurrence out{the_one}."
        ))
        .with(Field::Count, count)
        .with(Field::Lines, lines.to_vec())
    }

    /// search matches several places, starting at `lines`: exactly, or (`forgiven`) only once
    /// a level of the ladder forgave something; `level` is the level's wire name.
    pub fn multiple_matches(
        display: &str,
        lines: &[usize],
        forgiven: Option<Forgiven>,
        level: &str,
        replace_all: bool,
    ) -> ToolError {
        let count = lines.len();
        let listed = line_list(lines);
        let first = lines.first().copied().unwrap_or(0);
        let message = match forgiven {
            None => format!(
                "search matches {count} places in `{display}` (lines {listed}). Pass replace_all=true to \
                 replace all {count}, or occurrence=N (1..={count}) to replace one (occurrence=1 is \
                 line {first}), or add surrounding lines to search so it matches once."
            ),
            Some(forgiven) => format!(
                "search does not occur exactly in `{display}`, and forgiving {} it matches {count} \
                 places (lines {listed}), so edit_file will not guess.{} Copy search exactly from read_file \
                 output, add surrounding lines so it matches once, or pass occurrence=N (1..={count}) \
                 to pick one (occurrence=1 is line {first}).",
                forgiven.phrase(),
                if replace_all {
                    " replace_all=true applies to exact matches only."
                } else {
                    ""
                }
            ),
        };
        ToolError::new(ErrorCode::MultipleMatches, message)
            .with(Field::Path, display)
            .with(Field::Count, count)
            .with(Field::Lines, lines.to_vec())
            .with(Field::Match, level)
    }

    /// search_start matches several places, starting at `lines`, so the range has no one start.
    pub fn ambiguous_range_start(display: &str, lines: &[usize]) -> ToolError {
        let count = lines.len();
        ToolError::new(
            ErrorCode::MultipleMatches,
            format!(
                "search_start matches {count} places in `{display}` (lines {}); the range must \
                 start at one. Make search_start unique (add more of its line, or the line \
                 before it), or pass occurrence=N (1..={count}) to pick one: occurrence=1 is \
                 line {}.",
                line_list(lines),
                lines.first().copied().unwrap_or(0)
            ),
        )
        .with(Field::Path, display)
        .with(Field::Count, count)
        .with(Field::Lines, lines.to_vec())
    }
}
