//! The syntax gate: a `.json`, `.toml`, `.rs`, `.py` or `.yaml` file that parsed before a change
//! may not be written in a form that fails to parse.
//!
//! The gate judges the change, not the state. A file that was already broken may be written in
//! any state, because refusing would block the very edit that repairs it (and one broken line
//! elsewhere would lock the whole file). A new file (`before == None`) is checked, since there
//! is nothing to repair. `Cargo.lock` is exempt: it is generated, and cargo rewrites it anyway.
//!
//! Shared by write_file, edit_file and apply_patch, which all call [`check`] on the final text
//! before anything is written, so a refusal always means "the file was NOT modified".

use crate::error::ToolError;

/// Files larger than this are not parsed (a parse of hundreds of megabytes would dominate the
/// call; such files are data dumps, not hand-edited sources).
const MAX_GATED_BYTES: usize = 32 * 1024 * 1024;

/// syn recurses once or more per nesting level, so a deeply nested file would overflow the
/// stack, which aborts the process instead of returning an error. Rust parsing runs on a
/// [`crate::deep_stack`] thread, and a file whose nesting (measured by [`rust_nesting`]) passes
/// this limit is not parsed at all: like an oversized file, it is let through unjudged. Real
/// code nests a few dozen levels; generated code a few hundred.
pub const MAX_RUST_NESTING: usize = 5000;

/// The languages the gate knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Json,
    Toml,
    Rust,
    /// tree-sitter-python: "parses" means a tree without error or missing nodes.
    Python,
    /// tree-sitter-yaml, likewise.
    Yaml,
}

impl Language {
    /// The language of a path by its extension; `None` when the gate does not apply.
    pub fn of(display: &str) -> Option<Language> {
        let name = display.rsplit('/').next().unwrap_or(display);
        if name == "Cargo.lock" {
            return None;
        }
        let (_, ext) = name.rsplit_once('.')?;
        match ext.to_ascii_lowercase().as_str() {
            "json" => Some(Language::Json),
            "toml" => Some(Language::Toml),
            "rs" => Some(Language::Rust),
            "py" | "pyi" => Some(Language::Python),
            "yaml" | "yml" => Some(Language::Yaml),
            _ => None,
        }
    }

    /// Python and YAML are gated only on changes to files that parsed: new files in them are
    /// often templates (Jinja, Helm) that no plain parser accepts, and blocking their creation
    /// would be a false alarm.
    pub fn existing_files_only(self) -> bool {
        matches!(self, Language::Python | Language::Yaml)
    }

    pub fn name(self) -> &'static str {
        match self {
            Language::Json => "JSON",
            Language::Toml => "TOML",
            Language::Rust => "Rust",
            Language::Python => "Python",
            Language::Yaml => "YAML",
        }
    }
}

/// Where and why a parse failed. `line` is 1-based, `column` 1-based in characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseFailure {
    pub message: String,
    pub line: usize,
    pub column: usize,
    /// The last line of the region the parser could not make sense of (tree-sitter reports a
    /// region; the other parsers a point, where this equals `line`).
    pub end_line: usize,
    /// The region the parser reported, when `line` and `column` were moved to the change
    /// inside it.
    pub region: Option<(usize, usize)>,
}

/// Checks a change to `display` (workspace-relative path; its extension picks the parser).
///
/// `before` is the file's current text, or `None` for a new file; `after` is the text about to be
/// written. Returns `syntax_gate` when `before` parsed (or the file is new) and `after` does not;
/// the message carries the parser's message, line and column, the offending line, and says the
/// file was NOT modified (a new one: NOT created). A new file that is empty or only whitespace passes (it is a
/// placeholder, not a broken file), and so does any new Python or YAML file.
pub fn check(display: &str, before: Option<&str>, after: &str) -> Result<(), ToolError> {
    check_moved(display, None, before, after)
}

/// [`check`] for a change that also moves the file: `before` is the text of `from`, the file
/// that parses now, and the message names it rather than `display`, where it goes.
pub fn check_moved(
    display: &str,
    from: Option<&str>,
    before: Option<&str>,
    after: &str,
) -> Result<(), ToolError> {
    let Some(language) = Language::of(display) else {
        return Ok(());
    };
    if after.len() > MAX_GATED_BYTES || before.is_some_and(|b| b.len() > MAX_GATED_BYTES) {
        return Ok(());
    }
    if before.is_none() && (after.trim().is_empty() || language.existing_files_only()) {
        return Ok(());
    }
    let Err(mut failure) = parse(language, after) else {
        return Ok(());
    };
    if let Some(before) = before {
        if parse(language, before).is_err() {
            return Ok(());
        }
        // A region-reporting parser (tree-sitter) often starts the region well before the
        // mistake; the change itself, inside that region, is the better place to point at.
        if failure.end_line > failure.line {
            let (line, column) = first_difference(before, after);
            if (failure.line..=failure.end_line).contains(&line) {
                failure.region = Some((failure.line, failure.end_line));
                failure.line = line;
                failure.column = column;
            }
        }
    }
    Err(rejection(
        display,
        from,
        language,
        before.is_none(),
        after,
        &failure,
    ))
}

