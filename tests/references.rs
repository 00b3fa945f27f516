//! find_symbol's references measured against a word search: on files of real repositories
//! (tests/fixtures/references/, each with its licence), every line where `rg -w NAME` finds
//! the name outside comments and strings must be listed as a definition or a reference.
//! Comments and strings are found by a small lexer of this file, not by the parser under test.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{json, Value};

use crate::harness::Ws;

/// Each repository's directory under tests/fixtures/references and the names asked for.
const CASES: &[(&str, &[&str])] = &[
    (
        "just",
        &[
            "Compiler",
            "Recipe",
            "Token",
            "TokenKind",
            "Analyzer",
            "UnresolvedRecipe",
            "name",
            "Item",
            "RecipeResolver",
        ],
    ),
    (
        "ripgrep",
        &[
            "Gitignore",
            "GitignoreBuilder",
            "Glob",
            "Override",
            "OverrideBuilder",
            "matched",
            "Match",
            "add",
            "build",
        ],
    ),
    (
        "click",
        &[
            "Option",
            "Argument",
            "Parameter",
            "_Option",
            "ctx",
            "param",
            "opts",
            "UsageError",
            "Context",
            "decorator",
        ],
    ),
    (
        "cobra",
        &[
            "Command",
            "PositionalArgs",
            "Flags",
            "RunE",
            "cmd",
            "args",
            "ExactArgs",
            "Name",
            "Parent",
            "Use",
        ],
    ),
    (
        "ky",
        &[
            "Ky",
            "HTTPError",
            "Options",
            "request",
            "options",
            "mergeHeaders",
            "response",
            "KyResponse",
        ],
    ),
    (
        "sds",
        &[
            "sds",
            "sdslen",
            "sdsnewlen",
            "s_malloc",
            "sh",
            "len",
            "SDS_TYPE_8",
            "sdsMakeRoomFor",
            "alloc",
            "sdsfree",
        ],
    ),
];

#[test]
fn references_cover_ninety_five_percent_of_word_matches_in_code_on_real_repositories() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/references");
    let ws = Ws::new();
    copy_tree(&fixtures, &ws.path());
    let mut report = Vec::new();
    for (repo, names) in CASES {
        let files = source_files(&ws.path().join(repo));
        let (mut truth_total, mut found_total) = (0, 0);
        for name in *names {
            let truth = word_lines(&ws.path(), &files, name);
            assert!(
                truth.len() >= 2,
                "{repo}: {name} occurs on {} lines only",
                truth.len()
            );
            let found = listed_lines(&ws, repo, name);
            let hit = truth.intersection(&found).count();
            let missed: Vec<_> = truth.difference(&found).take(5).collect();
            report.push(format!("{repo} {name}: {hit}/{} missed {missed:?}", truth.len()));
            truth_total += truth.len();
            found_total += hit;
        }
        let recall = found_total as f64 / truth_total as f64;
        report.push(format!(
            "{repo}: recall {recall:.3} ({found_total}/{truth_total})"
        ));
        assert!(
            recall >= 0.95,
            "{repo}: recall {recall:.3}\n{}",
            report.join("\n")
        );
    }
    eprintln!("{}", report.join("\n"));
}

#[test]
fn references_are_labelled_and_a_file_that_does_not_parse_is_named() {
    let ws = Ws::new();
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/references/ripgrep"),
        &ws.path(),
    );
    let labelled = |name: &str| -> Vec<String> {
        let out = ws
            .call(
                "find_symbol",
                json!({"name": name, "include_references": true, "max_results": 500}),
            )
            .ok();
        assert_eq!(out.data()["references_partial"], json!([]));
        out.data()["references"]
            .as_array()
            .expect("references")
            .iter()
            .map(|r| {
                let path = r["path"].as_str().expect("path");
                format!(
                    "{}:{} {}",
                    path.rsplit('/').next().expect("name"),
                    r["line"],
                    r["kind"].as_str().expect("kind")
                )
            })
            .collect()
    };
    assert_eq!(
        labelled("GlobBuilder"),
        ["gitignore.rs:18 import", "gitignore.rs:528 other"]
    );
    let gitignore = labelled("Gitignore");
    for expected in [
        "overrides.rs:12 import",
        "overrides.rs:47 type",
        "overrides.rs:52 other",
    ] {
        assert!(
            gitignore.iter().any(|r| r == expected),
            "{expected} not in {gitignore:?}"
        );
    }
    let matched = labelled("matched");
    for expected in ["overrides.rs:105 call", "gitignore.rs:875 call"] {
        assert!(
            matched.iter().any(|r| r == expected),
            "{expected} not in {matched:?}"
        );
    }
    ws.write("src/broken.rs", "fn f() { let c = GlobBuilder::new(; }\n");
    let partial = ws
        .call(
            "find_symbol",
            json!({"name": "GlobBuilder", "include_references": true}),
        )
        .ok();
    assert_eq!(partial.data()["references_partial"], json!(["src/broken.rs"]));
    assert!(
        partial.output().contains(
            "References may be incomplete in 1 file that did not parse cleanly: src/broken.rs. grep_files with pattern=\"\\\\bGlobBuilder\\\\b\" finds every mention."
        ),
        "{}",
        partial.output()
    );
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("fixtures") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

fn source_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            files.extend(source_files(&path));
        } else if lexer_of(&path).is_some() {
            files.push(path);
        }
    }
    files
}

