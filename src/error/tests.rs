//! The error module's own tests, and the scans of the sources that keep errors worded here.

use super::*;
use crate::source_tests;

/// A source of `src/error/` (or `src/error.rs`), where errors are worded.
fn in_error(path: &std::path::Path) -> bool {
    path.ends_with("src/error") || path.ends_with("src/error.rs")
}

/// The wording of an error lives with its constructor, so a message reads the same
/// wherever it is raised; nothing outside `src/error/` may build an error from a bare code.
#[test]
fn errors_are_built_by_named_constructors() {
    let found: Vec<_> = source_tests::production_sources(&in_error)
        .into_iter()
        .filter(|(_, code)| code.contains(concat!("ToolError::", "new(")))
        .map(|(path, _)| path)
        .collect();
    assert!(
        found.is_empty(),
        "ToolError::new outside src/error/ (add a named constructor there instead): {found:?}"
    );
}

/// The arguments of every `ToolError::` constructor call in `code`, as (line, constructor,
/// arguments): the text between the call's parentheses, brackets balanced.
fn constructor_calls(code: &str) -> Vec<(usize, String, String)> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices("ToolError::") {
        let rest = &code[at + "ToolError::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let Some(args) = rest[name.len()..].strip_prefix('(') else {
            continue;
        };
        let mut depth = 1usize;
        let end = args
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' => depth -= 1,
                    _ => {}
                }
                depth == 0
            })
            .map_or(args.len(), |(i, _)| i);
        let line = code[..at].matches('\n').count() + 1;
        found.push((line, name, args[..end].to_string()));
    }
    found
}

#[test]
fn constructor_calls_reads_nested_arguments() {
    let code = "x\nErr(ToolError::a(&b(c), [d]))?;\nToolError::io(&format!(\"{}\", e), f)\n";
    assert_eq!(
        constructor_calls(code),
        vec![
            (2, "a".to_string(), "&b(c), [d]".to_string()),
            (3, "io".to_string(), "&format!(\"{}\", e), f".to_string())
        ]
    );
}

/// A caller passes the facts of a refusal, never its words: text composed with `format!`
/// and handed to a constructor would be a message worded where it happens. This holds
/// everywhere outside `src/error/`: in the tools and below them (arguments, the command
/// line, dispatch, the network gates, paths). The one exception is a call argument the
/// caller quotes (`quote_arg(&format!(..))`), since the quoting lives in `crate::fs`, which
/// this layer may not name.
#[test]
fn callers_pass_facts_to_error_constructors() {
    let mut found = Vec::new();
    for (path, code) in source_tests::production_sources(&in_error) {
        for (line, constructor, args) in constructor_calls(&code) {
            // A call argument quoted whole, as the next call would spell it, is allowed.
            let composed = args.matches("format!(").count() > args.matches("quote_arg(&format!(").count();
            if composed {
                found.push(format!("{}:{line}: ToolError::{constructor}", path.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "ToolError constructors given text composed with format! (pass the data; word it in \
         src/error/): {found:#?}"
    );
}

/// The generic arguments of each `Result<...>` in `code`, whitespace collapsed, split at the
/// top level: `Result<Vec<u8>,\n String>` yields `["Vec<u8>", "String"]`.
fn result_arguments(code: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices("Result<") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + "Result<".len()..];
        let (mut depth, mut args, mut arg, mut previous) = (0usize, Vec::new(), String::new(), ' ');
        for c in rest.chars() {
            match c {
                '<' | '(' | '[' => depth += 1,
                '>' if previous == '-' => {}
                '>' | ')' | ']' if depth == 0 => break,
                '>' | ')' | ']' => depth -= 1,
                ',' if depth == 0 => {
                    args.push(std::mem::take(&mut arg));
                    previous = c;
                    continue;
                }
                _ => {}
            }
            arg.push(c);
            previous = c;
        }
        args.push(arg);
        found.push(
            args.iter()
                .map(|arg| arg.split_whitespace().collect::<Vec<_>>().join(" "))
                .collect(),
        );
    }
    found
}

#[test]
fn result_arguments_reads_types_across_lines_and_closures() {
    let code = "fn a() -> Result<Vec<u8>,\n    String> {}\n\
                fn b(f: &dyn Fn(&str) -> bool) -> io::Result<()> {}\n\
                fn c() -> Result<(A, B), Error> {}";
    assert_eq!(
        result_arguments(code),
        vec![
            vec!["Vec<u8>".to_string(), "String".to_string()],
            vec!["()".to_string()],
            vec!["(A, B)".to_string(), "Error".to_string()]
        ]
    );
}

/// A failure is a typed value (a closed enum per family, one `Display`) until it reaches
/// the model through a named constructor here; a `String` error would let text written for
/// a person travel where a caller needs to tell failures apart.
#[test]
fn no_production_code_returns_a_string_error() {
    let mut found = Vec::new();
    for (path, code) in source_tests::production_sources(&|_| false) {
        for args in result_arguments(&code) {
            // `io::Result<String>` holds a String; only a second argument is an error type.
            if args.len() == 2 && args[1] == "String" {
                found.push((path.display().to_string(), args.join(", ")));
            }
        }
    }
    assert!(
        found.is_empty(),
        "Result<_, String> outside tests (return a typed error instead): {found:#?}"
    );
}

#[test]
fn every_edit_form_refusal_is_invalid_arguments_and_a_whole_sentence() {
    let forms = [
        EditForm::SearchAndRange,
        EditForm::HalfRange {
            given: "search_start",
            missing: "search_end",
        },
        EditForm::NoSearch,
        EditForm::EmptySearch,
        EditForm::NoChange,
        EditForm::EmptyAnchor,
        EditForm::ReplaceAllOnRange,
        EditForm::ReplaceAllAndOccurrence,
        EditForm::OccurrenceNotPositive(0),
    ];
    for form in forms {
        let error = ToolError::edit_form(form);
        assert_eq!(error.code(), ErrorCode::InvalidArguments);
        let message = error.message();
        assert!(message.ends_with('.'), "{message}");
        let names_a_field = ["search", "replace", "occurrence"]
            .iter()
            .any(|f| message.contains(f));
        assert!(names_a_field, "{message}");
    }
}
