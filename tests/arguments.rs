//! Argument values and names (CONTRACT §1): unambiguous spellings accepted, clamped fields
//! clamped, every other mistake explained with the field, what it takes and a corrected call.

use serde_json::json;

use crate::harness::Ws;

fn ws_with_file() -> Ws {
    let ws = Ws::new();
    ws.write("f", "one\ntwo\nthree\n");
    ws
}

#[test]
fn whole_numbers_and_booleans_in_unambiguous_spellings_are_taken() {
    let ws = ws_with_file();
    let plain = ws.call("read_file", json!({"path": "f", "start_line": 2})).ok();
    for spelling in [json!("2"), json!(2.0), json!(" 2 ")] {
        let out = ws
            .call("read_file", json!({"path": "f", "start_line": spelling}))
            .ok();
        assert_eq!(out.stdout, plain.stdout, "{spelling}");
    }
    // From stdin and through `call` alike.
    let out = ws
        .run_stdin(&["read"], r#"{"path": "f", "start_line": "2", "max_lines": 1.0}"#)
        .ok();
    assert_eq!(
        out.output(),
        "     2│ two\n\nTo continue, call read_file with path=\"f\" start_line=3 max_lines=1"
    );
    ws.write("g.txt", "Hello\nhello\n");
    let out = ws
        .call(
            "grep_files",
            json!({"pattern": "hello", "case_insensitive": "true", "max_results": "10"}),
        )
        .ok();
    assert_eq!(out.data()["total_matches"], 2, "{}", out.stdout);
    let out = ws
        .call(
            "grep_files",
            json!({"pattern": "hello", "case_insensitive": "false"}),
        )
        .ok();
    assert_eq!(out.data()["total_matches"], 1);
}

#[test]
fn a_number_written_as_text_stays_text_where_the_schema_says_string() {
    let ws = Ws::new();
    ws.write("2", "two\n");
    // "2" is a path here, not a number to convert; and a number for a string field is refused.
    ws.call("read_file", json!({"path": "2"})).ok();
    let out = ws.call("read_file", json!({"path": 2})).err("invalid_arguments");
    assert_eq!(
        out.message(),
        "`path` must be a string (got 2). Example: {\"path\": \"2\"}"
    );
    assert_eq!(out.error()["field"], "path");
}

#[test]
fn a_wrong_integer_names_the_field_the_range_and_an_example_call() {
    let ws = ws_with_file();
    let out = ws
        .call("read_file", json!({"path": "f", "start_line": "abc"}))
        .err("invalid_arguments");
    assert_eq!(
        out.message(),
        "`start_line` must be a whole number from 1 (got \"abc\"). Example: {\"path\": \"f\", \"start_line\": 1}"
    );
    assert_eq!(out.error()["field"], "start_line");
    // The flag form reaches the same message.
    let flag = ws
        .run(&["read", "f", "--start-line", "abc"])
        .err("invalid_arguments");
    assert_eq!(flag.message(), out.message());
    for (value, shown) in [
        (json!(2.5), "2.5"),
        (json!(-3), "-3"),
        (json!(true), "true"),
        (json!(1e23), "1e+23"),
    ] {
        let out = ws
            .call("read_file", json!({"path": "f", "start_line": value}))
            .err("invalid_arguments");
        assert!(
            out.message().starts_with(&format!(
                "`start_line` must be a whole number from 1 (got {shown})"
            )),
            "{}",
            out.message()
        );
        assert!(!out.message().contains("invalid type"), "{}", out.message());
    }
    // Every wrong field at once, and a range with both ends.
    let out = ws
        .call(
            "grep_files",
            json!({"pattern": "x", "context": "lots", "fixed_strings": "yes"}),
        )
        .err("invalid_arguments");
    assert_eq!(
        out.message(),
        "`context` must be a whole number from 0 to 50 (got \"lots\"); `fixed_strings` must be true \
         or false (got \"yes\"). Example: {\"pattern\": \"x\", \"fixed_strings\": true, \"context\": 0}"
    );
}

#[test]
fn enum_and_list_fields_say_what_they_take() {
    let ws = ws_with_file();
    let out = ws
        .call("grep_files", json!({"pattern": "x", "output_mode": "lines"}))
        .err("invalid_arguments");
    assert_eq!(
        out.message(),
        "`output_mode` must be one of \"content\", \"files\", \"count\" (got \"lines\"). Example: \
         {\"pattern\": \"x\", \"output_mode\": \"content\"}"
    );
    let out = ws
        .call("grep_files", json!({"pattern": "x", "include": 5}))
        .err("invalid_arguments");
    assert!(out
        .message()
        .starts_with("`include` must be a string or a list of strings (got 5)."));
}

#[test]
fn clamped_fields_clamp_what_serde_cannot_hold_with_a_notice() {
    let ws = ws_with_file();
    let out = ws
        .call("grep_files", json!({"pattern": "one", "max_results": -5}))
        .ok();
    assert_eq!(out.data()["max_results"], 1);
    assert_eq!(out.notices(), ["max_results=-5 is outside 1..=1000; used 1."]);
    // A negative number after a flag is its value, not an unknown flag.
    let out = ws.run(&["grep", "one", "--max-results", "-5"]).ok();
    assert_eq!(out.notices(), ["max_results=-5 is outside 1..=1000; used 1."]);
    let out = ws
        .call("file_search", json!({"pattern": "*", "max_results": "-5"}))
        .ok();
    assert_eq!(out.notices(), ["max_results=\"-5\" is outside 1..=200; used 1."]);
    let out = ws
        .call("file_search", json!({"pattern": "*", "max_results": 1e23}))
        .ok();
    assert_eq!(out.notices(), ["max_results=1e+23 is outside 1..=200; used 200."]);
    let out = ws.call("read_file", json!({"path": "f", "max_lines": -1})).ok();
    assert_eq!(out.notices(), ["max_lines=-1 is outside 1..=500; used 1."]);
    assert_eq!(out.data()["end_line"], 1);
    // A value a 64-bit integer holds is clamped by the tool, with its own notice.
    let out = ws.call("read_file", json!({"path": "f", "max_lines": 600})).ok();
    assert_eq!(
        out.notices(),
        ["max_lines=600 is over the cap; showing at most 500 lines."]
    );
    // Not a number at all is still an error.
    ws.call("grep_files", json!({"pattern": "one", "max_results": "many"}))
        .err("invalid_arguments")
        .contains("`max_results` must be a whole number");
}

#[test]
fn clamped_fields_have_no_schema_range_and_say_they_clamp() {
    let ws = Ws::new();
    let catalog: serde_json::Value = serde_json::from_slice(&ws.raw(&["tools"]).stdout).unwrap();
    for (tool, field) in [
        ("read_file", "max_lines"),
        ("grep_files", "max_results"),
        ("file_search", "max_results"),
    ] {
        let entry = catalog
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == tool)
            .unwrap();
        let prop = &entry["input_schema"]["properties"][field];
        assert!(prop.get("maximum").is_none(), "{tool}.{field}: {prop}");
        assert!(prop.get("minimum").is_none(), "{tool}.{field}: {prop}");
        assert!(
            prop["description"].as_str().unwrap().contains("clamped"),
            "{tool}.{field}: {prop}"
        );
    }
    for field in ["max_bytes", "timeout_ms"] {
        let entry = catalog
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "fetch_url")
            .unwrap();
        let prop = &entry["input_schema"]["properties"][field];
        assert!(prop.get("maximum").is_none(), "fetch_url.{field}: {prop}");
        assert!(prop["description"].as_str().unwrap().contains("capped"));
    }
}