/// Parses `text` as `language`.
pub fn parse(language: Language, text: &str) -> Result<(), ParseFailure> {
    match language {
        Language::Json => parse_json(text),
        Language::Toml => parse_toml(text),
        Language::Rust => parse_rust(text),
        Language::Python => parse_tree_sitter(&tree_sitter_python::LANGUAGE.into(), text),
        Language::Yaml => parse_tree_sitter(&tree_sitter_yaml::LANGUAGE.into(), text),
    }
}

fn parse_json(text: &str) -> Result<(), ParseFailure> {
    match serde_json::from_str::<serde::de::IgnoredAny>(text) {
        Ok(_) => Ok(()),
        Err(err) => {
            let full = err.to_string();
            // serde_json appends " at line L column C"; the location is reported separately.
            let message = match full.rfind(" at line ") {
                Some(at) => full[..at].to_string(),
                None => full,
            };
            Err(ParseFailure {
                message,
                line: err.line().max(1),
                column: err.column().max(1),
                end_line: err.line().max(1),
                region: None,
            })
        }
    }
}

fn parse_toml(text: &str) -> Result<(), ParseFailure> {
    match toml::from_str::<toml::Table>(text) {
        Ok(_) => Ok(()),
        Err(err) => {
            let (line, column) = match err.span() {
                Some(span) => line_column_of(text, span.start),
                None => (1, 1),
            };
            Err(ParseFailure {
                message: err.message().trim().to_string(),
                line,
                column,
                end_line: line,
                region: None,
            })
        }
    }
}

fn parse_rust(text: &str) -> Result<(), ParseFailure> {
    if rust_nesting(text) > MAX_RUST_NESTING {
        return Ok(());
    }
    let parsed = crate::deep_stack::with_deep_stack(|| match syn::parse_file(text) {
        Ok(_) => Ok(()),
        Err(err) => {
            let start = err.span().start();
            let message = err.to_string();
            // syn reports running out of input at the call-site span, which proc-macro2 places
            // at line 1 (or 0); the input ended after its last non-blank character, so that is
            // where the caret goes.
            let (line, column) = if start.line == 0 || message.starts_with("unexpected end of input") {
                line_column_of(text, text.trim_end().len())
            } else {
                // proc-macro2 columns are 0-based characters.
                (start.line, start.column + 1)
            };
            Err(ParseFailure {
                message,
                line,
                column,
                end_line: line,
                region: None,
            })
        }
    });
    // No thread, or the parser panicked: better to let the write through than to block it.
    parsed.unwrap_or(Ok(()))
}

/// An upper estimate of how deeply syn will recurse on `text`, in one linear pass: the most
/// constructs open at once, counting brackets, `<` (generics), prefix-capable operators
/// (`- ! * &`), closure bars, prefix keywords (`return`, `move`…), `=` (assignment chains)
/// and `else if` chains. Operators and `<` count until the
/// `;`, `,` or closing bracket that ends them, `<` also until its `>`. Comments, strings and
/// character literals are skipped. Overcounting only costs the gate a long expression of
/// thousands of operators, which it then leaves unjudged.
pub fn rust_nesting(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut stack: Vec<Open> = Vec::new();
    let mut deepest = 0;
    let mut previous_word: &str = "";
    let mut i = 0;
    let pop_markers = |stack: &mut Vec<Open>| {
        while stack.last().is_some_and(|top| *top != Open::Bracket) {
            stack.pop();
        }
    };
    while i < bytes.len() {
        let c = bytes[i];
        let next = bytes.get(i + 1).copied().unwrap_or(0);
        let prev = if i > 0 { bytes[i - 1] } else { 0 };
        let mut word = "";
        match c {
            b'/' if next == b'/' => {
                i = memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |at| i + at);
                continue;
            }
            b'/' if next == b'*' => {
                i = skip_block_comment(bytes, i);
                continue;
            }
            b'"' => {
                i = skip_string(bytes, i);
                continue;
            }
            b'\'' => {
                if let Some(end) = skip_char_literal(text, i) {
                    i = end;
                    continue;
                }
            }
            b'(' | b'[' | b'{' => stack.push(Open::Bracket),
            b')' | b']' | b'}' => {
                pop_markers(&mut stack);
                stack.pop();
            }
            b';' | b',' => pop_markers(&mut stack),
            b'<' if next != b'=' => stack.push(Open::Angle),
            b'>' if !matches!(prev, b'-' | b'=') => close_angle(&mut stack),
            b'-' if !matches!(next, b'>' | b'=') => stack.push(Open::Other),
            b'!' | b'*' | b'&' | b'|' if next != b'=' => stack.push(Open::Other),
            b'=' if !matches!(next, b'=' | b'>')
                && !matches!(
                    prev,
                    b'=' | b'!' | b'<' | b'>' | b'+' | b'-' | b'*' | b'/' | b'%' | b'^' | b'&' | b'|'
                ) =>
            {
                stack.push(Open::Other)
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                word = &text[start..i];
                let prefix = matches!(word, "return" | "break" | "yield" | "move" | "async");
                if prefix || (word == "if" && previous_word == "else") {
                    stack.push(Open::Other);
                }
                i -= 1;
            }
            _ => {}
        }
        if !c.is_ascii_whitespace() {
            previous_word = word;
        }
        deepest = deepest.max(stack.len());
        i += 1;
    }
    deepest
}

