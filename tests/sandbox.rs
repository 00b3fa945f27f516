//! exec_shell's kernel sandbox, through the binary: what a confined command cannot do, the hint
//! it gets back, and the approval, trust and settings that widen it.
//!
//! Every write a test expects to be stopped aims at a scratch directory the test made, never at
//! a system path, so a broken sandbox cannot hurt the machine running the tests.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::harness::{Outcome, Ws};

/// Whether this machine gives commands the whole sandbox. When it does not, the test says so
/// and passes, unless CODESMITH_REQUIRE_SANDBOX=1 (as CI sets) makes that a failure.
pub(crate) fn sandbox_here(ws: &Ws) -> bool {
    protections_here(ws, &["filesystem", "network", "state"])
}

/// Whether each of `protections` (keys of `data.sandbox`) holds for a command here; the same
/// skip, or failure under CODESMITH_REQUIRE_SANDBOX=1, when one does not.
pub(crate) fn protections_here(ws: &Ws, protections: &[&str]) -> bool {
    let out = ws.call("exec_shell", json!({"command": "true"})).ok();
    let sandbox = &out.data()["sandbox"];
    let whole = protections.iter().all(|layer| sandbox[layer]["active"] == true);
    if !whole {
        assert!(
            std::env::var("CODESMITH_REQUIRE_SANDBOX").as_deref() != Ok("1"),
            "the sandbox is not whole here: {sandbox}"
        );
        eprintln!("skipped: the kernel sandbox is not whole on this machine: {sandbox}");
    }
    whole
}

/// Makes the workspace a git repository; false (with a word) where git is not installed.
pub(crate) fn git_init(ws: &Ws) -> bool {
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(ws.path())
        .status();
    let made = git.map(|s| s.success()).unwrap_or(false);
    if !made {
        eprintln!("skipped: git is not installed");
    }
    made
}

/// A directory outside the workspace that the test owns.
pub(crate) fn scratch() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("scratch dir");
    let path = dir.path().canonicalize().expect("canonical");
    (dir, path)
}

pub(crate) fn shell(ws: &Ws, command: &str) -> Outcome {
    ws.call("exec_shell", json!({"command": command}))
}

pub(crate) fn approval_id(out: &Outcome) -> String {
    out.data()["approval"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no data.approval in {}", out.output()))
        .to_string()
}

/// The command was stopped from writing `target`: it is untouched, and the output starts with
/// the hint naming it and the approval to ask for.
fn assert_stopped(out: &Outcome, target: &Path) {
    assert!(
        !target.exists(),
        "{} was written: {}",
        target.display(),
        out.output()
    );
    assert!(
        out.output().starts_with("Sandbox: "),
        "no hint first in: {}",
        out.output()
    );
    let id = approval_id(out);
    assert!(
        out.output().contains(&format!(" approve {id}`")),
        "{}",
        out.output()
    );
    assert_eq!(out.data()["approval"]["kind"], "destructive");
}

#[test]
fn an_interpreter_writing_outside_is_stopped_and_its_approval_runs_it() {
    let ws = Ws::new();
    if !sandbox_here(&ws) {
        return;
    }
    let (_keep, out_dir) = scratch();
    let target = out_dir.join("py");
    let command = format!("python3 -c 'open(\"{}\", \"w\").write(\"x\")'", target.display());
    let out = shell(&ws, &command).ok();
    assert_stopped(&out, &target);
    assert!(
        out.output().contains(&target.display().to_string()),
        "{}",
        out.output()
    );
    assert!(
        out.output().contains(&format!("`{} trust add ", ws.person())),
        "{}",
        out.output()
    );
    let id = approval_id(&out);
    let approved = ws.run(&["--approve", &id, "shell", &command]).ok();
    assert_eq!(approved.data()["exit_code"], 0, "{}", approved.output());
    assert_eq!(approved.data()["sandbox"]["filesystem"]["active"], false);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "x");
}

#[test]
fn a_persisted_approval_from_the_hint_runs_the_command_in_later_calls() {
    let ws = Ws::new();
    if !sandbox_here(&ws) {
        return;
    }
    let (_keep, out_dir) = scratch();
    let target = out_dir.join("later");
    let command = format!("python3 -c 'open(\"{}\", \"w\")'", target.display());
    let id = approval_id(&shell(&ws, &command).ok());
    ws.run(&["approve", &id, "--persist"]).ok();
    shell(&ws, &command).ok();
    assert!(target.exists());
}

