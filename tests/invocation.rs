//! Invocation forms (CONTRACT §1): flags, positional, --json, stdin, call, usage errors.

use serde_json::json;

use crate::harness::WithoutCodesmithEnv;
use crate::harness::{Outcome, Ws, BIN};

fn ws_with_file() -> Ws {
    let ws = Ws::new();
    ws.write("a.txt", "one\ntwo\nthree\n");
    ws
}

#[test]
fn short_name_and_canonical_alias_are_the_same_tool() {
    let ws = ws_with_file();
    let short = ws.run(&["read", "a.txt"]).ok();
    let long = ws.run(&["read_file", "a.txt"]).ok();
    assert_eq!(short.stdout, long.stdout);
    assert_eq!(short.envelope.tool, "read_file");
    let ls = ws.run(&["list_dir"]).ok();
    assert_eq!(ls.envelope.tool, "list_dir");
    assert_eq!(ls.stdout, ws.run(&["ls"]).ok().stdout);
}

#[test]
fn flags_positional_json_text_and_stdin_give_the_same_result() {
    let ws = ws_with_file();
    let flags = ws
        .run(&["read", "--path", "a.txt", "--start-line", "2", "--max-lines", "1"])
        .ok();
    let positional = ws
        .run(&["read", "a.txt", "--start-line", "2", "--max-lines", "1"])
        .ok();
    let json_text = ws
        .call(
            "read_file",
            json!({"path": "a.txt", "start_line": 2, "max_lines": 1}),
        )
        .ok();
    let args = r#"{"path": "a.txt", "start_line": 2, "max_lines": 1}"#;
    let json_stdin = ws.run_stdin(&["read", "--json"], args).ok();
    let bare_stdin = ws.run_stdin(&["read"], args).ok();
    for other in [&positional, &json_text, &json_stdin, &bare_stdin] {
        assert_eq!(flags.stdout, other.stdout);
    }
    assert!(flags.output().starts_with("     2│ two"));
}

#[test]
fn no_arguments_and_empty_stdin_means_the_defaults() {
    let ws = ws_with_file();
    // The harness's stdin is /dev/null: not a terminal, empty.
    let out = ws.run(&["ls"]).ok();
    assert_eq!(out.output(), "a.txt (14 B)");
}

