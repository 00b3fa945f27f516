//! The replacement for a fuzzy hit: the file's own bytes for the lines the model did not
//! change, and the file's indentation (and, at the punctuation level, its quotes) for the lines
//! it did.

use std::collections::BTreeMap;

use similar::{Algorithm, DiffOp};

/// How the replacement's indentation was changed to fit the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum IndentChange {
    /// None needed.
    Kept,
    /// The file is indented deeper by this prefix on every line; new lines got it too.
    Added(String),
    /// The search was indented deeper by this prefix; new lines lost it.
    Removed(String),
    /// The indentation differed line by line but consistently (say tabs for spaces); new lines
    /// were mapped the same way.
    Mapped,
    /// Inconsistent: the replacement's new lines were inserted as given.
    AsGiven,
}

impl IndentChange {
    /// `data.indentation`: how new lines were shifted, if they were.
    pub(super) fn as_field(&self) -> Option<&'static str> {
        match self {
            IndentChange::Kept => None,
            IndentChange::Added(_) => Some("shifted_right"),
            IndentChange::Removed(_) => Some("shifted_left"),
            IndentChange::Mapped => Some("mapped"),
            IndentChange::AsGiven => Some("as_given"),
        }
    }

    pub(super) fn describe(&self) -> Option<String> {
        let show = |p: &str| {
            let tabs = p.matches('\t').count();
            let spaces = p.matches(' ').count();
            match (tabs, spaces) {
                (0, s) => format!("{s} space{}", if s == 1 { "" } else { "s" }),
                (t, 0) => format!("{t} tab{}", if t == 1 { "" } else { "s" }),
                _ => format!("{p:?}"),
            }
        };
        match self {
            IndentChange::Kept => None,
            IndentChange::Added(p) => Some(format!(
                "The file's lines are indented {} deeper than search; the replacement's new lines were shifted right by the same.",
                show(p)
            )),
            IndentChange::Removed(p) => Some(format!(
                "search was indented {} deeper than the file; the replacement's new lines were shifted left by the same.",
                show(p)
            )),
            IndentChange::Mapped => Some(
                "The file indents differently from search (for example tabs for spaces); the replacement's new lines were re-indented the same way.".to_string(),
            ),
            IndentChange::AsGiven => Some(
                "The indentation of search differs from the file's unevenly, so the replacement's new lines were inserted as given; check the indentation in the diff.".to_string(),
            ),
        }
    }
}

fn lead(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches(is_blank).len()]
}

/// The replacement for one fuzzy hit. `matched` is the file's text in the span, `search` and
/// `replace` the model's. Lines of `replace` equal to a line of `search` take the file's line
/// verbatim (so untouched lines keep their exact bytes: indentation, quotes, trailing spaces);
/// new lines are re-indented by the offset between `search` and the file.
///
/// With `mid_line`, the span starts inside a file line (after other text on it): that line's
/// indentation is not in the span, so it says nothing about the offset, and the first
/// replacement line goes in as given — nothing may be added in front of it, mid-line.
///
/// With `typography` (the punctuation level), where the file's span uses only curly quotes of a
/// kind and search used straight ones, the new lines get curly quotes too, so a change to
/// typeset prose keeps its style. The mirror case: a typographic character of search (curly
/// quote, dash, special space) that the span does not contain, where the span has its ASCII
/// stand-in instead, is folded to that stand-in in the new lines, so typeset text pasted into
/// search and replace does not leak into a file written in ASCII. The returned flag says
/// whether that folding changed anything.
pub(super) fn adapt(
    matched: &str,
    search: &str,
    replace: &str,
    mid_line: bool,
    typography: bool,
) -> (String, IndentChange, bool) {
    let file_lines: Vec<&str> = matched.split('\n').collect();
    let search_lines: Vec<&str> = search.split('\n').collect();
    if file_lines.len() != search_lines.len() {
        return if typography {
            let folded = fold_like_file(replace, matched, search);
            let changed = folded != replace;
            (folded, IndentChange::AsGiven, changed)
        } else {
            (replace.to_string(), IndentChange::AsGiven, false)
        };
    }
    let replace_lines: Vec<&str> = replace.split('\n').collect();
    let skip = usize::from(mid_line);
    let change = indent_change(&search_lines[skip..], &file_lines[skip..]);
    let from_file = kept_lines(&search_lines, &replace_lines);
    let curls = |straight: char, open: char, close: char| {
        typography
            && search.contains(straight)
            && !matched.contains(straight)
            && (matched.contains(open) || matched.contains(close))
    };
    let curl_doubles = curls('"', '\u{201C}', '\u{201D}');
    let curl_singles = curls('\'', '\u{2018}', '\u{2019}');
    let first_takes_file_lead = !mid_line
        && !search_lines[0].trim_matches(is_blank).is_empty()
        && lead(search_lines[0]).is_empty()
        && !lead(file_lines[0]).is_empty();
    let mut folded_any = false;
    let mut out: Vec<String> = Vec::with_capacity(replace_lines.len());
    for (i, line) in replace_lines.iter().enumerate() {
        if let Some(j) = from_file[i] {
            out.push(file_lines[j].to_string());
            continue;
        }
        if line.trim_matches(is_blank).is_empty() {
            out.push(line.to_string());
            continue;
        }
        let curled;
        let line: &str = if curl_doubles || curl_singles {
            curled = curl_quotes(line, curl_doubles, curl_singles);
            &curled
        } else {
            line
        };
        let folded;
        let line: &str = if typography {
            folded = fold_like_file(line, matched, search);
            folded_any |= folded != line;
            &folded
        } else {
            line
        };
        if i == 0 && mid_line {
            out.push(line.to_string());
            continue;
        }
        if i == 0 && first_takes_file_lead && lead(line).is_empty() {
            out.push(format!("{}{line}", lead(file_lines[0])));
            continue;
        }
        out.push(shift(line, &change.0, &change.1));
    }
    (out.join("\n"), change.0, folded_any)
}