#[test]
fn links_made_and_written_through_in_one_command_are_stopped() {
    let ws = Ws::new();
    if !sandbox_here(&ws) {
        return;
    }
    let (_keep, out_dir) = scratch();
    let soft = out_dir.join("soft");
    let out = shell(
        &ws,
        &format!(
            "python3 -c 'import os; os.symlink(\"{}\", \"link\")' && echo x > link",
            soft.display()
        ),
    )
    .ok();
    assert_stopped(&out, &soft);
    assert!(
        out.output().contains(&soft.display().to_string()),
        "{}",
        out.output()
    );

    let hard = out_dir.join("hard");
    std::fs::write(&hard, "original").unwrap();
    let out = shell(&ws, &format!("ln {} hl; echo x >> hl", hard.display())).ok();
    assert_eq!(std::fs::read_to_string(&hard).unwrap(), "original");
    assert!(out.output().starts_with("Sandbox: "), "{}", out.output());
}

#[test]
fn functions_run_time_paths_xargs_and_scripts_are_stopped() {
    let ws = Ws::new();
    if !sandbox_here(&ws) {
        return;
    }
    let (_keep, out_dir) = scratch();
    let o = out_dir.display();
    ws.write("s.sh", format!("echo x > {o}/script\n"));
    for (command, target) in [
        (format!("w() {{ echo y > \"$1\"; }}; w {o}/function"), "function"),
        (format!("D={o}; touch $D/runtime"), "runtime"),
        (format!("printf '%s\\n' {o}/xargs | xargs touch"), "xargs"),
        ("sh s.sh".to_string(), "script"),
        (format!("D={o}; chmod 777 $D"), ""),
    ] {
        let out = shell(&ws, &command).ok();
        if target.is_empty() {
            // Re-permissioning outside: the mode stays.
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&out_dir).unwrap().permissions().mode() & 0o777;
            assert_ne!(mode, 0o777, "{command}: {}", out.output());
            assert!(
                out.output().starts_with("Sandbox: "),
                "{command}: {}",
                out.output()
            );
            continue;
        }
        assert_stopped(&out, &out_dir.join(target));
    }
}

#[test]
fn a_background_task_writing_outside_is_stopped_and_says_so() {
    let ws = Ws::new();
    if !sandbox_here(&ws) {
        return;
    }
    let (_keep, out_dir) = scratch();
    let target = out_dir.join("task");
    let command = format!("python3 -c 'open(\"{}\", \"w\")'", target.display());
    let started = ws
        .call("exec_shell", json!({"command": command, "background": true}))
        .ok();
    assert_eq!(started.data()["sandbox"]["filesystem"]["active"], true);
    let id = started.data()["task_id"].as_str().unwrap().to_string();
    let waited = ws.call("task_wait", json!({"task_id": id})).ok();
    assert!(!target.exists());
    assert!(waited.output().contains("Sandbox: "), "{}", waited.output());
    assert!(approval_id(&waited).starts_with("ap-"));
}

#[test]
fn yolo_runs_unconfined_and_a_trusted_root_is_writable() {
    let ws = Ws::new();
    if !sandbox_here(&ws) {
        return;
    }
    let (_keep, out_dir) = scratch();
    let yolo = out_dir.join("yolo");
    let out = ws
        .run(&[
            "--yolo",
            "shell",
            &format!("python3 -c 'open(\"{}\", \"w\")'", yolo.display()),
        ])
        .ok();
    assert!(yolo.exists(), "{}", out.output());
    assert_eq!(out.data()["sandbox"]["filesystem"]["active"], false);
    assert_eq!(out.data()["sandbox"]["network"]["active"], false);

    ws.run(&["trust", "add", out_dir.to_str().unwrap()]).ok();
    let trusted = out_dir.join("trusted");
    let out = shell(
        &ws,
        &format!("python3 -c 'open(\"{}\", \"w\")'", trusted.display()),
    )
    .ok();
    assert!(trusted.exists(), "{}", out.output());
    assert_eq!(out.data()["sandbox"]["filesystem"]["active"], true);
    assert!(out.data()["sandbox"]["writable"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w == &Value::from(out_dir.to_str().unwrap())));
}