/// What [`rust_nesting`] counts as open: a bracket, a `<`, or an operator or keyword that
/// lasts until the end of its expression.
#[derive(PartialEq)]
enum Open {
    Bracket,
    Angle,
    Other,
}

/// A `>` closes the innermost `<` and the operators opened since; never a bracket.
fn close_angle(stack: &mut Vec<Open>) {
    while let Some(top) = stack.pop() {
        if top != Open::Other {
            if top == Open::Bracket {
                stack.push(top);
            }
            break;
        }
    }
}

/// The index after the (nested) block comment that starts at `i`.
fn skip_block_comment(bytes: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < bytes.len() {
        if bytes[i] == b'/' && bytes.get(i + 1) == Some(&b'*') {
            depth += 1;
            i += 2;
        } else if bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                break;
            }
        } else {
            i += 1;
        }
    }
    i
}

/// The index after the string literal whose opening quote is at `i`. A raw string `r#"…"#`
/// ends at a quote followed by as many hashes.
fn skip_string(bytes: &[u8], mut i: usize) -> usize {
    let hashes = bytes[..i].iter().rev().take_while(|&&b| b == b'#').count();
    let raw = i > hashes && matches!(bytes[i - hashes - 1], b'r');
    i += 1;
    while i < bytes.len() {
        if !raw && bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        if bytes[i] == b'"' && (!raw || bytes[i + 1..].iter().take_while(|&&b| b == b'#').count() >= hashes) {
            return i + 1 + if raw { hashes } else { 0 };
        }
        i += 1;
    }
    i
}

/// The index after the character literal (`'x'`, `'\n'`, `'é'`) whose quote is at `i`, or
/// `None` for a lifetime or label.
fn skip_char_literal(text: &str, i: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.get(i + 1) == Some(&b'\\') {
        return Some(
            bytes[i + 2..]
                .iter()
                .position(|&b| b == b'\'')
                .map_or(bytes.len(), |at| i + 3 + at),
        );
    }
    let width = text[i + 1..].chars().next().map_or(0, char::len_utf8);
    (width > 0 && bytes.get(i + 1 + width) == Some(&b'\'')).then_some(i + 2 + width)
}

/// tree-sitter always yields a tree, recovering from errors with ERROR and MISSING nodes; the
/// first such node (in document order) is the failure.
fn parse_tree_sitter(language: &tree_sitter::Language, text: &str) -> Result<(), ParseFailure> {
    let mut parser = tree_sitter::Parser::new();
    let Some(tree) = parser
        .set_language(language)
        .ok()
        .and_then(|()| parser.parse(text, None))
    else {
        // No parser: let the write through rather than block it.
        return Ok(());
    };
    let root = tree.root_node();
    if !root.has_error() {
        return Ok(());
    }
    // Descend along the first child holding an error until the error node itself.
    let mut bad = root;
    while !bad.is_error() && !bad.is_missing() {
        let mut cursor = bad.walk();
        let next = bad
            .children(&mut cursor)
            .find(|child| child.has_error() || child.is_missing());
        match next {
            Some(child) => bad = child,
            None => break,
        }
    }
    let message = if bad.is_missing() {
        format!("missing `{}`", bad.kind())
    } else {
        "syntax error".to_string()
    };
    let (line, column) = line_column_of(text, bad.start_byte());
    let (end_line, _) = line_column_of(text, bad.end_byte().saturating_sub(1).max(bad.start_byte()));
    Err(ParseFailure {
        message,
        line,
        column,
        end_line,
        region: None,
    })
}

