//! outline through the binary: every language's definitions, nesting, the numbered text,
//! directories, bounds and errors.

use serde_json::{json, Value};

use crate::harness::Ws;

/// A workspace holding the per-language fixtures of `tests/fixtures/symbols/`.
pub(crate) fn symbols_ws() -> Ws {
    let ws = Ws::new();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/symbols");
    for entry in std::fs::read_dir(dir).expect("fixtures") {
        let entry = entry.expect("entry");
        ws.write(
            &entry.file_name().to_string_lossy(),
            std::fs::read(entry.path()).expect("fixture"),
        );
    }
    ws
}

/// (depth, kind, name, start_line, end_line) of each definition outlined in `path`.
fn outline(ws: &Ws, path: &str) -> Vec<(u64, String, String, u64, u64)> {
    let out = ws.call("outline", json!({ "path": path })).ok();
    let files = out.data()["files"].as_array().expect("files");
    assert_eq!(files.len(), 1);
    files[0]["definitions"]
        .as_array()
        .expect("definitions")
        .iter()
        .map(|d: &Value| {
            (
                d["depth"].as_u64().expect("depth"),
                d["kind"].as_str().expect("kind").to_string(),
                d["name"].as_str().expect("name").to_string(),
                d["start_line"].as_u64().expect("start"),
                d["end_line"].as_u64().expect("end"),
            )
        })
        .collect()
}

fn def(depth: u64, kind: &str, name: &str, start: u64, end: u64) -> (u64, String, String, u64, u64) {
    (depth, kind.to_string(), name.to_string(), start, end)
}

#[test]
fn rust_and_python_definitions_nest_in_their_containers() {
    let ws = symbols_ws();
    assert_eq!(
        outline(&ws, "config.rs"),
        vec![
            def(0, "struct", "Config", 4, 6),
            def(0, "impl", "Config", 8, 12),
            def(1, "method", "new", 9, 11),
            def(0, "impl", "Config", 14, 18),
            def(1, "method", "fmt", 15, 17),
            def(0, "function", "helper", 20, 22),
        ]
    );
    assert_eq!(
        outline(&ws, "parser.py"),
        vec![
            def(0, "class", "Parser", 4, 10),
            def(1, "method", "parse", 5, 6),
            def(1, "method", "build", 9, 10),
            def(0, "function", "helper", 12, 13),
        ]
    );
}

#[test]
fn javascript_typescript_and_tsx_definitions() {
    let ws = symbols_ws();
    assert_eq!(
        outline(&ws, "widget.js"),
        vec![
            def(0, "class", "Widget", 3, 7),
            def(1, "method", "render", 4, 6),
            def(0, "function", "draw", 9, 11),
            def(0, "function", "make", 13, 13),
        ]
    );
    assert_eq!(
        outline(&ws, "shapes.ts"),
        vec![
            def(0, "interface", "Shape", 3, 5),
            def(1, "method", "area", 4, 4),
            def(0, "type", "Id", 7, 7),
            def(0, "enum", "Color", 9, 9),
            def(0, "class", "Circle", 11, 15),
            def(1, "method", "area", 12, 14),
            def(0, "function", "compute", 17, 19),
        ]
    );
    assert_eq!(
        outline(&ws, "app.tsx"),
        vec![
            def(0, "function", "App", 1, 3),
            def(0, "class", "Panel", 5, 9),
            def(1, "method", "render", 6, 8),
        ]
    );
}