#[test]
fn a_script_cannot_grant_itself_anything() {
    let ws = Ws::new();
    if !sandbox_here(&ws) {
        return;
    }
    if !git_init(&ws) {
        return;
    }
    ws.write(".codesmith/config.toml", "[network]\ndefault = \"prompt\"\n");
    ws.write(".codesmith/trust.json", "[]");
    ws.write(".codesmith/approvals.json", "[]");
    let before: Vec<(String, Vec<u8>)> = [
        ".codesmith/config.toml",
        ".codesmith/trust.json",
        ".codesmith/approvals.json",
        ".git/config",
    ]
    .iter()
    .map(|p| (p.to_string(), ws.read(p)))
    .collect();
    ws.write(
        "grant.sh",
        "printf '[network]\\ndefault = \"allow\"\\n' > .codesmith/config.toml\n\
         echo '[\"/\"]' > .codesmith/trust.json\n\
         echo '[\"ap-000000000000\"]' > .codesmith/approvals.json\n\
         printf '[core]\\n\\thooksPath = /x\\n' >> .git/config\n\
         printf '#!/bin/sh\\necho planted\\n' > .git/hooks/post-commit\n\
         mv .git .git-old; mv .codesmith .codesmith-old; rm -rf .codesmith\n\
         umount .codesmith\n\
         exit 0\n",
    );
    let out = shell(&ws, "sh grant.sh").ok();
    for (path, bytes) in before {
        assert_eq!(ws.read(&path), bytes, "{path} changed: {}", out.output());
    }
    assert!(!ws.exists(".git/hooks/post-commit"), "{}", out.output());
    assert!(!ws.exists(".git-old") && !ws.exists(".codesmith-old"));
    assert!(out.output().starts_with("Sandbox: "), "{}", out.output());
    assert!(
        out.output().contains(".codesmith/config.toml"),
        "{}",
        out.output()
    );
}

#[test]
fn everyday_work_runs_confined() {
    let ws = Ws::new();
    if !sandbox_here(&ws) {
        return;
    }
    ws.write("Makefile", "all:\n\techo made > made.txt\n");
    ws.write("f.txt", "content\n");
    let out = shell(
        &ws,
        "git init -q && git add f.txt && git -c user.name=t -c user.email=t@example.com commit -qm first \
         && git log --oneline | wc -l && make -s && t=$(mktemp) && echo tmp > \"$t\" && cat \"$t\" \
         && python3 -c 'import tempfile; f = tempfile.NamedTemporaryFile(); print(\"py\", f.name.startswith(__import__(\"os\").environ[\"TMPDIR\"]))' \
         && mkdir -p build/sub && touch build/sub/o && rm -rf build && echo done",
    )
    .ok();
    assert_eq!(out.data()["exit_code"], 0, "{}", out.output());
    assert_eq!(out.data()["sandbox"]["filesystem"]["active"], true);
    assert!(out.output().contains("tmp\npy True\ndone"), "{}", out.output());
    assert_eq!(ws.read_string("made.txt"), "made\n");
    assert!(!ws.exists("build"));
    assert!(!out.output().contains("Sandbox:"), "{}", out.output());
}

