//! Why a search did not match: the cause and the lines that show it, for the message
//! (worded in `crate::error`) that lets the next call succeed.
//!
//! Three causes cover most misses: line-number prefixes pasted from read_file output, a
//! whitespace difference inside lines or in the line breaks (which the indentation level does
//! not forgive), and text that is simply not there any more (a stale memory of the file, or a
//! typo). For the last, the closest real line is found. Every scan here is linear in the file,
//! so a miss on a large file stays cheap.

use std::collections::{BinaryHeap, HashSet};

use crate::error::{LinePrefix, NoMatchCause, NumberedMiss, Unprefixed, WhitespaceDiff};

use super::matching::{find_exact, Family, LineIndex, Numbered, SearchLines};

/// At most this many candidate lines get the (quadratic) edit-distance comparison.
const CLOSEST_CANDIDATES: usize = 32;
/// Below this similarity, no line is called "closest".
const MIN_SIMILARITY: f64 = 0.4;

/// A diagnosis: why the search missed, and the line a re-read should start near.
pub(super) struct Diagnosis {
    pub cause: NoMatchCause,
    pub near_line: Option<usize>,
}

/// Diagnoses a search (LF text) that no level of the ladder found in `hay` (LF text).
pub(super) fn diagnose(hay: &str, search: &str) -> Diagnosis {
    let index = LineIndex::new(hay);
    if hay.is_empty() {
        return Diagnosis {
            cause: NoMatchCause::EmptyFile,
            near_line: None,
        };
    }
    if let Some(numbered) = Numbered::parse(search) {
        // One `12:`-style line is as likely prose (a time, a ratio) as a grep hit: no claim.
        if numbered.family != Family::Grep || numbered.lines.len() > 1 {
            return numbered_diagnosis(hay, &index, &numbered);
        }
    }
    if let Some(found) = out_of_order_numbers(hay, &index, search) {
        return found;
    }
    if let Some(found) = first_line_numbered(hay, search) {
        return found;
    }
    if let Some(found) = whitespace_only(hay, &index, search) {
        return found;
    }
    missing_line(hay, &index, search)
}

fn prefix(family: Family) -> LinePrefix {
    match family {
        Family::Bar => LinePrefix::Bar,
        Family::Arrow => LinePrefix::Arrow,
        Family::Tab => LinePrefix::Tab,
        Family::Grep => LinePrefix::Grep,
    }
}

/// Only the first line carries a read_file (`    12│ `) or `12→` prefix: the model copied a
/// listing from the middle of a line onward, or pasted the first line whole and typed the
/// rest. The prefix is still the reason for the miss.
fn first_line_numbered(hay: &str, search: &str) -> Option<Diagnosis> {
    let first = search.split('\n').next()?;
    let family = [Family::Bar, Family::Arrow]
        .into_iter()
        .find(|f| Numbered::parse(first).is_some_and(|n| n.family == *f))?;
    let stripped = Numbered::parse(first)?.lines.concat();
    let rest = &search[first.len()..];
    let without = format!("{stripped}{rest}");
    let index = LineIndex::new(hay);
    let at = find_exact(hay, &without)
        .first()
        .map(|hit| index.number_at(hit.start));
    Some(Diagnosis {
        cause: NoMatchCause::FirstLineNumbered {
            prefix: prefix(family),
            at,
        },
        near_line: at,
    })
}

/// Every line carries a prefix but the numbers do not increase (`4:` then `3:`, as when grep
/// hits were pasted bottom-up): the ladder never strips those, so the miss is theirs. Bare
/// `N:` / `N<TAB>` prefixes could be the text itself (a YAML map, a table), so for those at
/// least one line must be the file line its number names.
fn out_of_order_numbers(hay: &str, index: &LineIndex, search: &str) -> Option<Diagnosis> {
    if Numbered::parse(search).is_some() {
        return None;
    }
    let numbered = Numbered::parse_unordered(search).filter(|n| n.lines.len() > 1)?;
    let file_line = |n: usize| (1..=index.count()).contains(&n).then(|| index.line(hay, n - 1).0);
    let named: Vec<(usize, String)> = numbered
        .numbers
        .iter()
        .filter_map(|&n| file_line(n).map(|line| (n, line.to_string())))
        .collect();
    let lines_match = numbered
        .numbers
        .iter()
        .zip(&numbered.lines)
        .any(|(&n, wanted)| file_line(n).is_some_and(|line| line.trim() == wanted.trim()));
    if matches!(numbered.family, Family::Grep | Family::Tab) && !lines_match {
        return None;
    }
    let stripped = numbered.text();
    let (without, near_line) = match find_exact(hay, &stripped).first() {
        Some(hit) => {
            let line = index.number_at(hit.start);
            (Unprefixed::At(line), Some(line))
        }
        None => {
            let rest =
                whitespace_only(hay, index, &stripped).unwrap_or_else(|| missing_line(hay, index, &stripped));
            (Unprefixed::Missing(rest.cause), rest.near_line)
        }
    };
    let near_line = near_line.or(named.first().map(|(n, _)| *n));
    Some(Diagnosis {
        cause: NoMatchCause::OutOfOrder {
            prefix: prefix(numbered.family),
            numbers: numbered.numbers,
            named,
            without: Box::new(without),
        },
        near_line,
    })
}

