//! apply_patch through the binary: both formats, fuzz, all-or-nothing, bytes on disk, the
//! conformance fixtures and a replay of this repository's own history.

use serde_json::json;

use crate::harness::Ws;

fn patch(ws: &Ws, text: &str) -> crate::harness::Outcome {
    ws.call("apply_patch", json!({ "patch": text }))
}

fn read_all(ws: &Ws, paths: &[&str]) {
    for path in paths {
        ws.read_via_tool(path);
    }
}

// ---------------------------------------------------------------- unified diffs

#[test]
fn unified_diff_with_several_files_and_hunks() {
    let ws = Ws::new();
    let body: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    ws.write("a.txt", &body).write("b.txt", "x\ny\n");
    read_all(&ws, &["a.txt", "b.txt"]);
    let out = patch(
        &ws,
        "diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -2,3 +2,3 @@\n line 2\n-line 3\n+LINE 3\n line 4\n@@ -30,3 +30,4 @@\n line 30\n line 31\n+line 31.5\n line 32\n--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n-x\n+X\n y\n",
    )
    .ok();
    assert_eq!(
        ws.read_string("a.txt"),
        body.replace("line 3\n", "LINE 3\n")
            .replace("line 31\n", "line 31\nline 31.5\n")
    );
    assert_eq!(ws.read_string("b.txt"), "X\ny\n");
    assert_eq!(out.data()["hunks_applied"], 3);
    assert_eq!(out.data()["format"], "unified");
    assert_eq!(out.data()["files"][0]["status"], "modified");
    assert!(out
        .output()
        .starts_with("Applied the patch to 2 files (2 modified), 3 hunks."));
    assert!(out.output().contains("+LINE 3"), "{}", out.output());
}

#[test]
fn git_new_deleted_renamed_and_copied_files_report_their_status() {
    let ws = Ws::new();
    ws.write("old.txt", "o\n")
        .write("gone.txt", "g\n")
        .write("src.txt", "s\n");
    read_all(&ws, &["old.txt", "gone.txt", "src.txt"]);
    let out = patch(
        &ws,
        "diff --git a/new.txt b/new.txt\nnew file mode 100644\nindex 0000000..1\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+n\n\
         diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-g\n\
         diff --git a/old.txt b/moved/old.txt\nsimilarity index 100%\nrename from old.txt\nrename to moved/old.txt\n\
         diff --git a/src.txt b/copy.txt\nsimilarity index 100%\ncopy from src.txt\ncopy to copy.txt\n",
    )
    .ok();
    let statuses: Vec<&str> = out.data()["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["added", "deleted", "renamed", "copied"]);
    assert_eq!(out.data()["files"][2]["from"], "old.txt");
    assert_eq!(ws.read_string("new.txt"), "n\n");
    assert!(!ws.exists("gone.txt"));
    assert!(!ws.exists("old.txt"));
    assert_eq!(ws.read_string("moved/old.txt"), "o\n");
    assert_eq!(ws.read_string("src.txt"), "s\n");
    assert_eq!(ws.read_string("copy.txt"), "s\n");
}

#[test]
fn git_mode_changes_are_applied() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Ws::new();
    ws.write("run.sh", "echo hi\n");
    read_all(&ws, &["run.sh"]);
    patch(
        &ws,
        "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n\
         diff --git a/tool.sh b/tool.sh\nnew file mode 100755\n--- /dev/null\n+++ b/tool.sh\n@@ -0,0 +1 @@\n+echo tool\n",
    )
    .ok();
    let mode = |p: &str| std::fs::metadata(ws.join(p)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode("run.sh"), 0o755);
    assert_eq!(mode("tool.sh"), 0o755);
    assert_eq!(ws.read_string("run.sh"), "echo hi\n");
}

#[test]
fn no_newline_at_end_of_file_is_honoured_both_ways() {
    let ws = Ws::new();
    ws.write("a.txt", "a\nb")
        .write("c.txt", "c\nd\n")
        .write("e.txt", "e\nf");
    read_all(&ws, &["a.txt", "c.txt", "e.txt"]);
    patch(
        &ws,
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n\
         --- a/c.txt\n+++ b/c.txt\n@@ -1,2 +1,2 @@\n c\n-d\n+D\n\\ No newline at end of file\n\
         --- a/e.txt\n+++ b/e.txt\n@@ -1,2 +1,2 @@\n-e\n+E\n f\n\\ No newline at end of file\n",
    )
    .ok();
    assert_eq!(ws.read_string("a.txt"), "a\nb\n");
    assert_eq!(ws.read_string("c.txt"), "c\nD");
    assert_eq!(ws.read_string("e.txt"), "E\nf");
}

#[test]
fn final_newline_is_kept_when_the_patch_does_not_say() {
    let ws = Ws::new();
    ws.write("a.txt", "a\nb");
    read_all(&ws, &["a.txt"]);
    patch(&ws, "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,3 @@\n a\n b\n+c\n").ok();
    assert_eq!(ws.read_string("a.txt"), "a\nb\nc");
}

