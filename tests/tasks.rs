use std::time::{Duration, Instant};

use serde_json::json;

use crate::exec_shell::{assert_gone, kill_all, marker};
use crate::harness::{Outcome, Ws};

fn start(ws: &Ws, command: &str) -> String {
    let started = Instant::now();
    let out = ws
        .call("exec_shell", json!({"command": command, "background": true}))
        .ok();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "background start must return at once"
    );
    out.data()["task_id"].as_str().expect("task_id").to_string()
}

fn wait(ws: &Ws, id: &str, timeout_ms: u64) -> Outcome {
    ws.call("task_wait", json!({"task_id": id, "timeout_ms": timeout_ms}))
        .ok()
}

#[test]
fn a_background_task_runs_detached_and_reports_its_end() {
    let ws = Ws::new();
    let id = start(&ws, "sleep 0.3; echo done; echo oops >&2; exit 3");
    assert_eq!(id, "task-1");
    let out = wait(&ws, &id, 10_000);
    assert_eq!(out.data()["status"], "exited");
    assert_eq!(out.data()["exit_code"], 3);
    assert_eq!(
        out.output(),
        "task-1: exited with code 3\nstdout (new):\ndone\nstderr (new):\noops\n"
    );
    assert_eq!(ws.read_string(".codesmith/tasks/task-1/stdout"), "done\n");
    // Nothing new since.
    let out = ws.call("task_output", json!({"task_id": id})).ok();
    assert_eq!(out.output(), "task-1: exited with code 3\n(no new output)\n");
    assert_eq!(start(&ws, "true"), "task-2");
}

#[test]
fn task_output_returns_only_new_output() {
    let ws = Ws::new();
    let id = start(&ws, "echo one; while [ ! -e go ]; do sleep 0.05; done; echo two");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let out = ws.run(&["task_output", &id]).ok();
        if out.output().contains("one") {
            assert_eq!(out.data()["status"], "running");
            assert!(out.output().contains("task_wait with task_id=\"task-1\""));
            break;
        }
        assert!(Instant::now() < deadline, "no output: {}", out.output());
        std::thread::sleep(Duration::from_millis(50));
    }
    ws.write("go", "");
    let out = wait(&ws, &id, 10_000);
    assert_eq!(out.output(), "task-1: exited with code 0\nstdout (new):\ntwo\n");
}

#[test]
fn task_wait_returns_at_its_timeout_without_stopping_the_task() {
    let ws = Ws::new();
    let mark = marker("wait");
    ws.write(&format!("{mark}.sh"), "sleep 30\n");
    let id = start(&ws, &format!("CS_TEST_MARK={mark} sh ./{mark}.sh"));
    let started = Instant::now();
    let out = wait(&ws, &id, 300);
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(out.data()["finished"], false);
    assert!(
        out.output()
            .starts_with("still running after 300 ms: task-1: running"),
        "{}",
        out.output()
    );
    assert!(
        !super::exec_shell::procs_with(&mark).is_empty(),
        "the task keeps running"
    );
    let out = ws.call("task_cancel", json!({"task_id": id})).ok();
    assert_eq!(out.output(), "task-1: cancelled\n");
    assert_gone(&mark);
    let out = ws.call("task_output", json!({"task_id": id})).ok();
    assert_eq!(out.data()["status"], "cancelled");
}

#[test]
fn task_cancel_kills_the_whole_group_and_all_stops_every_task() {
    let ws = Ws::new();
    let mark = marker("cancel");
    ws.write(&format!("{mark}.sh"), "sleep 60 &\nsleep 60 &\nwait\n");
    let first = start(&ws, &format!("CS_TEST_MARK={mark} sh ./{mark}.sh"));
    let second = start(&ws, &format!("CS_TEST_MARK={mark} sh ./{mark}.sh"));
    let third = start(&ws, "true");
    wait(&ws, &third, 5000);
    let deadline = Instant::now() + Duration::from_secs(5);
    while super::exec_shell::procs_with(&mark).len() < 6 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = ws.call("task_cancel", json!({"all": true})).ok();
    assert_eq!(out.output(), format!("{first}: cancelled\n{second}: cancelled\n"));
    assert_gone(&mark);
    let out = ws.call("task_cancel", json!({"task_id": third})).ok();
    assert!(out.output().contains("already exited"));
    kill_all(&mark);
}

