//! edit_file's fuzzy levels and diagnoses at their edges: spans that start mid-line, pasted
//! line-number prefixes in `replace`, anchors, and the diff's context.

use serde_json::json;

use crate::edit_file::{edit, ws_with};

// ---- indentation level: a span that starts mid-line -----------------------------------------

#[test]
fn a_span_starting_mid_line_gets_no_indentation_before_its_first_line() {
    let ws = ws_with("p.py", "def f():\n    a = g(1,\n          2)\n");
    let out = edit(
        &ws,
        json!({"path": "p.py", "search": "g(1,\n  2)", "replace": "h(1,\n  3)"}),
    )
    .ok();
    assert_eq!(out.data()["match"], "indentation");
    assert_eq!(ws.read_string("p.py"), "def f():\n    a = h(1,\n          3)\n");
}

#[test]
fn no_byte_before_a_mid_line_span_changes() {
    let ws = ws_with("q.txt", "    foo(a); x = 1\n    y = 2; z\n");
    edit(
        &ws,
        json!({"path": "q.txt", "search": "x = 1\ny = 2", "replace": "x = 9\ny = 2"}),
    )
    .ok();
    assert_eq!(ws.read_string("q.txt"), "    foo(a); x = 9\n    y = 2; z\n");
}

#[test]
fn following_lines_of_a_mid_line_span_are_still_shifted() {
    let ws = ws_with("q.txt", "    foo(a); x = 1\n    y = 2; z\n");
    edit(
        &ws,
        json!({"path": "q.txt", "search": "x = 1\ny = 2", "replace": "x = 1\nw = 0\ny = 2"}),
    )
    .ok();
    assert_eq!(
        ws.read_string("q.txt"),
        "    foo(a); x = 1\n    w = 0\n    y = 2; z\n"
    );
}

// ---- line_numbers level: prefixes pasted into replace -----------------------------------------

#[test]
fn pasted_prefixes_are_stripped_from_every_replace_line_that_has_one() {
    let ws = ws_with("a.txt", "a\nb\nc\nd\n");
    let out = edit(
        &ws,
        json!({"path": "a.txt", "search": "     2│ b\n     3│ c", "replace": "     2│ B\nnew line\n     3│ c"}),
    )
    .ok();
    assert_eq!(out.data()["match"], "line_numbers");
    assert_eq!(ws.read_string("a.txt"), "a\nB\nnew line\nc\nd\n");
    assert!(out.output().contains("stripped from replace"), "{}", out.output());
}

#[test]
fn pasted_prefixes_in_replace_need_not_increase() {
    let ws = ws_with("a.txt", "a\nb\nc\nd\n");
    edit(
        &ws,
        json!({"path": "a.txt", "search": "     2│ b\n     3│ c\n", "replace": "     3│ c\n     2│ b\n"}),
    )
    .ok();
    assert_eq!(ws.read_string("a.txt"), "a\nc\nb\nd\n");
}

#[test]
fn grep_prefixes_on_only_some_replace_lines_are_refused_with_the_way_out() {
    let ws = ws_with("a.txt", "a\nb\nc\nd\n");
    let out = edit(
        &ws,
        json!({"path": "a.txt", "search": "2:b\n3:c", "replace": "2:B\n10:30 meeting\nplain"}),
    )
    .err("invalid_arguments");
    assert!(
        out.message().contains("without any line-number prefixes"),
        "{}",
        out.message()
    );
    assert_eq!(ws.read_string("a.txt"), "a\nb\nc\nd\n");
}