#[test]
fn git_c_style_quoted_paths() {
    let ws = Ws::new();
    ws.write("my dir/na\u{ef}ve \"q\".txt", "1\n2\n");
    read_all(&ws, &["my dir/na\u{ef}ve \"q\".txt"]);
    patch(
        &ws,
        "diff --git \"a/my dir/na\\303\\257ve \\\"q\\\".txt\" \"b/my dir/na\\303\\257ve \\\"q\\\".txt\"\n\
         --- \"a/my dir/na\\303\\257ve \\\"q\\\".txt\"\n+++ \"b/my dir/na\\303\\257ve \\\"q\\\".txt\"\n@@ -1,2 +1,2 @@\n 1\n-2\n+two\n",
    )
    .ok();
    assert_eq!(ws.read_string("my dir/na\u{ef}ve \"q\".txt"), "1\ntwo\n");
}

#[test]
fn plain_diff_u_without_prefixes_and_with_timestamps() {
    let ws = Ws::new();
    ws.write("notes.txt", "a\nb\n");
    read_all(&ws, &["notes.txt"]);
    patch(
        &ws,
        "--- notes.txt.orig\t2024-05-01 12:00:00 +0200\n+++ notes.txt\t2024-05-02 12:00:00 +0200\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n",
    )
    .ok();
    assert_eq!(ws.read_string("notes.txt"), "A\nb\n");
}

#[test]
fn hunk_counts_are_checked_against_the_body() {
    let ws = Ws::new();
    ws.write("a.txt", "a\nb\nc\n");
    read_all(&ws, &["a.txt"]);
    let short = patch(&ws, "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n").err("patch_failed");
    assert!(short.message().contains("patch line 3"), "{}", short.message());
    assert!(short.message().contains("ends early"), "{}", short.message());
    assert!(
        short.message().contains("`@@ -12,4 +12,5 @@`"),
        "legal forms: {}",
        short.message()
    );
    let long = patch(&ws, "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n c\n").err("patch_failed");
    assert!(
        long.message().contains("longer than its header"),
        "{}",
        long.message()
    );
    let garbage = patch(&ws, "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\nb\n c\n").err("patch_failed");
    assert!(
        garbage.message().contains("line 5 `b` is not a body line"),
        "{}",
        garbage.message()
    );
    let header = patch(&ws, "--- a/a.txt\n+++ b/a.txt\n@@ one @@\n a\n").err("patch_failed");
    assert!(
        header.message().contains("malformed header"),
        "{}",
        header.message()
    );
    assert_eq!(header.error()["patch_line"], 3);
    assert_eq!(ws.read_string("a.txt"), "a\nb\nc\n");
}

#[test]
fn binary_and_combined_diffs_are_refused() {
    let ws = Ws::new();
    let out = patch(
        &ws,
        "diff --git a/x.png b/x.png\nindex 1..2 100644\nBinary files a/x.png and b/x.png differ\n",
    )
    .err("patch_failed");
    assert!(out.message().contains("binary patches are not supported"));
    let empty = ws
        .call("apply_patch", json!({"patch": "  \n"}))
        .err("invalid_arguments");
    assert!(empty.message().contains("*** Begin Patch"));
    let nothing = patch(&ws, "just some words\n").err("patch_failed");
    assert!(nothing.message().contains("--- a/PATH"), "{}", nothing.message());
}

// ---------------------------------------------------------------- *** Begin Patch

#[test]
fn begin_patch_add_delete_update_move() {
    let ws = Ws::new();
    ws.write("a.py", "def f():\n    return 1\n\ndef g():\n    return 1\n")
        .write("del.txt", "bye\n")
        .write("mv.txt", "m1\nm2\n");
    read_all(&ws, &["a.py", "del.txt", "mv.txt"]);
    let out = patch(
        &ws,
        "*** Begin Patch\n*** Add File: new/file.txt\n+hello\n+world\n*** Delete File: del.txt\n\
         *** Update File: a.py\n@@ def g():\n-    return 1\n+    return 2\n\
         *** Update File: mv.txt\n*** Move to: moved.txt\n m1\n-m2\n+M2\n*** End Patch",
    )
    .ok();
    assert_eq!(out.data()["format"], "begin_patch");
    assert_eq!(ws.read_string("new/file.txt"), "hello\nworld\n");
    assert!(!ws.exists("del.txt"));
    assert_eq!(
        ws.read_string("a.py"),
        "def f():\n    return 1\n\ndef g():\n    return 2\n"
    );
    assert!(!ws.exists("mv.txt"));
    assert_eq!(ws.read_string("moved.txt"), "m1\nM2\n");
}

