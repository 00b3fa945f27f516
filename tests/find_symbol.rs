//! find_symbol through the binary: definitions per language, qualified and case-insensitive
//! names, references, kinds, paths, no-match advice and errors.

use serde_json::{json, Value};

use crate::harness::Ws;
use crate::outline::symbols_ws;

/// `path:line kind container` of each definition (or reference) in `list`.
fn hits(out: &Value, list: &str) -> Vec<String> {
    out[list]
        .as_array()
        .expect(list)
        .iter()
        .map(|d| {
            format!(
                "{}:{} {} {}",
                d["path"].as_str().expect("path"),
                d["line"],
                d["kind"].as_str().expect("kind"),
                d["container"].as_str().expect("container")
            )
            .trim_end()
            .to_string()
        })
        .collect()
}

fn definitions(ws: &Ws, args: Value) -> Vec<String> {
    hits(ws.call("find_symbol", args).ok().data(), "definitions")
}

#[test]
fn definitions_in_every_language() {
    let ws = symbols_ws();
    let cases = [
        (
            "Config",
            vec!["config.rs:4 struct", "config.rs:8 impl", "config.rs:14 impl"],
        ),
        ("build", vec!["parser.py:9 method class Parser"]),
        (
            "render",
            vec!["app.tsx:6 method class Panel", "widget.js:4 method class Widget"],
        ),
        (
            "Shape",
            vec!["geo.hpp:3 class namespace geo", "shapes.ts:3 interface"],
        ),
        ("Start", vec!["server.go:15 method"]),
        ("deposit", vec!["Account.java:12 method class Account"]),
        ("add", vec!["calc.c:9 function"]),
        ("Color", vec!["shapes.ts:9 enum"]),
    ];
    for (name, expected) in cases {
        assert_eq!(definitions(&ws, json!({ "name": name })), expected, "{name}");
    }
}

#[test]
fn qualified_names_narrow_by_container_receiver_or_module() {
    let ws = symbols_ws();
    assert_eq!(
        definitions(&ws, json!({"name": "Config::new"})),
        vec!["config.rs:9 method impl Config"]
    );
    assert_eq!(
        definitions(&ws, json!({"name": "Square::area"})),
        vec!["geo.hpp:13 prototype struct Square", "geo.hpp:18 method"]
    );
    assert_eq!(
        definitions(&ws, json!({"name": "Server.Start"})),
        vec!["server.go:15 method"]
    );
    assert_eq!(
        definitions(&ws, json!({"name": "parser.helper"})),
        vec!["parser.py:12 function"]
    );
    assert_eq!(
        definitions(&ws, json!({"name": "Circle.area"})),
        vec!["shapes.ts:12 method class Circle"]
    );
    assert!(definitions(&ws, json!({"name": "Parser::new"})).is_empty());
}

#[test]
fn the_text_gives_counts_then_lines_then_the_read_file_call() {
    let ws = symbols_ws();
    let out = ws.run(&["symbol", "Config::new"]).ok();
    assert_eq!(
        out.output(),
        "1 definition of `Config::new` in 1 file\n\nDefinitions:\nconfig.rs:9: pub fn new(name: &str) -> Config {  [method new in impl Config, lines 9-11]\n\nTo read the first definition: read_file with path=\"config.rs\" start_line=9 max_lines=3"
    );
    assert_eq!(out.data()["total_definitions"], 1);
    assert_eq!(out.data()["match"], "exact");
    let first = &out.data()["definitions"][0];
    assert_eq!(first["text"], "pub fn new(name: &str) -> Config {");
    assert_eq!(
        (first["start_line"].as_u64(), first["end_line"].as_u64()),
        (Some(9), Some(11))
    );
}

#[test]
fn references_are_marked_as_calls_imports_and_other_uses() {
    let ws = symbols_ws();
    let out = ws
        .call(
            "find_symbol",
            json!({"name": "helper", "include_references": true}),
        )
        .ok();
    assert_eq!(
        hits(out.data(), "definitions"),
        vec!["config.rs:20 function", "parser.py:12 function"]
    );
    assert_eq!(
        hits(out.data(), "references"),
        vec!["config.rs:10 call", "parser.py:6 call"]
    );
    assert!(out
        .output()
        .contains("2 definitions of `helper` in 2 files; 2 references in 2 files"));
    assert!(out
        .output()
        .contains("config.rs:10: Config { name: helper(name) }  [call]"));
    let import = ws
        .call(
            "find_symbol",
            json!({"name": "readFile", "include_references": true}),
        )
        .ok();
    assert_eq!(hits(import.data(), "references"), vec!["widget.js:1 import"]);
    let types = ws
        .call(
            "find_symbol",
            json!({"name": "Server", "include_references": true}),
        )
        .ok();
    assert_eq!(
        hits(types.data(), "references"),
        vec!["server.go:15 type", "server.go:20 type", "server.go:21 type"]
    );
    let implemented = ws
        .call(
            "find_symbol",
            json!({"name": "Shape", "include_references": true}),
        )
        .ok();
    assert_eq!(
        hits(implemented.data(), "references"),
        vec!["geo.hpp:11 type", "shapes.ts:11 type"]
    );
    let extended = ws
        .call("find_symbol", json!({"name": "Base", "include_references": true}))
        .ok();
    assert_eq!(hits(extended.data(), "references"), vec!["app.tsx:5 type"]);
}