fn numbered_diagnosis(hay: &str, index: &LineIndex, numbered: &Numbered) -> Diagnosis {
    let stripped = numbered.text();
    let elsewhere = find_exact(hay, &stripped);
    let first = numbered.numbers[0];
    let mut near_line = Some(first);
    let then = if let Some(hit) = elsewhere.first() {
        let line = index.number_at(hit.start);
        near_line = Some(line);
        NumberedMiss::Elsewhere(line)
    } else if !numbered.consecutive() {
        NumberedMiss::NotConsecutive
    } else if first == 0 || first > index.count() {
        near_line = None;
        NumberedMiss::PastEnd {
            lines: index.count(),
            first,
        }
    } else {
        let (line, _) = index.line(hay, first - 1);
        NumberedMiss::Changed {
            line: first,
            now: line.to_string(),
            was: numbered.lines[0].clone(),
        }
    };
    Diagnosis {
        cause: NoMatchCause::Numbered {
            prefix: prefix(numbered.family),
            then,
        },
        near_line,
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Advances through `wanted` (whitespace-free bytes) from `pos` by the non-whitespace bytes of
/// `line`; `None` at the first difference.
fn consume(line: &[u8], wanted: &[u8], mut pos: usize) -> Option<usize> {
    for &b in line.iter().filter(|b| !is_space(**b)) {
        if wanted.get(pos) != Some(&b) {
            return None;
        }
        pos += 1;
    }
    Some(pos)
}

/// The search occurs in the file if all whitespace is ignored (spaces inside lines, tabs,
/// line breaks): where, and the first differing pair of lines.
fn whitespace_only(hay: &str, index: &LineIndex, search: &str) -> Option<Diagnosis> {
    let wanted: Vec<u8> = search.bytes().filter(|b| !is_space(*b)).collect();
    if wanted.is_empty() {
        return None;
    }
    let bytes = hay.as_bytes();
    for i in 0..index.count() {
        let (_, range) = index.line(hay, i);
        let Some(mut pos) = consume(&bytes[range], &wanted, 0).filter(|p| *p > 0) else {
            continue;
        };
        let mut j = i;
        while pos < wanted.len() && j + 1 < index.count() {
            j += 1;
            let (_, range) = index.line(hay, j);
            match consume(&bytes[range], &wanted, pos) {
                Some(next) => pos = next,
                None => break,
            }
        }
        if pos != wanted.len() {
            continue;
        }
        let pattern = SearchLines::new(search);
        let file_lines: Vec<&str> = (i..=j).map(|n| index.line(hay, n).0).collect();
        let differs = if file_lines.len() == pattern.lines.len() {
            file_lines
                .iter()
                .zip(&pattern.lines)
                .enumerate()
                .find(|(_, (file_line, search_line))| file_line.trim() != search_line.trim())
                .map_or(WhitespaceDiff::Unseen, |(k, (file_line, search_line))| {
                    WhitespaceDiff::Line {
                        line: i + 1 + k,
                        file: file_line.trim().to_string(),
                        search: search_line.trim().to_string(),
                    }
                })
        } else {
            WhitespaceDiff::Breaks {
                search: pattern.lines.len(),
                file: file_lines.len(),
            }
        };
        return Some(Diagnosis {
            cause: NoMatchCause::Whitespace {
                first: i + 1,
                last: j + 1,
                differs,
            },
            near_line: Some(i + 1),
        });
    }
    None
}

/// The first search line the file does not contain, and the closest line that it does.
fn missing_line(hay: &str, index: &LineIndex, search: &str) -> Diagnosis {
    let pattern = SearchLines::new(search);
    let present: HashSet<&str> = (0..index.count()).map(|i| index.line(hay, i).0.trim()).collect();
    let last = pattern.lines.len() - 1;
    for (k, line) in pattern.lines.iter().enumerate() {
        let wanted = line.trim();
        if wanted.is_empty() {
            continue;
        }
        // The first and last lines may be parts of file lines.
        let found = present.contains(wanted) || ((k == 0 || k == last) && hay.contains(wanted));
        if found {
            continue;
        }
        let closest = closest_line(hay, index, wanted);
        return Diagnosis {
            cause: NoMatchCause::MissingLine {
                line: (pattern.lines.len() > 1).then_some(k + 1),
                text: wanted.to_string(),
                // Exactly as in the file, indentation included, so it can be pasted back.
                closest: closest.map(|n| (n, index.line(hay, n - 1).0.to_string())),
            },
            near_line: closest,
        };
    }
    let first = pattern
        .lines
        .iter()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.trim())
        .unwrap_or_default();
    let at: Vec<usize> = find_exact(hay, first)
        .iter()
        .take(5)
        .map(|r| index.number_at(r.start))
        .collect();
    Diagnosis {
        near_line: at.first().copied(),
        cause: NoMatchCause::NotOneBlock { first_at: at },
    }
}

/// The 1-based number of the file line most similar to `wanted`. A byte-histogram distance
/// (linear) picks a few candidates; edit distance ranks those.
fn closest_line(hay: &str, index: &LineIndex, wanted: &str) -> Option<usize> {
    let mut target = [0u32; 256];
    for &b in wanted.as_bytes() {
        target[b as usize] += 1;
    }
    let mut scratch = target;
    let mut touched: Vec<u8> = Vec::new();
    // Max-heap of (distance, line): keeps the CLOSEST_CANDIDATES smallest distances.
    let mut best: BinaryHeap<(usize, usize)> = BinaryHeap::new();
    for i in 0..index.count() {
        let line = index.line(hay, i).0.trim();
        if line.is_empty() {
            continue;
        }
        let mut shared = 0;
        for &b in line.as_bytes() {
            if scratch[b as usize] > 0 {
                scratch[b as usize] -= 1;
                shared += 1;
                touched.push(b);
            }
        }
        for b in touched.drain(..) {
            scratch[b as usize] = target[b as usize];
        }
        let distance = wanted.len() + line.len() - 2 * shared;
        if best.len() < CLOSEST_CANDIDATES {
            best.push((distance, i));
        } else if best.peek().is_some_and(|top| distance < top.0) {
            best.pop();
            best.push((distance, i));
        }
    }
    // Best similarity first; on a tie, the line closest in length, then the earliest.
    let mut ranked: Vec<(f64, usize, usize)> = best
        .into_iter()
        .map(|(_, i)| {
            let line = index.line(hay, i).0.trim();
            let similarity = strsim::normalized_levenshtein(wanted, line);
            (similarity, line.len().abs_diff(wanted.len()), i)
        })
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    ranked
        .first()
        .filter(|(score, _, _)| *score >= MIN_SIMILARITY)
        .map(|(_, _, i)| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(d: &Diagnosis) -> String {
        d.cause.describe("search")
    }

    #[test]
    fn whitespace_inside_lines() {
        let d = diagnose("a\nfoo(x,  y)\nb\n", "foo(x, y)");
        assert!(text(&d).contains("line 2"), "{}", text(&d));
        assert!(text(&d).contains("foo(x,··y)"), "{}", text(&d));
        assert_eq!(d.near_line, Some(2));
    }

    #[test]
    fn closest_line() {
        let hay = "fn alpha() {}\nfn beta(x: u32) {}\nfn gamma() {}\n";
        let d = diagnose(hay, "fn beta(x: u64) {}");
        assert!(text(&d).contains("closest line is 2"), "{}", text(&d));
    }

    #[test]
    fn pasted_numbers() {
        let d = diagnose("a\nb\nc\n", "     5│ b");
        assert!(text(&d).contains("line-number prefixes"), "{}", text(&d));
        assert!(text(&d).contains("occurs at line 2"), "{}", text(&d));
    }

    #[test]
    fn lines_present_but_not_adjacent() {
        let d = diagnose("a\nx\nb\n", "a\nb");
        assert!(text(&d).contains("not as one block"), "{}", text(&d));
    }
}