/// `path:line` of every line of `files` where `name` stands as a word outside comments and
/// strings.
fn word_lines(root: &Path, files: &[std::path::PathBuf], name: &str) -> BTreeSet<String> {
    let mut lines = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(file).expect("utf-8 fixture");
        let rel = file
            .strip_prefix(root)
            .expect("under root")
            .to_string_lossy()
            .into_owned();
        let code = strip(&text, lexer_of(file).expect("lexer"));
        for (i, line) in code.lines().enumerate() {
            if has_word(line, name) {
                lines.insert(format!("{rel}:{}", i + 1));
            }
        }
    }
    lines
}

/// `path:line` of every definition and reference find_symbol lists for `name` under `repo`.
fn listed_lines(ws: &Ws, repo: &str, name: &str) -> BTreeSet<String> {
    let out = ws
        .call(
            "find_symbol",
            json!({"name": name, "path": repo, "include_references": true, "max_results": 500}),
        )
        .ok();
    assert_eq!(out.data()["truncated"], false, "{name}");
    let mut lines = BTreeSet::new();
    for list in ["definitions", "references"] {
        for hit in out.data()[list].as_array().expect(list) {
            lines.insert(format!("{}:{}", hit["path"].as_str().expect("path"), hit["line"]));
        }
    }
    let _: &Value = out.data();
    lines
}

fn has_word(line: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(name).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + name.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Lexer {
    /// `//`, `/* */`, `"..."`, raw strings `r#"..."#`, char literals (not lifetimes).
    Rust,
    /// `#`, `'...'`, `"..."`, triple-quoted strings.
    Python,
    /// `//`, `/* */`, `"..."`, `'...'`, and `` `...` `` (Go raw strings, TypeScript templates).
    CLike,
    /// CLike, and regular expression literals.
    Script,
}

fn lexer_of(path: &Path) -> Option<Lexer> {
    match path.extension()?.to_str()? {
        "rs" => Some(Lexer::Rust),
        "py" => Some(Lexer::Python),
        "go" | "c" | "h" => Some(Lexer::CLike),
        "ts" => Some(Lexer::Script),
        _ => None,
    }
}

/// `text` with comments and string contents blanked (line breaks kept).
fn strip(text: &str, lexer: Lexer) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |out: &mut String, from: &[char]| {
        for c in from {
            out.push(if *c == '\n' { '\n' } else { ' ' });
        }
    };
    while i < chars.len() {
        let end = skip_len(&chars, i, lexer);
        if end > i {
            blank(&mut out, &chars[i..end]);
            i = end;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Where the comment or string starting at `i` ends, or `i` when none starts there.
fn skip_len(c: &[char], i: usize, lexer: Lexer) -> usize {
    let at = |k: usize| c.get(k).copied().unwrap_or('\0');
    let until = |from: usize, close: &str, escapes: bool| -> usize {
        let close: Vec<char> = close.chars().collect();
        let mut k = from;
        while k < c.len() {
            if escapes && c[k] == '\\' {
                k += 2;
                continue;
            }
            if c[k..].starts_with(&close) {
                return k + close.len();
            }
            k += 1;
        }
        c.len()
    };
    let word_before = i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_');
    let line_end = (i..c.len()).find(|&k| c[k] == '\n').unwrap_or(c.len());
    let lexer = match lexer {
        Lexer::Script if at(i) == '/' && !matches!(at(i + 1), '/' | '*') => {
            let before = c[..i].iter().rev().find(|ch| !ch.is_whitespace());
            if before.is_none_or(|ch| "(,=:[!&|?{};".contains(*ch)) {
                return regex_end(c, i + 1, line_end);
            }
            Lexer::CLike
        }
        Lexer::Script => Lexer::CLike,
        other => other,
    };
    match (lexer, at(i)) {
        (Lexer::Python, '#') => line_end,
        (Lexer::Python, q @ ('"' | '\'')) => {
            let triple: String = [q, q, q].iter().collect();
            if at(i + 1) == q && at(i + 2) == q {
                until(i + 3, &triple, true)
            } else {
                until(i + 1, &q.to_string(), true)
            }
        }
        (Lexer::Rust | Lexer::CLike, '/') if at(i + 1) == '/' => line_end,
        (Lexer::Rust | Lexer::CLike, '/') if at(i + 1) == '*' => until(i + 2, "*/", false),
        (Lexer::Rust, 'r') if !word_before && matches!(at(i + 1), '"' | '#') => {
            let hashes = (i + 1..c.len()).take_while(|&k| c[k] == '#').count();
            if at(i + 1 + hashes) != '"' {
                return i;
            }
            let close: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            until(i + 2 + hashes, &close, false)
        }
        (_, '"') => until(i + 1, "\"", true),
        (Lexer::Rust, '\'') => {
            if at(i + 1) == '\\' {
                until(i + 3, "'", true)
            } else if at(i + 2) == '\'' {
                i + 3
            } else {
                i
            }
        }
        (Lexer::CLike, q @ ('\'' | '`')) => until(i + 1, &q.to_string(), q == '\''),
        _ => i,
    }
}

/// The end of a regular expression literal whose body starts at `from`: past the closing `/`
/// (not one inside `[...]` or escaped) and the flags.
fn regex_end(c: &[char], from: usize, line_end: usize) -> usize {
    let (mut k, mut class) = (from, false);
    while k < line_end {
        match c[k] {
            '\\' => k += 1,
            '[' => class = true,
            ']' => class = false,
            '/' if !class => {
                return (k + 1..line_end)
                    .find(|&j| !c[j].is_alphabetic())
                    .unwrap_or(line_end);
            }
            _ => {}
        }
        k += 1;
    }
    line_end
}
