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