#[test]
fn two_argument_sources_at_once_are_refused() {
    let ws = ws_with_file();
    let out = ws
        .run(&["read", "--json", r#"{"path": "a.txt"}"#, "--max-lines", "1"])
        .err("invalid_arguments");
    assert!(out.message().contains("exactly one source"), "{}", out.message());
    assert!(out.message().contains("--max-lines"));
    let out = ws
        .run_stdin(&["read", "--json", "--path", "a.txt"], r#"{"path": "a.txt"}"#)
        .err("invalid_arguments");
    assert!(out
        .message()
        .contains("Put every argument in the JSON object, or use only flags"));
}

#[test]
fn malformed_json_is_a_usage_error_with_an_example() {
    let ws = ws_with_file();
    let out = ws
        .run(&["read", "--json", "{path: a.txt"])
        .err("invalid_arguments");
    assert!(out.message().contains("malformed JSON"), "{}", out.message());
    assert!(out.message().contains(r#"{"path": "src/main.rs"}"#));
    let out = ws
        .run_stdin(&["read", "--json"], "[1, 2")
        .err("invalid_arguments");
    assert!(out.message().contains("malformed JSON"));
    let out = ws.run(&["read", "--json", "[1]"]).err("invalid_arguments");
    assert!(out.message().contains("must be a JSON object, not an array"));
    assert!(out
        .message()
        .contains("valid fields: path, start_line, max_lines"));
}

#[test]
fn unknown_field_is_named_with_the_valid_ones() {
    let ws = ws_with_file();
    let out = ws
        .call("read_file", json!({"path": "a.txt", "bogus": 1}))
        .err("invalid_arguments");
    assert!(
        out.message().contains("unknown field `bogus`"),
        "{}",
        out.message()
    );
    assert!(out
        .message()
        .contains("valid fields: path, start_line, max_lines"));
    assert!(out.message().contains("Call again without `bogus`"));
    assert_eq!(out.error()["field"], "bogus");
}

#[test]
fn missing_required_field_is_named() {
    let ws = ws_with_file();
    let out = ws.call("read_file", json!({})).err("invalid_arguments");
    assert!(out.message().contains("missing field `path`"));
    assert!(out.message().contains("Call again with `path` set"));
}

#[test]
fn null_means_left_out() {
    let ws = ws_with_file();
    let out = ws
        .call(
            "read_file",
            json!({"path": "a.txt", "start_line": null, "max_lines": null}),
        )
        .ok();
    assert_eq!(out.data()["start_line"], 1);
    let out = ws
        .call("read_file", json!({"path": null}))
        .err("invalid_arguments");
    assert!(out.message().contains("missing field `path`"));
}

#[test]
fn unknown_tool_names_the_tool_another_harness_name_meant() {
    let ws = Ws::new();
    for (name, tool, what) in [
        ("Edit", "edit_file", "the edit tool"),
        ("Read", "read_file", "the read tool"),
        ("Bash", "exec_shell", "the shell tool"),
        ("Write", "write_file", "the write tool"),
        ("Grep", "grep_files", "the content search tool"),
        ("Glob", "file_search", "the file name search tool"),
        ("LS", "list_dir", "the directory listing tool"),
        ("WebFetch", "fetch_url", "the URL fetch tool"),
        ("str_replace_editor", "edit_file", "the edit tool"),
    ] {
        let out = ws.run(&[name]).err("unknown_tool");
        let message = out.message();
        assert!(
            message.contains(&format!("`{name}` is not a tool here; {what} is {tool}.")),
            "{message}"
        );
        assert!(message.contains(&format!("Do not retry `{name}`")), "{message}");
        assert!(message.contains("Available tools: read_file"), "{message}");
        assert_eq!(out.error()["suggestion"], json!({ "name": tool }));
    }
    // Through `call` as well, where the canonical names only are looked up: the whole call.
    let out = ws
        .run_stdin(&["call"], r#"{"name": "Bash", "arguments": {"command": "true"}}"#)
        .err("unknown_tool");
    assert!(
        out.message().contains("here the same call is exec_shell"),
        "{}",
        out.message()
    );
    // No guess for a name nothing resembles.
    let out = ws.run(&["frobnicate"]).err("unknown_tool");
    assert!(!out.message().contains("is not a tool here"), "{}", out.message());
    assert!(out.error().get("suggestion").is_none());
}

#[test]
fn unknown_tool_lists_tools_and_says_not_to_retry() {
    let ws = Ws::new();
    let out = ws.run(&["frobnicate", "x"]).err("unknown_tool");
    assert_eq!(out.envelope.tool, "frobnicate");
    assert!(out.message().contains("Do not retry `frobnicate`"));
    for name in ["read_file", "list_dir"] {
        assert!(out.message().contains(name));
        assert!(out.error()["available"]
            .as_array()
            .unwrap()
            .contains(&json!(name)));
    }
}

#[test]
fn unknown_flag_names_the_tool_and_its_flags() {
    let ws = ws_with_file();
    let out = ws.run(&["read", "a.txt", "--pat", "x"]).err("invalid_arguments");
    assert_eq!(out.envelope.tool, "read_file");
    assert!(out.message().contains("'--pat'"), "{}", out.message());
    assert!(out.message().contains("--path, --start-line, --max-lines"));
    assert!(out.message().contains("codesmith read --help"));
    let out = ws.run(&["--bogus"]).err("invalid_arguments");
    assert_eq!(out.envelope.tool, "codesmith");
    assert!(out.message().contains("codesmith --help"));
    let out = ws.run(&["--format", "xml", "ls"]).err("invalid_arguments");
    assert!(
        out.message().contains("Possible values: json, text"),
        "{}",
        out.message()
    );
}

#[test]
fn call_takes_an_arguments_object_or_a_json_string() {
    let ws = ws_with_file();
    let direct = ws.run(&["read", "a.txt"]).ok();
    let object = ws
        .run_stdin(
            &["call"],
            r#"{"name": "read_file", "arguments": {"path": "a.txt"}}"#,
        )
        .ok();
    let string = ws
        .run_stdin(
            &["call"],
            r#"{"name": "read_file", "arguments": "{\"path\": \"a.txt\"}"}"#,
        )
        .ok();
    let alias = ws
        .run(&[
            "call",
            "--json",
            r#"{"name": "read", "arguments": {"path": "a.txt"}}"#,
        ])
        .ok();
    for other in [&object, &string, &alias] {
        assert_eq!(direct.stdout, other.stdout);
    }
}

#[test]
fn call_errors_are_usage_errors() {
    let ws = ws_with_file();
    let out = ws.run_stdin(&["call"], "not json").err("invalid_arguments");
    assert!(out.message().contains("malformed JSON for call"));
    assert!(out.message().contains(r#"{"name": "read_file""#));
    let out = ws
        .run_stdin(&["call"], r#"{"name": "read_file", "arguments": "{oops"}"#)
        .err("invalid_arguments");
    assert!(out.message().contains("malformed JSON arguments for read_file"));
    let out = ws
        .run_stdin(&["call"], r#"{"arguments": {}}"#)
        .err("invalid_arguments");
    assert!(out.message().contains("\"name\""));
    let out = ws
        .run_stdin(&["call"], r#"{"name": "nope", "arguments": {}}"#)
        .err("unknown_tool");
    assert!(out.message().contains("Do not retry `nope`"));
    let out = ws
        .run_stdin(
            &["call"],
            r#"{"name": "read_file", "arguments": {"path": "a.txt"}, "extra": 1, "more": 2}"#,
        )
        .err("invalid_arguments");
    assert!(out
        .message()
        .contains("unknown fields `extra`, `more` in the call"));
    assert!(out.message().contains("Accepted shapes: "), "{}", out.message());
    assert!(out.message().contains(r#""type": "tool_use""#));
    assert!(out.message().contains(r#""function": {"name": "read_file""#));
    let out = ws
        .run_stdin(
            &["call"],
            r#"{"name": "read_file", "arguments": {"path": "a.txt", "x": 1}}"#,
        )
        .err("invalid_arguments");
    assert!(out.message().contains("unknown field `x`"));
    let out = ws.run_stdin(&["call"], "[]").err("invalid_arguments");
    assert!(out.message().contains("JSON object"));
}

#[test]
fn format_text_prints_only_the_output() {
    let ws = ws_with_file();
    let raw = ws.raw(&["--format", "text", "read", "a.txt", "--max-lines", "1"]);
    assert_eq!(raw.status.code(), Some(0));
    let stdout = String::from_utf8(raw.stdout).unwrap();
    let envelope = ws.run(&["read", "a.txt", "--max-lines", "1"]).ok();
    // The next step is a command line for people; the envelope keeps the model's spelling.
    assert!(
        envelope
            .output()
            .ends_with("To continue, call read_file with path=\"a.txt\" start_line=2 max_lines=1"),
        "{}",
        envelope.output()
    );
    assert_eq!(
        stdout,
        format!(
            "{}\n",
            envelope.output().replace(
                "call read_file with path=\"a.txt\" start_line=2 max_lines=1",
                &format!("run `{} read a.txt --start-line 2 --max-lines 1`", ws.person())
            )
        )
    );
    let raw = ws.raw(&["--format", "text", "read", "missing.txt"]);
    assert_eq!(raw.status.code(), Some(1));
    assert!(String::from_utf8(raw.stdout)
        .unwrap()
        .starts_with("`missing.txt` does not exist."));
    let raw = ws.raw(&["--format", "text", "nope"]);
    assert_eq!(raw.status.code(), Some(2));
    let raw = ws.raw(&["--format", "text", "read", "a.txt", "--bogus"]);
    assert_eq!(raw.status.code(), Some(2));
    assert!(String::from_utf8(raw.stdout)
        .unwrap()
        .starts_with("unexpected argument '--bogus' found."));
}

#[test]
fn exit_statuses_follow_the_error_code() {
    let ws = ws_with_file();
    assert_eq!(ws.run(&["read", "a.txt"]).ok().status, 0);
    assert_eq!(ws.run(&["read", "missing.txt"]).err("not_found").status, 1);
    assert_eq!(ws.run(&["read", "../x"]).err("outside_workspace").status, 1);
    assert_eq!(
        ws.run(&["read", "a.txt", "--bad"])
            .err("invalid_arguments")
            .status,
        2
    );
    assert_eq!(ws.run(&["nope"]).err("unknown_tool").status, 2);
    // 3 (approval_required) needs a tool that asks for approval; the harness maps the code to 3.
}

#[test]
fn global_options_come_from_the_environment_too() {
    let ws = ws_with_file();
    let other = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new(BIN);
    cmd.args(["read", "a.txt"])
        .current_dir(other.path())
        .env("CODESMITH_WORKSPACE", ws.path())
        .env("CODESMITH_SESSION", "from-env")
        .stdin(std::process::Stdio::null());
    let out = Outcome::of(cmd).ok();
    assert!(out.output().contains("one"));
    assert_eq!(ws.fingerprints(Some("from-env")).len(), 1);
}

#[test]
fn the_workspace_defaults_to_the_current_directory() {
    let ws = ws_with_file();
    let mut cmd = std::process::Command::new(BIN);
    cmd.args(["read", "a.txt"])
        .current_dir(ws.path())
        .without_codesmith_env()
        .stdin(std::process::Stdio::null());
    Outcome::of(cmd).ok();
    assert_eq!(ws.fingerprints(Some("default")).len(), 1);
}

#[test]
fn a_missing_workspace_is_a_usage_error() {
    let ws = Ws::new();
    let mut cmd = std::process::Command::new(BIN);
    cmd.args(["--workspace", "/nonexistent/codesmith-ws", "ls"])
        .stdin(std::process::Stdio::null());
    let out = Outcome::of(cmd).err("invalid_arguments");
    assert!(out.message().contains("--workspace DIR"));
    drop(ws);
}

#[test]
fn help_and_version_are_for_people() {
    let ws = Ws::new();
    let raw = ws.raw(&["--help"]);
    assert_eq!(raw.status.code(), Some(0));
    let help = String::from_utf8(raw.stdout).unwrap();
    assert!(help.contains("read") && help.contains("--workspace"));
    let raw = ws.raw(&["read", "--help"]);
    let help = String::from_utf8(raw.stdout).unwrap();
    assert!(help.contains("--start-line") && help.contains("Example"));
    let raw = ws.raw(&["--version"]);
    assert!(String::from_utf8(raw.stdout).unwrap().starts_with("codesmith "));
}

#[test]
fn call_takes_the_tool_call_shapes_of_mcp_anthropic_and_openai() {
    let ws = ws_with_file();
    let direct = ws.run(&["read", "a.txt"]).ok();
    for call in [
        // MCP / generic, with the call's id and type tag (ignored).
        r#"{"name": "read_file", "arguments": {"path": "a.txt"}, "id": "call_1"}"#,
        r#"{"type": "function_call", "call_id": "c9", "name": "read_file", "arguments": "{\"path\": \"a.txt\"}"}"#,
        // An Anthropic tool_use block.
        r#"{"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a.txt"}}"#,
        // An OpenAI chat tool_call.
        r#"{"id": "c", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"a.txt\"}"}}"#,
    ] {
        let out = ws.run_stdin(&["call"], call).ok();
        assert_eq!(out.stdout, direct.stdout, "{call}");
    }
    // Unknown fields inside the arguments are still the tool's error.
    let out = ws
        .run_stdin(
            &["call"],
            r#"{"id": "c", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"a.txt\", \"x\": 1}"}}"#,
        )
        .err("invalid_arguments");
    assert_eq!(out.envelope.tool, "read_file");
    assert!(out.message().contains("unknown field `x`"));
    let out = ws
        .run_stdin(
            &["call"],
            r#"{"id": "c", "function": {"name": "read_file", "arguments": "{}"}, "extra": true}"#,
        )
        .err("invalid_arguments");
    assert!(out
        .message()
        .contains("unknown field `extra` in the call. Accepted shapes"));
    let out = ws
        .run_stdin(
            &["call"],
            r#"{"name": "read_file", "arguments": {"path": "a.txt"}, "input": {"path": "a.txt"}}"#,
        )
        .err("invalid_arguments");
    assert!(out
        .message()
        .contains(r#"both "arguments" and "input"; send one of them"#));
}

#[test]
fn call_json_without_a_value_reads_stdin_like_the_tools_do() {
    let ws = ws_with_file();
    let direct = ws.run(&["read", "a.txt"]).ok();
    let out = ws
        .run_stdin(
            &["call", "--json"],
            r#"{"name": "read_file", "arguments": {"path": "a.txt"}}"#,
        )
        .ok();
    assert_eq!(out.stdout, direct.stdout);
}

#[test]
fn a_byte_order_mark_before_stdin_json_is_skipped() {
    let ws = ws_with_file();
    let direct = ws.run(&["read", "a.txt"]).ok();
    let call = "\u{feff}{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}";
    assert_eq!(ws.run_stdin(&["call"], call).ok().stdout, direct.stdout);
    let args = "\u{feff}{\"path\": \"a.txt\"}";
    assert_eq!(ws.run_stdin(&["read"], args).ok().stdout, direct.stdout);
    assert_eq!(ws.run_stdin(&["read", "--json"], args).ok().stdout, direct.stdout);
}

#[test]
fn a_missing_command_argument_is_named_with_the_usage() {
    let ws = Ws::new();
    let out = ws.run(&["approve"]).err("invalid_arguments");
    assert!(
        out.message().starts_with(
            "the following required arguments were not provided: <ID>. Usage: codesmith approve <ID>"
        ),
        "{}",
        out.message()
    );
    assert!(out.message().contains("error.approval.id"));
    let out = ws.run(&["trust"]).err("invalid_arguments");
    assert!(
        out.message().starts_with(
            "the following required arguments were not provided: <ACTION>. Usage: codesmith trust"
        ),
        "{}",
        out.message()
    );
    assert!(out.message().contains("`codesmith trust list`"));
}

/// `codesmith ARGS` with stdin from /dev/null, the workspace as the current directory and no
/// global option added in front (the harness puts `--workspace` first).
fn bare(ws: &Ws, args: &[&str]) -> Outcome {
    let mut cmd = std::process::Command::new(BIN);
    cmd.args(args)
        .current_dir(ws.path())
        .without_codesmith_env()
        .stdin(std::process::Stdio::null());
    Outcome::of(cmd)
}

#[test]
fn a_global_option_after_the_tool_name_gets_the_corrected_command_line() {
    let ws = ws_with_file();
    let dir = ws.path().display().to_string();
    let out = bare(&ws, &["read", "a.txt", "--workspace", &dir]).err("invalid_arguments");
    assert_eq!(out.envelope.tool, "read_file");
    let corrected = format!("codesmith --workspace {dir} read a.txt");
    assert_eq!(
        out.message(),
        format!("global option `--workspace` goes before the tool name `read`, not after it. Call again as: {corrected}")
    );
    // The corrected command line works.
    let args: Vec<&str> = corrected.split(' ').skip(1).collect();
    bare(&ws, &args).ok();
    // Several, in both spellings, with a value that needs quoting; the tool's own flags stay.
    let out = bare(
        &ws,
        &["read", "a.txt", "--session=s 1", "--max-lines", "1", "--yolo"],
    )
    .err("invalid_arguments");
    assert!(
        out.message().ends_with(
            "global options `--session` and `--yolo` go before the tool name `read`, not after it. \
             Call again as: codesmith '--session=s 1' --yolo read a.txt --max-lines 1"
        ) || out
            .message()
            .ends_with("Call again as: codesmith '--session=s 1' --yolo read a.txt --max-lines 1"),
        "{}",
        out.message()
    );
    // `--format` is taken anywhere on the line; the others still move.
    let out = bare(&ws, &["trust", "list", "--format", "json", "--yolo"]).err("invalid_arguments");
    assert!(out.message().ends_with(
        "before the command name `trust`, not after it. Call again as: codesmith --format json --yolo trust list"
    ), "{}", out.message());
    // fetch_url has a `--format` of its own: only the global one moves.
    let out = bare(
        &ws,
        &[
            "fetch",
            "http://127.0.0.1:9/",
            "--format",
            "text",
            "--session",
            "s",
        ],
    )
    .err("invalid_arguments");
    assert!(out
        .message()
        .ends_with("Call again as: codesmith --session s fetch http://127.0.0.1:9/ --format text"));
}

#[test]
fn a_comparison_whose_program_is_missing_is_reported_as_skipped() {
    assert_eq!(
        crate::harness::comparison_program("this test", &["codesmith-no-such-program"]),
        None
    );
    assert_eq!(
        crate::harness::skip_line("grep_files", &["rg"]),
        "SKIPPED the comparison with rg in grep_files: not installed (`.ci/run` installs it with apt-get)"
    );
}
