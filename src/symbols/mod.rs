//! Symbols: definitions found by tree-sitter tags queries, references found as identifier uses
//! (see [`identifiers`]), the record they are stored as, and the incremental index over a
//! workspace (see [`index`]).

pub mod embed;
pub mod identifiers;
pub mod index;
pub mod languages;
pub mod record;
pub mod search;

use std::collections::HashSet;

use tree_sitter_tags::TagsContext;

pub use languages::LanguageSpec;

/// One definition or reference in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    /// The tags query's kind: `function`, `method`, `struct`, `class`, ... for definitions;
    /// `call`, `import`, `type`, `implementation`, ... for references.
    pub kind: String,
    pub definition: bool,
    /// The 1-based line of the name.
    pub line: u32,
    /// The 1-based lines the whole definition (or reference) spans.
    pub start_line: u32,
    pub end_line: u32,
    /// How many definitions enclose this one (0 at the top level).
    pub depth: u32,
    /// The innermost enclosing definition as `kind name` (`impl Config`, `class Parser`), or empty.
    pub container: String,
    /// The names of the enclosing definitions, outermost first, joined by `::`.
    pub scope: String,
    /// The line holding the name, trimmed (at most 180 bytes, as tree-sitter-tags cuts it).
    pub text: String,
}

/// Byte offset → 1-based line number.
struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    fn new(source: &[u8]) -> Lines {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', source).map(|at| at + 1));
        Lines { starts }
    }

    fn line_of(&self, byte: usize) -> u32 {
        let index = match self.starts.binary_search(&byte) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        u32::try_from(index + 1).unwrap_or(u32::MAX)
    }
}

