//! What a person sees: text at a terminal (coloured unless NO_COLOR), JSON for programs,
//! `CODESMITH_FORMAT`, `--format` anywhere on the line, notices in text, `tools --format text`.

use std::process::{Command, Stdio};

use serde_json::Value;

use crate::harness::WithoutCodesmithEnv;
use crate::harness::{Outcome, Ws, BIN};

/// Runs `codesmith --workspace WS ARGS` with stdout on a pseudo-terminal (through `script`),
/// returning what the terminal showed and the exit status; `None` without `script`.
fn at_terminal(ws: &Ws, args: &str, env: &[(&str, &str)]) -> Option<(String, i32)> {
    Command::new("script").arg("--version").output().ok()?;
    let line = format!("{BIN} --workspace '{}' {args}", ws.path().display());
    let mut cmd = Command::new("script");
    cmd.args(["-qec", &line, "/dev/null"])
        .without_codesmith_env()
        .env_remove("NO_COLOR")
        .envs(env.iter().copied())
        .stdin(Stdio::null());
    let out = cmd.output().expect("run script");
    let shown = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    Some((shown, out.status.code().unwrap_or(-1)))
}

#[test]
fn at_a_terminal_the_output_is_text_and_coloured_unless_no_color() {
    let ws = Ws::new();
    ws.write("a.txt", "one\ntwo\n");
    let Some((shown, status)) = at_terminal(&ws, "read a.txt", &[]) else {
        eprintln!("SKIPPED: no `script` to give the call a terminal");
        return;
    };
    assert_eq!(status, 0);
    assert_eq!(shown, "     1│ one\n     2│ two\n");
    let (shown, _) = at_terminal(&ws, "edit a.txt --search two --replace TWO", &[]).unwrap();
    assert!(shown.contains("\x1b[32m+TWO\x1b[0m"), "{shown:?}");
    assert!(shown.contains("\x1b[31m-two\x1b[0m"), "{shown:?}");
    let (shown, status) = at_terminal(&ws, "read nothing.txt", &[("NO_COLOR", "1")]).unwrap();
    assert_eq!(status, 1);
    assert!(shown.starts_with("`nothing.txt` does not exist"), "{shown:?}");
    assert!(!shown.contains('\x1b'), "{shown:?}");
    // Asked for, JSON it is, terminal or not.
    let (shown, _) = at_terminal(&ws, "--format json read a.txt", &[]).unwrap();
    assert!(serde_json::from_str::<Value>(&shown).is_ok(), "{shown:?}");
    let (shown, _) = at_terminal(&ws, "read a.txt", &[("CODESMITH_FORMAT", "json")]).unwrap();
    assert!(serde_json::from_str::<Value>(&shown).is_ok(), "{shown:?}");
}

/// `codesmith ARGS` with `CODESMITH_FORMAT` set to `format` (stdout a pipe).
fn with_format_env(ws: &Ws, format: &str, args: &[&str]) -> std::process::Output {
    let mut cmd = ws.command(args);
    cmd.env("CODESMITH_FORMAT", format);
    cmd.output().expect("run codesmith")
}

#[test]
fn codesmith_format_chooses_for_a_pipe_and_a_bad_value_is_named() {
    let ws = Ws::new();
    ws.write("a.txt", "one\n");
    let out = with_format_env(&ws, "text", &["read", "a.txt"]);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "     1│ one\n");
    let out = Outcome::from_output(with_format_env(&ws, "json", &["read", "a.txt"])).ok();
    assert_eq!(out.data()["total_lines"], 1);
    // Empty means unset: a pipe gets JSON.
    Outcome::from_output(with_format_env(&ws, "", &["read", "a.txt"])).ok();
    // The flag wins over the variable.
    Outcome::from_output(with_format_env(
        &ws,
        "text",
        &["--format", "json", "read", "a.txt"],
    ))
    .ok();
    let out = Outcome::from_output(with_format_env(&ws, "yaml", &["read", "a.txt"])).err("invalid_arguments");
    assert!(
        out.message().contains("CODESMITH_FORMAT is `yaml`"),
        "{}",
        out.message()
    );
}

#[test]
fn format_goes_anywhere_on_the_line_but_a_tool_keeps_its_own() {
    let ws = Ws::new();
    ws.write("a.txt", "one\n");
    for args in [
        &["read", "a.txt", "--format", "text"][..],
        &["read", "--format=text", "a.txt"][..],
    ] {
        let out = ws.raw(args);
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            "     1│ one\n",
            "{args:?}"
        );
    }
    // fetch_url's own format: `raw` is its value, so the call reaches fetch_url's checks.
    let out = ws
        .run(&["fetch", "ftp://example.org/x", "--format", "raw"])
        .err("network_denied");
    assert_eq!(out.envelope.tool, "fetch_url");
    assert!(out.message().contains("ftp"), "{}", out.message());
    // After `--` it is an argument.
    let out = ws.run(&["grep", "--fixed-strings", "--", "--format"]).ok();
    assert_eq!(out.data()["total_matches"], 0);
}

#[test]
fn text_shows_the_notices_after_the_output() {
    let ws = Ws::new();
    ws.write("a.txt", "one\n");
    let out = ws.raw(&["--format", "text", "read", "a.txt", "--max-lines", "9999"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("     1│ one\nNotice: max_lines=9999 is over the cap"),
        "{text}"
    );
}

#[test]
fn the_catalog_as_text_has_a_line_per_tool() {
    let ws = Ws::new();
    let out = ws.raw(&["tools", "--format", "text"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("read_file    read         read_only     Read a text file"),
        "{first}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("exec_shell   shell        runs_code")),
        "{text}"
    );
    // Piped and not asked for, the catalog stays JSON.
    let out = ws.raw(&["tools"]);
    assert!(serde_json::from_slice::<Value>(&out.stdout).is_ok());
}