#[test]
fn go_java_c_and_cpp_definitions() {
    let ws = symbols_ws();
    assert_eq!(
        outline(&ws, "server.go"),
        vec![
            def(0, "constant", "Port", 5, 5),
            def(0, "struct", "Server", 7, 9),
            def(0, "interface", "Handler", 11, 13),
            def(0, "method", "Start", 15, 18),
            def(0, "function", "NewServer", 20, 22),
        ]
    );
    assert_eq!(
        outline(&ws, "Account.java"),
        vec![
            def(0, "class", "Account", 5, 22),
            def(1, "constructor", "Account", 8, 10),
            def(1, "method", "deposit", 12, 15),
            def(1, "interface", "Listener", 17, 19),
            def(2, "method", "changed", 18, 18),
            def(1, "enum", "Kind", 21, 21),
        ]
    );
    assert_eq!(
        outline(&ws, "calc.c"),
        vec![
            def(0, "macro", "LIMIT", 2, 2),
            def(0, "struct", "point", 4, 7),
            def(0, "function", "add", 9, 11),
            def(0, "function", "main", 13, 16),
        ]
    );
    assert_eq!(
        outline(&ws, "geo.hpp"),
        vec![
            def(0, "namespace", "geo", 1, 16),
            def(1, "class", "Shape", 3, 9),
            def(2, "prototype", "area", 5, 5),
            def(2, "method", "describe", 6, 8),
            def(1, "struct", "Square", 11, 14),
            def(2, "prototype", "area", 13, 13),
            def(0, "method", "area", 18, 20),
        ]
    );
}

#[test]
fn the_text_is_numbered_like_read_file_and_indented_by_nesting() {
    let ws = symbols_ws();
    let out = ws.run(&["outline", "config.rs"]).ok();
    assert_eq!(
        out.output(),
        "config.rs (rust): 6 definitions\n     4│ struct Config [4-6]: pub struct Config {\n     8│ impl Config [8-12]: impl Config {\n     9│   method new [9-11]: pub fn new(name: &str) -> Config {\n    14│ impl Config [14-18]: impl fmt::Display for Config {\n    15│   method fmt [15-17]: fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n    20│ function helper [20-22]: fn helper(s: &str) -> String {"
    );
    assert_eq!(out.data()["total_definitions"], 6);
    assert_eq!(out.data()["truncated"], false);
}

#[test]
fn a_directory_is_outlined_file_by_file_and_the_cut_names_the_next_call() {
    let ws = symbols_ws();
    ws.write("notes.txt", "not code\n");
    let out = ws.call("outline", json!({"path": "."})).ok();
    let files: Vec<&str> = out.data()["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["path"].as_str().expect("path"))
        .collect();
    assert_eq!(
        files,
        vec![
            "Account.java",
            "app.tsx",
            "calc.c",
            "config.rs",
            "geo.hpp",
            "parser.py",
            "server.go",
            "shapes.ts",
            "widget.js"
        ]
    );
    assert_eq!(out.data()["total_definitions"], 46);
    let cut = ws.call("outline", json!({"path": ".", "max_results": 8})).ok();
    assert_eq!(cut.data()["truncated"], true);
    assert!(
        cut.output().ends_with(
            "46 definitions; showing the first 8. To see the rest, raise max_results (at most 2000) or call outline with path=\"app.tsx\"."
        ),
        "{}",
        cut.output()
    );
}

#[test]
fn a_file_without_a_grammar_names_the_languages_and_read_file() {
    let ws = symbols_ws();
    ws.write("notes.txt", "not code\n");
    let out = ws
        .call("outline", json!({"path": "notes.txt"}))
        .err("invalid_arguments");
    assert!(out.message().contains("rust (.rs)"), "{}", out.message());
    assert!(out.message().contains("cpp (.cc"), "{}", out.message());
    assert!(
        out.message().contains("call read_file with path=\"notes.txt\""),
        "{}",
        out.message()
    );
    assert_eq!(out.error()["languages"].as_array().expect("languages").len(), 9);
}

#[test]
fn missing_paths_state_paths_and_empty_directories() {
    let ws = symbols_ws();
    let missing = ws.call("outline", json!({"path": "confg.rs"})).err("not_found");
    assert!(missing.message().contains("config.rs"), "{}", missing.message());
    ws.call("find_symbol", json!({"name": "helper"})).ok();
    ws.call("outline", json!({"path": ".codesmith/index"}))
        .err("invalid_arguments")
        .contains("inside .codesmith/");
    ws.mkdir("empty");
    ws.call("outline", json!({"path": "empty"}))
        .ok()
        .contains("No source files in a supported language under `empty`")
        .contains("list_dir with path=\"empty\"");
}
