//! A file's searchable regions (chunks) and their stored form.
//!
//! In a language with a grammar, each definition the tags find is a chunk, widened upward over
//! its doc comment and attributes: a function or method whole, a type or class up to its first
//! member (its members are chunks of their own). Lines outside every definition (module-level
//! code, a script's body) and files without a grammar are cut into windows of
//! [`WINDOW_LINES`]. A chunk keeps its term counts, not its text: the text is read from the
//! file when a result is shown.
//!
//! ```text
//! codesmith-chunks 1
//! C<TAB>start<TAB>end<TAB>kind<TAB>name<TAB>container<TAB>length
//! T<TAB>term:count term:count ...
//! ```

use std::collections::HashMap;

use super::tokens;
use crate::symbols::{LanguageSpec, Symbol};

pub const HEADER: &str = "codesmith-chunks 1";

/// Lines per window where no definition gives the regions.
pub const WINDOW_LINES: usize = 40;

/// How much a term of a definition's name (and its container's) counts against one of its body:
/// the name says what the code is about; the body says it once per use.
const NAME_WEIGHT: u32 = 4;
const CONTAINER_WEIGHT: u32 = 2;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// 1-based, inclusive.
    pub start_line: u32,
    pub end_line: u32,
    /// The definition's kind (`function`, `struct`, ...), or `lines` for a window.
    pub kind: String,
    /// The definition's name; empty for a window.
    pub name: String,
    /// The enclosing definition as `kind name`, or empty.
    pub container: String,
    /// The weighted number of terms.
    pub length: u32,
    /// Term counts, weighted, sorted by term.
    pub terms: Vec<(String, u32)>,
}

/// The chunks of a file's text; `definitions` from [`crate::symbols::extract`] when the file
/// has a grammar.
pub fn chunk(text: &str, language: Option<&'static LanguageSpec>, definitions: &[Symbol]) -> Vec<Chunk> {
    let lines: Vec<&str> = text.lines().collect();
    let mut regions: Vec<Region> = Vec::new();
    if language.is_some() {
        regions = definition_regions(&lines, definitions);
    }
    let mut covered = vec![false; lines.len() + 1];
    for region in &regions {
        let end = region.end.min(lines.len());
        if region.start <= end {
            covered[region.start..=end].fill(true);
        }
    }
    regions.extend(windows(&lines, &covered));
    regions.sort_by_key(|r| (r.start, r.end));
    regions
        .into_iter()
        .map(|region| terms_of(&lines, region))
        .collect()
}

struct Region {
    start: usize,
    end: usize,
    kind: String,
    name: String,
    container: String,
}

/// One region per definition: up to its first nested definition, from the first line of its
/// doc comment.
fn definition_regions(lines: &[&str], definitions: &[Symbol]) -> Vec<Region> {
    let mut regions = Vec::new();
    let mut previous_end = 0;
    let mut sorted: Vec<&Symbol> = definitions.iter().filter(|d| d.definition).collect();
    sorted.sort_by_key(|d| (d.start_line, std::cmp::Reverse(d.end_line)));
    for (i, def) in sorted.iter().enumerate() {
        let start = def.start_line as usize;
        let mut end = (def.end_line as usize).max(start);
        if let Some(child) = sorted[i + 1..]
            .iter()
            .find(|c| c.start_line as usize > start && c.end_line <= def.end_line)
        {
            end = doc_start(lines, child.start_line as usize, start)
                .saturating_sub(1)
                .max(start);
        }
        let floor = if def.depth == 0 { previous_end } else { 0 };
        let region_start = doc_start(lines, start, floor);
        if def.depth == 0 {
            previous_end = previous_end.max(def.end_line as usize);
        }
        regions.push(Region {
            start: region_start,
            end,
            kind: def.kind.clone(),
            name: def.name.clone(),
            container: def.container.clone(),
        });
    }
    regions
}

/// The first line of the comments and attributes right above `start` (1-based), not reaching
/// `floor` or above.
fn doc_start(lines: &[&str], start: usize, floor: usize) -> usize {
    let mut first = start;
    while first > floor + 1 && first >= 2 {
        let above = lines.get(first - 2).map(|l| l.trim_start()).unwrap_or("");
        let doc = ["///", "//", "#", "/*", "*", "@", "--", "\"\"\""]
            .iter()
            .any(|p| above.starts_with(p));
        if !doc {
            break;
        }
        first -= 1;
    }
    first
}

/// Windows over the lines no definition covers; windows with fewer than two non-blank lines
/// are left out.
fn windows(lines: &[&str], covered: &[bool]) -> Vec<Region> {
    let mut out = Vec::new();
    let mut line = 1;
    while line <= lines.len() {
        if covered[line] {
            line += 1;
            continue;
        }
        let start = line;
        while line <= lines.len() && !covered[line] && line - start < WINDOW_LINES {
            line += 1;
        }
        let end = line - 1;
        if lines[start - 1..end]
            .iter()
            .filter(|l| !l.trim().is_empty())
            .count()
            >= 2
        {
            out.push(Region {
                start,
                end,
                kind: "lines".to_string(),
                name: String::new(),
                container: String::new(),
            });
        }
    }
    out
}

