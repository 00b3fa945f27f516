//! Property tests for every parser that takes model input: arguments, globs, regexes, both patch
//! formats, paths and shell commands. Each must answer any input with a result, never a panic
//! (the `fuzz/` crate runs the same entry points under libFuzzer for longer), and where the
//! answer has a checkable meaning it is checked: a resolved path lies in the workspace and is
//! the file the path names, a patch applied and then reversed gives the file back byte for
//! byte, an escaped name is a glob that matches that name and nothing else. Case counts are
//! small so the suite stays fast; the inputs mix random text with the characters each parser
//! gives meaning to.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::json;

use crate::harness::Ws;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Text built from the tokens a parser cares about, long runs of them included.
fn tokens(alphabet: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(alphabet), 0..max).prop_map(|parts| parts.concat())
}

/// One token repeated up to thousands of times: the long and deeply nested inputs.
fn long_run(alphabet: &'static [&'static str]) -> impl Strategy<Value = String> {
    (prop::sample::select(alphabet), 1..5000usize).prop_map(|(token, n)| token.repeat(n))
}

fn either(alphabet: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    prop_oneof![tokens(alphabet, max), any::<String>(), long_run(alphabet)]
}

const JSON_TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "'",
    "\\",
    "True",
    "None",
    "false",
    "null",
    "1e999",
    "-0",
    "\"path\"",
    "\"a\"",
    "\n",
    " ",
    "\u{feff}",
    "9999999999999999999999",
];
const GLOB_TOKENS: &[&str] = &[
    "*", "**", "?", "[", "]", "!", "{", "}", ",", "/", "\\", "a", ".", "-", "é",
];
const REGEX_TOKENS: &[&str] = &[
    "(", ")", "(?:", "[", "]", "{", "}", "{1000}", "*", "+", "?", "|", "\\", "\\w", "\\p{L}", "^", "$", "a",
    ".", "(?i)", "\\b", "-",
];
const PATCH_TOKENS: &[&str] = &[
    "--- a/f\n",
    "+++ b/f\n",
    "@@ -1,2 +1,2 @@\n",
    "@@ -0,0 +1 @@\n",
    "@@ -99999999999999999999 @@\n",
    "@@\n",
    " x\n",
    "-x\n",
    "+y\n",
    "\\ No newline at end of file\n",
    "*** Begin Patch\n",
    "*** End Patch\n",
    "*** Update File: f\n",
    "*** Add File: g\n",
    "*** Delete File: f\n",
    "*** Move to: h\n",
    "*** End of File\n",
    "diff --git a/f b/f\n",
    "rename from f\n",
    "new file mode 100644\n",
    "\r\n",
    "\n",
    "@@ ",
    "\"a\\tb\"",
];
const PATH_TOKENS: &[&str] = &[
    "/",
    "..",
    ".",
    "~",
    "\\",
    "C:",
    "a",
    "\0",
    "%2e",
    "é",
    "//",
    " ",
    ".codesmith",
];
const SHELL_TOKENS: &[&str] = &[
    "$(", ")", "`", "'", "\"", "<<EOF\n", "EOF\n", "|", "&&", ";", ">", ">>", "2>&1", "rm", "-rf", "/", "cd",
    "..", "{", "}", "(", "\\\n", "$HOME", "*", " ", "echo", "=", "[[", "]]", "case", "esac", "in",
];

/// Path components for the boundary property: names of the tree [`boundary_tree`] makes
/// (those that exist at every level more than once, so more paths reach far), its links, and
/// names that exist only outside or nowhere.
const BOUNDARY_TOKENS: &[&str] = &[
    "..", ".", "a", "a", "b", "in", "in", "up", "up", "file", "out", "abs", "esc", "dangle", "loop", "new",
    "secret",
];
/// Lines for the patch round trip: repeats, blank and whitespace-only lines, and lines that
/// differ only in their whitespace, so hunks have look-alike context nearby.
const LINE_TOKENS: &[&str] = &["a", "b", "a ", " a", "", "  ", "\t}", "fn f() {", "}", "é"];
/// Characters of file names for the glob property: the glob metacharacters among plain ones.
const NAME_TOKENS: &[&str] = &[
    "*", "?", "[", "]", "{", "}", "!", ",", "\\", "-", "^", "a", "B", ".", " ", "é", "**",
];