#[test]
fn begin_patch_leniency() {
    let ws = Ws::new();
    ws.write("a.txt", "one\ntwo\nthree\n");
    read_all(&ws, &["a.txt"]);
    // Heredoc wrapper, `*** Begin Patch ***`, padded markers, first chunk without @@, no End Patch.
    patch(
        &ws,
        "apply_patch <<'EOF'\n *** Begin Patch ***\n  *** Update File: a.txt  \n one\n-two\n+TWO\nEOF\n",
    )
    .ok();
    assert_eq!(ws.read_string("a.txt"), "one\nTWO\nthree\n");
}

#[test]
fn a_fence_around_a_heredoc_and_a_heredoc_around_a_fence_are_both_unwrapped() {
    let ws = Ws::new();
    ws.write("a.txt", "one\ntwo\n");
    read_all(&ws, &["a.txt"]);
    let out = patch(
        &ws,
        "```\napply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+TWO\n*** End Patch\nEOF\n```\n",
    )
    .ok();
    assert_eq!(out.data()["format"], "begin_patch", "{}", out.output());
    assert_eq!(ws.read_string("a.txt"), "one\nTWO\n");
    patch(
        &ws,
        "apply_patch <<'EOF'\n```diff\n*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch\n```\nEOF\n",
    )
    .ok();
    assert_eq!(ws.read_string("a.txt"), "ONE\nTWO\n");
}

#[test]
fn begin_patch_stacked_headers_pick_the_right_place() {
    let ws = Ws::new();
    let text = "class A:\n    def run(self):\n        x = 1\n\nclass B:\n    def run(self):\n        x = 1\n";
    ws.write("m.py", text);
    read_all(&ws, &["m.py"]);
    patch(
        &ws,
        "*** Begin Patch\n*** Update File: m.py\n@@ class B:\n@@     def run(self):\n-        x = 1\n+        x = 2\n*** End Patch\n",
    )
    .ok();
    assert_eq!(
        ws.read_string("m.py"),
        "class A:\n    def run(self):\n        x = 1\n\nclass B:\n    def run(self):\n        x = 2\n"
    );
}

#[test]
fn begin_patch_ambiguous_chunk_fails_naming_both_lines() {
    let ws = Ws::new();
    ws.write("a.txt", "}\nfoo\n}\n");
    read_all(&ws, &["a.txt"]);
    let out = patch(
        &ws,
        "*** Begin Patch\n*** Update File: a.txt\n-}\n+};\n*** End Patch\n",
    )
    .err("patch_failed");
    assert!(
        out.message().contains("line 1 and at line 3"),
        "{}",
        out.message()
    );
    assert!(
        out.message().contains("@@ <a line above the change>"),
        "{}",
        out.message()
    );
    assert_eq!(out.error()["candidates"], json!([1, 3]));
    assert_eq!(ws.read_string("a.txt"), "}\nfoo\n}\n");
}

#[test]
fn begin_patch_parse_errors_name_the_line_and_the_forms() {
    let ws = Ws::new();
    ws.write("a.txt", "a\n");
    read_all(&ws, &["a.txt"]);
    let out = patch(
        &ws,
        "*** Begin Patch\n*** Update File: a.txt\n a\nbogus\n*** End Patch\n",
    )
    .err("patch_failed");
    assert!(out.message().contains("patch line 4"), "{}", out.message());
    assert!(out.message().contains("*** Add File: PATH"), "{}", out.message());
    let add = patch(
        &ws,
        "*** Begin Patch\n*** Add File: b.txt\nno plus\n*** End Patch\n",
    )
    .err("patch_failed");
    assert!(add.message().contains("must start with `+`"), "{}", add.message());
    let anchor = patch(
        &ws,
        "*** Begin Patch\n*** Update File: a.txt\n@@ fn missing()\n-a\n+b\n*** End Patch\n",
    )
    .err("patch_failed");
    assert!(
        anchor.message().contains("@@ fn missing()"),
        "{}",
        anchor.message()
    );
}

// ---------------------------------------------------------------- locating

#[test]
fn offset_is_carried_and_window_widens_up_to_fifty_lines() {
    let ws = Ws::new();
    let body: String = (1..=200).map(|i| format!("row {i}\n")).collect();
    let drift: String = (1..=30).map(|i| format!("new {i}\n")).collect();
    ws.write("f.txt", format!("{drift}{body}"));
    read_all(&ws, &["f.txt"]);
    let out = patch(
        &ws,
        "--- a/f.txt\n+++ b/f.txt\n@@ -10,3 +10,3 @@\n row 10\n-row 11\n+ROW 11\n row 12\n@@ -150,3 +150,3 @@\n row 150\n-row 151\n+ROW 151\n row 152\n",
    )
    .ok();
    let positions = &out.data()["files"][0]["hunk_positions"];
    assert_eq!(positions[0]["offset"], 30);
    assert_eq!(positions[0]["line"], 40);
    assert_eq!(positions[1]["offset"], 30);
    let text = ws.read_string("f.txt");
    assert!(text.contains("ROW 11\n") && text.contains("ROW 151\n"));

    // 60 lines of drift with no earlier hunk to carry the offset: out of the window.
    let ws = Ws::new();
    let drift: String = (1..=60).map(|i| format!("new {i}\n")).collect();
    ws.write("f.txt", format!("{drift}{body}"));
    read_all(&ws, &["f.txt"]);
    let out = patch(
        &ws,
        "--- a/f.txt\n+++ b/f.txt\n@@ -10,3 +10,3 @@\n row 10\n-row 11\n+ROW 11\n row 12\n",
    )
    .err("patch_failed");
    assert!(out.message().contains("50 lines either way"), "{}", out.message());
}

