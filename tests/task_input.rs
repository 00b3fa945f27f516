//! Interactive background tasks through the binary: `exec_shell` with `background` and
//! `interactive` starts a program on a pseudo-terminal, and task_input types into it.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::harness::{Outcome, Ws};

fn start(ws: &Ws, command: &str) -> String {
    let out = ws
        .call(
            "exec_shell",
            json!({"command": command, "background": true, "interactive": true}),
        )
        .ok();
    assert_eq!(out.data()["interactive"], true);
    assert!(out.output().contains("task_input"), "{}", out.output());
    out.data()["task_id"].as_str().expect("task_id").to_string()
}

fn type_in(ws: &Ws, id: &str, input: &str, wait_ms: u64) -> Outcome {
    ws.call(
        "task_input",
        json!({"task_id": id, "input": input, "wait_ms": wait_ms}),
    )
}

/// Types `input` (again with empty input while needed) until the output so far holds `needle`.
fn until(ws: &Ws, id: &str, input: &str, needle: &str) -> String {
    let started = Instant::now();
    let mut seen = type_in(ws, id, input, 3000).ok().output().to_string();
    while !seen.contains(needle) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no {needle:?} in {seen}"
        );
        seen.push_str(type_in(ws, id, "", 1000).ok().output());
    }
    seen
}

fn cancel(ws: &Ws, id: &str) {
    ws.call("task_cancel", json!({"task_id": id})).ok();
}

#[test]
fn python_on_a_terminal_sees_a_tty_and_answers() {
    let ws = Ws::new();
    let id = start(&ws, "python3 -i -q");
    let seen = until(
        &ws,
        &id,
        "import os, sys; print(sys.stdin.isatty(), sys.stdout.isatty(), os.environ['TERM'])\n",
        "True True xterm",
    );
    assert!(!seen.contains('\u{1b}') && !seen.contains('\r'), "{seen:?}");
    let out = until(&ws, &id, "print(6 * 7)\n", "42");
    assert!(out.contains("print(6 * 7)\n42\n>>> "), "{out:?}");
    // Ctrl-C interrupts the running statement; the REPL goes on.
    until(&ws, &id, "import time; time.sleep(60)\n", "time.sleep(60)");
    let out = until(&ws, &id, "\u{3}", "KeyboardInterrupt");
    let out_status = type_in(&ws, &id, "", 100).ok();
    assert_eq!(out_status.data()["status"], "running", "{out}");
    let last = until(&ws, &id, "import sys; sys.exit(4)\n", "sys.exit(4)");
    let end = ws
        .call("task_wait", json!({"task_id": id, "timeout_ms": 10000}))
        .ok();
    assert_eq!(end.data()["exit_code"], 4, "{last}{}", end.output());
}

#[test]
fn a_read_prompt_is_answered() {
    let ws = Ws::new();
    let id = start(&ws, "bash -c 'read -p \"Name? \" name; echo \"hello $name\"'");
    until(&ws, &id, "", "Name? ");
    let out = until(&ws, &id, "Ada\n", "hello Ada");
    assert!(out.contains("Ada\nhello Ada\n"), "{out:?}");
    let end = ws
        .call("task_wait", json!({"task_id": id, "timeout_ms": 10000}))
        .ok();
    assert_eq!(end.data()["exit_code"], 0);
}

#[test]
fn close_stdin_types_end_of_input() {
    let ws = Ws::new();
    let id = start(&ws, "cat");
    let out = ws
        .call(
            "task_input",
            json!({"task_id": id, "input": "abc\n", "close_stdin": true, "wait_ms": 3000}),
        )
        .ok();
    assert_eq!(out.data()["sent_bytes"], 5);
    let end = ws
        .call("task_wait", json!({"task_id": id, "timeout_ms": 10000}))
        .ok();
    assert_eq!(end.data()["exit_code"], 0, "{}{}", out.output(), end.output());
}

#[test]
fn a_finished_task_and_a_task_not_on_a_terminal_are_refused_with_the_way_out() {
    let ws = Ws::new();
    let id = start(&ws, "echo bye");
    ws.call("task_wait", json!({"task_id": id, "timeout_ms": 10000}))
        .ok();
    let out = type_in(&ws, &id, "x\n", 100).err("invalid_arguments");
    assert!(out.message().contains("has ended (exited)"), "{}", out.message());
    assert!(out
        .message()
        .contains(&format!("task_output with task_id=\"{id}\"")));

    let plain = ws
        .call("exec_shell", json!({"command": "sleep 30", "background": true}))
        .ok();
    let plain_id = plain.data()["task_id"].as_str().unwrap().to_string();
    assert_eq!(plain.data()["interactive"], false);
    // Both kinds start through the same sandbox.
    let on_terminal = ws
        .call(
            "exec_shell",
            json!({"command": "sleep 30", "background": true, "interactive": true}),
        )
        .ok();
    let layers = |out: &Outcome| {
        let mut sandbox = out.data()["sandbox"].clone();
        sandbox.as_object_mut().unwrap().remove("writable");
        sandbox
    };
    assert_eq!(layers(&on_terminal), layers(&plain));
    cancel(&ws, on_terminal.data()["task_id"].as_str().unwrap());
    let out = type_in(&ws, &plain_id, "x\n", 100).err("invalid_arguments");
    assert!(
        out.message().contains("not started on a terminal")
            && out
                .message()
                .contains(r#"command="sleep 30" background=true interactive=true"#),
        "{}",
        out.message()
    );
    cancel(&ws, &plain_id);

    let out = type_in(&ws, "task-99", "x", 100).err("not_found");
    assert!(out.message().contains("Known tasks"), "{}", out.message());
    let out = ws
        .call("exec_shell", json!({"command": "python3", "interactive": true}))
        .err("invalid_arguments");
    assert!(
        out.message().contains("background=true interactive=true"),
        "{}",
        out.message()
    );
}

#[test]
fn lines_typed_into_a_shell_are_classified_before_they_are_written() {
    let ws = Ws::new();
    let id = start(&ws, "sh");
    until(&ws, &id, "echo typed-$((6*7))\n", "typed-42");
    let out = type_in(&ws, &id, "git push --force\n", 500).err("approval_required");
    assert_eq!(out.error()["approval"]["kind"], "destructive");
    assert_eq!(out.error()["approval"]["subject"], "git push --force");
    // Nothing was typed: the shell shows no such line.
    let later = type_in(&ws, &id, "", 500).ok();
    assert!(!later.output().contains("push"), "{}", later.output());
    cancel(&ws, &id);
}

#[test]
fn a_terminal_tasks_output_is_kept_within_the_cap() {
    let ws = Ws::new();
    let text = json!({"command": "yes terminal-line | head -c 2000000; echo; echo finished", "background": true, "interactive": true})
        .to_string();
    let mut cmd = ws.command(&["exec_shell", "--json", &text]);
    cmd.env("CODESMITH_TASK_OUTPUT_CAP", (64 * 1024).to_string());
    let out = Outcome::of(cmd).ok();
    assert!(
        out.output().contains("at most 64 KiB is kept"),
        "{}",
        out.output()
    );
    let id = out.data()["task_id"].as_str().expect("task_id").to_string();
    let done = ws
        .call("task_wait", json!({"task_id": id, "timeout_ms": 60000}))
        .ok();
    assert!(done.output().contains("finished"), "{}", done.output());
    let dir = ws.join(&format!(".codesmith/tasks/{id}"));
    let kept: u64 = std::fs::read_dir(&dir)
        .expect("task dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("stdout"))
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    assert!(kept <= 64 * 1024, "{kept} bytes kept on disk");
}