/// For each line of replace that search holds unchanged, the index of that line in search
/// (so the file's own line, as matched, is kept).
fn kept_lines(search_lines: &[&str], replace_lines: &[&str]) -> Vec<Option<usize>> {
    let mut from_file: Vec<Option<usize>> = vec![None; replace_lines.len()];
    for op in similar::capture_diff_slices(Algorithm::Myers, search_lines, replace_lines) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for t in 0..len {
                from_file[new_index + t] = Some(old_index + t);
            }
        }
    }
    from_file
}

/// A new line of replace with the indentation change applied; `mapped` maps each search
/// indentation to the file's for [`IndentChange::Mapped`].
fn shift(line: &str, change: &IndentChange, mapped: &BTreeMap<String, String>) -> String {
    match change {
        IndentChange::Added(p) => format!("{p}{line}"),
        IndentChange::Removed(p) => line.strip_prefix(p.as_str()).unwrap_or(line).to_string(),
        IndentChange::Mapped => match mapped.get(lead(line)) {
            Some(to) => format!("{to}{}", line.trim_start_matches(is_blank)),
            None => line.to_string(),
        },
        IndentChange::Kept | IndentChange::AsGiven => line.to_string(),
    }
}

/// `line` with each typographic character that search used but the file's span does not (the
/// span has the character's ASCII stand-in there) folded to that stand-in. Characters search
/// did not contain are the model's own choice and stay.
pub(super) fn fold_like_file(line: &str, matched: &str, search: &str) -> String {
    line.chars()
        .map(|c| match super::matching::punctuation_stand_in(c) {
            Some(ascii) if search.contains(c) && !matched.contains(c) && matched.contains(ascii) => ascii,
            _ => c,
        })
        .collect()
}

/// Straight quotes as typographic ones: a quote after the start, a space or an opening bracket
/// opens, any other closes; a single quote between two letters is an apostrophe.
fn curl_quotes(line: &str, doubles: bool, singles: bool) -> String {
    let chars: Vec<char> = line.chars().collect();
    let opens_after =
        |prev: Option<&char>| prev.is_none_or(|p| p.is_whitespace() || "([{<\u{2014}\u{2013}".contains(*p));
    chars
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let prev = if i == 0 { None } else { chars.get(i - 1) };
            match c {
                '"' if doubles => {
                    if opens_after(prev) {
                        '\u{201C}'
                    } else {
                        '\u{201D}'
                    }
                }
                '\'' if singles => {
                    let between_letters = prev.is_some_and(|p| p.is_alphanumeric())
                        && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric());
                    if !between_letters && opens_after(prev) {
                        '\u{2018}'
                    } else {
                        '\u{2019}'
                    }
                }
                other => other,
            }
        })
        .collect()
}

