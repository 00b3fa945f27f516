use serde_json::{json, Value};

use crate::harness::{Outcome, Ws};

/// A workspace holding `rel` with `content`, already read in the default session.
pub(crate) fn ws_with(rel: &str, content: impl AsRef<[u8]>) -> Ws {
    let ws = Ws::new();
    ws.write(rel, content);
    ws.read_via_tool(rel);
    ws
}

pub(crate) fn edit(ws: &Ws, args: Value) -> Outcome {
    ws.call("edit_file", args)
}

// ---- the basics ---------------------------------------------------------------------------

#[test]
fn exact_edit_changes_only_the_span_and_shows_a_diff() {
    let ws = ws_with("a.txt", "one\ntwo\nthree\n");
    let out = edit(&ws, json!({"path": "a.txt", "search": "two", "replace": "TWO"})).ok();
    assert_eq!(ws.read("a.txt"), b"one\nTWO\nthree\n");
    assert_eq!(out.data()["match"], "exact");
    assert_eq!(out.data()["replacements"], 1);
    assert_eq!(out.data()["lines"], json!([2]));
    assert!(out
        .output()
        .starts_with("Edited `a.txt`: replaced 1 occurrence at line 2 (match: exact)."));
    assert!(
        out.output()
            .contains("--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"),
        "{}",
        out.output()
    );
}

#[test]
fn flags_and_positional_path_work() {
    let ws = ws_with("a.txt", "alpha beta\n");
    ws.run(&["edit", "a.txt", "--search", "beta", "--replace", "gamma"])
        .ok();
    assert_eq!(ws.read("a.txt"), b"alpha gamma\n");
}

#[test]
fn consecutive_edits_need_no_reread() {
    let ws = ws_with("a.txt", "a\nb\nc\n");
    edit(&ws, json!({"path": "a.txt", "search": "a", "replace": "A"})).ok();
    edit(&ws, json!({"path": "a.txt", "search": "b", "replace": "B"})).ok();
    ws.call("write_file", json!({"path": "a.txt", "content": "x\n"}))
        .ok();
    edit(&ws, json!({"path": "a.txt", "search": "x", "replace": "y"})).ok();
    assert_eq!(ws.read("a.txt"), b"y\n");
}

#[test]
fn parallel_edits_of_one_file_lose_nothing() {
    let text: String = (0..8).map(|i| format!("line {i}\n")).collect();
    let ws = ws_with("p.txt", &text);
    let children: Vec<_> = (0..8)
        .map(|i| {
            let args =
                json!({"path": "p.txt", "search": format!("line {i}\n"), "replace": format!("LINE {i}\n")});
            let mut cmd = ws.command(&["edit_file", "--json", &args.to_string()]);
            cmd.stdout(std::process::Stdio::piped());
            cmd.spawn().unwrap()
        })
        .collect();
    for child in children {
        let out = Outcome::from_output(child.wait_with_output().unwrap());
        out.ok();
    }
    let expected: String = (0..8).map(|i| format!("LINE {i}\n")).collect();
    assert_eq!(ws.read_string("p.txt"), expected);
}

#[test]
fn dry_run_writes_nothing_and_shows_the_diff() {
    let ws = ws_with("a.txt", "keep\nold\n");
    let out = edit(
        &ws,
        json!({"path": "a.txt", "search": "old", "replace": "new", "dry_run": true}),
    )
    .ok();
    assert_eq!(ws.read("a.txt"), b"keep\nold\n");
    assert_eq!(out.data()["dry_run"], true);
    assert!(out.output().starts_with("Dry run:"), "{}", out.output());
    assert!(out.output().contains("-old\n+new\n"), "{}", out.output());
    assert!(out.output().contains("call again without dry_run"));
}

// ---- the validation chain -----------------------------------------------------------------

fn refused(args: Value, needles: &[&str]) {
    let ws = ws_with("a.txt", "x y x\n");
    let out = edit(&ws, args).err("invalid_arguments");
    for needle in needles {
        assert!(
            out.message().contains(needle),
            "{needle:?} not in {}",
            out.message()
        );
    }
    assert_eq!(ws.read("a.txt"), b"x y x\n");
}

#[test]
fn empty_search_is_refused_and_points_at_write_file() {
    refused(
        json!({"path": "a.txt", "search": "", "replace": "z"}),
        &["empty", "write_file"],
    );
}