#[test]
fn a_name_only_referenced_says_how_to_see_the_references() {
    let ws = symbols_ws();
    ws.call("find_symbol", json!({"name": "printf"}))
        .ok()
        .contains("No definition of `printf`; it is referenced in 1 file: call find_symbol with name=\"printf\" include_references=true to see where");
}

#[test]
fn case_insensitive_matches_come_only_when_no_exact_one_exists() {
    let ws = symbols_ws();
    let out = ws.call("find_symbol", json!({"name": "parser"})).ok();
    assert_eq!(hits(out.data(), "definitions"), vec!["parser.py:4 class"]);
    assert_eq!(out.data()["match"], "case_insensitive");
    assert!(out.output().contains("(no exact match; matched ignoring case)"));
    ws.write("more.py", "def parser():\n    pass\n");
    let exact = ws.call("find_symbol", json!({"name": "parser"})).ok();
    assert_eq!(hits(exact.data(), "definitions"), vec!["more.py:1 function"]);
    assert_eq!(exact.data()["match"], "exact");
}

#[test]
fn kind_and_path_narrow_the_search() {
    let ws = symbols_ws();
    assert_eq!(
        definitions(&ws, json!({"name": "area", "kind": "prototype"})),
        vec![
            "geo.hpp:5 prototype class Shape",
            "geo.hpp:13 prototype struct Square"
        ]
    );
    ws.write("sub/extra.rs", "pub fn helper() {}\n");
    assert_eq!(
        definitions(&ws, json!({"name": "helper", "path": "sub"})),
        vec!["sub/extra.rs:1 function"]
    );
    assert_eq!(
        definitions(&ws, json!({"name": "helper", "path": "sub/extra.rs"})),
        vec!["sub/extra.rs:1 function"]
    );
    // The narrower walk left the rest of the index alone.
    assert_eq!(definitions(&ws, json!({"name": "helper"})).len(), 3);
}

#[test]
fn no_match_suggests_similar_names_and_the_grep_call() {
    let ws = symbols_ws();
    let out = ws.call("find_symbol", json!({"name": "Helpr"})).ok();
    assert_eq!(out.data()["total_definitions"], 0);
    assert_eq!(out.data()["suggestions"][0], "helper");
    assert!(
        out.output().starts_with("No definition of `Helpr`"),
        "{}",
        out.output()
    );
    assert!(
        out.output().contains("Similar defined names: helper"),
        "{}",
        out.output()
    );
    assert!(
        out.output()
            .contains("grep_files with pattern=\"\\\\bHelpr\\\\b\""),
        "{}",
        out.output()
    );
}

#[test]
fn bad_names_kinds_and_paths_are_refused_with_the_next_call() {
    let ws = symbols_ws();
    let name = ws
        .call("find_symbol", json!({"name": "fn main"}))
        .err("invalid_arguments");
    assert!(
        name.message().contains("grep_files with pattern=\"fn main\""),
        "{}",
        name.message()
    );
    ws.call("find_symbol", json!({"name": "Config::"}))
        .err("invalid_arguments");
    let kind = ws
        .call("find_symbol", json!({"name": "add", "kind": "procedure"}))
        .err("invalid_arguments");
    assert!(kind.message().contains("function"), "{}", kind.message());
    assert!(kind.message().contains("name=\"add\""), "{}", kind.message());
    assert!(kind.error()["kinds"].as_array().expect("kinds").len() > 10);
    ws.write("notes.txt", "text\n");
    ws.call("find_symbol", json!({"name": "add", "path": "notes.txt"}))
        .err("invalid_arguments")
        .contains("read_file with path=\"notes.txt\"");
    ws.call("find_symbol", json!({"name": "add", "path": "nowhere"}))
        .err("not_found");
    ws.call("find_symbol", json!({"name": "add", "extra": 1}))
        .err("invalid_arguments");
}

#[test]
fn every_surface_runs_it() {
    let ws = symbols_ws();
    let by_call = ws
        .run_stdin(
            &["call"],
            r#"{"name": "find_symbol", "arguments": "{\"name\": \"add\"}"}"#,
        )
        .ok();
    assert_eq!(hits(by_call.data(), "definitions"), vec!["calc.c:9 function"]);
    let by_alias = ws.run(&["find_symbol", "add", "--kind", "function"]).ok();
    assert_eq!(
        by_alias.output(),
        ws.run(&["symbol", "add", "--kind", "function"]).ok().output()
    );
    ws.run_stdin(
        &["call"],
        r#"{"name": "outline", "arguments": {"path": "calc.c"}}"#,
    )
    .ok()
    .contains("function add [9-11]");
    let catalog = ws.raw(&["tools", "--format", "json"]);
    let catalog = String::from_utf8_lossy(&catalog.stdout);
    assert!(catalog.contains("\"find_symbol\"") && catalog.contains("\"outline\""));
}