proptest! {
    #![proptest_config(config())]

    /// Text that is JSON (less a byte-order mark and surrounding whitespace) is taken as that
    /// value; anything else is refused as `invalid_arguments`, with an explanation.
    #[test]
    fn arguments_parse_or_explain(text in either(JSON_TOKENS, 60)) {
        let trimmed = text.strip_prefix('\u{feff}').unwrap_or(&text).trim();
        let expected = serde_json::from_str::<serde_json::Value>(trimmed);
        match codesmith::args::parse_json_text("edit_file", None, &text) {
            Ok(value) => {
                match expected {
                    // A string that holds an object is taken as the object.
                    Ok(serde_json::Value::String(inner)) => {
                        let decoded = serde_json::from_str::<serde_json::Value>(inner.trim())
                            .ok()
                            .filter(serde_json::Value::is_object);
                        prop_assert_eq!(value.clone(), decoded.unwrap_or(serde_json::Value::String(inner)));
                    }
                    Ok(expected) => prop_assert_eq!(&value, &expected),
                    Err(_) => {
                        prop_assert!(trimmed.is_empty(), "{:?} was taken as {}", text, value);
                        prop_assert_eq!(&value, &json!({}));
                    }
                }
                let _ = codesmith::args::from_value::<codesmith::tools::edit_file::EditFileArgs>(
                    "edit_file", value, codesmith::tools::edit_file::SPEC.schema);
            }
            Err(err) => {
                prop_assert!(expected.is_err(), "valid JSON {:?} was refused: {}", trimmed, err.message());
                prop_assert_eq!(err.code().as_str(), "invalid_arguments");
            }
        }
        let _ = codesmith::args::find_mistake(&text);
    }

    #[test]
    fn globs_compile_or_refuse(glob in either(GLOB_TOKENS, 80)) {
        let _ = codesmith::fs::walk::GlobFilter::new(std::slice::from_ref(&glob), Path::new("."));
        let _ = codesmith::fs::walk::compile_glob(globset::GlobBuilder::new(&glob).literal_separator(true));
    }

    /// A name with its metacharacters escaped is a glob that matches the name, at any depth for
    /// grep_files' include and exclude, and no other name.
    #[test]
    fn an_escaped_name_is_a_glob_matching_that_name_alone(
        name in file_name(),
        other in file_name(),
    ) {
        let glob = escape_glob(&name);
        let set = codesmith::fs::walk::compile_glob(globset::GlobBuilder::new(&glob).literal_separator(true));
        let set = set.map_err(|err| TestCaseError::fail(format!("{glob:?} does not compile: {err}")))?;
        prop_assert!(set.is_match(&name), "{:?} does not match {:?}", glob, name);
        prop_assert_eq!(set.is_match(&other), other == name, "{:?} against {:?}", glob, other);
        let (longer, shorter) = (format!("{}a", name), format!("a{}", name));
        prop_assert!(!set.is_match(&longer) && !set.is_match(&shorter), "{:?}", glob);
        let filter = codesmith::fs::walk::GlobFilter::new(std::slice::from_ref(&glob), Path::new("."))
            .map_err(|err| TestCaseError::fail(err.to_string()))?
            .ok_or_else(|| TestCaseError::fail("no filter"))?;
        prop_assert!(filter.matches(&Path::new("src/deep").join(&name)), "{:?} in src/deep", glob);
        prop_assert_eq!(filter.matches(&Path::new("src").join(&other)), other == name);
    }

    #[test]
    fn regexes_compile_or_refuse(
        pattern in either(REGEX_TOKENS, 60),
        fixed in any::<bool>(),
        multiline in any::<bool>(),
    ) {
        let compiled = codesmith::tools::grep_files::compile_pattern(&pattern, fixed, multiline);
        let fits = pattern.chars().count() <= codesmith::tools::grep_files::MAX_PATTERN_CHARS;
        if fixed && fits && !pattern.contains('\n') {
            prop_assert!(compiled.is_ok(), "fixed string {:?}: {:?}", pattern, compiled);
        }
        if !fits {
            prop_assert!(compiled.is_err());
        }
    }

    #[test]
    fn patches_parse_or_refuse(text in either(PATCH_TOKENS, 40)) {
        let _ = codesmith::tools::apply_patch::parse_text(&text, &|_| true);
        let _ = codesmith::tools::apply_patch::parse_text(&text, &|_| false);
    }

    /// Any text as a path, the malformed forms among it: refused, or resolved inside the root.
    #[test]
    fn paths_resolve_or_refuse(path in either(PATH_TOKENS, 30)) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let workspace = codesmith::fs::workspace::Workspace::new(root.clone(), Vec::new());
        let resolved = [workspace.resolve(&path), workspace.resolve_for_write(&path)];
        for found in resolved.into_iter().flatten() {
            prop_assert!(found.abs.starts_with(&root), "{:?} resolved to {}", path, found.abs.display());
        }
    }

    #[test]
    fn shell_commands_classify(command in either(SHELL_TOKENS, 60)) {
        // Classification only: nothing runs.
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let workspace = codesmith::fs::workspace::Workspace::new(root, Vec::new());
        let scope = codesmith::policy::scope::Scope::new(&workspace);
        let _ = codesmith::policy::classify::classify(&command, &scope);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, failure_persistence: None, ..ProptestConfig::default() })]

    /// A relative path of `..`, `.`, names and links (in the workspace, out of it, absolute,
    /// dangling, a loop) resolves to a path in the workspace, the one the kernel reaches from
    /// the folded path when it exists, or is refused: as `outside_workspace` when it exists
    /// outside.
    #[test]
    fn paths_resolve_inside_the_workspace_or_are_refused(
        parts in prop::collection::vec(prop::sample::select(BOUNDARY_TOKENS), 1..7),
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = boundary_tree(dir.path());
        let workspace = codesmith::fs::workspace::Workspace::new(root.clone(), Vec::new());
        let path = parts.join("/");
        let lexical = codesmith::fs::workspace::normalize_lexically(&root.join(&path));
        let real = std::fs::canonicalize(&lexical).ok();
        let resolved = workspace.resolve(&path);
        match &resolved {
            Ok(found) => {
                prop_assert!(found.abs.starts_with(&root), "{} resolved to {}", path, found.abs.display());
                if let Some(real) = &real {
                    prop_assert_eq!(&found.abs, real, "{}", path);
                }
                let existing = found.abs.ancestors().find(|a| a.exists()).expect("the root exists");
                let canonical = std::fs::canonicalize(existing).ok();
                prop_assert_eq!(canonical.as_deref(), Some(existing),
                    "{} resolved to {}, which goes through a link", path, found.abs.display());
                prop_assert!(!found.display.split('/').any(|c| c == ".."), "{}", found.display);
            }
            Err(err) => {
                if let Some(real) = &real {
                    prop_assert!(!real.starts_with(&root), "{} is inside yet refused: {}", path, err.message());
                    prop_assert_eq!(err.code().as_str(), "outside_workspace");
                }
            }
        }
        let for_write = workspace.resolve_for_write(&path);
        prop_assert_eq!(
            for_write.map(|p| p.abs).map_err(|e| e.code().as_str()),
            resolved.map(|p| p.abs).map_err(|e| e.code().as_str())
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    /// Through the binary: any call text gets exactly one envelope (the harness checks the one
    /// line of JSON) and a documented exit status.
    #[test]
    fn any_call_text_gets_one_envelope(text in either(JSON_TOKENS, 40)) {
        let ws = Ws::new();
        let raw = ws.raw_stdin(&["call"], &text);
        let out = crate::harness::Outcome::from_output(raw);
        prop_assert!([0, 1, 2, 3].contains(&out.status), "{}", out.stdout);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// Through the binary: the unified diff of a change (as codesmith's own output writes it)
    /// applies, and the same diff with its sides swapped applies to the result and gives back
    /// the original bytes, final newline or not. (`similar`'s own unified diff is not used: its
    /// hunk header can undercount a side, see `src/fs/diff.rs`.)
    #[test]
    fn a_patch_and_its_reverse_restore_the_file(
        old in lines(),
        edits in prop::collection::vec(
            (any::<prop::sample::Index>(), 0..3u8, prop::sample::select(LINE_TOKENS)),
            1..6,
        ),
        new_ends_with_newline in any::<bool>(),
    ) {
        let new = edited(&old, &edits, new_ends_with_newline);
        prop_assume!(new != old);
        let forward = codesmith::fs::diff::unified("f.txt", &old, &new);
        let ws = Ws::new();
        ws.write("f.txt", &old);
        ws.read_via_tool("f.txt");
        apply(&ws, &forward)?;
        prop_assert_eq!(ws.read_string("f.txt"), new, "forward:\n{}", forward);
        let backward = reversed(&forward);
        apply(&ws, &backward)?;
        prop_assert_eq!(ws.read_string("f.txt"), old, "reversed:\n{}", backward);
    }
}

/// The workspace root (canonical) of a tree made under `base`: `base/ws` holds a directory
/// `a/b`, a file `file` at each level, and links at each level that stay inside (`in`, `up`)
/// or lead out (`out`, `abs` by an absolute path, `esc` to `base`, `dangle` to a missing file
/// outside), and a link to itself (`loop`); `base/outside` holds `secret` and `file`.
fn boundary_tree(base: &Path) -> PathBuf {
    let base = base.canonicalize().expect("canonical");
    let root = base.join("ws");
    std::fs::create_dir_all(root.join("a/b")).expect("mkdir");
    std::fs::create_dir_all(base.join("outside")).expect("mkdir");
    for file in [
        "outside/secret",
        "outside/file",
        "ws/file",
        "ws/a/file",
        "ws/a/b/file",
    ] {
        std::fs::write(base.join(file), file).expect("write");
    }
    let links = [
        ("", "in", PathBuf::from("a")),
        ("", "up", PathBuf::from(".")),
        ("", "out", PathBuf::from("../outside")),
        ("", "abs", base.join("outside")),
        ("", "esc", PathBuf::from("..")),
        ("", "dangle", PathBuf::from("../outside/missing")),
        ("", "loop", PathBuf::from("loop")),
        ("a", "in", PathBuf::from("b")),
        ("a", "up", PathBuf::from("..")),
        ("a", "out", PathBuf::from("../../outside")),
        ("a", "esc", PathBuf::from("../..")),
        ("a/b", "up", PathBuf::from("../..")),
        ("a/b", "esc", PathBuf::from("../../..")),
        (
            "a/b",
            "dangle",
            PathBuf::from("/nonexistent-codesmith-test/missing"),
        ),
    ];
    for (dir, name, target) in links {
        std::os::unix::fs::symlink(target, root.join(dir).join(name)).expect("symlink");
    }
    root
}

/// Applies `patch` through the binary; a refusal fails the case, naming the patch.
fn apply(ws: &Ws, patch: &str) -> Result<(), TestCaseError> {
    let out = ws.call("apply_patch", json!({ "patch": patch }));
    if !out.envelope.ok {
        return Err(TestCaseError::fail(format!("{}\n{patch}", out.output())));
    }
    out.ok();
    Ok(())
}

/// Up to 20 lines, with or without a final newline.
fn lines() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(prop::sample::select(LINE_TOKENS), 0..20),
        any::<bool>(),
    )
        .prop_map(|(lines, newline)| join_lines(&lines, newline))
}

