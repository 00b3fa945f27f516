//! Property tests for every parser that takes model input: arguments, globs, regexes, both patch
//! formats, paths and shell commands. Each must answer any input with a result, never a panic
//! (the `fuzz/` crate runs the same entry points under libFuzzer for longer). Case counts are
//! small so the suite stays fast; the inputs mix random text with the characters each parser
//! gives meaning to.

use std::path::Path;

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

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arguments_parse_or_explain(text in either(JSON_TOKENS, 60)) {
        if let Ok(value) = codesmith::args::parse_json_text("edit_file", None, &text) {
            let _ = codesmith::args::from_value::<codesmith::tools::edit_file::EditFileArgs>(
                "edit_file", value, codesmith::tools::edit_file::SPEC.schema);
        }
        let _ = codesmith::args::find_mistake(&text);
    }

    #[test]
    fn globs_compile_or_refuse(glob in either(GLOB_TOKENS, 80)) {
        let _ = codesmith::fs::walk::GlobFilter::new(std::slice::from_ref(&glob), Path::new("."));
        let _ = codesmith::fs::walk::compile_glob(globset::GlobBuilder::new(&glob).literal_separator(true));
    }

    #[test]
    fn regexes_compile_or_refuse(pattern in either(REGEX_TOKENS, 60), fixed in any::<bool>(), multiline in any::<bool>()) {
        let _ = codesmith::tools::grep_files::compile_pattern(&pattern, fixed, multiline);
    }

    #[test]
    fn patches_parse_or_refuse(text in either(PATCH_TOKENS, 40)) {
        let _ = codesmith::tools::apply_patch::parse_text(&text, &|_| true);
        let _ = codesmith::tools::apply_patch::parse_text(&text, &|_| false);
    }

    #[test]
    fn paths_resolve_or_refuse(path in either(PATH_TOKENS, 30)) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let workspace = codesmith::fs::workspace::Workspace::new(root, Vec::new());
        let _ = workspace.resolve(&path);
        let _ = workspace.resolve_for_write(&path);
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