#[test]
fn identical_search_and_replace_is_refused() {
    refused(
        json!({"path": "a.txt", "search": "y", "replace": "y"}),
        &["identical"],
    );
}

#[test]
fn replace_all_with_occurrence_is_refused() {
    refused(
        json!({"path": "a.txt", "search": "x", "replace": "z", "replace_all": true, "occurrence": 1}),
        &["pass only one of them"],
    );
}

#[test]
fn occurrence_below_one_is_refused() {
    refused(
        json!({"path": "a.txt", "search": "x", "replace": "z", "occurrence": 0}),
        &["1-based", "occurrence=N"],
    );
    refused(
        json!({"path": "a.txt", "search": "x", "replace": "z", "occurrence": -2}),
        &["1-based"],
    );
}

#[test]
fn search_with_anchors_is_refused() {
    refused(
        json!({"path": "a.txt", "search": "x", "replace": "z", "search_start": "x", "search_end": "y"}),
        &[
            "cannot be combined",
            "pass search_start and search_end together, or neither",
        ],
    );
}

#[test]
fn one_anchor_alone_is_refused() {
    refused(
        json!({"path": "a.txt", "replace": "z", "search_start": "x"}),
        &[
            "pass search_start and search_end together, or neither",
            "passed search_start without search_end: add search_end",
        ],
    );
    refused(
        json!({"path": "a.txt", "replace": "z", "search_end": "x"}),
        &[
            "pass search_start and search_end together, or neither",
            "passed search_end without search_start: add search_start",
        ],
    );
}

#[test]
fn missing_search_is_refused() {
    refused(json!({"path": "a.txt", "replace": "z"}), &["missing search"]);
}

#[test]
fn unknown_field_lists_the_valid_ones() {
    refused(
        json!({"path": "a.txt", "old_string": "x", "replace": "z"}),
        &["old_string", "search_start"],
    );
}

// ---- several matches ----------------------------------------------------------------------

#[test]
fn multiple_matches_name_the_count_lines_and_both_ways_out() {
    let ws = ws_with("a.txt", "x = 1\ny = 2\nx = 1\nz\nx = 1\n");
    let out = edit(
        &ws,
        json!({"path": "a.txt", "search": "x = 1", "replace": "x = 9"}),
    )
    .err("multiple_matches");
    assert!(out.message().contains("3 places"), "{}", out.message());
    assert!(out.message().contains("lines 1, 3, 5"), "{}", out.message());
    assert!(out.message().contains("replace_all=true"), "{}", out.message());
    assert!(
        out.message().contains("occurrence=N (1..=3)"),
        "{}",
        out.message()
    );
    assert_eq!(out.error()["count"], 3);
    assert_eq!(out.error()["lines"], json!([1, 3, 5]));
    assert_eq!(ws.read("a.txt"), b"x = 1\ny = 2\nx = 1\nz\nx = 1\n");

    let out = edit(
        &ws,
        json!({"path": "a.txt", "search": "x = 1", "replace": "x = 9", "occurrence": 2}),
    )
    .ok();
    assert_eq!(out.data()["lines"], json!([3]));
    assert_eq!(ws.read("a.txt"), b"x = 1\ny = 2\nx = 9\nz\nx = 1\n");

    let out = edit(
        &ws,
        json!({"path": "a.txt", "search": "x = 1", "replace": "x = 0", "replace_all": true}),
    )
    .ok();
    assert_eq!(out.data()["replacements"], 2);
    assert_eq!(ws.read("a.txt"), b"x = 0\ny = 2\nx = 9\nz\nx = 0\n");
}

#[test]
fn occurrence_out_of_range_names_the_legal_range() {
    let ws = ws_with("a.txt", "q\nq\n");
    let out = edit(
        &ws,
        json!({"path": "a.txt", "search": "q", "replace": "r", "occurrence": 3}),
    )
    .err("invalid_arguments");
    assert!(
        out.message().contains("occurrence=N (1..=2)"),
        "{}",
        out.message()
    );
    assert_eq!(ws.read("a.txt"), b"q\nq\n");
}

// ---- the matching ladder ------------------------------------------------------------------