/// The indentation offset between the search lines and the file lines they matched.
fn indent_change(search: &[&str], file: &[&str]) -> (IndentChange, BTreeMap<String, String>) {
    let pairs: Vec<(&str, &str)> = search
        .iter()
        .zip(file)
        .filter(|(s, _)| !s.trim_matches(is_blank).is_empty())
        .map(|(s, f)| (lead(s), lead(f)))
        .collect();
    let uniform = |pairs: &[(&str, &str)]| -> Option<IndentChange> {
        if pairs.iter().all(|(s, f)| s == f) {
            return Some(IndentChange::Kept);
        }
        let (s0, f0) = pairs.first()?;
        if let Some(p) = f0.strip_suffix(s0).filter(|p| !p.is_empty()) {
            if pairs
                .iter()
                .all(|(s, f)| f.len() == s.len() + p.len() && f.starts_with(p) && f.ends_with(s))
            {
                return Some(IndentChange::Added(p.to_string()));
            }
        }
        if let Some(p) = s0.strip_suffix(f0).filter(|p| !p.is_empty()) {
            if pairs
                .iter()
                .all(|(s, f)| s.len() == f.len() + p.len() && s.starts_with(p) && s.ends_with(f))
            {
                return Some(IndentChange::Removed(p.to_string()));
            }
        }
        None
    };
    if let Some(change) = uniform(&pairs) {
        return (change, BTreeMap::new());
    }
    // The first line copied without its indentation (as if from the middle of the line): judge
    // by the others.
    if pairs.len() > 1 && pairs[0].0.is_empty() {
        if let Some(change) = uniform(&pairs[1..]) {
            return (change, BTreeMap::new());
        }
    }
    let mut map = BTreeMap::new();
    for (s, f) in &pairs {
        if let Some(existing) = map.insert(s.to_string(), f.to_string()) {
            if existing != *f {
                return (IndentChange::AsGiven, BTreeMap::new());
            }
        }
    }
    (IndentChange::Mapped, map)
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adapt_shifts_new_lines_and_keeps_unchanged_ones() {
        let matched = "\tif a {\n\t\tb();  \n\t}";
        let search = "if a {\n    b();\n}";
        let replace = "if a {\n    b();\n    c();\n}";
        let (text, change, _) = adapt(matched, search, replace, false, false);
        assert_eq!(change, IndentChange::Mapped);
        assert_eq!(text, "\tif a {\n\t\tb();  \n\t\tc();\n\t}");
        let (text, change, _) = adapt(
            "    x = 1\n    y = 2",
            "x = 1\ny = 2",
            "x = 1\ny = 3",
            false,
            false,
        );
        assert_eq!(change, IndentChange::Added("    ".into()));
        assert_eq!(text, "    x = 1\n    y = 3");
    }

    #[test]
    fn typography_follows_the_file() {
        let matched = "She said “yes” and didn’t look back.";
        let search = "She said \"yes\" and didn't look back.";
        let replace = "She said \"no\" and didn't look 'back'.";
        let (text, _, folded) = adapt(matched, search, replace, false, true);
        assert_eq!(text, "She said “no” and didn’t look ‘back’.");
        assert!(!folded);
        // Straight quotes in the file's span: nothing is curled.
        let (text, _, _) = adapt(
            "print(\"“hi”\")",
            "print(\"\"hi\"\")",
            "print(\"\"yo\"\")",
            false,
            true,
        );
        assert_eq!(text, "print(\"\"yo\"\")");
    }

    #[test]
    fn typeset_replace_is_folded_to_the_files_ascii() {
        let (text, _, folded) = adapt(
            "echo \"hello\" - done",
            "echo “hello” – done",
            "echo “hello world” – done — «x»",
            false,
            true,
        );
        // The em dash was not in search: the model's own choice, kept.
        assert_eq!(text, "echo \"hello world\" - done — «x»");
        assert!(folded);
        // Unchanged lines keep the file's bytes; nothing folded to report.
        let (text, _, folded) = adapt("a \"b\"\nc", "a “b”\nc", "a “b”\nc\nd", false, true);
        assert_eq!(text, "a \"b\"\nc\nd");
        assert!(!folded);
    }
}
