//! ask_user through the binary: `answer_required` (exit 3) with the question, `codesmith
//! answer`, `--answer`, the printed command run verbatim, and the terminal prompt (a
//! pseudo-terminal driven by python3's `pty`).

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use crate::harness::WithoutCodesmithEnv;
use crate::harness::{Outcome, Ws, BIN};

fn ask(ws: &Ws, extra: &[&str], arguments: &Value) -> Outcome {
    let text = arguments.to_string();
    let mut args: Vec<&str> = extra.to_vec();
    args.extend(["ask_user", "--json", &text]);
    ws.run(&args)
}

fn which_config() -> Value {
    json!({"question": "Which config is the real one?", "choices": ["a.toml", "b.toml"]})
}

#[test]
fn without_a_terminal_the_question_waits_and_the_answer_comes_back_with_answer_flag() {
    let ws = Ws::new();
    let out = ask(&ws, &[], &which_config()).err("answer_required");
    assert_eq!(out.status, 3);
    let question = out.error()["question"].clone();
    let id = question["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("q-"), "{id}");
    assert_eq!(question["question"], "Which config is the real one?");
    assert_eq!(question["choices"], json!(["a.toml", "b.toml"]));
    assert!(
        out.message().contains(&format!("answer {id} \"TEXT\"")),
        "{}",
        out.message()
    );
    assert!(out.message().contains(&format!("--answer {id}")));
    // The same question asks with the same id.
    let again = ask(&ws, &[], &which_config()).err("answer_required");
    assert_eq!(again.error()["question"]["id"], json!(id));

    let recorded = ws.run(&["answer", &id, "b.toml"]).ok();
    assert_eq!(recorded.data()["answer"], "b.toml");
    let answered = ask(&ws, &["--answer", &id], &which_config()).ok();
    assert_eq!(answered.output(), "b.toml");
    assert_eq!(answered.data()["id"], json!(id));
    assert_eq!(answered.data()["choice"], 2);
    assert_eq!(answered.data()["source"], "answer");
}

#[test]
fn an_answer_belongs_to_its_question_only() {
    let ws = Ws::new();
    let first = ask(&ws, &[], &which_config()).err("answer_required");
    let first_id = first.error()["question"]["id"].as_str().unwrap().to_string();
    ws.run(&["answer", &first_id, "a.toml"]).ok();
    let other = json!({"question": "Which port?"});
    let out = ask(&ws, &["--answer", &first_id], &other).err("answer_required");
    let other_id = out.error()["question"]["id"].as_str().unwrap().to_string();
    assert_ne!(other_id, first_id);
    assert!(
        out.message().contains("answers another question"),
        "{}",
        out.message()
    );
    assert!(out.message().contains(&format!("answer {other_id} \"TEXT\"")));
    assert!(!out.output().contains("a.toml"));
    // Named but not answered yet.
    let out = ask(&ws, &["--answer", &other_id], &other).err("answer_required");
    assert!(out
        .message()
        .contains(&format!("{other_id} has no answer recorded yet")));
}

#[test]
fn answer_refuses_unknown_ids_and_empty_answers_and_takes_defaults() {
    let ws = Ws::new();
    let out = ws.run(&["answer", "q-000000000000", "x"]).err("not_found");
    assert!(
        out.message().contains("No question is waiting now"),
        "{}",
        out.message()
    );
    let waiting = ask(&ws, &[], &json!({"question": "Name?"})).err("answer_required");
    let id = waiting.error()["question"]["id"].as_str().unwrap().to_string();
    let out = ws.run(&["answer", "q-000000000000", "x"]).err("not_found");
    assert_eq!(out.error()["pending"], json!([id]));
    assert!(
        out.message().contains(&format!("answer {id} \"TEXT\"")),
        "{}",
        out.message()
    );
    let out = ws.run(&["answer", &id, ""]).err("invalid_arguments");
    assert!(
        out.message().contains(&format!("answer {id} \"TEXT\"")),
        "{}",
        out.message()
    );

    let with_default = json!({"question": "Python?", "default": "3.12"});
    let waiting = ask(&ws, &[], &with_default).err("answer_required");
    let id = waiting.error()["question"]["id"].as_str().unwrap().to_string();
    ws.run(&["answer", &id, ""]).ok();
    assert_eq!(ask(&ws, &["--answer", &id], &with_default).ok().output(), "3.12");
}

#[test]
fn bad_questions_are_refused_before_anything_is_recorded() {
    let ws = Ws::new();
    let cases = [
        (json!({"question": "  "}), "question is empty"),
        (json!({"question": "Q?", "choices": ["a", "a"]}), "repeated"),
        (json!({"question": "Q?", "choices": ["a", ""]}), "empty"),
        (
            json!({"question": "Q?", "choices": ["a", "b"], "default": "c"}),
            "not one of the choices",
        ),
        (
            json!({"question": "Q?", "choices": (0..21).map(|n| n.to_string()).collect::<Vec<_>>()}),
            "at most 20",
        ),
    ];
    for (arguments, said) in cases {
        let out = ask(&ws, &[], &arguments).err("invalid_arguments");
        assert!(out.message().contains(said), "{arguments}: {}", out.message());
    }
    assert!(!ws.exists(".codesmith/sessions/default.json"));
}

#[test]
fn the_printed_answer_command_runs_verbatim_from_anywhere() {
    let parent = tempfile::tempdir().unwrap();
    let root = parent.path().join("my work's dir");
    std::fs::create_dir(&root).unwrap();
    let mut ws = Ws::at(&root);
    ws.session = Some("agent-2".into());
    let out = ask(&ws, &[], &which_config()).err("answer_required");
    let id = out.error()["question"]["id"].as_str().unwrap().to_string();
    let command = out.error()["command"].as_str().unwrap().to_string();
    assert!(
        command.contains("--workspace \"") && command.contains("--session agent-2"),
        "{command}"
    );
    assert!(out.message().contains(&command));
    // Run by a shell elsewhere, with `codesmith` on the PATH: it records the answer "TEXT".
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let ran = Command::new("sh")
        .args(["-c", &command])
        .current_dir(parent.path())
        .env("PATH", path)
        .without_codesmith_env()
        .output()
        .unwrap();
    Outcome::from_output(ran).ok();
    assert_eq!(
        ask(&ws, &["--answer", &id], &which_config()).ok().output(),
        "TEXT"
    );
    // From inside the workspace, in the default session, the options are left out.
    let text = which_config().to_string();
    let bare = Command::new(BIN)
        .args(["ask_user", "--json", &text])
        .current_dir(&root)
        .without_codesmith_env()
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let out = Outcome::from_output(bare).err("answer_required");
    assert_eq!(
        out.error()["command"],
        json!(format!("codesmith answer {id} \"TEXT\""))
    );
}

/// Runs `codesmith ARGS` with stdin and stderr on a pseudo-terminal (stdout a pipe), typing
/// `typed` once the prompt shows; returns the envelope and what the terminal showed.
fn at_terminal(ws: &Ws, args: &[&str], typed: &str) -> Option<(Outcome, String)> {
    const DRIVER: &str = r#"
import os, pty, subprocess, sys, time, select, json
typed = sys.argv[1]
master, slave = pty.openpty()
proc = subprocess.Popen(sys.argv[2:], stdin=slave, stderr=slave, stdout=subprocess.PIPE)
os.close(slave)
shown = b""
deadline = time.time() + 20
sent = False
while time.time() < deadline:
    ready, _, _ = select.select([master], [], [], 0.1)
    if ready:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    if not sent and b"answer" in shown:
        os.write(master, typed.encode())
        sent = True
    if proc.poll() is not None and not ready:
        break
out = proc.communicate(timeout=20)[0]
sys.stderr.write(shown.decode(errors="replace"))
sys.stdout.write(out.decode())
sys.exit(proc.returncode)
"#;
    Command::new("python3").arg("--version").output().ok()?;
    let mut cmd = Command::new("python3");
    cmd.args(["-c", DRIVER, typed, BIN, "--workspace"])
        .arg(ws.path())
        .args(args)
        .without_codesmith_env();
    let out = cmd.output().unwrap();
    let shown = String::from_utf8_lossy(&out.stderr).into_owned();
    Some((Outcome::from_output(out), shown))
}

#[test]
fn at_a_terminal_the_question_is_asked_there() {
    let ws = Ws::new();
    let text = which_config().to_string();
    let Some((out, shown)) = at_terminal(&ws, &["ask_user", "--json", &text], "2\n") else {
        eprintln!("SKIPPED: no python3 to drive a pseudo-terminal");
        return;
    };
    let out = out.ok();
    assert_eq!(out.output(), "b.toml");
    assert_eq!(out.data()["source"], "terminal");
    assert!(
        shown.contains("Which config is the real one?") && shown.contains("2) b.toml"),
        "{shown}"
    );
    // Free text, and an empty line taking the default.
    let free = json!({"question": "Port?", "default": "8080"}).to_string();
    let (out, _) = at_terminal(&ws, &["ask_user", "--json", &free], "\n").unwrap();
    assert_eq!(out.ok().output(), "8080");
    let (out, _) = at_terminal(&ws, &["ask_user", "--json", &free], "9090\n").unwrap();
    assert_eq!(out.ok().output(), "9090");
    // End of input at the prompt: the question waits as without a terminal.
    let (out, _) = at_terminal(&ws, &["ask_user", "--json", &text], "\u{4}").unwrap();
    out.err("answer_required");
}

#[test]
fn an_mcp_client_without_elicitation_is_told_how_the_answer_gets_recorded() {
    use crate::mcp_support::{texts, McpSession};
    let ws = Ws::new();
    let mut session = McpSession::initialized(&ws, &["--session", "s3"], "2025-11-25", json!({}));
    let result = session.call("ask_user", which_config());
    assert_eq!(result["isError"], true, "{result}");
    let id = result["structuredContent"]["question"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let text = &texts(&result)[0];
    assert!(text.contains("cannot ask the user"), "{text}");
    let command = result["structuredContent"]["command"].as_str().unwrap();
    assert!(
        command.contains("--workspace") && command.ends_with(&format!("--session s3 answer {id} \"TEXT\"")),
        "{command}"
    );
    // A person records the answer; the same call then returns it.
    let mut person = Ws::at(&ws.path());
    person.session = Some("s3".into());
    person.run(&["answer", &id, "a.toml"]).ok();
    let again = session.call("ask_user", which_config());
    assert_eq!(again["isError"], false, "{again}");
    assert_eq!(texts(&again)[0], "a.toml");
}