#[test]
fn indentation_level_shifts_the_replacement_and_says_so() {
    let original = "def f():\n\tif a:\n\t\treturn 1\n\treturn 2\n";
    let ws = ws_with("f.py", original);
    let out = edit(
        &ws,
        json!({
            "path": "f.py",
            "search": "if a:\n    return 1",
            "replace": "if a:\n    log()\n    return 1"
        }),
    )
    .ok();
    assert_eq!(out.data()["match"], "indentation");
    assert_eq!(out.data()["indentation"], "mapped");
    assert!(out.output().contains("re-indented"), "{}", out.output());
    assert_eq!(
        ws.read_string("f.py"),
        "def f():\n\tif a:\n\t\tlog()\n\t\treturn 1\n\treturn 2\n"
    );
}

#[test]
fn uniform_indentation_offset_is_applied_to_new_lines() {
    let original = "class A:\n    def f(self):\n        x = 1\n        y = 2\n";
    let ws = ws_with("a.py", original);
    let out = edit(
        &ws,
        json!({"path": "a.py", "search": "x = 1\ny = 2\n", "replace": "x = 1\nif x:\n    y = 3\n"}),
    )
    .ok();
    assert_eq!(out.data()["match"], "indentation");
    assert_eq!(out.data()["indentation"], "shifted_right");
    assert!(out.output().contains("8 spaces"), "{}", out.output());
    assert_eq!(
        ws.read_string("a.py"),
        "class A:\n    def f(self):\n        x = 1\n        if x:\n            y = 3\n"
    );
}

#[test]
fn tabs_outside_the_span_are_untouched() {
    let original = "\tkeep\t \n\t\tx = 1\n\tkeep2  \n";
    let ws = ws_with("t.txt", original);
    edit(
        &ws,
        json!({"path": "t.txt", "search": "  x = 1", "replace": "  x = 2"}),
    )
    .ok();
    assert_eq!(ws.read_string("t.txt"), "\tkeep\t \n\t\tx = 2\n\tkeep2  \n");
}

#[test]
fn punctuation_level_with_cjk_next_to_curly_quotes() {
    let original = "説明：「テスト」\nprint(“こんにちは” — ‘世界’)\n終わり\n";
    let ws = ws_with("j.txt", original);
    let out = edit(
        &ws,
        json!({"path": "j.txt", "search": "print(\"こんにちは\" - '世界')", "replace": "print(\"さようなら\")"}),
    )
    .ok();
    assert_eq!(out.data()["match"], "punctuation");
    assert_eq!(
        ws.read_string("j.txt"),
        // The span held only curly double quotes, so the new text gets them too.
        "説明：「テスト」\nprint(“さようなら”)\n終わり\n"
    );
}

#[test]
fn punctuation_level_forgives_nbsp_and_keeps_unchanged_lines_verbatim() {
    let original = "a\u{00A0}=\u{00A0}“x”\nb = 2\n";
    let ws = ws_with("n.txt", original);
    edit(
        &ws,
        json!({"path": "n.txt", "search": "a = \"x\"\nb = 2", "replace": "a = \"x\"\nb = 3"}),
    )
    .ok();
    assert_eq!(ws.read_string("n.txt"), "a\u{00A0}=\u{00A0}“x”\nb = 3\n");
}

#[test]
fn punctuation_level_keeps_the_file_s_curly_quotes_in_new_text() {
    let ws = ws_with("doc.md", "# Notes\n\nShe said “yes” and didn’t wait.\n");
    let out = edit(
        &ws,
        json!({"path": "doc.md", "search": "She said \"yes\" and didn't wait.", "replace": "She said \"no\" and didn't wait."}),
    )
    .ok();
    assert_eq!(out.data()["match"], "punctuation");
    assert_eq!(
        ws.read_string("doc.md"),
        "# Notes\n\nShe said “no” and didn’t wait.\n"
    );
}

#[test]
fn line_number_prefixes_are_stripped_when_they_land() {
    let original = "alpha\nbeta\ngamma\ndelta\n";
    for (search, replace) in [
        ("     2│ beta\n     3│ gamma", "BETA\nGAMMA"),
        ("     2\tbeta\n     3\tgamma", "BETA\nGAMMA"),
        ("2:beta\n3-gamma", "BETA\nGAMMA"),
        ("     2→beta\n     3→gamma", "     2→BETA\n     3→GAMMA"),
    ] {
        let ws = ws_with("l.txt", original);
        let out = edit(
            &ws,
            json!({"path": "l.txt", "search": search, "replace": replace}),
        )
        .ok();
        assert_eq!(out.data()["match"], "line_numbers", "{search:?}");
        assert_eq!(
            ws.read_string("l.txt"),
            "alpha\nBETA\nGAMMA\ndelta\n",
            "{search:?}"
        );
    }
}