#[test]
fn every_unknown_field_is_named_with_the_field_it_probably_meant() {
    let ws = ws_with_file();
    let out = ws
        .call("read_file", json!({"file_path": "f", "offset": 2, "limit": 1}))
        .err("invalid_arguments");
    assert_eq!(
        out.message(),
        "unknown fields `file_path` (did you mean `path`?), `offset` (did you mean `start_line`?) \
         and `limit` (did you mean `max_lines`?) for read_file; valid fields: path, start_line, \
         max_lines. Call again with `file_path` renamed to `path`, `offset` renamed to `start_line` \
         and `limit` renamed to `max_lines`: {\"path\": \"f\", \"start_line\": 2, \"max_lines\": 1}."
    );
    assert_eq!(out.error()["unknown"], json!(["file_path", "offset", "limit"]));
    assert_eq!(
        out.error()["suggestions"],
        json!({"file_path": "path", "offset": "start_line", "limit": "max_lines"})
    );
    // The corrected call works as written.
    ws.call("read_file", json!({"path": "f", "start_line": 2, "max_lines": 1}))
        .ok();
}

#[test]
fn suggestions_follow_each_tool_and_case_or_separator_style() {
    let ws = ws_with_file();
    let cases = [
        (
            "edit_file",
            json!({"path": "f", "old_string": "a", "new_string": "b"}),
            "`old_string` (did you mean `search`?)",
        ),
        (
            "edit_file",
            json!({"path": "f", "old_str": "a", "new_str": "b"}),
            "`new_str` (did you mean `replace`?)",
        ),
        (
            "exec_shell",
            json!({"cmd": "true"}),
            "`cmd` (did you mean `command`?)",
        ),
        (
            "exec_shell",
            json!({"command": "true", "timeout": 5}),
            "`timeout` (did you mean `timeout_ms`?)",
        ),
        (
            "grep_files",
            json!({"query": "x"}),
            "`query` (did you mean `pattern`?)",
        ),
        (
            "grep_files",
            json!({"pattern": "x", "glob": "*.rs"}),
            "`glob` (did you mean `include`?)",
        ),
        (
            "grep_files",
            json!({"pattern": "x", "limit": 3}),
            "`limit` (did you mean `max_results`?)",
        ),
        (
            "file_search",
            json!({"glob": "*.rs"}),
            "`glob` (did you mean `pattern`?)",
        ),
        (
            "list_dir",
            json!({"directory": "."}),
            "`directory` (did you mean `path`?)",
        ),
        (
            "read_file",
            json!({"path": "f", "startLine": 2}),
            "`startLine` (did you mean `start_line`?)",
        ),
        (
            "read_file",
            json!({"path": "f", "max-lines": 2}),
            "`max-lines` (did you mean `max_lines`?)",
        ),
        (
            "fetch_url",
            json!({"uri": "http://127.0.0.1:9/"}),
            "`uri` (did you mean `url`?)",
        ),
    ];
    for (tool, args, expected) in cases {
        let out = ws.call(tool, args.clone()).err("invalid_arguments");
        assert!(
            out.message().contains(expected),
            "{tool} {args}: {}",
            out.message()
        );
        assert!(out.message().contains("valid fields: "), "{}", out.message());
    }
    // No guess for a name that resembles nothing; a field already given is not suggested twice.
    let out = ws
        .call("read_file", json!({"path": "f", "bogus": 1, "file_path": "g"}))
        .err("invalid_arguments");
    assert_eq!(
        out.message(),
        "unknown fields `bogus` and `file_path` for read_file; valid fields: path, start_line, \
         max_lines. Call again without `bogus` and `file_path`: {\"path\": \"f\"}."
    );
}

#[test]
fn an_unknown_field_and_a_wrong_type_are_reported_together() {
    let ws = ws_with_file();
    let out = ws
        .call(
            "edit_file",
            json!({"path": "f", "old_string": "one", "new_string": "1", "replace_all": "yes"}),
        )
        .err("invalid_arguments");
    assert!(
        out.message()
            .contains("Also, `replace_all` must be true or false (got \"yes\")."),
        "{}",
        out.message()
    );
    assert!(out
        .message()
        .ends_with("{\"path\": \"f\", \"search\": \"one\", \"replace\": \"1\", \"replace_all\": true}."));
    assert_eq!(ws.read_string("f"), "one\ntwo\nthree\n");
}

#[test]
fn long_values_are_shortened_in_the_corrected_call() {
    let ws = Ws::new();
    let content = "x".repeat(5000);
    let out = ws
        .call("write_file", json!({"path": "n.txt", "contents": content}))
        .err("invalid_arguments");
    assert!(out.message().contains("`contents` (did you mean `content`?)"));
    assert!(
        out.message().ends_with("…\"} (long values shortened)."),
        "{}",
        out.message()
    );
    assert!(out.message().len() < 600);
    assert!(!ws.exists("n.txt"));
}