fn join_lines(lines: &[&str], final_newline: bool) -> String {
    let mut text = lines.join("\n");
    if final_newline && !lines.is_empty() {
        text.push('\n');
    }
    text
}

/// `text` with each edit (where, replace/insert/delete, line) made in turn.
fn edited(text: &str, edits: &[(prop::sample::Index, u8, &str)], final_newline: bool) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    for (at, kind, line) in edits {
        let i = at.index(lines.len() + 1);
        match kind {
            0 if i < lines.len() => lines[i] = line,
            2 if i < lines.len() => {
                lines.remove(i);
            }
            _ => lines.insert(i, line),
        }
    }
    join_lines(&lines, final_newline)
}

/// The unified diff `diff` with its sides swapped: what it removes it adds, and the other way.
fn reversed(diff: &str) -> String {
    let mut out = String::new();
    let mut lines = diff.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        if let (Some(old), Some(new)) = (
            line.strip_prefix("--- "),
            lines.peek().and_then(|l| l.strip_prefix("+++ ")),
        ) {
            out.push_str(&format!("--- {new}+++ {old}"));
            lines.next();
        } else if let Some(header) = line.strip_prefix("@@ -") {
            let (ranges, rest) = header.split_once(" @@").expect("hunk header");
            let (old, new) = ranges.split_once(" +").expect("hunk ranges");
            out.push_str(&format!("@@ -{new} +{old} @@{rest}"));
        } else if let Some(body) = line.strip_prefix('-') {
            out.push_str(&format!("+{body}"));
        } else if let Some(body) = line.strip_prefix('+') {
            out.push_str(&format!("-{body}"));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// A file name of [`NAME_TOKENS`] (not `.` or `..`, which name no file of their own).
fn file_name() -> impl Strategy<Value = String> {
    tokens(NAME_TOKENS, 12).prop_filter("a file name", |n| !["", ".", ".."].contains(&n.as_str()))
}

/// `name` as a glob that matches only itself: each metacharacter in a class of its own, and a
/// backslash (which escapes the next character) escaped.
fn escape_glob(name: &str) -> String {
    let mut glob = String::new();
    for c in name.chars() {
        match c {
            '*' | '?' | '[' | ']' | '{' | '}' | ' ' => {
                glob.push('[');
                glob.push(c);
                glob.push(']');
            }
            '\\' => glob.push_str("\\\\"),
            c => glob.push(c),
        }
    }
    glob
}

/// The inputs found by hand that used to crash or hang, through the binary.
#[test]
fn oversized_and_nested_patterns_get_a_clear_error() {
    let ws = Ws::new();
    ws.write("a.txt", "a\n");
    let out = ws
        .run_stdin(&["find"], &json!({ "pattern": "a".repeat(150_000) }).to_string())
        .err("invalid_arguments");
    assert!(
        out.message()
            .contains("150000 characters; the longest taken is 1000"),
        "{}",
        out.message()
    );
    assert!(
        out.message().len() < 400,
        "the message does not repeat the pattern"
    );
    ws.run_stdin(&["find"], &json!({ "pattern": "*".repeat(1000) }).to_string())
        .ok();
    let out = ws
        .run_stdin(&["grep"], &json!({ "pattern": "a".repeat(150_000) }).to_string())
        .err("invalid_arguments");
    assert!(
        out.message().contains("the longest taken is 4000"),
        "{}",
        out.message()
    );
    let out = ws
        .run_stdin(
            &["grep"],
            &json!({ "pattern": "x", "include": "a".repeat(5000) }).to_string(),
        )
        .err("invalid_arguments");
    assert!(
        out.message().contains("the longest taken is 1000"),
        "{}",
        out.message()
    );
    let out = ws
        .run_stdin(
            &["grep"],
            &json!({ "pattern": "x", "exclude": vec!["a"; 300] }).to_string(),
        )
        .err("invalid_arguments");
    assert!(out.message().contains("at most 256"), "{}", out.message());
    let out = ws
        .run_stdin(
            &["grep"],
            &json!({ "pattern": "(".repeat(1000) + &")".repeat(1000) }).to_string(),
        )
        .err("invalid_arguments");
    assert!(out.message().contains("nest"), "{}", out.message());
    let out = ws
        .run_stdin(&["read"], &("[".repeat(100_000) + &"]".repeat(100_000)))
        .err("invalid_arguments");
    assert!(out.message().contains("recursion limit"), "{}", out.message());
}