#[test]
fn fuzz_levels_are_tried_in_order_and_reported() {
    let ws = Ws::new();
    ws.write("t.txt", "alpha   \nbeta\n")
        .write("w.txt", "    indented\nnext\n")
        .write("p.txt", "say \u{201c}hi\u{201d} \u{2014} ok\nend\n");
    read_all(&ws, &["t.txt", "w.txt", "p.txt"]);
    let out = patch(
        &ws,
        "--- a/t.txt\n+++ b/t.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+BETA\n\
         --- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n indented\n-next\n+NEXT\n\
         --- a/p.txt\n+++ b/p.txt\n@@ -1,2 +1,2 @@\n say \"hi\" - ok\n-end\n+END\n",
    )
    .ok();
    let fuzz: Vec<&str> = out.data()["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["fuzz"].as_str().unwrap())
        .collect();
    assert_eq!(fuzz, ["trailing_whitespace", "whitespace", "punctuation"]);
    assert_eq!(out.data()["fuzz"], "punctuation");
    // Context lines keep the file's own bytes.
    assert_eq!(ws.read_string("t.txt"), "alpha   \nBETA\n");
    assert_eq!(ws.read_string("w.txt"), "    indented\nNEXT\n");
    assert_eq!(
        ws.read_string("p.txt"),
        "say \u{201c}hi\u{201d} \u{2014} ok\nEND\n"
    );
    assert!(out
        .output()
        .contains("Note: hunk 1 of p.txt matched at line 1 only after ignoring"));
}

#[test]
fn equally_distant_matches_are_ambiguous() {
    let ws = Ws::new();
    ws.write("a.txt", "x\ntarget\ny\nz\ny\ntarget\nx\n");
    read_all(&ws, &["a.txt"]);
    // Expected at line 4 ("z"): "target" sits 2 lines away on both sides.
    let out = patch(&ws, "--- a/a.txt\n+++ b/a.txt\n@@ -4 +4 @@\n-target\n+TARGET\n").err("patch_failed");
    assert!(
        out.message().contains("line 2 and at line 6"),
        "{}",
        out.message()
    );
    assert_eq!(ws.read_string("a.txt"), "x\ntarget\ny\nz\ny\ntarget\nx\n");
}

#[test]
fn failed_hunk_message_teaches() {
    let ws = Ws::new();
    let body: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    ws.write("a.txt", &body);
    read_all(&ws, &["a.txt"]);
    let out = patch(
        &ws,
        "--- a/a.txt\n+++ b/a.txt\n@@ -2,1 +2,1 @@\n-line 2\n+LINE 2\n@@ -10,4 +10,4 @@\n line 10\n line 11\n-line twelve\n+line 12!\n line 13\n",
    )
    .err("patch_failed");
    let m = out.message();
    assert!(m.contains("hunk 2 of 2 for `a.txt` (patch line 6)"), "{m}");
    assert!(m.contains("nothing was written"), "{m}");
    assert!(
        m.contains(
            "Expected context (first 4 of 4 lines):\n  | line 10\n  | line 11\n  | line twelve\n  | line 13"
        ),
        "{m}"
    );
    assert!(
        m.contains("      8│ line 8\n      9│ line 9\n     10│ line 10"),
        "{m}"
    );
    assert!(m.contains("!    12│ line 12"), "{m}");
    assert!(m.contains("Differing lines: 12 (hunk line 3)."), "{m}");
    assert!(m.contains("Hints: "), "{m}");
    assert!(
        m.contains("Call read_file with path=\"a.txt\" start_line=5"),
        "{m}"
    );
    assert_eq!(out.error()["hunk"], 2);
    assert_eq!(out.error()["hunks"], 2);
    assert_eq!(out.error()["best_line"], 10);
    assert_eq!(
        ws.read_string("a.txt"),
        body,
        "the first hunk must not be written"
    );
}

#[test]
fn already_applied_hunk_is_diagnosed() {
    let ws = Ws::new();
    ws.write("a.txt", "a\nB\nc\n");
    read_all(&ws, &["a.txt"]);
    let out = patch(&ws, "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n").err("patch_failed");
    assert!(
        out.message().contains("may already be applied"),
        "{}",
        out.message()
    );
}

// ---------------------------------------------------------------- gates and all or nothing

#[test]
fn unread_and_stale_files_are_refused() {
    let ws = Ws::new();
    ws.write("a.txt", "a\n");
    let out = patch(&ws, "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n").err("not_read");
    assert!(
        out.message().contains("Call read_file with path=\"a.txt\""),
        "{}",
        out.message()
    );
    ws.read_via_tool("a.txt");
    std::thread::sleep(std::time::Duration::from_millis(20));
    ws.write("a.txt", "z\n");
    let out = patch(&ws, "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-z\n+b\n").err("stale");
    assert!(
        out.message().contains("read_file with path=\"a.txt\""),
        "{}",
        out.message()
    );
    assert_eq!(ws.read_string("a.txt"), "z\n");
}

#[test]
fn every_file_needing_a_read_is_named_in_one_error() {
    let ws = Ws::new();
    ws.write("a.txt", "a\n")
        .write("b.txt", "b\n")
        .write("c.txt", "c\n");
    ws.read_via_tool("a.txt");
    ws.read_via_tool("c.txt");
    std::thread::sleep(std::time::Duration::from_millis(20));
    ws.write("a.txt", "z\n");
    let text = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-z\n+1\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+2\n--- a/c.txt\n+++ b/c.txt\n@@ -1 +1 @@\n-c\n+3\n";
    // The first problem's code; both files listed with their calls; the fresh one is not.
    let out = patch(&ws, text).err("stale");
    let message = out.message();
    assert!(message.contains("`a.txt` changed on disk"), "{message}");
    assert!(
        message.contains("call read_file with path=\"a.txt\""),
        "{message}"
    );
    assert!(message.contains("`b.txt` has not been read"), "{message}");
    assert!(
        message.contains("call read_file with path=\"b.txt\""),
        "{message}"
    );
    assert!(!message.contains("c.txt"), "{message}");
    assert_eq!(out.error()["paths"], json!(["a.txt", "b.txt"]));
    assert_eq!(ws.read_string("c.txt"), "c\n");
    // After reading both, one call applies the patch.
    ws.read_via_tool("a.txt");
    ws.read_via_tool("b.txt");
    patch(&ws, text).ok();
    assert_eq!(ws.read_string("a.txt") + &ws.read_string("b.txt"), "1\n2\n");
}

#[test]
fn new_files_need_no_read_and_consecutive_patches_need_no_reread() {
    let ws = Ws::new();
    patch(&ws, "*** Begin Patch\n*** Add File: n.txt\n+1\n*** End Patch\n").ok();
    patch(
        &ws,
        "*** Begin Patch\n*** Update File: n.txt\n-1\n+2\n*** End Patch\n",
    )
    .ok();
    patch(&ws, "--- a/n.txt\n+++ b/n.txt\n@@ -1 +1 @@\n-2\n+3\n").ok();
    assert_eq!(ws.read_string("n.txt"), "3\n");
}

#[test]
fn adding_an_existing_file_or_updating_a_missing_one_fails() {
    let ws = Ws::new();
    ws.write("a.txt", "a\n");
    let out = patch(&ws, "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+x\n").err("patch_failed");
    assert!(out.message().contains("already exists"), "{}", out.message());
    assert!(
        out.message().contains("write_file with path=\"a.txt\""),
        "{}",
        out.message()
    );
    let out = patch(
        &ws,
        "*** Begin Patch\n*** Update File: b.txt\n-x\n+y\n*** End Patch\n",
    )
    .err("not_found");
    assert!(
        out.message().contains("a.txt"),
        "similar paths: {}",
        out.message()
    );
    assert!(out.message().contains("*** Add File:"), "{}", out.message());
}

#[test]
fn add_file_over_an_existing_file_replaces_it_as_write_file_does() {
    let ws = Ws::new();
    ws.write("a.txt", "old 1\nold 2\n");
    ws.write("b.txt", "b\n");
    let add = "*** Begin Patch\n*** Add File: a.txt\n+new 1\n+new 2\n*** End Patch\n";
    // Not read in this session: not_read, with the read to make; nothing written.
    let out = patch(&ws, add).err("not_read");
    assert!(
        out.message().contains("read_file with path=\"a.txt\""),
        "{}",
        out.message()
    );
    assert_eq!(ws.read_string("a.txt"), "old 1\nold 2\n");
    // Changed since it was read: stale.
    ws.read_via_tool("a.txt");
    std::thread::sleep(std::time::Duration::from_millis(20));
    ws.write("a.txt", "changed\n");
    patch(&ws, add).err("stale");
    assert_eq!(ws.read_string("a.txt"), "changed\n");
    // Read and unchanged: replaced whole, with a notice, together with the rest of the patch.
    ws.read_via_tool("a.txt");
    ws.read_via_tool("b.txt");
    let both = "*** Begin Patch\n*** Add File: a.txt\n+new 1\n+new 2\n*** Update File: b.txt\n-b\n+B\n*** End Patch\n";
    let out = patch(&ws, both).ok();
    assert_eq!(ws.read_string("a.txt"), "new 1\nnew 2\n");
    assert_eq!(ws.read_string("b.txt"), "B\n");
    assert_eq!(out.data()["files"][0]["status"], "replaced");
    assert!(
        out.output().contains("-changed\n+new 1\n+new 2"),
        "{}",
        out.output()
    );
    assert!(
        out.notices()
            .iter()
            .any(|n| n.contains("replaced whole, as write_file does")),
        "{:?}",
        out.notices()
    );
    // The next call needs no read: the write refreshed the fingerprint.
    patch(
        &ws,
        "*** Begin Patch\n*** Add File: a.txt\n+third\n*** End Patch\n",
    )
    .ok();
    assert_eq!(ws.read_string("a.txt"), "third\n");
    // A directory is still refused.
    ws.mkdir("d");
    patch(&ws, "*** Begin Patch\n*** Add File: d\n+x\n*** End Patch\n").err("patch_failed");
}

#[test]
fn paths_outside_the_workspace_or_in_state_are_refused() {
    let ws = Ws::new();
    let out = patch(
        &ws,
        "*** Begin Patch\n*** Add File: ../evil.txt\n+x\n*** End Patch\n",
    )
    .err("outside_workspace");
    assert!(out.message().starts_with("path escapes workspace"));
    patch(
        &ws,
        "*** Begin Patch\n*** Add File: .codesmith/x.json\n+{}\n*** End Patch\n",
    )
    .err("outside_workspace");
}

#[test]
fn a_refused_new_file_is_named_whole_with_its_patch_line() {
    let ws = Ws::new();
    // A new file's directory is looked at first (for symlinks); the refusal must still name
    // the path the patch wrote, not `..` or `.codesmith`.
    let out = patch(&ws, "--- /dev/null\n+++ b/../escape.txt\n@@ -0,0 +1 @@\n+x\n").err("outside_workspace");
    assert!(
        out.message()
            .starts_with("path escapes workspace: `../escape.txt` resolves to"),
        "{}",
        out.message()
    );
    assert!(out.message().contains("patch line 1"), "{}", out.message());
    assert_eq!(out.error()["path"], "../escape.txt");
    let out = patch(
        &ws,
        "*** Begin Patch\n*** Add File: ok.txt\n+x\n*** Add File: .codesmith/x\n+x\n*** End Patch\n",
    )
    .err("outside_workspace");
    assert!(
        out.message()
            .starts_with("path escapes workspace: `.codesmith/x` is inside .codesmith/"),
        "{}",
        out.message()
    );
    assert!(out.message().contains("patch line 4"), "{}", out.message());
    assert_eq!(out.error()["path"], ".codesmith/x");
    assert!(!ws.exists("ok.txt"));
    // An existing file outside names its patch line too.
    let out = patch(
        &ws,
        "*** Begin Patch\n*** Update File: ../in.txt\n@@\n-a\n+b\n*** End Patch\n",
    )
    .err("outside_workspace");
    assert!(out.message().contains("`../in.txt`"), "{}", out.message());
    assert!(out.message().contains("patch line 2"), "{}", out.message());
}

#[test]
fn syntax_gate_refuses_breaking_a_file_that_parsed() {
    let ws = Ws::new();
    ws.write("c.json", "{\n  \"a\": 1\n}\n").write("ok.txt", "o\n");
    read_all(&ws, &["c.json", "ok.txt"]);
    let out = patch(
        &ws,
        "--- a/ok.txt\n+++ b/ok.txt\n@@ -1 +1 @@\n-o\n+O\n--- a/c.json\n+++ b/c.json\n@@ -1,3 +1,3 @@\n {\n-  \"a\": 1\n+  \"a\": 1,\n }\n",
    )
    .err("syntax_gate");
    assert!(out.message().contains("NOT modified"), "{}", out.message());
    assert_eq!(ws.read_string("ok.txt"), "o\n");
    assert_eq!(ws.read_string("c.json"), "{\n  \"a\": 1\n}\n");
}

#[test]
fn a_failed_write_restores_the_files_already_written() {
    use std::os::unix::process::CommandExt;
    let ws = Ws::new();
    ws.write("first.txt", "one\n").write("second.txt", "two\n");
    read_all(&ws, &["first.txt", "second.txt"]);
    // A file-size limit makes the third write (a 4 KB file) fail for real after the first two
    // small ones succeeded; SIGXFSZ is ignored so the write returns EFBIG instead of killing.
    let big = format!(
        "*** Add File: big.txt\n{}",
        "+0123456789012345678901234567890123456789\n".repeat(100)
    );
    let text = format!(
        "*** Begin Patch\n*** Update File: first.txt\n-one\n+ONE\n*** Delete File: second.txt\n{big}*** End Patch\n"
    );
    let mut cmd = ws.command(&["apply_patch", "--json", &json!({ "patch": text }).to_string()]);
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: 2048,
                rlim_max: libc::RLIM_INFINITY,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = crate::harness::Outcome::of(cmd).err("io_error");
    assert!(out.message().contains("big.txt"), "{}", out.message());
    assert!(out.message().contains("undone"), "{}", out.message());
    assert_eq!(out.error()["restored"], true);
    assert_eq!(ws.read_string("first.txt"), "one\n");
    assert_eq!(ws.read_string("second.txt"), "two\n");
    assert!(!ws.exists("big.txt"));
    // The restored files hold what the session read: no re-read needed.
    patch(
        &ws,
        "*** Begin Patch\n*** Update File: first.txt\n-one\n+uno\n*** End Patch\n",
    )
    .ok();
    assert_eq!(ws.read_string("first.txt"), "uno\n");
}

#[test]
fn dry_run_writes_nothing_and_shows_the_diff() {
    let ws = Ws::new();
    ws.write("a.txt", "a\nb\n");
    read_all(&ws, &["a.txt"]);
    let out = ws
        .call(
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Update File: a.txt\n a\n-b\n+B\n*** Add File: n.txt\n+n\n*** End Patch", "dry_run": true}),
        )
        .ok();
    assert_eq!(out.data()["dry_run"], true);
    assert!(out.output().contains("Nothing was written"), "{}", out.output());
    assert!(out.output().contains("-b\n+B"), "{}", out.output());
    assert!(out.data()["diff"].as_str().unwrap().contains("+++ b/n.txt"));
    assert_eq!(ws.read_string("a.txt"), "a\nb\n");
    assert!(!ws.exists("n.txt"));
}

// ---------------------------------------------------------------- bytes

#[test]
fn crlf_mixed_bom_and_legacy_encodings_are_kept() {
    let ws = Ws::new();
    ws.write("crlf.txt", "a\r\nb\r\nc\r\n")
        .write("mixed.txt", "a\r\nb\nc\r\n")
        .write("bom.txt", "\u{feff}x\ny\n")
        .write(
            "latin1.txt",
            b"caf\xe9\nna\xefve fa\xe7ade d\xe9j\xe0 vu cr\xe8me br\xfbl\xe9e\n",
        );
    read_all(&ws, &["crlf.txt", "mixed.txt", "bom.txt", "latin1.txt"]);
    patch(
        &ws,
        "*** Begin Patch\n*** Update File: crlf.txt\n a\n-b\n+B\n+B2\n*** Update File: mixed.txt\n a\n b\n-c\n+C\n\
         *** Update File: bom.txt\n-y\n+Y\n*** Update File: latin1.txt\n-caf\u{e9}\n+th\u{e9}\n*** End Patch\n",
    )
    .ok();
    assert_eq!(ws.read("crlf.txt"), b"a\r\nB\r\nB2\r\nc\r\n");
    assert_eq!(ws.read("mixed.txt"), b"a\r\nb\nC\r\n");
    assert_eq!(ws.read("bom.txt"), "\u{feff}x\nY\n".as_bytes());
    assert_eq!(
        ws.read("latin1.txt"),
        b"th\xe9\nna\xefve fa\xe7ade d\xe9j\xe0 vu cr\xe8me br\xfbl\xe9e\n"
    );
}

#[test]
fn alias_and_positional_argument() {
    let ws = Ws::new();
    let out = ws
        .run(&["patch", "*** Begin Patch\n*** Add File: p.txt\n+p\n*** End Patch"])
        .ok();
    assert_eq!(out.envelope.tool, "apply_patch");
    assert_eq!(ws.read_string("p.txt"), "p\n");
}

#[test]
fn deletions_must_match_and_deleted_files_cannot_be_changed_later() {
    let ws = Ws::new();
    ws.write("d.txt", "a\nb\nc\n").write("e.txt", "e\n");
    read_all(&ws, &["d.txt", "e.txt"]);
    let out = patch(
        &ws,
        "diff --git a/d.txt b/d.txt\ndeleted file mode 100644\n--- a/d.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n",
    )
    .err("patch_failed");
    assert!(
        out.message().contains("do not remove every line"),
        "{}",
        out.message()
    );
    let out = patch(
        &ws,
        "*** Begin Patch\n*** Delete File: e.txt\n*** Update File: e.txt\n-e\n+f\n*** End Patch\n",
    )
    .err("patch_failed");
    assert!(
        out.message().contains("deletes or moves away"),
        "{}",
        out.message()
    );
    assert_eq!(ws.read_string("d.txt"), "a\nb\nc\n");
    assert_eq!(ws.read_string("e.txt"), "e\n");
}

#[test]
fn binary_targets_and_fenced_patches() {
    let ws = Ws::new();
    ws.write("bin.dat", b"\x00\x01\x02binary");
    let out = patch(&ws, "--- a/bin.dat\n+++ b/bin.dat\n@@ -1 +1 @@\n-x\n+y\n").err("binary_file");
    assert!(out.message().contains("bin.dat"), "{}", out.message());
    ws.write("a.txt", "a\n");
    read_all(&ws, &["a.txt"]);
    patch(
        &ws,
        "```\n*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** End Patch\n```\n",
    )
    .ok();
    assert_eq!(ws.read_string("a.txt"), "A\n");
}

#[test]
fn one_file_changed_twice_and_moved_in_one_patch() {
    let ws = Ws::new();
    ws.write("a.txt", "one\ntwo\nthree\n");
    read_all(&ws, &["a.txt"]);
    patch(
        &ws,
        "*** Begin Patch\n*** Update File: a.txt\n-one\n+ONE\n*** Update File: a.txt\n*** Move to: b/a.txt\n two\n-three\n+THREE\n*** End Patch\n",
    )
    .ok();
    assert!(!ws.exists("a.txt"));
    assert_eq!(ws.read_string("b/a.txt"), "ONE\ntwo\nTHREE\n");
}

#[test]
fn a_long_diff_is_cut_in_output_and_whole_in_data() {
    let ws = Ws::new();
    let line = |i: usize| format!("line {i} of a file with a thousand small changes");
    let body: String = (1..=2000).map(|i| format!("{}\n", line(i))).collect();
    ws.write("big.txt", &body);
    read_all(&ws, &["big.txt"]);
    let mut text = String::from("--- a/big.txt\n+++ b/big.txt\n");
    for i in (1..=2000).step_by(2) {
        text.push_str(&format!(
            "@@ -{i} +{i} @@\n-{}\n+{} (changed)\n",
            line(i),
            line(i)
        ));
    }
    let out = ws
        .run_stdin(&["apply_patch"], &json!({ "patch": text }).to_string())
        .ok();
    assert_eq!(out.data()["hunks_applied"], 1000);
    assert!(
        out.output().contains("more hunks) are in data.diff]"),
        "{}",
        &out.output()[..200]
    );
    assert!(out.output().len() < 45_000);
    let diff = out.data()["diff"].as_str().unwrap();
    assert_eq!(diff.matches("@@ -").count(), 1000);
    let expected: String = (1..=2000)
        .map(|i| {
            if i % 2 == 1 {
                format!("{} (changed)\n", line(i))
            } else {
                format!("{}\n", line(i))
            }
        })
        .collect();
    assert_eq!(ws.read_string("big.txt"), expected);
}

#[test]
fn a_move_keeps_the_mode_and_leaves_no_empty_directory() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Ws::new();
    ws.write("dir/run.sh", "echo 1\n");
    std::fs::set_permissions(ws.join("dir/run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    read_all(&ws, &["dir/run.sh"]);
    patch(
        &ws,
        "*** Begin Patch\n*** Update File: dir/run.sh\n*** Move to: bin/run.sh\n-echo 1\n+echo 2\n*** End Patch\n",
    )
    .ok();
    assert!(!ws.exists("dir"), "the emptied directory is removed");
    assert_eq!(ws.read_string("bin/run.sh"), "echo 2\n");
    let mode = std::fs::metadata(ws.join("bin/run.sh"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o755);
}

// ---------------------------------------------------------------- concurrency

#[test]
fn parallel_patches_and_edits_of_one_file_lose_nothing() {
    let ws = Ws::new();
    let text: String = (0..8).map(|i| format!("section {i}\nbody {i}\n\n")).collect();
    ws.write("p.txt", &text);
    read_all(&ws, &["p.txt"]);
    let children: Vec<_> = (0..8)
        .map(|i| {
            let args = if i % 2 == 0 {
                let patch = format!(
                    "*** Begin Patch\n*** Update File: p.txt\n@@ section {i}\n-body {i}\n+BODY {i}\n*** End Patch\n"
                );
                ("apply_patch", json!({ "patch": patch }))
            } else {
                let search = format!("body {i}\n");
                ("edit_file", json!({"path": "p.txt", "search": search, "replace": format!("BODY {i}\n")}))
            };
            let mut cmd = ws.command(&[args.0, "--json", &args.1.to_string()]);
            cmd.stdout(std::process::Stdio::piped());
            cmd.spawn().expect("spawn")
        })
        .collect();
    for child in children {
        crate::harness::Outcome::from_output(child.wait_with_output().expect("wait")).ok();
    }
    let expected: String = (0..8).map(|i| format!("section {i}\nBODY {i}\n\n")).collect();
    assert_eq!(ws.read_string("p.txt"), expected);
}