/// 1-based line and character column in `after` where it first differs from `before`.
fn first_difference(before: &str, after: &str) -> (usize, usize) {
    let same = before
        .bytes()
        .zip(after.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    line_column_of(after, same)
}

/// 1-based line and character column of a byte offset.
fn line_column_of(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

fn rejection(
    display: &str,
    from: Option<&str>,
    language: Language,
    new_file: bool,
    after: &str,
    failure: &ParseFailure,
) -> ToolError {
    let lang = language.name();
    let line_text = after
        .split('\n')
        .nth(failure.line - 1)
        .unwrap_or("")
        .trim_end_matches('\r');
    let shown: String = line_text.chars().take(200).collect();
    let caret_pad: String = shown
        .chars()
        .take(failure.column.saturating_sub(1))
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let stop = crate::error::ParseStop {
        language: lang,
        line: failure.line,
        column: failure.column,
        message: &failure.message,
        region: failure.region,
        shown: &shown,
        caret_pad: &caret_pad,
    };
    ToolError::syntax_gate(display, from, new_file, &stop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn picks_language_by_extension_and_exempts_cargo_lock() {
        assert_eq!(Language::of("a/b.JSON"), Some(Language::Json));
        assert_eq!(Language::of("Cargo.toml"), Some(Language::Toml));
        assert_eq!(Language::of("src/main.rs"), Some(Language::Rust));
        assert_eq!(Language::of("Cargo.lock"), None);
        assert_eq!(Language::of("sub/Cargo.lock"), None);
        assert_eq!(Language::of("README"), None);
        assert_eq!(Language::of("notes.txt"), None);
    }

    #[test]
    fn judges_the_change_not_the_state() {
        let good = "{\"a\": 1}";
        let bad = "{\"a\": }";
        assert!(check("x.json", Some(good), good).is_ok());
        let err = check("x.json", Some(good), bad).unwrap_err();
        assert_eq!(err.code(), ErrorCode::SyntaxGate);
        assert!(err.message().contains("NOT modified"), "{}", err.message());
        assert!(err.message().contains("line 1, column"), "{}", err.message());
        // Broken before: any state goes.
        assert!(check("x.json", Some(bad), "{{{").is_ok());
        // New files are checked; empty new files are placeholders.
        assert!(check("x.json", None, bad).is_err());
        assert!(check("x.json", None, "").is_ok());
        assert!(check("x.txt", Some(good), bad).is_ok());
    }

    #[test]
    fn toml_reports_line_and_column() {
        let err = check("Cargo.toml", Some("[a]\nb = 1\n"), "[a]\nb = \n").unwrap_err();
        assert_eq!(err.details()["line"], 2);
        assert!(err.message().contains("     2│ b = "), "{}", err.message());
    }

    #[test]
    fn rust_reports_the_end_of_input_at_the_last_line() {
        let before = "fn main() {}\n\n\n\nfn g() {}\n";
        let after = "fn main() {}\n\n\n\nfn g() {}\n\nstruct\n";
        let failure = parse(Language::Rust, after).unwrap_err();
        assert!(failure.message.contains("end of input"), "{}", failure.message);
        assert_eq!((failure.line, failure.column), (7, 7));
        assert!(check("a.rs", Some(before), after).is_err());
    }

    #[test]
    fn rust_reports_line_and_column() {
        let before = "fn main() {\n    let x = 1;\n}\n";
        let after = "fn main() {\n    let x = ;\n}\n";
        let err = check("src/main.rs", Some(before), after).unwrap_err();
        assert_eq!(err.details()["line"], 2, "{}", err.message());
        assert_eq!(err.details()["column"], 13, "{}", err.message());
        assert!(err.message().contains("let x = ;"), "{}", err.message());
    }

    #[test]
    fn python_and_yaml_are_gated() {
        let before = "def f(x):\n    return x\n";
        let err = check("a.py", Some(before), "def f(x):\n    return (x\n").unwrap_err();
        assert_eq!(err.details()["language"], "Python", "{}", err.message());
        assert!(check("a.py", Some(before), "def f(x):\n    return x + 1\n").is_ok());
        let yaml = "jobs:\n  build:\n    steps: [a, b]\n";
        assert!(check("ci.yml", Some(yaml), "jobs:\n  build:\n    steps: [a, b\n").is_err());
        assert!(check("ci.yml", Some(yaml), "jobs:\n  build:\n    steps: [a, b, c]\n").is_ok());
        assert!(check("chart.yaml", None, "name: {{ .Values.name }\n").is_ok());
    }

    #[test]
    fn line_column_counts_characters() {
        assert_eq!(line_column_of("ab\ncdé f", 8), (2, 5));
        assert_eq!(line_column_of("x", 0), (1, 1));
    }
}