#[test]
fn line_numbers_that_do_not_land_are_not_stripped() {
    let ws = ws_with("l.txt", "alpha\nbeta\ngamma\n");
    let out = edit(
        &ws,
        json!({"path": "l.txt", "search": "     5│ beta\n     6│ gamma", "replace": "x"}),
    )
    .err("no_match");
    assert!(
        out.message().contains("line-number prefixes"),
        "{}",
        out.message()
    );
    assert!(out.message().contains("occurs at line 2"), "{}", out.message());
    // Not every line prefixed: no stripping.
    edit(
        &ws,
        json!({"path": "l.txt", "search": "     2│ beta\ngamma", "replace": "x"}),
    )
    .err("no_match");
    // Not increasing.
    edit(
        &ws,
        json!({"path": "l.txt", "search": "3:beta\n2:gamma", "replace": "x"}),
    )
    .err("no_match");
    assert_eq!(ws.read("l.txt"), b"alpha\nbeta\ngamma\n");
}

#[test]
fn digit_prose_is_not_read_as_a_line_number() {
    // `12:30:00 meeting` must not become `30:00 meeting` unless line 12 is exactly that.
    let ws = ws_with("notes.txt", "agenda\n30:00 meeting\nend\n");
    let out = edit(
        &ws,
        json!({"path": "notes.txt", "search": "12:30:00 meeting", "replace": "moved"}),
    )
    .err("no_match");
    assert!(
        !out.message().contains("line-number prefixes like"),
        "{}",
        out.message()
    );
    assert_eq!(ws.read("notes.txt"), b"agenda\n30:00 meeting\nend\n");
    // And a real time stays editable.
    let ws = ws_with("t.txt", "at 12:30:00 meeting\n");
    edit(
        &ws,
        json!({"path": "t.txt", "search": "12:30:00 meeting", "replace": "13:00:00 lunch"}),
    )
    .ok();
    assert_eq!(ws.read("t.txt"), b"at 13:00:00 lunch\n");
}

#[test]
fn ambiguous_fuzzy_hit_is_multiple_matches_with_candidate_lines() {
    let original = "fn a() {\n    step();\n}\nfn b() {\n\tstep();\n}\n";
    let ws = ws_with("m.rs", original);
    let out = edit(
        &ws,
        json!({"path": "m.rs", "search": "step();  ", "replace": "go();"}),
    )
    .err("multiple_matches");
    assert_eq!(out.error()["match"], "indentation");
    assert_eq!(out.error()["lines"], json!([2, 5]));
    assert!(out.message().contains("will not guess"), "{}", out.message());
    assert!(
        out.message().contains("occurrence=N (1..=2)"),
        "{}",
        out.message()
    );
    assert_eq!(ws.read_string("m.rs"), original);
    edit(
        &ws,
        json!({"path": "m.rs", "search": "step();  ", "replace": "go();", "occurrence": 2}),
    )
    .ok();
    assert_eq!(
        ws.read_string("m.rs"),
        "fn a() {\n    step();\n}\nfn b() {\n\tgo();\n}\n"
    );
}

// ---- diagnosis ------------------------------------------------------------------------------

#[test]
fn no_match_names_a_whitespace_difference_and_its_line() {
    let ws = ws_with("w.txt", "a\nb\nlet  x = compute(1,2);\n");
    let out = edit(
        &ws,
        json!({"path": "w.txt", "search": "let x = compute(1, 2);", "replace": "y"}),
    )
    .err("no_match");
    assert!(out.message().contains("at line 3"), "{}", out.message());
    assert!(out.message().contains("whitespace differs"), "{}", out.message());
    assert!(
        out.message().contains("Call read_file with path=\"w.txt\""),
        "{}",
        out.message()
    );
}

#[test]
fn no_match_shows_the_closest_line() {
    let text: String = (1..=30).map(|i| format!("let value_{i} = {i};\n")).collect();
    let ws = ws_with("c.rs", &text);
    let out = edit(
        &ws,
        json!({"path": "c.rs", "search": "let value_17 = 17u8;", "replace": "x"}),
    )
    .err("no_match");
    assert!(
        out.message().contains("closest line is 17: `let value_17 = 17;`"),
        "{}",
        out.message()
    );
    assert!(
        out.message()
            .contains("Call read_file with path=\"c.rs\" start_line=12"),
        "{}",
        out.message()
    );
    assert_eq!(out.error()["near_line"], 17);
}

