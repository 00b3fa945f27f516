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
