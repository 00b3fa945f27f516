//! The syntax gate through the tools that write: where it points, and which file it names.

use serde_json::json;

use crate::edit_file::{edit, ws_with};

#[test]
fn rust_end_of_input_is_reported_at_the_last_line() {
    let ws = ws_with("m.rs", "fn main() {}\n\n\n\nfn g() {}\n");
    let out = edit(
        &ws,
        json!({"path": "m.rs", "search": "fn g() {}\n", "replace": "fn g() {}\n\nstruct\n"}),
    )
    .err("syntax_gate");
    assert_eq!(out.error()["line"], 7, "{}", out.message());
    assert!(out.message().contains("end of input"), "{}", out.message());
    assert!(out.message().contains("(line 7, column 7)"), "{}", out.message());
    assert!(out.message().contains("     7│ struct\n"), "{}", out.message());
    assert_eq!(ws.read_string("m.rs"), "fn main() {}\n\n\n\nfn g() {}\n");
}

/// `fn f(){` and `depth` parentheses around `1`, then `tail`.
fn nested_rust(depth: usize, tail: &str) -> String {
    format!(
        "fn f() {{ let x = {}1{}; {tail} }}\n",
        "(".repeat(depth),
        ")".repeat(depth)
    )
}

/// write_file with its arguments on stdin (they are too long for a command line).
fn write(ws: &crate::harness::Ws, args: serde_json::Value) -> crate::harness::Outcome {
    ws.run_stdin(&["write_file"], &args.to_string())
}

#[test]
fn deeply_nested_files_are_judged_without_crashing() {
    let ws = crate::harness::Ws::new();
    // Deep enough to overflow a normal stack in syn, shallow enough to be parsed: still judged.
    let broken = nested_rust(3000, "let");
    let out = ws
        .call("write_file", json!({"path": "deep.rs", "content": broken}))
        .err("syntax_gate");
    assert!(out.message().contains("NOT created"), "{}", out.message());
    assert!(!ws.exists("deep.rs"));
    ws.call(
        "write_file",
        json!({"path": "deep.rs", "content": nested_rust(3000, "")}),
    )
    .ok();
    // Past the gate's nesting limit the file is let through unjudged, with one envelope.
    for content in [
        nested_rust(100_000, ""),
        format!("type T = {}u8{};\n", "Vec<".repeat(50_000), ">".repeat(50_000)),
        format!("fn f() {{ let x = {}1; }}\n", "-".repeat(100_000)),
        format!("fn f() {{ {}{{}} }}\n", "if a {} else ".repeat(50_000)),
        format!("fn f() {{ let x = {}1; }}\n", "|a| ".repeat(100_000)),
    ] {
        write(&ws, json!({"path": "deeper.rs", "content": content})).ok();
        assert_eq!(ws.read_string("deeper.rs"), content);
    }
    // edit_file goes through the same gate.
    ws.call("read_file", json!({"path": "deep.rs"})).ok();
    ws.call(
        "edit_file",
        json!({"path": "deep.rs", "search": "let x = (((", "replace": "let x = ((((((((((((((((((((((((((((((((((((((((((((((((((("}),
    )
    .err("syntax_gate");
    // TOML and JSON parsers have recursion limits of their own: an error, not a crash.
    let toml_text = format!("a = {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let out = write(&ws, json!({"path": "deep.toml", "content": toml_text})).err("syntax_gate");
    assert!(out.message().contains("recurs"), "{}", out.message());
    let json_text = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    write(&ws, json!({"path": "deep.json", "content": json_text})).ok();
}
