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

// ---- the diff -----------------------------------------------------------------------------

#[test]
fn joining_two_lines_keeps_three_lines_of_context_after_the_change() {
    let ws = ws_with("j.txt", "l1\nl2\nl3\nb\nx\ny\nz\nend\n");
    let out = edit(&ws, json!({"path": "j.txt", "search": "\nb\n", "replace": "\nQ"})).ok();
    assert_eq!(ws.read_string("j.txt"), "l1\nl2\nl3\nQx\ny\nz\nend\n");
    let diff = out.data()["diff"].as_str().unwrap();
    assert!(
        diff.ends_with("@@ -1,8 +1,7 @@\n l1\n l2\n l3\n-b\n-x\n+Qx\n y\n z\n end\n"),
        "{diff}"
    );
}

// ---- anchor mode ------------------------------------------------------------------------------

#[test]
fn a_search_end_matching_only_inside_search_start_is_diagnosed_as_such() {
    let ws = ws_with("a.txt", "a\nb\nc\n");
    let out = edit(
        &ws,
        json!({"path": "a.txt", "search_start": "a", "search_end": "a", "replace": "x"}),
    )
    .err("no_match");
    let message = out.message();
    assert!(
        message.starts_with("search_end has no match after search_start (line 1)"),
        "{message}"
    );
    assert!(message.contains("inside search_start's own match"), "{message}");
    assert!(!message.contains("whitespace"), "{message}");
    assert!(message.contains("read_file with path=\"a.txt\""), "{message}");
}

#[test]
fn a_search_end_missing_from_the_file_is_named_in_the_diagnosis() {
    let ws = ws_with("a.txt", "fn a() {\n}\n");
    let out = edit(
        &ws,
        json!({"path": "a.txt", "search_start": "fn a", "search_end": "fn zzz() {}", "replace": "x"}),
    )
    .err("no_match");
    assert!(
        out.message()
            .contains("search_end, `fn zzz() {}`, is not in the file"),
        "{}",
        out.message()
    );
}

// ---- diagnoses --------------------------------------------------------------------------------

#[test]
fn a_whitespace_difference_over_several_lines_says_lines() {
    let ws = ws_with("w.txt", "x\nfoo(a,\n  b,\n  c)\n");
    let out = edit(
        &ws,
        json!({"path": "w.txt", "search": "foo(a, b, c)", "replace": "y"}),
    )
    .err("no_match");
    assert!(out.message().contains("at lines 2-4,"), "{}", out.message());
    assert!(
        out.message().contains("search has 1 line where the file has 3"),
        "{}",
        out.message()
    );
}

#[test]
fn a_read_file_prefix_on_the_first_search_line_only_is_diagnosed() {
    let ws = ws_with("a.txt", "a\nb\nc\n");
    let out = edit(
        &ws,
        json!({"path": "a.txt", "search": "     2│ b\nc", "replace": "x"}),
    )
    .err("no_match");
    assert!(
        out.message()
            .contains("first line of search starts with a line-number prefix"),
        "{}",
        out.message()
    );
    assert!(
        out.message().contains("Without it the text occurs at line 2"),
        "{}",
        out.message()
    );
}

// ---- punctuation level: typeset replace into an ASCII file ----------------------------------

#[test]
fn curly_quotes_in_replace_are_folded_when_the_file_uses_straight_ones() {
    let ws = ws_with("run.sh", "#!/bin/sh\necho \"hello\"\n");
    let out = edit(
        &ws,
        json!({"path": "run.sh", "search": "echo \u{201C}hello\u{201D}", "replace": "echo \u{201C}hello world\u{201D} \u{2013} ok"}),
    )
    .ok();
    assert_eq!(out.data()["match"], "punctuation");
    // The en dash was not in search: it is replace's own and stays.
    assert_eq!(
        ws.read_string("run.sh"),
        "#!/bin/sh\necho \"hello world\" \u{2013} ok\n"
    );
    assert!(
        out.output().contains("replace's punctuation was folded"),
        "{}",
        out.output()
    );
}

#[test]
fn dashes_and_nbsp_in_replace_follow_the_files_ascii() {
    let ws = ws_with("a.md", "Range 1-5 of x\n");
    edit(
        &ws,
        json!({"path": "a.md", "search": "Range 1\u{2013}5\u{a0}of x", "replace": "Range 1\u{2013}9\u{a0}of y"}),
    )
    .ok();
    assert_eq!(ws.read_string("a.md"), "Range 1-9 of y\n");
}

#[test]
fn a_curly_file_still_gets_curly_quotes_and_no_folding_note() {
    let ws = ws_with("a.md", "She said \u{201C}yes\u{201D}.\n");
    let out = edit(
        &ws,
        json!({"path": "a.md", "search": "She said \"yes\".", "replace": "She said \"no\"."}),
    )
    .ok();
    assert_eq!(ws.read_string("a.md"), "She said \u{201C}no\u{201D}.\n");
    assert!(!out.output().contains("folded"), "{}", out.output());
}

#[test]
fn anchors_matched_by_folding_fold_replace_too() {
    let ws = ws_with("run.sh", "#!/bin/sh\necho \"a\"\necho \"b\"\n");
    let out = edit(
        &ws,
        json!({"path": "run.sh", "search_start": "echo \u{201C}a\u{201D}", "search_end": "echo \u{201C}b\u{201D}", "replace": "echo \u{201C}ab\u{201D}"}),
    )
    .ok();
    assert_eq!(out.data()["match"], "punctuation");
    assert_eq!(ws.read_string("run.sh"), "#!/bin/sh\necho \"ab\"\n");
    assert!(
        out.output().contains("replace's punctuation was folded"),
        "{}",
        out.output()
    );
}

/// A search copied from an empty line: it starts with a blank line the file does not have
/// there, and its indentation is off too. It matches at the indentation level wherever the
/// block is: at the top of the file, in the middle, at the end.
#[test]
fn a_search_starting_with_a_blank_line_the_file_lacks_matches_at_the_indentation_level() {
    let file = "fn first() {\n    one();\n}\nfn middle() {\n    two();\n}\nfn last() {\n    three();\n}\n";
    for (search, replace, expected) in [
        (
            "\n  fn first() {\n      one();\n  }\n",
            "\n  fn first() {\n      uno();\n  }\n",
            "fn first() {\n    uno();\n}\nfn middle() {",
        ),
        (
            "\n\tfn middle() {\n\t    two();\n\t}",
            "\n\tfn middle() {\n\t    dos();\n\t}",
            "}\nfn middle() {\n    dos();\n}\nfn last() {",
        ),
        (
            "\n        fn last() {\n            three();\n        }\n\n",
            "\n        fn last() {\n            tres();\n        }\n\n",
            "}\nfn last() {\n    tres();\n}\n",
        ),
    ] {
        let ws = ws_with("f.rs", file);
        let out = edit(&ws, json!({"path": "f.rs", "search": search, "replace": replace})).ok();
        assert_eq!(out.data()["match"], "indentation", "{search:?}: {}", out.stdout);
        let text = ws.read_string("f.rs");
        assert!(text.contains(expected), "{search:?}:\n{text}");
        assert_eq!(text.lines().count(), 9, "no line added or lost:\n{text}");
    }
}
