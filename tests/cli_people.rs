//! The command line for people at a terminal: raw patches on stdin or from a file, `call` with
//! the call as an argument, bare boolean switches, "did you mean" for a mistyped command, and
//! completions that offer allowed values.

use serde_json::json;

use crate::harness::WithoutCodesmithEnv;
use crate::harness::Ws;

const PATCH: &str = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n";

fn ws_read() -> Ws {
    let ws = Ws::new();
    ws.write("a.txt", "one\ntwo\n");
    ws.read_via_tool("a.txt");
    ws
}

#[test]
fn patch_takes_raw_text_on_stdin_with_or_without_switches() {
    let ws = ws_read();
    let out = ws.run_stdin(&["patch", "--dry-run"], PATCH).ok();
    assert_eq!(out.data()["dry_run"], true);
    assert_eq!(ws.read_string("a.txt"), "one\ntwo\n");
    ws.run_stdin(&["patch"], PATCH).ok();
    assert_eq!(ws.read_string("a.txt"), "one\nTWO\n");
    // A JSON object on stdin is still the arguments.
    let ws = ws_read();
    ws.run_stdin(&["patch"], &json!({ "patch": PATCH }).to_string())
        .ok();
    assert_eq!(ws.read_string("a.txt"), "one\nTWO\n");
}

#[test]
fn patch_reads_the_file_it_is_given() {
    let ws = ws_read();
    ws.write("fix.diff", PATCH);
    // The switch before the file takes no value: the file stays the positional argument.
    let out = ws.run(&["patch", "--dry-run", "fix.diff"]).ok();
    assert_eq!(out.data()["dry_run"], true);
    assert_eq!(ws.read_string("a.txt"), "one\ntwo\n");
    ws.run(&["patch", "fix.diff", "--dry-run=false"]).ok();
    assert_eq!(ws.read_string("a.txt"), "one\nTWO\n");
}

#[test]
fn call_takes_the_call_as_an_argument() {
    let ws = ws_read();
    let out = ws
        .run(&["call", r#"{"name": "read_file", "arguments": {"path": "a.txt"}}"#])
        .ok();
    assert_eq!(out.envelope.tool, "read_file");
}

#[test]
fn booleans_are_bare_switches() {
    let ws = Ws::new();
    ws.write("b.txt", "x x\n");
    ws.read_via_tool("b.txt");
    ws.run(&[
        "edit",
        "b.txt",
        "--search",
        "x",
        "--replace",
        "y",
        "--replace-all",
    ])
    .ok();
    assert_eq!(ws.read_string("b.txt"), "y y\n");
    let out = ws
        .run(&[
            "edit",
            "b.txt",
            "--search",
            "y",
            "--replace",
            "z",
            "--replace-all=false",
        ])
        .err("multiple_matches");
    assert!(out.message().contains("replace_all=true"), "{}", out.message());
    let out = ws.run(&["shell", "--background", "echo hi"]).ok();
    assert!(out.data()["task_id"].is_string(), "{}", out.stdout);
    // Values other than true/false are named.
    let out = ws
        .run(&["edit", "b.txt", "--dry-run=maybe"])
        .err("invalid_arguments");
    assert!(out.message().contains("true, false"), "{}", out.message());
}

#[test]
fn a_mistyped_command_gets_did_you_mean() {
    let ws = Ws::new();
    let out = ws.run(&["reed", "a.txt"]).err("unknown_tool");
    assert!(
        out.message().contains("Did you mean `read` (read_file)?"),
        "{}",
        out.message()
    );
    assert_eq!(out.error()["suggestion"], json!({"name": "read_file"}));
    let out = ws.run(&["tols"]).err("unknown_tool");
    assert!(
        out.message().contains("Did you mean `tools`?"),
        "{}",
        out.message()
    );
}

#[test]
fn completions_offer_enum_values_and_booleans() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let zsh = std::fs::read_to_string(root.join("completions/_codesmith")).expect("zsh completions");
    assert!(
        zsh.contains(":OUTPUT_MODE:(content files count)"),
        "output_mode values"
    );
    assert!(zsh.contains(":SORT:(path mtime)"), "sort values");
    assert!(zsh.contains("::BOOL:(true false)"), "boolean values");
    let bash = std::fs::read_to_string(root.join("completions/codesmith.bash")).expect("bash completions");
    assert!(bash.contains("content files count"), "bash output_mode values");
}

#[test]
fn a_patch_dry_run_previews_without_a_prior_read() {
    let ws = Ws::new();
    ws.write("a.txt", "one\ntwo\n");
    ws.write("fix.diff", PATCH);
    let out = ws.run(&["patch", "fix.diff", "--dry-run"]).ok();
    assert_eq!(out.data()["dry_run"], true);
    assert!(out.output().contains("+TWO"), "{}", out.output());
    assert!(
        out.notices()[0].contains("call read_file with path=\"a.txt\""),
        "{:?}",
        out.notices()
    );
    assert_eq!(ws.read_string("a.txt"), "one\ntwo\n");
    // Writing still needs the read.
    ws.run(&["patch", "fix.diff"]).err("not_read");
    assert_eq!(ws.read_string("a.txt"), "one\ntwo\n");
}

#[test]
fn bare_codesmith_prints_the_help_with_the_usage_status() {
    let ws = Ws::new();
    let out = std::process::Command::new(crate::harness::BIN)
        .current_dir(ws.path())
        .without_codesmith_env()
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.contains("Usage: codesmith [OPTIONS] <COMMAND>"), "{help}");
    assert!(help.contains("completions"), "{help}");
}

#[test]
fn completions_and_man_print_the_committed_files() {
    let ws = Ws::new();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (args, file) in [
        (&["completions", "bash"][..], "completions/codesmith.bash"),
        (&["completions", "zsh"][..], "completions/_codesmith"),
        (&["completions", "fish"][..], "completions/codesmith.fish"),
        (&["man"][..], "man/codesmith.1"),
    ] {
        let out = ws.raw(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let committed = std::fs::read_to_string(root.join(file)).unwrap();
        assert!(
            String::from_utf8(out.stdout).unwrap() == committed,
            "{args:?} differs from {file}"
        );
    }
    ws.run(&["completions", "tcsh"]).err("invalid_arguments");
}
