//! apply_patch's result and error texts: the diff it shows, and messages at the edges.

use serde_json::json;

use crate::harness::Ws;

fn patch(ws: &Ws, text: &str) -> crate::harness::Outcome {
    ws.call("apply_patch", json!({ "patch": text }))
}

#[test]
fn the_diff_marks_a_last_line_without_a_newline_on_each_side() {
    let ws = Ws::new();
    ws.write("a.txt", "a\nb")
        .write("c.txt", "c\nd\n")
        .write("e.txt", "e\nf");
    for p in ["a.txt", "c.txt", "e.txt"] {
        ws.read_via_tool(p);
    }
    let out = patch(
        &ws,
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n\
         --- a/c.txt\n+++ b/c.txt\n@@ -1,2 +1,2 @@\n c\n-d\n+D\n\\ No newline at end of file\n\
         --- a/e.txt\n+++ b/e.txt\n@@ -1,2 +1,2 @@\n-e\n+E\n f\n\\ No newline at end of file\n\
         --- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+new\n\\ No newline at end of file\n",
    )
    .ok();
    let diff = out.data()["diff"].as_str().unwrap();
    for expected in [
        "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n--- a/c.txt",
        "@@ -1,2 +1,2 @@\n c\n-d\n+D\n\\ No newline at end of file\n--- a/e.txt",
        "@@ -1,2 +1,2 @@\n-e\n+E\n f\n\\ No newline at end of file\n--- /dev/null",
        "+new\n\\ No newline at end of file\n",
    ] {
        assert!(diff.contains(expected), "missing {expected:?} in:\n{diff}");
        assert!(
            out.output().contains(expected.trim_end()),
            "missing {expected:?} in output"
        );
    }
    assert_eq!(ws.read_string("a.txt"), "a\nb\n");
    assert_eq!(ws.read_string("c.txt"), "c\nD");
    assert_eq!(ws.read_string("e.txt"), "E\nf");
    assert_eq!(ws.read_string("n.txt"), "new");
}

#[test]
fn a_context_line_that_stops_being_last_is_shown_removed_and_added() {
    let ws = Ws::new();
    ws.write("a.txt", "a");
    ws.read_via_tool("a.txt");
    let out = patch(
        &ws,
        "*** Begin Patch\n*** Update File: a.txt\n@@\n a\n+b\n*** End Patch\n",
    )
    .ok();
    assert_eq!(ws.read_string("a.txt"), "a\nb");
    let diff = out.data()["diff"].as_str().unwrap();
    assert!(
        diff.contains(
            "@@ -1,1 +1,2 @@\n-a\n\\ No newline at end of file\n+a\n+b\n\\ No newline at end of file\n"
        ),
        "{diff}"
    );
}

#[test]
fn adding_a_file_below_a_regular_file_names_that_file() {
    let ws = Ws::new();
    ws.write("x", "x\n");
    let out = patch(
        &ws,
        "*** Begin Patch\n*** Add File: x/y.txt\n+hi\n*** End Patch\n",
    )
    .err("patch_failed");
    assert!(
        out.message()
            .contains("goes through `x`, which is a file, not a directory"),
        "{}",
        out.message()
    );
    assert!(!out.message().contains("does not exist"), "{}", out.message());
    assert_eq!(ws.read_string("x"), "x\n");
}

#[test]
fn an_ambiguous_chunk_suggests_one_read_when_both_places_are_close() {
    let ws = Ws::new();
    ws.write("a.txt", "x\ny\nx\ny\n");
    ws.read_via_tool("a.txt");
    let out = patch(
        &ws,
        "*** Begin Patch\n*** Update File: a.txt\n-x\n+X\n y\n*** End Patch\n",
    )
    .err("patch_failed");
    let call = "read_file with path=\"a.txt\" start_line=1";
    assert_eq!(out.message().matches(call).count(), 1, "{}", out.message());
    assert!(
        out.message().contains("To see both places, call read_file"),
        "{}",
        out.message()
    );
}

#[test]
fn a_rollback_message_keeps_its_sentences_apart() {
    let ws = Ws::new();
    ws.write("a.txt", "a\n").write("b.txt", "b\n");
    ws.read_via_tool("a.txt");
    ws.read_via_tool("b.txt");
    let args = json!({"patch": "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n*** End Patch\n"});
    let out = ws
        .command(&["apply_patch", "--json", &args.to_string()])
        .env("CODESMITH_FAULT", "rename:b.txt")
        .output()
        .unwrap();
    let out = crate::harness::Outcome::from_output(out).err("io_error");
    assert!(
        out.message()
            .contains("is fixed. The 1 file change already made was undone"),
        "{}",
        out.message()
    );
    assert_eq!(ws.read_string("a.txt"), "a\n");
}

#[test]
fn the_syntax_gate_names_the_file_that_parses_when_a_patch_moves_it() {
    let ws = Ws::new();
    ws.write("c.json", "{\"a\": 1}\n");
    ws.read_via_tool("c.json");
    let out = patch(
        &ws,
        "*** Begin Patch\n*** Update File: c.json\n*** Move to: c2.json\n@@\n-{\"a\": 1}\n+{\"a\": }\n*** End Patch\n",
    )
    .err("syntax_gate");
    assert!(
        out.message().starts_with(
            "`c.json` parses as JSON now, and this change, which moves it to `c2.json`, would break it"
        ),
        "{}",
        out.message()
    );
    assert!(ws.exists("c.json") && !ws.exists("c2.json"));
}
