//! Diffs in tool output: long runs of removed or added lines are abbreviated in `output`,
//! while `data.diff` keeps every line.

use serde_json::json;

use crate::harness::Ws;

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

const MARKER: &str = "\n[… 2,978 more removed lines (all in data.diff) …]\n";

#[test]
fn edit_file_deleting_most_of_a_big_file_shows_a_short_diff() {
    let ws = Ws::new();
    ws.write("big.txt", numbered(3000));
    ws.read_via_tool("big.txt");
    let out = ws
        .call(
            "edit_file",
            json!({"path": "big.txt", "search_start": "line 2\n", "search_end": "line 2999\n", "replace": "gone\n"}),
        )
        .ok();
    assert_eq!(ws.read_string("big.txt"), "line 1\ngone\nline 3000\n");
    let output = out.output();
    assert!(output.contains(MARKER), "{output}");
    assert!(output.contains("-line 11\n[…"), "{output}");
    assert!(output.contains("…]\n-line 2990\n"), "{output}");
    assert!(!output.contains("-line 500\n"), "{output}");
    assert!(output.len() < 2000, "{} chars", output.len());
    let diff = out.data()["diff"].as_str().unwrap_or_default();
    assert!(diff.contains("-line 500\n") && !diff.contains("[…"), "{diff}");
}

#[test]
fn write_file_replacement_diff_is_abbreviated_in_output_only() {
    let ws = Ws::new();
    ws.write("big.txt", numbered(3000));
    ws.read_via_tool("big.txt");
    let out = ws
        .call(
            "write_file",
            json!({"path": "big.txt", "content": "line 1\ngone\nline 3000\n"}),
        )
        .ok();
    assert!(out.output().contains(MARKER), "{}", out.output());
    let diff = out.data()["diff"].as_str().unwrap_or_default();
    assert_eq!(diff.matches("\n-line ").count(), 2998, "{diff}");
}

#[test]
fn apply_patch_long_additions_are_abbreviated_in_output_only() {
    let ws = Ws::new();
    ws.write("a.txt", "top\nbottom\n");
    ws.read_via_tool("a.txt");
    let added: String = (1..=100).map(|i| format!("+new {i}\n")).collect();
    let patch = format!("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,102 @@\n top\n{added} bottom\n");
    let out = ws.call("apply_patch", json!({ "patch": patch })).ok();
    let output = out.output();
    assert!(
        output.contains("+new 10\n[… 80 more added lines (all in data.diff) …]\n+new 91\n"),
        "{output}"
    );
    assert!(!output.contains("+new 50\n"), "{output}");
    assert!(out.data()["diff"]
        .as_str()
        .unwrap_or_default()
        .contains("+new 50\n"));
    assert_eq!(ws.read_string("a.txt").lines().count(), 102);
}

#[test]
fn runs_up_to_forty_lines_are_shown_whole() {
    let ws = Ws::new();
    ws.write("a.txt", numbered(42));
    ws.read_via_tool("a.txt");
    let out = ws
        .call(
            "edit_file",
            json!({"path": "a.txt", "search_start": "line 2\n", "search_end": "line 41\n", "replace": ""}),
        )
        .ok();
    assert!(!out.output().contains("[…"), "{}", out.output());
    assert!(out.output().contains("-line 20\n"), "{}", out.output());
}

#[test]
fn a_file_under_a_trusted_root_has_single_slash_diff_headers() {
    let ws = Ws::new();
    let outside = tempfile::tempdir().unwrap();
    let dir = outside.path().canonicalize().unwrap();
    ws.run(&["trust", "add", dir.to_str().unwrap()]).ok();
    let file = dir.join("e.txt");
    std::fs::write(&file, "old\n").unwrap();
    let path = file.to_str().unwrap();
    ws.call("read_file", json!({"path": path})).ok();
    let out = ws
        .call("write_file", json!({"path": path, "content": "new\n"}))
        .ok();
    let diff = out.data()["diff"].as_str().unwrap_or_default();
    let bare = path.trim_start_matches('/');
    assert!(
        diff.starts_with(&format!("--- a/{bare}\n+++ b/{bare}\n")),
        "{diff}"
    );
    assert!(!diff.contains("a//") && !diff.contains("b//"), "{diff}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "new\n");
}
