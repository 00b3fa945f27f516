//! find_symbol on a generated tree shaped like ripgrep's workspace (crates/*/src, many files,
//! each name also mentioned in comments, strings, calls and imports): 20 known functions and
//! types are found at their definition line, and only there.

use serde_json::json;

use crate::harness::Ws;

/// (path, kind, name, container, item): the definition the generator places in `path`.
const KNOWN: &[(&str, &str, &str, &str, &str)] = &[
    (
        "crates/core/main.rs",
        "function",
        "main",
        "",
        "fn main() -> ExitCode {",
    ),
    (
        "crates/core/main.rs",
        "function",
        "run",
        "",
        "fn run(result: ParseResult<HiArgs>) -> anyhow::Result<ExitCode> {",
    ),
    (
        "crates/core/main.rs",
        "function",
        "search_parallel",
        "",
        "fn search_parallel(args: &HiArgs, mode: SearchMode) -> anyhow::Result<bool> {",
    ),
    (
        "crates/core/flags/hiargs.rs",
        "struct",
        "HiArgs",
        "",
        "pub(crate) struct HiArgs {",
    ),
    (
        "crates/core/flags/lowargs.rs",
        "struct",
        "LowArgs",
        "",
        "pub(crate) struct LowArgs {",
    ),
    (
        "crates/core/flags/parse.rs",
        "function",
        "parse_low",
        "",
        "fn parse_low() -> ParseResult<LowArgs> {",
    ),
    (
        "crates/core/flags/defs.rs",
        "trait",
        "Flag",
        "",
        "pub(super) trait Flag: Debug + Send + Sync + UnwindSafe + RefUnwindSafe + 'static {",
    ),
    (
        "crates/core/flags/defs.rs",
        "constant",
        "FLAGS",
        "",
        "pub(super) const FLAGS: &[&dyn Flag] = &[];",
    ),
    (
        "crates/searcher/src/searcher/mod.rs",
        "struct",
        "Searcher",
        "",
        "pub struct Searcher {",
    ),
    (
        "crates/searcher/src/searcher/mod.rs",
        "struct",
        "SearcherBuilder",
        "",
        "pub struct SearcherBuilder {",
    ),
    (
        "crates/searcher/src/searcher/mod.rs",
        "enum",
        "BinaryDetection",
        "",
        "pub enum BinaryDetection {",
    ),
    (
        "crates/searcher/src/sink.rs",
        "trait",
        "Sink",
        "",
        "pub trait Sink {",
    ),
    (
        "crates/searcher/src/line_buffer.rs",
        "struct",
        "LineBuffer",
        "",
        "pub(crate) struct LineBuffer {",
    ),
    (
        "crates/ignore/src/walk.rs",
        "struct",
        "WalkBuilder",
        "",
        "pub struct WalkBuilder {",
    ),
    (
        "crates/ignore/src/walk.rs",
        "enum",
        "WalkState",
        "",
        "pub enum WalkState {",
    ),
    (
        "crates/ignore/src/gitignore.rs",
        "struct",
        "Gitignore",
        "",
        "pub struct Gitignore {",
    ),
    (
        "crates/globset/src/lib.rs",
        "struct",
        "GlobSet",
        "",
        "pub struct GlobSet {",
    ),
    (
        "crates/printer/src/standard.rs",
        "struct",
        "Standard",
        "",
        "pub struct Standard<W> {",
    ),
    (
        "crates/regex/src/matcher.rs",
        "struct",
        "RegexMatcher",
        "",
        "pub struct RegexMatcher {",
    ),
    (
        "crates/cli/src/lib.rs",
        "function",
        "is_tty_stdout",
        "",
        "pub fn is_tty_stdout() -> bool {",
    ),
];

fn closing(kind: &str) -> &'static str {
    match kind {
        "function" => "    todo_body();\n}\n",
        "constant" => "",
        "trait" => "    fn name(&self) -> &'static str;\n}\n",
        "enum" => "    Quit,\n    Continue,\n}\n",
        _ => "    inner: usize,\n}\n",
    }
}

/// Writes the tree; returns the expected `path:line` of each known definition.
fn generate(ws: &Ws) -> Vec<String> {
    let mut files: std::collections::BTreeMap<&str, String> = std::collections::BTreeMap::new();
    let mut expected = Vec::new();
    for (i, (path, kind, name, _, item)) in KNOWN.iter().enumerate() {
        let text = files.entry(path).or_insert_with(|| {
            format!("//! Module docs mention {name} and `fn {name}` in prose.\n\nuse crate::{name};\nuse std::fmt::Debug;\n\n")
        });
        // Decoys: a comment, a string and a call that all contain the name.
        for j in 0..(3 + i % 5) {
            text.push_str(&format!(
                "/// Calls {name} indirectly.\nfn filler_{i}_{j}() {{\n    let _ = \"struct {name} {{\";\n    {name}_helper({j});\n}}\n\n"
            ));
        }
        let line = text.lines().count() + 1;
        text.push_str(&format!("{item}\n{}\n", closing(kind)));
        expected.push(format!("{path}:{line} {kind}"));
    }
    for (path, text) in files {
        ws.write(path, text);
    }
    // Bulk: more crates with unrelated code, and a vendored copy that the walk skips.
    for i in 0..60 {
        ws.write(
            &format!("crates/bulk{}/src/m{i}.rs", i % 6),
            format!("pub fn bulk_{i}() -> usize {{\n    {i}\n}}\n\npub struct Bulk{i};\n"),
        );
    }
    ws.write("target/debug/build/out.rs", "pub struct Searcher;\n");
    expected
}

#[test]
fn twenty_known_definitions_in_a_ripgrep_shaped_tree_are_found_at_their_line() {
    let ws = Ws::new();
    let expected = generate(&ws);
    for ((_, _, name, _, _), want) in KNOWN.iter().zip(&expected) {
        let out = ws.call("find_symbol", json!({ "name": name })).ok();
        let found: Vec<String> = out.data()["definitions"]
            .as_array()
            .expect("definitions")
            .iter()
            .map(|d| {
                format!(
                    "{}:{} {}",
                    d["path"].as_str().expect("path"),
                    d["line"],
                    d["kind"].as_str().expect("kind")
                )
            })
            .collect();
        assert_eq!(found, vec![want.clone()], "{name}");
    }
    // grep would see every decoy; find_symbol counted only the definition.
    let grep = ws
        .call(
            "grep_files",
            json!({"pattern": "\\bSearcher\\b", "output_mode": "count"}),
        )
        .ok();
    assert!(grep.data()["total_matches"].as_u64().expect("count") > 5);
}