#[test]
fn unknown_tasks_and_bad_arguments_name_the_way_out() {
    let ws = Ws::new();
    let out = ws
        .call("task_output", json!({"task_id": "task-9"}))
        .err("not_found");
    assert!(out.message().contains("background=true"), "{}", out.message());
    start(&ws, "true");
    let out = ws.call("task_wait", json!({"task_id": "nope"})).err("not_found");
    assert!(
        out.message().contains("task_output with task_id=\"task-1\""),
        "{}",
        out.message()
    );
    let out = ws.call("task_cancel", json!({})).err("invalid_arguments");
    assert!(out.message().contains("all=true"));
    ws.call("task_cancel", json!({"task_id": "task-1", "all": true}))
        .err("invalid_arguments");
    let out = ws
        .call("task_wait", json!({"task_id": "task-1", "timeout_ms": 700000}))
        .err("invalid_arguments");
    assert!(out.message().contains("timeout_ms=600000"));
}

#[test]
fn the_probe_runs_when_a_task_is_seen_finished() {
    let ws = Ws::new();
    ws.write("a.txt", "one\n");
    ws.read_via_tool("a.txt");
    let id = start(&ws, "while [ ! -e go ]; do sleep 0.05; done; echo two >> a.txt");
    let out = ws.call("task_output", json!({"task_id": id})).ok();
    assert!(out.notices().is_empty());
    ws.write("go", "");
    let out = wait(&ws, &id, 10_000);
    assert_eq!(out.data()["finished"], true);
    assert!(
        out.notices().iter().any(|n| n.contains("a.txt (changed)")),
        "{:?}",
        out.notices()
    );
}

#[test]
fn background_tasks_need_the_same_approvals() {
    let ws = Ws::new();
    ws.call(
        "exec_shell",
        json!({"command": "curl --version", "background": true}),
    )
    .err("approval_required");
}

#[test]
fn task_ids_are_never_reused_after_a_task_directory_is_deleted() {
    let ws = Ws::new();
    let first = start(&ws, "true");
    wait(&ws, &first, 10_000);
    std::fs::remove_dir_all(ws.join(&format!(".codesmith/tasks/{first}"))).unwrap();
    let second = start(&ws, "true");
    assert_ne!(first, second);
    wait(&ws, &second, 10_000);
}

#[test]
fn parallel_task_output_calls_hand_out_new_output_once() {
    let ws = Ws::new();
    let id = start(&ws, "seq 1 1000");
    wait(&ws, &id, 10_000);
    // task_wait above already delivered the output; start a fresh task and do not wait on it.
    let id = start(&ws, "seq 1 1000");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !ws.join(&format!(".codesmith/tasks/{id}/status/exit")).exists() {
        assert!(Instant::now() < deadline, "the task did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let cmd = ws.command(&["task_output", &id]);
            std::thread::spawn(move || Outcome::of(cmd).ok().data()["new_stdout_bytes"].as_u64().unwrap())
        })
        .collect();
    let delivered: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(delivered, 3893, "every byte handed out exactly once");
}

/// The bytes of `stream` a task keeps on disk: the head file and its tail segments.
fn kept_on_disk(ws: &Ws, id: &str, stream: &str) -> u64 {
    std::fs::read_dir(ws.join(&format!(".codesmith/tasks/{id}")))
        .expect("task dir")
        .map(|entry| entry.expect("entry"))
        .filter(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            name == stream || name.starts_with(&format!("{stream}.tail-"))
        })
        // A tail segment rotated away between the listing and this look is no longer kept.
        .filter_map(|entry| entry.metadata().ok())
        .map(|meta| meta.len())
        .sum()
}

/// The cap the tests set, through the documented variable that can only lower it.
const TEST_CAP: u64 = 64 * 1024;