#[test]
fn a_fresh_crate_builds_offline_confined() {
    let ws = Ws::new();
    if !sandbox_here(&ws) {
        return;
    }
    if std::process::Command::new("cargo")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: cargo is not on PATH");
        return;
    }
    ws.write(
        "c/Cargo.toml",
        "[package]\nname = \"fresh\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    ws.write("c/src/main.rs", "fn main() { println!(\"built and ran\"); }\n");
    // The crate builds into its own target/ in the workspace, wherever the suite's cargo builds.
    let out = ws
        .call(
            "exec_shell",
            json!({"command": "cd c && unset CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR && cargo build --offline -q && ./target/debug/fresh", "timeout_ms": 300000}),
        )
        .ok();
    assert_eq!(out.data()["exit_code"], 0, "{}", out.output());
    assert!(out.output().contains("built and ran"), "{}", out.output());
}

/// A listener on loopback that accepts one connection and answers `pong`.
fn listener() -> (u16, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let handle = std::thread::spawn(move || {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while std::time::Instant::now() < deadline {
            if let Ok((mut stream, _)) = listener.accept() {
                let _ = stream.set_nonblocking(false);
                let mut buf = [0u8; 4];
                let _ = stream.read(&mut buf);
                let _ = stream.write_all(b"pong");
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    });
    (port, handle)
}

fn connect_command(port: u16) -> String {
    format!(
        "python3 -c 'import socket; s = socket.create_connection((\"127.0.0.1\", {port})); \
         s.sendall(b\"ping\"); print(s.recv(4).decode())'"
    )
}

#[test]
fn sockets_follow_the_network_policy() {
    for (policy, connects) in [("prompt", false), ("deny", false), ("allow", true)] {
        let ws = Ws::new();
        if !sandbox_here(&ws) {
            return;
        }
        ws.write(
            ".codesmith/config.toml",
            format!("[network]\ndefault = \"{policy}\"\n"),
        );
        let (port, server) = listener();
        let out = shell(&ws, &connect_command(port)).ok();
        if connects {
            assert!(out.output().contains("pong"), "{policy}: {}", out.output());
            assert_eq!(out.data()["sandbox"]["network"]["active"], false);
            server.join().unwrap();
        } else if policy == "deny" {
            // Deny wins: the hint offers no approval, and --yolo does not open a socket.
            assert_ne!(out.data()["exit_code"], 0, "{policy}: {}", out.output());
            assert!(
                out.output()
                    .starts_with("Sandbox: the workspace's network policy denies"),
                "{}",
                out.output()
            );
            assert!(out.data().get("approval").is_none());
            let yolo = ws.run(&["--yolo", "shell", &connect_command(port)]).ok();
            assert!(!yolo.output().contains("pong"), "{}", yolo.output());
            assert_eq!(yolo.data()["sandbox"]["network"]["active"], true);
            drop(server);
        } else {
            assert_ne!(out.data()["exit_code"], 0, "{policy}: {}", out.output());
            assert!(!out.output().contains("pong"));
            assert!(
                out.output().starts_with("Sandbox: the network is off"),
                "{policy}: {}",
                out.output()
            );
            assert_eq!(out.data()["approval"]["kind"], "network");
            // The hint's approval lets this one command connect.
            let id = approval_id(&out);
            let approved = ws.run(&["--approve", &id, "shell", &connect_command(port)]).ok();
            assert!(
                approved.output().contains("pong"),
                "{policy}: {}",
                approved.output()
            );
            server.join().unwrap();
        }
    }
}

#[test]
fn unix_sockets_keep_working_with_the_network_off() {
    let ws = Ws::new();
    if !sandbox_here(&ws) {
        return;
    }
    let out = shell(
        &ws,
        "python3 -c 'import socket; a, b = socket.socketpair(); a.sendall(b\"unix\"); print(b.recv(4).decode())'",
    )
    .ok();
    assert!(out.output().contains("unix"), "{}", out.output());
    assert_eq!(out.data()["sandbox"]["network"]["active"], true);
}

#[test]
fn required_refuses_where_a_layer_is_missing_and_auto_says_so_once() {
    let ws = Ws::new();
    ws.write(".codesmith/config.toml", "[shell]\nsandbox = \"required\"\n");
    let mut cmd = ws.command(&["shell", "touch ran"]);
    cmd.env("CODESMITH_SANDBOX_UNSUPPORTED", "landlock");
    let out = Outcome::of(cmd).err("sandbox_unavailable");
    assert!(out.message().contains("landlock"), "{}", out.message());
    assert!(out.message().contains("sandbox = \"auto\""), "{}", out.message());
    assert!(!ws.exists("ran"));

    ws.write(".codesmith/config.toml", "[shell]\nsandbox = \"auto\"\n");
    for round in 0..2 {
        let mut cmd = ws.command(&["shell", "touch ran"]);
        cmd.env("CODESMITH_SANDBOX_UNSUPPORTED", "all");
        let out = Outcome::of(cmd).ok();
        assert!(ws.exists("ran"));
        assert_eq!(out.data()["sandbox"]["filesystem"]["active"], false);
        assert!(out.data()["sandbox"]["filesystem"]["why"]
            .as_str()
            .unwrap()
            .contains("CODESMITH_SANDBOX_UNSUPPORTED"));
        let told = out
            .notices()
            .iter()
            .any(|n| n.contains("without part of the kernel sandbox"));
        assert_eq!(told, round == 0, "round {round}: {:?}", out.notices());
    }
}

#[test]
fn without_landlock_the_mount_namespace_still_confines() {
    let ws = Ws::new();
    if !sandbox_here(&ws) {
        return;
    }
    let (_keep, out_dir) = scratch();
    let target = out_dir.join("mounts-only");
    let mut cmd = ws.command(&[
        "shell",
        &format!("python3 -c 'open(\"{}\", \"w\")'", target.display()),
    ]);
    cmd.env("CODESMITH_SANDBOX_UNSUPPORTED", "landlock");
    let out = Outcome::of(cmd).ok();
    assert_eq!(
        out.data()["sandbox"]["filesystem"]["by"],
        json!(["mount namespace"])
    );
    assert_eq!(out.data()["sandbox"]["state"]["active"], true);
    assert_stopped(&out, &target);
}

#[test]
fn sandbox_off_and_writable_settings() {
    let ws = Ws::new();
    if !sandbox_here(&ws) {
        return;
    }
    let (_keep, out_dir) = scratch();
    ws.write(
        ".codesmith/config.toml",
        format!(
            "[shell]\nwritable = [\"{}\", \"relative/dir\", \"/no/such/dir\"]\n",
            out_dir.display()
        ),
    );
    let target = out_dir.join("listed");
    let out = shell(
        &ws,
        &format!("python3 -c 'open(\"{}\", \"w\")'", target.display()),
    )
    .ok();
    assert!(target.exists(), "{}", out.output());
    let notices = out.notices().join("\n");
    assert!(
        notices.contains("\"relative/dir\" is not an absolute path"),
        "{notices}"
    );
    assert!(notices.contains("\"/no/such/dir\" does not exist"), "{notices}");

    ws.write(".codesmith/config.toml", "[shell]\nsandbox = \"of\"\n");
    let out = shell(&ws, "true").ok();
    assert_eq!(out.data()["sandbox"]["mode"], "required");
    assert!(out.notices().join("\n").contains("read as \"required\""));

    ws.write(".codesmith/config.toml", "[shell]\nsandbox = \"off\"\n");
    let off = out_dir.join("off");
    let out = shell(&ws, &format!("python3 -c 'open(\"{}\", \"w\")'", off.display())).ok();
    assert!(off.exists(), "{}", out.output());
    assert_eq!(out.data()["sandbox"]["filesystem"]["active"], false);
    assert!(out.data()["sandbox"]["filesystem"]["why"]
        .as_str()
        .unwrap()
        .contains("sandbox = \"off\""));
}

#[test]
fn a_failure_inside_the_workspace_gets_no_sandbox_hint() {
    let ws = Ws::new();
    if !sandbox_here(&ws) {
        return;
    }
    ws.write("locked/keep", "x");
    ws.write("script.sh", "echo hi\n");
    // Not executable: "Permission denied" on a path the command may write.
    let out = shell(&ws, "./script.sh").ok();
    assert_ne!(out.data()["exit_code"], 0);
    assert!(!out.output().contains("Sandbox:"), "{}", out.output());
    assert!(out.data().get("approval").is_none());
}

#[test]
fn a_task_cannot_rewrite_its_own_records_or_fake_its_end() {
    let ws = Ws::new();
    if !sandbox_here(&ws) {
        return;
    }
    let started = ws
        .call(
            "exec_shell",
            json!({
                "command": "python3 -c 'import os, glob\nd = sorted(glob.glob(\".codesmith/tasks/task-*\"))[-1]\nfor name in (\"pgid\", \"cursor.lock\", \"command\"):\n    try:\n        os.remove(os.path.join(d, name))\n    except OSError as e:\n        print(name, \"kept:\", e.strerror)\nopen(os.path.join(d, \"status\", \"exit\"), \"w\").write(\"0\")' && sleep 2",
                "background": true
            }),
        )
        .ok();
    let id = started.data()["task_id"].as_str().unwrap().to_string();
    let pgid = ws.read_string(&format!(".codesmith/tasks/{id}/pgid"));
    std::thread::sleep(std::time::Duration::from_millis(700));
    // The fake status does not end a task whose shell still runs.
    let early = ws.call("task_output", json!({"task_id": id})).ok();
    assert_eq!(early.data()["status"], "running", "{}", early.output());
    let waited = ws.call("task_wait", json!({"task_id": id})).ok();
    assert_eq!(waited.data()["status"], "exited", "{}", waited.output());
    assert_eq!(ws.read_string(&format!(".codesmith/tasks/{id}/pgid")), pgid);
    assert!(ws.exists(&format!(".codesmith/tasks/{id}/command")));
}

#[test]
fn a_planted_git_redirection_is_removed_after_the_command() {
    let ws = Ws::new();
    if !sandbox_here(&ws) {
        return;
    }
    if !git_init(&ws) {
        return;
    }
    let out = shell(
        &ws,
        "mkdir -p evil/hooks && python3 -c 'open(\".git/commondir\", \"w\").write(\"../evil\")'",
    )
    .ok();
    assert!(!ws.exists(".git/commondir"), "{}", out.output());
    assert!(
        out.output()
            .starts_with("Sandbox: the command created `.git/commondir`"),
        "{}",
        out.output()
    );
}

#[test]
fn a_confined_command_cannot_signal_processes_outside() {
    let ws = Ws::new();
    if !sandbox_here(&ws) {
        return;
    }
    let mut victim = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .expect("sleep");
    let out = shell(&ws, &format!("kill -9 {}; echo rc=$?", victim.id())).ok();
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(
        victim.try_wait().unwrap().is_none(),
        "the process outside was killed: {}",
        out.output()
    );
    let _ = victim.kill();
    let _ = victim.wait();
    // Its own children it can signal.
    let own = shell(&ws, "sleep 30 & kill $! && wait $!; echo rc=$?").ok();
    assert!(own.output().contains("rc=143"), "{}", own.output());
}

#[test]
fn a_refusal_after_a_cd_inside_the_command_still_gets_a_hint() {
    let ws = Ws::new();
    if !sandbox_here(&ws) {
        return;
    }
    let (_keep, out_dir) = scratch();
    let out = shell(
        &ws,
        &format!(
            "cd {} && python3 -c 'open(\"relative\", \"w\")'",
            out_dir.display()
        ),
    )
    .ok();
    assert!(!out_dir.join("relative").exists());
    assert!(out.output().starts_with("Sandbox: "), "{}", out.output());
}

#[test]
fn a_git_redirection_planted_by_a_lingering_process_is_removed_by_the_next_command() {
    let ws = Ws::new();
    if !sandbox_here(&ws) || !git_init(&ws) {
        return;
    }
    let first = shell(
        &ws,
        "(sleep 1; python3 -c 'open(\".git/commondir\", \"w\").write(\"../evil\")') >/dev/null 2>&1 & echo left",
    )
    .ok();
    assert!(!first.output().contains("Sandbox:"), "{}", first.output());
    if first.data()["sandbox"]["processes"]["active"] == true {
        // The lingering process ended with the command that started it: nothing is planted.
        std::thread::sleep(std::time::Duration::from_millis(1500));
        assert!(!ws.exists(".git/commondir"));
        // The subshell, and its `sleep` once it has forked it.
        let stopped = first.data()["background_stopped"].as_u64().unwrap_or(0);
        assert!((1..=2).contains(&stopped), "{}", first.output());
        return;
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !ws.exists(".git/commondir") && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let next = shell(&ws, "true").ok();
    assert!(!ws.exists(".git/commondir"), "{}", next.output());
    assert!(
        next.output().starts_with("Sandbox: an earlier command"),
        "{}",
        next.output()
    );
}

#[test]
fn a_relative_name_in_a_refusal_is_read_from_where_the_command_ended() {
    let ws = Ws::new();
    if !sandbox_here(&ws) {
        return;
    }
    let (_keep, out_dir) = scratch();
    ws.mkdir("a/b");
    // From a/b, `../../..` is the workspace's parent; the name leads into the scratch dir.
    let rel = format!("../../../{}/rel", out_dir.file_name().unwrap().to_str().unwrap());
    let sibling = ws.path().parent().unwrap().join(out_dir.file_name().unwrap());
    if sibling != out_dir {
        eprintln!("skipped: the scratch dir is not a sibling of the workspace");
        return;
    }
    let out = shell(&ws, &format!("cd a/b && touch {rel}")).ok();
    assert!(!out_dir.join("rel").exists());
    assert!(
        out.output().contains(&out_dir.join("rel").display().to_string()),
        "{}",
        out.output()
    );
}
