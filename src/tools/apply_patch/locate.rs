//! Finding where a hunk's old lines sit in the file.
//!
//! A hunk header's line number is a hint, not a fact: the file may have drifted since the diff
//! was made. So the search starts at the expected position (the header's line plus the offset
//! the previous hunk was found at) and widens one line at a time, up to [`MAX_WINDOW`] lines
//! either way. Context is compared at increasingly forgiving levels — exact, then ignoring
//! trailing whitespace, then ignoring all surrounding whitespace, then with typographic
//! punctuation folded (curly quotes, dashes, exotic spaces, which models and web pages
//! introduce) — and a stricter level anywhere in the window beats a looser one at the
//! expected line. What is never forgiven is ambiguity: two different positions that match
//! equally well (same level, same distance) fail naming both, because picking one would be a
//! guess that can land an edit in the wrong place.

/// How far from the expected position a hunk may be found, in lines, either way.
pub(super) const MAX_WINDOW: usize = 50;

/// How forgiving a match was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Fuzz {
    Exact,
    TrailingWhitespace,
    Whitespace,
    Punctuation,
}

impl Fuzz {
    pub(super) const LEVELS: [Fuzz; 4] = [
        Fuzz::Exact,
        Fuzz::TrailingWhitespace,
        Fuzz::Whitespace,
        Fuzz::Punctuation,
    ];

    pub(super) fn as_str(self) -> &'static str {
        match self {
            Fuzz::Exact => "exact",
            Fuzz::TrailingWhitespace => "trailing_whitespace",
            Fuzz::Whitespace => "whitespace",
            Fuzz::Punctuation => "punctuation",
        }
    }

    /// Whether `file` and `patch` are the same line at this level.
    pub(super) fn same(self, file: &str, patch: &str) -> bool {
        match self {
            Fuzz::Exact => file == patch,
            Fuzz::TrailingWhitespace => file.trim_end() == patch.trim_end(),
            Fuzz::Whitespace => file.trim() == patch.trim(),
            Fuzz::Punctuation => {
                file.trim() == patch.trim()
                    || fold_punctuation(file.trim()).eq(fold_punctuation(patch.trim()))
            }
        }
    }
}

/// Folds typographic punctuation to ASCII: curly quotes, primes, dashes, ellipsis, and the
/// exotic spaces (non-breaking, thin, ideographic ...).
pub(super) fn fold_punctuation(text: &str) -> impl Iterator<Item = char> + '_ {
    text.chars().flat_map(|c| {
        let folded: &'static str = match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{00B4}' => "'",
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{00AB}' | '\u{00BB}' => "\"",
            '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}' | '\u{2212}' => "-",
            '\u{2026}' => "...",
            '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => " ",
            _ => "",
        };
        let own = if folded.is_empty() { Some(c) } else { None };
        own.into_iter().chain(folded.chars())
    })
}

/// Random access to a file's lines, without their endings.
pub(super) trait Lines {
    fn count(&self) -> usize;
    fn line(&self, i: usize) -> &str;
}

impl Lines for [&str] {
    fn count(&self) -> usize {
        self.len()
    }

    fn line(&self, i: usize) -> &str {
        self[i]
    }
}