/// Why a file's symbols could not be had.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    #[error("{language} is not in the language table")]
    NotInTable { language: &'static str },
    /// The language's tags query, compiled once per process, does not compile.
    #[error("the {language} tags query does not compile: {error}")]
    Query {
        language: &'static str,
        error: &'static tree_sitter_tags::Error,
    },
    #[error("tree-sitter could not tag the file: {0}")]
    Tag(tree_sitter_tags::Error),
    #[error("tree-sitter could not parse the {language} file")]
    Parse { language: &'static str },
}

/// A file's definitions and identifier uses.
pub struct Extracted {
    /// Definitions, then references, each in order of position.
    pub symbols: Vec<Symbol>,
    /// The parse met text it could not read: uses inside it may be missing.
    pub syntax_errors: bool,
}

/// Finds the definitions in `source`, in order of position, annotated with their nesting.
pub fn extract(
    lang: &'static LanguageSpec,
    source: &[u8],
    context: &mut TagsContext,
) -> Result<Vec<Symbol>, ExtractError> {
    Ok(definitions(lang, source, context)?.0)
}

/// Finds the definitions and every identifier use in `source` (see [`identifiers`]).
pub fn extract_all(
    lang: &'static LanguageSpec,
    source: &[u8],
    context: &mut TagsContext,
) -> Result<Extracted, ExtractError> {
    let (mut symbols, names) = definitions(lang, source, context)?;
    let tree =
        identifiers::parse(&(lang.grammar)(), source).ok_or(ExtractError::Parse { language: lang.name })?;
    for found in identifiers::uses(&tree, source, &names) {
        symbols.push(Symbol {
            name: found.name,
            kind: found.kind.to_string(),
            definition: false,
            line: found.line,
            start_line: found.line,
            end_line: found.line,
            depth: 0,
            container: String::new(),
            scope: String::new(),
            text: String::new(),
        });
    }
    Ok(Extracted {
        symbols,
        syntax_errors: tree.root_node().has_error(),
    })
}

/// The byte ranges of definitions' names (not uses of them).
type NameRanges = HashSet<(usize, usize)>;

/// The definitions the tags queries find, and the byte ranges of their names.
fn definitions(
    lang: &'static LanguageSpec,
    source: &[u8],
    context: &mut TagsContext,
) -> Result<(Vec<Symbol>, NameRanges), ExtractError> {
    let config = lang.config()?;
    let lines = Lines::new(source);
    let (tags, _has_error) = context
        .generate_tags(config, source, None)
        .map_err(ExtractError::Tag)?;
    let mut symbols = Vec::new();
    let mut ranges = Vec::new();
    let mut names = HashSet::new();
    for tag in tags.flatten() {
        if !tag.is_definition {
            continue;
        }
        let name = clean(&String::from_utf8_lossy(&source[tag.name_range.clone()]));
        if name.is_empty() {
            continue;
        }
        names.insert((tag.name_range.start, tag.name_range.end));
        let end_byte = tag.range.end.saturating_sub(1).max(tag.range.start);
        symbols.push(Symbol {
            name,
            kind: config.syntax_type_name(tag.syntax_type_id).to_string(),
            definition: true,
            line: u32::try_from(tag.span.start.row + 1).unwrap_or(u32::MAX),
            start_line: lines.line_of(tag.range.start),
            end_line: lines.line_of(end_byte),
            depth: 0,
            container: String::new(),
            scope: String::new(),
            text: clean(&String::from_utf8_lossy(&source[tag.line_range.clone()])),
        });
        ranges.push(tag.range.clone());
    }
    nest(&mut symbols, &ranges);
    Ok((symbols, names))
}

/// Sets depth, container and scope of each definition from the byte ranges: a definition
/// inside another's range is nested in it.
fn nest(symbols: &mut [Symbol], ranges: &[std::ops::Range<usize>]) {
    let mut order: Vec<usize> = (0..symbols.len()).filter(|&i| symbols[i].definition).collect();
    order.sort_by_key(|&i| (ranges[i].start, std::cmp::Reverse(ranges[i].end)));
    let mut open: Vec<usize> = Vec::new();
    for i in order {
        while let Some(&top) = open.last() {
            if ranges[top].end >= ranges[i].end && ranges[top].start <= ranges[i].start {
                break;
            }
            open.pop();
        }
        if let Some(&parent) = open.last() {
            let parent_label = format!("{} {}", symbols[parent].kind, symbols[parent].name);
            let scope = open
                .iter()
                .map(|&j| symbols[j].name.as_str())
                .collect::<Vec<_>>()
                .join("::");
            symbols[i].container = parent_label;
            symbols[i].scope = scope;
            symbols[i].depth = u32::try_from(open.len()).unwrap_or(u32::MAX);
        }
        open.push(i);
    }
}

/// A source line as results show it: trimmed, tabs as spaces, at most 180 bytes (as
/// tree-sitter-tags cuts the lines it gives).
pub fn display_line(line: &str) -> String {
    let mut text = clean(line);
    if text.len() > 180 {
        let mut cut = 180;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    text
}

/// Text as stored: tabs and line breaks become spaces (records are tab-separated lines).
fn clean(text: &str) -> String {
    text.trim()
        .chars()
        .map(|c| if matches!(c, '\t' | '\n' | '\r') { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symbols(ext: &str, source: &str) -> Vec<Symbol> {
        let lang = languages::for_path(std::path::Path::new(&format!("x.{ext}"))).expect("language");
        extract_all(lang, source.as_bytes(), &mut TagsContext::new())
            .expect("tags")
            .symbols
    }

    fn defs(ext: &str, source: &str) -> Vec<(String, String, u32, String)> {
        symbols(ext, source)
            .into_iter()
            .filter(|s| s.definition)
            .map(|s| (s.kind, s.name, s.line, s.container))
            .collect()
    }

    fn def(kind: &str, name: &str, line: u32, container: &str) -> (String, String, u32, String) {
        (kind.into(), name.into(), line, container.into())
    }

    #[test]
    fn rust_definitions_nest_in_impl_blocks() {
        let source = "use std::fmt::Display;\n\npub struct Config {\n    a: u32,\n}\n\nimpl Config {\n    pub fn new() -> Self {\n        helper();\n        Config { a: 1 }\n    }\n}\n\nfn helper() {}\n";
        assert_eq!(
            defs("rs", source),
            vec![
                def("struct", "Config", 3, ""),
                def("impl", "Config", 7, ""),
                def("method", "new", 8, "impl Config"),
                def("function", "helper", 14, ""),
            ]
        );
        let all = symbols("rs", source);
        let call = all.iter().find(|s| s.kind == "call").expect("call");
        assert_eq!((call.name.as_str(), call.line), ("helper", 9));
        let import = all.iter().find(|s| s.kind == "import").expect("import");
        assert_eq!((import.name.as_str(), import.line), ("Display", 1));
        let new = all.iter().find(|s| s.name == "new").expect("new");
        assert_eq!((new.start_line, new.end_line), (8, 11));
        assert_eq!(new.text, "pub fn new() -> Self {");
    }

    #[test]
    fn c_functions_span_their_body() {
        let source = "#define MAX 3\nstruct point { int x; };\nint add(int a, int b);\nint add(int a, int b) {\n  return a + b;\n}\n";
        let found = symbols("c", source);
        let add: Vec<_> = found.iter().filter(|s| s.name == "add").collect();
        assert_eq!(add.len(), 2);
        assert_eq!(add[0].kind, "prototype");
        assert_eq!(
            (add[1].kind.as_str(), add[1].start_line, add[1].end_line),
            ("function", 4, 6)
        );
        assert!(found.iter().any(|s| s.name == "MAX" && s.kind == "macro"));
        assert!(found.iter().any(|s| s.name == "point" && s.kind == "struct"));
    }
}