fn start_capped(ws: &Ws, command: &str) -> String {
    let text = json!({"command": command, "background": true}).to_string();
    let mut cmd = ws.command(&["exec_shell", "--json", &text]);
    cmd.env("CODESMITH_TASK_OUTPUT_CAP", TEST_CAP.to_string());
    let out = Outcome::of(cmd).ok();
    assert!(
        out.output().contains("at most 64 KiB of each is kept"),
        "{}",
        out.output()
    );
    out.data()["task_id"].as_str().expect("task_id").to_string()
}

#[test]
fn a_task_printing_past_the_cap_keeps_its_head_and_tail_and_says_what_was_dropped() {
    let ws = Ws::new();
    let id = start_capped(&ws, "seq 1 600000; echo last-line; echo to-stderr >&2");
    let out = wait(&ws, &id, 60_000);
    assert_eq!(out.data()["exit_code"], 0, "{}", out.output());
    let whole: String = (1..=600000).map(|n| format!("{n}\n")).collect::<String>() + "last-line\n";
    let kept = kept_on_disk(&ws, &id, "stdout");
    // The head's 32 KiB and at least three of the tail's four 8 KiB segments.
    assert!(
        (TEST_CAP / 2 + 3 * TEST_CAP / 8..=TEST_CAP).contains(&kept),
        "{kept} bytes kept on disk, the cap is {TEST_CAP}"
    );
    assert_eq!(
        ws.read(&format!(".codesmith/tasks/{id}/stdout")),
        whole.as_bytes()[..(TEST_CAP / 2) as usize]
    );
    let dropped = out.data()["dropped_stdout_bytes"].as_u64().expect("dropped");
    assert_eq!(
        dropped,
        whole.len() as u64 - kept,
        "every byte is kept or counted"
    );
    let text = out.output();
    assert!(
        text.contains(&format!(
            "stdout: {dropped} bytes were dropped (between bytes 32768 and "
        )),
        "{text}"
    );
    assert!(
        text.contains("keeps the first 32 KiB and the last 32 KiB"),
        "{text}"
    );
    assert!(text.contains("stdout (new):\n1\n2\n3\n"), "{text}");
    assert!(
        text.contains("599999\n600000\nlast-line\nstderr (new):\nto-stderr\n"),
        "{text}"
    );
    // The whole new output, spilled, holds the marker where the bytes were dropped.
    let spill = text
        .split("full new stdout: ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .expect("spill path");
    let spilled = ws.read_string(spill);
    assert!(
        spilled.contains(&format!(
            "\n[... {dropped} bytes of stdout dropped here (bytes 32768 to "
        )),
        "{}",
        &spilled[32000..33500]
    );
    let again = ws.call("task_output", json!({"task_id": id})).ok();
    assert_eq!(again.data()["dropped_stdout_bytes"], 0);
    assert!(again.output().contains("(no new output)"), "{}", again.output());
}

#[test]
fn a_task_that_never_stops_writing_stays_within_the_cap_until_cancelled() {
    let ws = Ws::new();
    let id = start_capped(&ws, "yes");
    let first = ws.call("task_output", json!({"task_id": id})).ok();
    assert_eq!(first.data()["status"], "running");
    let mut read = first.data()["new_stdout_bytes"].as_u64().expect("bytes");
    for _ in 0..4 {
        std::thread::sleep(Duration::from_millis(300));
        let kept = kept_on_disk(&ws, &id, "stdout");
        assert!(kept <= TEST_CAP, "{kept} bytes on disk, the cap is {TEST_CAP}");
        let out = ws.call("task_output", json!({"task_id": id})).ok();
        read += out.data()["new_stdout_bytes"].as_u64().expect("bytes");
    }
    assert!(read > 0);
    ws.call("task_cancel", json!({"task_id": id})).ok();
    let out = ws.call("task_output", json!({"task_id": id})).ok();
    assert_eq!(out.data()["status"], "cancelled");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !ws.exists(&format!(".codesmith/tasks/{id}/captured")) {
        assert!(
            Instant::now() < deadline,
            "the capturing process did not end with the task"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(kept_on_disk(&ws, &id, "stdout") <= TEST_CAP);
}