/// Where to look.
#[derive(Debug, Clone, Copy)]
pub(super) enum Search {
    /// Around `expected` (a unified hunk's header line plus the carried offset), never before `min`.
    Near { expected: usize, min: usize },
    /// Anywhere from `from` on (`*** Begin Patch` chunks, which carry no line numbers). With
    /// `first`, the nearest hit wins (an `@@` anchor placed `from`); without, a second hit is
    /// ambiguous.
    Forward { from: usize, first: bool },
    /// Only where the hunk ends at the end of the file (`*** End of File`), not before `min`.
    AtEnd { min: usize },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Located {
    Found { at: usize, fuzz: Fuzz },
    Ambiguous { first: usize, second: usize, fuzz: Fuzz },
    NotFound,
}

fn matches_at<L: Lines + ?Sized>(file: &L, pattern: &[&str], at: usize, fuzz: Fuzz) -> bool {
    at + pattern.len() <= file.count()
        && pattern
            .iter()
            .enumerate()
            .all(|(k, p)| fuzz.same(file.line(at + k), p))
}

/// Finds `pattern` (the hunk's old lines) in `file`.
pub(super) fn locate<L: Lines + ?Sized>(file: &L, pattern: &[&str], search: Search) -> Located {
    let n = file.count();
    let len = pattern.len();
    if len > n {
        return Located::NotFound;
    }
    let last = n - len;
    for fuzz in Fuzz::LEVELS {
        match search {
            Search::Near { expected, min } => {
                let expected = expected.clamp(min.min(last), last);
                for w in 0..=MAX_WINDOW {
                    let below = expected.checked_sub(w).filter(|&p| p >= min);
                    let above = Some(expected + w).filter(|&p| p <= last && w > 0);
                    let hit = |p: Option<usize>| p.filter(|&p| matches_at(file, pattern, p, fuzz));
                    match (hit(below), hit(above)) {
                        (Some(a), Some(b)) => {
                            return Located::Ambiguous {
                                first: a,
                                second: b,
                                fuzz,
                            }
                        }
                        (Some(at), None) | (None, Some(at)) => return Located::Found { at, fuzz },
                        (None, None) => {}
                    }
                    if below.is_none() && above.is_none() && (expected < w || expected + w > last) {
                        break;
                    }
                }
            }
            Search::Forward { from, first } => {
                let mut hits = (from..=last).filter(|&p| matches_at(file, pattern, p, fuzz));
                let hit = hits.next();
                match (hit, if first { None } else { hits.next() }) {
                    (Some(first), Some(second)) => return Located::Ambiguous { first, second, fuzz },
                    (Some(at), None) => return Located::Found { at, fuzz },
                    _ => {}
                }
            }
            Search::AtEnd { min } => {
                if last >= min && matches_at(file, pattern, last, fuzz) {
                    return Located::Found { at: last, fuzz };
                }
            }
        }
    }
    Located::NotFound
}

/// Finds a single line (a `@@ <context>` anchor) at or after `from`: the first hit at the
/// strictest level that has one.
pub(super) fn find_line<L: Lines + ?Sized>(file: &L, line: &str, from: usize) -> Option<(usize, Fuzz)> {
    Fuzz::LEVELS.into_iter().find_map(|fuzz| {
        (from..file.count())
            .find(|&i| fuzz.same(file.line(i), line))
            .map(|i| (i, fuzz))
    })
}

/// The position in `range` where the most pattern lines match (whitespace-insensitively),
/// nearest to `expected` on a tie: what a failure message shows as "closest text".
pub(super) fn best_effort<L: Lines + ?Sized>(
    file: &L,
    pattern: &[&str],
    lo: usize,
    hi: usize,
    expected: usize,
) -> (usize, usize) {
    let n = file.count();
    if pattern.is_empty() || n == 0 {
        return (expected.min(n), 0);
    }
    let last = n.saturating_sub(pattern.len().min(n));
    let (lo, hi) = (lo.min(last), hi.min(last));
    let mut best = (lo, 0usize, usize::MAX);
    for p in lo..=hi {
        let score = pattern
            .iter()
            .enumerate()
            .filter(|&(k, a)| p + k < n && Fuzz::Punctuation.same(file.line(p + k), a))
            .count();
        let distance = p.abs_diff(expected);
        if score > best.1 || (score == best.1 && distance < best.2) {
            best = (p, score, distance);
        }
    }
    (best.0, best.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<&str> {
        text.lines().collect()
    }

    #[test]
    fn exact_at_expected_position() {
        let file = lines("a\nb\nc\nd\n");
        let found = locate(&file[..], &["b", "c"], Search::Near { expected: 1, min: 0 });
        assert_eq!(
            found,
            Located::Found {
                at: 1,
                fuzz: Fuzz::Exact
            }
        );
    }

    #[test]
    fn widens_to_find_drifted_hunk() {
        let mut text = String::new();
        for i in 0..100 {
            text.push_str(&format!("line {i}\n"));
        }
        let file = lines(&text);
        let found = locate(
            &file[..],
            &["line 40", "line 41"],
            Search::Near { expected: 10, min: 0 },
        );
        assert_eq!(
            found,
            Located::Found {
                at: 40,
                fuzz: Fuzz::Exact
            }
        );
        let too_far = locate(
            &file[..],
            &["line 90", "line 91"],
            Search::Near { expected: 10, min: 0 },
        );
        assert_eq!(too_far, Located::NotFound);
    }

    #[test]
    fn stricter_level_beats_nearer_position() {
        let file = lines("x  \ny\nq\nq\nx\ny\n");
        let found = locate(&file[..], &["x", "y"], Search::Near { expected: 0, min: 0 });
        assert_eq!(
            found,
            Located::Found {
                at: 4,
                fuzz: Fuzz::Exact
            }
        );
    }

    #[test]
    fn equal_distance_is_ambiguous() {
        let file = lines("k\nz\nq\nz\nk\n");
        let found = locate(&file[..], &["k"], Search::Near { expected: 2, min: 0 });
        assert_eq!(
            found,
            Located::Ambiguous {
                first: 0,
                second: 4,
                fuzz: Fuzz::Exact
            }
        );
    }

    #[test]
    fn fuzz_levels() {
        assert!(Fuzz::TrailingWhitespace.same("a  ", "a"));
        assert!(!Fuzz::TrailingWhitespace.same("  a", "a"));
        assert!(Fuzz::Whitespace.same("\t a ", "a"));
        assert!(Fuzz::Punctuation.same("say \u{201C}hi\u{201D} \u{2014} ok", "say \"hi\" - ok"));
        assert!(!Fuzz::Punctuation.same("a", "b"));
    }

    #[test]
    fn forward_search_refuses_two_hits() {
        let file = lines("}\nx\n}\n");
        let forward = |from, first| Search::Forward { from, first };
        assert!(matches!(
            locate(&file[..], &["}"], forward(0, false)),
            Located::Ambiguous { .. }
        ));
        assert_eq!(
            locate(&file[..], &["}"], forward(1, false)),
            Located::Found {
                at: 2,
                fuzz: Fuzz::Exact
            }
        );
        assert_eq!(
            locate(&file[..], &["}"], forward(0, true)),
            Located::Found {
                at: 0,
                fuzz: Fuzz::Exact
            }
        );
    }
}