#[test]
fn no_match_quotes_the_closest_line_with_its_indentation() {
    let ws = ws_with("e.py", "def f(x):\n    if x:\n        return 8\n    return 2\n");
    let out = edit(
        &ws,
        json!({"path": "e.py", "search": "    retrun 2", "replace": "x"}),
    )
    .err("no_match");
    assert!(
        out.message().contains("The closest line is 4: `    return 2`."),
        "{}",
        out.message()
    );
}

#[test]
fn no_match_names_grep_prefixes_pasted_out_of_order() {
    let text = "def f(x):\n    if x:\n        return 8\n    return 2\n";
    let ws = ws_with("e.py", text);
    let out = edit(
        &ws,
        json!({"path": "e.py", "search": "4:    return 2\n3:        return 8", "replace": "x"}),
    )
    .err("no_match");
    let message = out.message();
    assert!(message.contains("line-number prefixes like `12:`"), "{message}");
    assert!(
        message.contains("out of order (4, 3), so they were not stripped"),
        "{message}"
    );
    assert!(
        message.contains("line 4 is `    return 2`, line 3 is `        return 8`"),
        "{message}"
    );
    assert!(message.contains("Call read_file with path=\"e.py\""), "{message}");
    assert_eq!(ws.read_string("e.py"), text);
    // A typo behind the prefixes is still found, with the closest line quoted whole.
    let out = edit(
        &ws,
        json!({"path": "e.py", "search": "4:    retrun 2\n3:        return 8", "replace": "x"}),
    )
    .err("no_match");
    assert!(out.message().contains("out of order (4, 3)"), "{}", out.message());
    assert!(
        out.message().contains("The closest line is 4: `    return 2`."),
        "{}",
        out.message()
    );
    // Text that merely looks numbered (no line is the one its number names) is not blamed on
    // prefixes.
    let ws = ws_with("m.yaml", "3: c\n1: a\n");
    let out = edit(
        &ws,
        json!({"path": "m.yaml", "search": "3: a\n1: c", "replace": "x"}),
    )
    .err("no_match");
    assert!(!out.message().contains("prefixes like"), "{}", out.message());
}

// ---- anchor mode --------------------------------------------------------------------------

#[test]
fn anchor_mode_replaces_the_inclusive_range() {
    let original = "fn a() {\n    1\n}\n\nfn parse() {\n    old();\n    older();\n}\n\nfn z() {}\n";
    let ws = ws_with("p.rs", original);
    let out = edit(
        &ws,
        json!({"path": "p.rs", "search_start": "fn parse() {", "search_end": "\n}\n", "replace": "fn parse() {\n    new();\n}\n"}),
    )
    .ok();
    assert_eq!(out.data()["lines"], json!([5]));
    assert!(out.output().contains("replaced lines 5-8"), "{}", out.output());
    assert_eq!(
        ws.read_string("p.rs"),
        "fn a() {\n    1\n}\n\nfn parse() {\n    new();\n}\n\nfn z() {}\n"
    );
}

#[test]
fn anchor_start_must_be_unique_and_end_must_follow() {
    let ws = ws_with("p.txt", "begin\nx\nend\nbegin\ny\nend\n");
    let out = edit(
        &ws,
        json!({"path": "p.txt", "search_start": "begin", "search_end": "end", "replace": "-"}),
    )
    .err("multiple_matches");
    assert!(
        out.message().contains("occurrence=N (1..=2)"),
        "{}",
        out.message()
    );
    edit(
        &ws,
        json!({"path": "p.txt", "search_start": "begin", "search_end": "end", "replace": "-", "occurrence": 2}),
    )
    .ok();
    assert_eq!(ws.read("p.txt"), b"begin\nx\nend\n-\n");
    let out = edit(
        &ws,
        json!({"path": "p.txt", "search_start": "x", "search_end": "begin", "replace": "-"}),
    )
    .err("no_match");
    assert!(
        out.message().contains("only before it, at line 1"),
        "{}",
        out.message()
    );
    assert!(out.message().contains("start_line=2"), "{}", out.message());
}