fn terms_of(lines: &[&str], region: Region) -> Chunk {
    let mut counts: HashMap<String, u32> = HashMap::new();
    let mut add = |text: &str, weight: u32| tokens::tokens(text, |t| *counts.entry(t).or_insert(0) += weight);
    add(&region.name, NAME_WEIGHT);
    if let Some((_, name)) = region.container.split_once(' ') {
        add(name, CONTAINER_WEIGHT);
    }
    for line in &lines[region.start.saturating_sub(1)..region.end.min(lines.len())] {
        add(line, 1);
    }
    let mut terms: Vec<(String, u32)> = counts.into_iter().collect();
    terms.sort();
    Chunk {
        start_line: u32::try_from(region.start).unwrap_or(u32::MAX),
        end_line: u32::try_from(region.end).unwrap_or(u32::MAX),
        length: terms.iter().map(|(_, n)| n).sum(),
        kind: region.kind,
        name: region.name,
        container: region.container,
        terms,
    }
}

pub fn encode(chunks: &[Chunk]) -> String {
    let mut out = format!("{HEADER}\n");
    for c in chunks {
        out.push_str(&format!(
            "C\t{}\t{}\t{}\t{}\t{}\t{}\nT\t",
            c.start_line, c.end_line, c.kind, c.name, c.container, c.length
        ));
        let terms: Vec<String> = c.terms.iter().map(|(t, n)| format!("{t}:{n}")).collect();
        out.push_str(&terms.join(" "));
        out.push('\n');
    }
    out
}

/// The chunks of a stored file, or `None` when it is not a whole one. `keep` decides which
/// terms are kept (a query needs only its own); every chunk's length is kept.
pub fn decode(text: &str, keep: impl Fn(&str) -> bool) -> Option<Vec<Chunk>> {
    let body = text.strip_prefix(HEADER)?.strip_prefix('\n')?;
    if !body.is_empty() && !body.ends_with('\n') {
        return None;
    }
    let mut out = Vec::new();
    let mut lines = body.lines();
    while let Some(head) = lines.next() {
        let fields: Vec<&str> = head.split('\t').collect();
        if fields.len() != 7 || fields[0] != "C" {
            return None;
        }
        let number = |i: usize| fields[i].parse::<u32>().ok();
        let terms_line = lines.next()?.strip_prefix("T\t")?;
        let mut terms = Vec::new();
        for pair in terms_line.split(' ').filter(|p| !p.is_empty()) {
            let (term, count) = pair.rsplit_once(':')?;
            if keep(term) {
                terms.push((term.to_string(), count.parse().ok()?));
            }
        }
        out.push(Chunk {
            start_line: number(1)?,
            end_line: number(2)?,
            kind: fields[3].to_string(),
            name: fields[4].to_string(),
            container: fields[5].to_string(),
            length: number(6)?,
            terms,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_take_their_doc_comments_and_containers_stop_at_their_members() {
        let source = "use std::io;\n\n/// A user's identity.\n#[derive(Debug)]\npub struct Auth;\n\nimpl Auth {\n    /// Checks the password.\n    pub fn check_credentials(&self) -> bool {\n        true\n    }\n}\n";
        let lang = crate::symbols::languages::for_path(std::path::Path::new("a.rs"));
        let defs = crate::symbols::extract(
            lang.expect("rust"),
            source.as_bytes(),
            &mut tree_sitter_tags::TagsContext::new(),
        )
        .expect("tags");
        let chunks = chunk(source, lang, &defs);
        let shape: Vec<(u32, u32, &str, &str)> = chunks
            .iter()
            .map(|c| (c.start_line, c.end_line, c.kind.as_str(), c.name.as_str()))
            .collect();
        assert_eq!(
            shape,
            [
                (3, 5, "struct", "Auth"),
                (7, 7, "impl", "Auth"),
                (8, 11, "method", "check_credentials")
            ]
        );
        let check = &chunks[2];
        assert!(check.terms.contains(&("credential".to_string(), NAME_WEIGHT + 1)));
        assert!(check.terms.contains(&("password".to_string(), 1)));
        assert_eq!(decode(&encode(&chunks), |_| true), Some(chunks.clone()));
        assert_eq!(decode(&encode(&chunks)[..20], |_| true), None);
    }

    #[test]
    fn text_without_a_grammar_is_cut_into_windows() {
        let text: String = (1..=90).map(|i| format!("line {i}\n")).collect();
        let chunks = chunk(&text, None, &[]);
        let spans: Vec<(u32, u32)> = chunks.iter().map(|c| (c.start_line, c.end_line)).collect();
        assert_eq!(spans, [(1, 40), (41, 80), (81, 90)]);
        assert!(chunks.iter().all(|c| c.kind == "lines"));
    }
}
