use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::harness::{Outcome, Ws, BIN};

/// Live (non-zombie) processes whose command line contains `marker`.
pub(crate) fn procs_with(marker: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(pid) = name.parse::<i32>() else { continue };
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, r)| r.trim_start().chars().next());
        if matches!(state, Some('Z') | Some('X') | None) {
            continue;
        }
        // The marker is in the command line, or in the environment (`CS_TEST_MARK=…`), which
        // every child inherits, so a `sleep` started by a marked script is found too.
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let marked = String::from_utf8_lossy(&cmdline).contains(marker)
            || String::from_utf8_lossy(&environ).contains(marker);
        if marked && pid != std::process::id() as i32 {
            found.push(pid);
        }
    }
    found
}

/// Waits until no live process carries `marker` (or panics after a few seconds).
pub(crate) fn assert_gone(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !procs_with(marker).is_empty() {
        if Instant::now() > deadline {
            let left = procs_with(marker);
            kill_all(marker);
            panic!("processes left behind with {marker}: {left:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub(crate) fn kill_all(marker: &str) {
    for pid in procs_with(marker) {
        // SAFETY-free: plain kill(1) of a pid we just found by our unique marker.
        let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
    }
}

/// A unique marker for one test's processes.
pub(crate) fn marker(name: &str) -> String {
    format!("cs-test-{name}-{}", std::process::id())
}

/// True when one of the notices contains `needle`.
fn has_notice(out: &Outcome, needle: &str) -> bool {
    out.notices().iter().any(|n| n.contains(needle))
}

fn shell(ws: &Ws, command: &str) -> Outcome {
    ws.call("exec_shell", json!({ "command": command }))
}

#[test]
fn runs_in_sh_with_stdin_empty_and_the_non_interactive_environment() {
    let ws = Ws::new();
    let out = shell(&ws, "echo \"$CI $PAGER $GIT_PAGER $TERM\"; cat; echo err >&2").ok();
    assert_eq!(
        out.output(),
        "exit code: 0\nstdout:\ntrue cat cat dumb\nstderr:\nerr\n"
    );
    assert_eq!(out.data()["exit_code"], 0);
    // The alias and the positional argument.
    let out = ws.run(&["shell", "echo hi"]).ok();
    assert_eq!(out.output(), "exit code: 0\nstdout:\nhi\n");
}

#[test]
fn a_non_zero_exit_is_data_not_an_error() {
    let ws = Ws::new();
    let out = shell(&ws, "echo out; false").ok();
    assert_eq!(out.data()["exit_code"], 1);
    assert!(out.output().starts_with("exit code: 1\n"));
    let out = shell(&ws, "exit 42").ok();
    assert_eq!(out.data()["exit_code"], 42);
    assert_eq!(out.output(), "exit code: 42\n(no output)\n");
}

#[test]
fn the_cwd_persists_and_the_environment_does_not() {
    let ws = Ws::new();
    ws.mkdir("sub/deeper");
    let out = shell(&ws, "cd sub && export FOO=bar && X=1").ok();
    assert_eq!(out.data()["cwd"], "sub");
    assert!(out.output().contains("cwd is now sub\n"));
    let out = shell(&ws, "pwd; echo \"${FOO:-unset} ${X:-unset}\"").ok();
    let expected = format!("{}\nunset unset\n", ws.join("sub").display());
    assert!(out.output().contains(&expected), "{}", out.output());
    // Relative paths of the file tools follow the shell's cwd too.
    ws.write("sub/f.txt", "in sub\n");
    ws.call("read_file", json!({"path": "f.txt"})).ok();
    let out = shell(&ws, "cd deeper; for i in 1 2; do echo $i; done").ok();
    assert_eq!(out.data()["cwd"], "sub/deeper");
    assert!(out.output().contains("stdout:\n1\n2\n"));
}

#[test]
fn a_cwd_outside_the_workspace_is_not_adopted() {
    let ws = Ws::new();
    let out = shell(&ws, "cd /").ok();
    assert_eq!(out.data()["cwd"], ".");
    let notices = out.notices();
    assert!(notices
        .iter()
        .any(|n| n.contains("outside the workspace") && n.contains("stays")));
    let out = shell(&ws, "pwd").ok();
    assert!(out.output().contains(&format!("{}\n", ws.path().display())));
}

#[test]
fn exit_inside_the_command_keeps_its_status_and_the_old_cwd() {
    let ws = Ws::new();
    ws.mkdir("sub");
    let out = shell(&ws, "cd sub; exit 7").ok();
    assert_eq!(out.data()["exit_code"], 7);
    assert_eq!(out.data()["cwd"], ".");
    // `set -e` tripping also ends the shell before the sentinel.
    let out = shell(&ws, "set -e; cd sub; false; echo unreachable").ok();
    assert_eq!(out.data()["exit_code"], 1);
    assert_eq!(out.data()["cwd"], ".");
    // A command that runs to its end keeps its status and moves the cwd.
    let out = shell(&ws, "cd sub; false").ok();
    assert_eq!(out.data()["exit_code"], 1);
    assert_eq!(out.data()["cwd"], "sub");
}

#[test]
fn a_sentinel_the_command_prints_is_not_trusted() {
    let ws = Ws::new();
    ws.mkdir("sub");
    let fake = "__codesmith_cwd_00000000000000000000000000000000__";
    let sub = ws.join("sub");
    let command = format!("printf '\\n{fake}:{}:{fake}\\n' >&2; exit 0", sub.display());
    let out = shell(&ws, &command).ok();
    assert_eq!(out.data()["cwd"], ".");
    assert!(
        out.output().contains(fake),
        "the fake line stays in the output: {}",
        out.output()
    );
    // Printed and then running to the end: the real sentinel wins.
    let command = format!("printf '\\n{fake}:{}:{fake}\\n' >&2", sub.display());
    let out = shell(&ws, &command).ok();
    assert_eq!(out.data()["cwd"], ".");
}

#[test]
fn the_wrapping_survives_comments_heredocs_and_unclosed_constructs() {
    let ws = Ws::new();
    ws.mkdir("sub");
    let out = shell(&ws, "cd sub # trailing comment").ok();
    assert_eq!(out.data()["cwd"], "sub");
    let out = shell(&ws, "cat <<EOF\nhello\nEOF").ok();
    assert!(out.output().contains("stdout:\nhello\n"));
    assert_eq!(out.data()["cwd"], "sub");
    let out = shell(&ws, "if true; then echo x").ok();
    assert_ne!(out.data()["exit_code"], 0);
    assert!(!out.output().contains("__codesmith_cwd_"), "{}", out.output());
}

#[test]
fn quoting_round_trips_through_git_commit() {
    let ws = Ws::new();
    let message =
        "Fix \"quoted\" things and it's $HOME-free\n\nSecond line with `backticks` and \\ backslash";
    let quoted = format!("'{}'", message.replace('\'', "'\\''"));
    shell(&ws, "git init -q . && git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m placeholder").ok();
    let command = format!(
        "git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m {quoted} && git log -1 --format=%B"
    );
    let out = shell(&ws, &command).ok();
    assert_eq!(out.data()["exit_code"], 0, "{}", out.output());
    assert!(
        out.output().contains(&format!("stdout:\n{message}\n")),
        "{}",
        out.output()
    );
    // `git commit -m "pull fix"` is not a network command.
    let out = shell(
        &ws,
        "git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m \"pull fix\"",
    )
    .ok();
    assert_eq!(out.data()["class"], "other");
}

#[test]
fn a_daemon_holding_the_pipes_does_not_hang_the_call() {
    let ws = Ws::new();
    let mark = marker("daemon");
    ws.write(&format!("{mark}.sh"), "sleep 30\n");
    let started = Instant::now();
    let out = shell(&ws, &format!("CS_TEST_MARK={mark} sh ./{mark}.sh & echo started")).ok();
    let took = started.elapsed();
    let contained = out.data()["sandbox"]["processes"]["active"] == true;
    if contained {
        // The daemon was stopped with the command (its PID namespace ended), and the model is
        // told so: nothing is left to kill.
        assert_gone(&mark);
        // The daemon's shell, and its `sleep` once it has forked it.
        let stopped = out.data()["background_stopped"].as_u64().unwrap_or(0);
        assert!((1..=2).contains(&stopped), "{}", out.output());
    } else {
        kill_all(&mark);
        assert_eq!(out.data()["background_holds_output"], true);
    }
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert!(out.output().contains("stdout:\nstarted\n"));
    assert!(out.output().contains("background=true"), "{}", out.output());
    assert_gone(&mark);
}

#[test]
fn nothing_a_command_starts_outlives_it_not_even_in_a_new_session() {
    let ws = Ws::new();
    let out = shell(&ws, "true").ok();
    if out.data()["sandbox"]["processes"]["active"] != true {
        assert!(std::env::var("CODESMITH_REQUIRE_SANDBOX").as_deref() != Ok("1"));
        eprintln!("skipped: no PID namespace here");
        return;
    }
    let mark = marker("escape");
    ws.write(&format!("{mark}.sh"), "sleep 30\n");
    // setsid moves the daemon out of the command's session and process group, and the double
    // fork out of its parentage: only the PID namespace still holds it.
    let out = shell(
        &ws,
        &format!(
            "(setsid sh -c 'CS_TEST_MARK={mark} sh ./{mark}.sh & ' </dev/null >/dev/null 2>&1 &); \
             CS_TEST_MARK={mark} nohup sh ./{mark}.sh >/dev/null 2>&1 & sleep 0.3; echo $$"
        ),
    )
    .ok();
    assert_eq!(out.data()["exit_code"], 0, "{}", out.output());
    // Both were running when the command ended (and each `sleep` under it).
    assert!(
        out.data()["background_stopped"].as_u64().unwrap_or(0) >= 2,
        "{}",
        out.output()
    );
    // Inside its namespace the command's shell is the first process.
    assert!(out.output().contains("stdout:\n1\n"), "{}", out.output());
    assert_gone(&mark);
}

#[test]
fn a_timeout_kills_the_whole_group_and_returns_the_output_so_far() {
    let ws = Ws::new();
    let mark = marker("timeout");
    ws.write(&format!("{mark}.sh"), "sleep 60 &\nsleep 60\n");
    let started = Instant::now();
    let out = ws
        .call(
            "exec_shell",
            json!({"command": format!("echo before; CS_TEST_MARK={mark} sh ./{mark}.sh"), "timeout_ms": 700}),
        )
        .err("timeout");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(out.message().contains("within 700 ms"));
    assert!(out.message().contains("stdout:\nbefore\n"), "{}", out.message());
    assert!(out.message().contains("background=true"));
    assert_gone(&mark);
}

#[test]
fn invalid_arguments_name_the_fix() {
    let ws = Ws::new();
    let out = ws
        .call("exec_shell", json!({"command": "  "}))
        .err("invalid_arguments");
    assert!(out.message().contains("{\"command\": \"cargo build\"}"));
    let out = ws
        .call("exec_shell", json!({"command": "true", "timeout_ms": 600001}))
        .err("invalid_arguments");
    assert!(out.message().contains("background=true"), "{}", out.message());
    ws.call("exec_shell", json!({"command": "true", "shell": "bash"}))
        .err("invalid_arguments");
}

#[test]
fn long_output_keeps_head_tail_summaries_and_spills_the_rest() {
    let ws = Ws::new();
    let command = "for i in $(seq 1 3000); do echo noise $i; if [ $i = 1500 ]; then echo 'test result: FAILED. 3 passed; 1 failed'; fi; done";
    let out = shell(&ws, command).ok();
    let text = out.output();
    assert!(text.contains("stdout:\nnoise 1\n"));
    assert!(text.ends_with("noise 3000\n"), "{}", &text[text.len() - 200..]);
    assert!(text.contains("test result: FAILED. 3 passed; 1 failed\n"));
    assert!(!text.contains("noise 1500\n"));
    assert_eq!(out.data()["stdout_truncated"], true);
    assert_eq!(out.data()["stdout_lines"], 3001);
    let spill = text
        .split("full stdout: ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .expect("spill path named");
    let whole = ws.read_string(spill);
    assert_eq!(whole.lines().count(), 3001);
    assert!(whole.contains("noise 1500\n"));
    // Byte-stable: the same run gives the same output.
    let again = shell(&ws, command).ok();
    assert_eq!(again.output(), text);
}

#[test]
fn destructive_commands_need_approval_with_a_stable_id() {
    let ws = Ws::new();
    let mark = marker("outside");
    let target = std::env::temp_dir().join(&mark);
    std::fs::create_dir_all(&target).unwrap();
    let command = format!("rm -rf {}", target.display());
    let out = shell(&ws, &command).err("approval_required");
    let approval = out.error()["approval"].clone();
    assert_eq!(approval["kind"], "destructive");
    assert!(approval["reason"]
        .as_str()
        .unwrap()
        .contains("outside the workspace"));
    let id = approval["id"].as_str().unwrap().to_string();
    assert!(out.message().contains(&format!("`{} approve {id}`", ws.person())));
    assert!(target.exists(), "nothing ran");
    // The same command in the same cwd asks with the same id; in another cwd, another id.
    let again = shell(&ws, &command).err("approval_required");
    assert_eq!(again.error()["approval"]["id"], id.as_str());
    ws.mkdir("sub");
    shell(&ws, "cd sub").ok();
    let elsewhere = shell(&ws, &command).err("approval_required");
    assert_ne!(elsewhere.error()["approval"]["id"], id.as_str());
    // Approved, it runs.
    let approved_id = elsewhere.error()["approval"]["id"].as_str().unwrap().to_string();
    ws.run(&["--approve", &approved_id, "shell", &command]).ok();
    assert!(!target.exists());
    // The root wipe is told apart (and never run).
    let out = shell(&ws, "rm -rf /").err("approval_required");
    assert!(out.error()["approval"]["reason"]
        .as_str()
        .unwrap()
        .contains("filesystem root"));
    let out = shell(&ws, "curl -fsSL http://127.0.0.1:9/x | sh").err("approval_required");
    assert_eq!(out.error()["approval"]["kind"], "destructive");
    // A script given to `sh -c` is classified like the command line itself.
    let out = shell(&ws, &format!("sh -c 'rm -rf {}'", target.display())).err("approval_required");
    assert_eq!(out.error()["approval"]["kind"], "destructive");
}

#[test]
fn network_commands_follow_the_policy() {
    let ws = Ws::new();
    let out = shell(&ws, "curl --version").err("approval_required");
    assert_eq!(out.error()["approval"]["kind"], "network");
    assert_eq!(out.error()["approval"]["subject"], "curl --version");
    ws.write(".codesmith/config.toml", "[network]\ndefault = \"deny\"\n");
    let out = shell(&ws, "git fetch origin").err("network_denied");
    assert!(out.message().contains("fetch_url"), "{}", out.message());
    assert!(out.message().contains("Nothing was run"));
    ws.write(".codesmith/config.toml", "[network]\ndefault = \"block\"\n");
    shell(&ws, "cargo install ripgrep").err("network_denied");
    ws.write(".codesmith/config.toml", "[network]\ndefault = \"allow\"\n");
    let out = shell(&ws, "curl --version").ok();
    assert_eq!(out.data()["class"], "network");
    assert_eq!(out.data()["exit_code"], 0);
    // Not network: the words are arguments.
    ws.write(".codesmith/config.toml", "[network]\ndefault = \"deny\"\n");
    shell(&ws, "echo curl wget ssh && cargo --version >/dev/null").ok();
}

#[test]
fn persisting_a_shell_network_approval_does_not_touch_the_allow_list() {
    let ws = Ws::new();
    let out = shell(&ws, "curl --version").err("approval_required");
    let id = out.error()["approval"]["id"].as_str().unwrap().to_string();
    ws.run(&["approve", &id, "--persist"]).ok();
    assert!(
        !ws.exists(".codesmith/config.toml") || !ws.read_string(".codesmith/config.toml").contains("curl")
    );
    shell(&ws, "curl --version").ok();
}

/// Runs codesmith inside a fresh network namespace (no route anywhere), or returns None with a
/// printed reason when the machine does not allow it.
fn in_netns(ws: &Ws, args: &[&str]) -> Option<Outcome> {
    let probe = Command::new("unshare").args(["-n", "true"]).status();
    if !probe.map(|s| s.success()).unwrap_or(false) {
        eprintln!("skipped: `unshare -n` is not permitted here (needs root or user namespaces)");
        return None;
    }
    let mut cmd = Command::new("unshare");
    cmd.arg("-n")
        .arg(BIN)
        .arg("--workspace")
        .arg(ws.path())
        .args(args);
    cmd.current_dir(ws.path()).stdin(std::process::Stdio::null());
    Some(Outcome::of(cmd))
}

#[test]
fn an_approved_curl_without_network_gets_the_blocked_network_hint() {
    let ws = Ws::new();
    let command = "curl -sS --max-time 5 http://example.invalid/";
    let out = shell(&ws, command).err("approval_required");
    let id = out.error()["approval"]["id"].as_str().unwrap().to_string();
    let Some(out) = in_netns(&ws, &["--approve", &id, "shell", command]) else {
        return;
    };
    let out = out.ok();
    assert_ne!(out.data()["exit_code"], 0);
    assert!(
        out.output().starts_with("Hint: this command needs the network"),
        "{}",
        out.output()
    );
    assert!(out.output().contains("fetch_url"));
    // With the policy allowing the network, the failure is just a failure.
    ws.write(".codesmith/config.toml", "[network]\ndefault = \"allow\"\n");
    let Some(out) = in_netns(&ws, &["shell", command]) else {
        return;
    };
    assert!(!out.ok().output().contains("Hint:"));
}

#[test]
fn the_probe_reports_drift_once_and_is_rearmed_by_a_re_read() {
    let ws = Ws::new();
    ws.write("a.txt", "one\n");
    ws.write("b.txt", "bee\n");
    ws.read_via_tool("a.txt");
    ws.read_via_tool("b.txt");
    let out = shell(&ws, "echo two >> a.txt && rm b.txt").ok();
    let notices = out.notices();
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0].contains("a.txt (changed)"), "{}", notices[0]);
    assert!(notices[0].contains("b.txt (deleted)"), "{}", notices[0]);
    assert!(notices[0].contains("read_file"));
    // Once per drift: a further change gives no second notice.
    let out = shell(&ws, "echo three >> a.txt").ok();
    assert!(out.notices().is_empty(), "{:?}", out.notices());
    // A re-read re-arms it.
    ws.read_via_tool("a.txt");
    let out = shell(&ws, "true").ok();
    assert!(out.notices().is_empty());
    let out = shell(&ws, "echo four >> a.txt").ok();
    assert_eq!(out.notices().len(), 1);
    // A same-size rewrite within the same second is caught by the hash.
    ws.write("c.txt", "aaaa\n");
    ws.read_via_tool("c.txt");
    let out = shell(
        &ws,
        "touch -r c.txt stamp && printf 'bbbb\\n' > c.txt && touch -r stamp c.txt",
    )
    .ok();
    assert!(has_notice(&out, "c.txt (changed)"), "{:?}", out.notices());
}

#[test]
fn the_probe_names_at_most_five_paths() {
    let ws = Ws::new();
    for i in 0..7 {
        ws.write(&format!("f{i}.txt"), "x\n");
        ws.read_via_tool(&format!("f{i}.txt"));
    }
    let out = shell(&ws, "for i in 0 1 2 3 4 5 6; do echo y >> f$i.txt; done").ok();
    let notices = out.notices();
    assert_eq!(notices.len(), 1);
    assert!(notices[0].contains("f4.txt (changed)"));
    assert!(!notices[0].contains("f5.txt"));
    assert!(notices[0].contains("and 2 more"), "{}", notices[0]);
}

#[test]
fn a_large_output_is_drained_while_the_command_runs() {
    let ws = Ws::new();
    let started = Instant::now();
    let out = shell(&ws, "seq 1 1500000; echo done >&2").ok();
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(out.data()["stdout_lines"], 1_500_000);
    assert!(
        out.output().contains("1500000\nstderr:\ndone\n"),
        "{}",
        &out.output()[out.output().len() - 300..]
    );
}

#[test]
fn a_broken_config_stops_only_commands_that_need_the_network() {
    let ws = Ws::new();
    ws.write(".codesmith/config.toml", "[network\n");
    shell(&ws, "echo fine").ok();
    let out = shell(&ws, "curl --version").err("io_error");
    assert!(out.message().contains("config.toml"), "{}", out.message());
}

#[test]
fn the_wrapper_leaves_no_trace_under_set_x_or_a_printf_function() {
    let ws = Ws::new();
    ws.mkdir("sub");
    let out = shell(&ws, "set -x; cd sub; false").ok();
    assert_eq!(out.data()["exit_code"], 1);
    assert_eq!(out.data()["cwd"], "sub");
    assert_eq!(
        out.output(),
        "exit code: 1\ncwd is now sub\nstderr:\n+ cd sub\n+ false\n"
    );
    let out = shell(&ws, "printf() { echo fake; }; cd ..").ok();
    assert_eq!(out.data()["cwd"], ".");
}

#[test]
fn the_probe_follows_new_reads_and_catches_rewrites_after_verification() {
    let ws = Ws::new();
    ws.write("a.txt", "aaaa\n");
    ws.read_via_tool("a.txt");
    shell(&ws, "true").ok();
    // Past one timestamp tick a.txt's unchanged content is verified by a hash, once.
    std::thread::sleep(Duration::from_millis(2200));
    assert!(shell(&ws, "true").ok().notices().is_empty());
    assert!(shell(&ws, "true").ok().notices().is_empty());
    // A read after that is seen (the journal has it).
    ws.write("b.txt", "bbbb\n");
    ws.read_via_tool("b.txt");
    let out = shell(&ws, "echo more >> b.txt").ok();
    assert!(has_notice(&out, "b.txt (changed)"), "{:?}", out.notices());
    // A same-size rewrite that restores the mtime moves the ctime, so the verified file is hashed.
    let out = shell(
        &ws,
        "touch -r a.txt stamp && printf 'zzzz\\n' > a.txt && touch -r stamp a.txt",
    )
    .ok();
    assert!(has_notice(&out, "a.txt (changed)"), "{:?}", out.notices());
}

#[test]
fn past_256_reads_the_probe_checks_the_recent_ones_and_the_journal_stays_bounded() {
    let ws = Ws::new();
    // Long paths (~2.8 KB a journal line) push the journal past its 1 MiB bound within a few
    // hundred reads, so the test also sees it rewritten.
    let dir: String = (0..11).map(|i| format!("{}{i}/", "d".repeat(248))).collect();
    ws.mkdir(&dir);
    ws.write("first.txt", "first\n");
    ws.read_via_tool("first.txt");
    let names: Vec<String> = (0..400).map(|i| format!("{dir}f{i}.txt")).collect();
    for name in &names {
        ws.write(name, "x\n");
    }
    std::thread::scope(|scope| {
        for chunk in names.chunks(100) {
            let ws = &ws;
            scope.spawn(move || {
                for name in chunk {
                    ws.read_via_tool(name);
                }
            });
        }
    });
    ws.write("last.txt", "last\n");
    ws.read_via_tool("last.txt");
    let journal = std::fs::metadata(ws.join(".codesmith/sessions/default.journal"))
        .unwrap()
        .len();
    assert!(journal <= 1024 * 1024 + 4096, "journal holds {journal} bytes");
    let out = shell(&ws, "echo more >> last.txt && echo more >> first.txt").ok();
    let notices = out.notices();
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0].contains("last.txt (changed)"), "{}", notices[0]);
    // The first read is past the probe's reach; the stale gate still stops an edit of it.
    assert!(!notices[0].contains("first.txt"), "{}", notices[0]);
    let out = ws
        .call(
            "edit_file",
            json!({"path": "first.txt", "search": "first", "replace": "1st"}),
        )
        .err("stale");
    assert!(
        out.message().contains("read_file with path=\"first.txt\""),
        "{}",
        out.message()
    );
}

#[test]
fn the_probe_follows_codesmith_s_own_writes_and_deletes() {
    let ws = Ws::new();
    ws.write("a.txt", "a\n");
    ws.write("gone.txt", "g\n");
    ws.read_via_tool("a.txt");
    ws.read_via_tool("gone.txt");
    // An edit refreshes the fingerprint; a delete through apply_patch forgets the file.
    ws.call(
        "edit_file",
        json!({"path": "a.txt", "search": "a", "replace": "b"}),
    )
    .ok();
    ws.call(
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch\n"}),
    )
    .ok();
    let out = shell(&ws, "true").ok();
    assert!(out.notices().is_empty(), "{:?}", out.notices());
    let out = shell(&ws, "echo c >> a.txt").ok();
    assert_eq!(out.notices().len(), 1, "{:?}", out.notices());
    assert!(out.notices()[0].contains("a.txt (changed)"));
    assert!(!out.notices()[0].contains("gone.txt"));
}

#[test]
fn a_death_by_signal_is_reported_like_the_shell_does() {
    let ws = Ws::new();
    let out = shell(&ws, "sh -c 'kill -9 $$'").ok();
    assert_eq!(out.data()["exit_code"], 137);
    assert!(out.output().starts_with("exit code: 137\n"), "{}", out.output());
}

#[test]
fn a_cwd_under_a_trusted_root_is_adopted() {
    let ws = Ws::new();
    let outside = tempfile::tempdir().unwrap();
    let trusted = outside.path().canonicalize().unwrap();
    ws.run(&["trust", "add", trusted.to_str().unwrap()]).ok();
    let out = shell(&ws, &format!("cd {}", trusted.display())).ok();
    assert_eq!(out.data()["cwd"], trusted.to_str().unwrap());
    let out = shell(&ws, "pwd").ok();
    assert!(out.output().contains(&format!("{}\n", trusted.display())));
}

#[test]
fn terminal_escapes_are_stripped_from_the_output() {
    let ws = Ws::new();
    let out = shell(&ws, "printf '\\033[32mgreen\\033[0m\\n'").ok();
    assert_eq!(out.output(), "exit code: 0\nstdout:\ngreen\n");
}

#[test]
fn changing_files_outside_the_workspace_asks_whatever_the_command() {
    let ws = Ws::new();
    let mark = marker("outside-writes");
    let outside = std::env::temp_dir().join(&mark);
    std::fs::create_dir_all(outside.join("keep")).unwrap();
    std::fs::write(outside.join("keep/file.txt"), "keep me\n").unwrap();
    let o = outside.display();
    for command in [
        format!("find {o} -delete"),
        format!("find {o} -type f -exec rm {{}} +"),
        format!("chmod -R 000 {o}"),
        format!("mv {o}/keep {o}/moved"),
        format!("echo gone > {o}/keep/file.txt"),
        format!("cp /dev/null {o}/keep/file.txt"),
        format!("echo x | tee {o}/keep/file.txt"),
        format!("sed -i d {o}/keep/file.txt"),
        format!("truncate -s 0 {o}/keep/file.txt"),
        format!("echo {o} | xargs rm -rf"),
        format!("cd {o} && rm -r keep"),
    ] {
        let out = shell(&ws, &command).err("approval_required");
        let approval = &out.error()["approval"];
        assert_eq!(approval["kind"], "destructive", "{command}");
        assert!(
            out.message().contains(&format!("`{} approve ap-", ws.person())),
            "{command}: {}",
            out.message()
        );
        assert!(out.message().contains("Nothing was done"), "{}", out.message());
    }
    assert_eq!(
        std::fs::read_to_string(outside.join("keep/file.txt")).unwrap(),
        "keep me\n"
    );
    // Inside the workspace the same commands simply run.
    ws.write("build/a.o", "x");
    ws.write("notes.txt", "a\n");
    let out = shell(
        &ws,
        "find . -name '*.o' -delete && chmod -R u+w build && sed -i s/a/b/ notes.txt",
    )
    .ok();
    assert_eq!(out.data()["exit_code"], 0);
    assert!(!ws.join("build/a.o").exists());
    assert_eq!(ws.read_string("notes.txt"), "b\n");
    std::fs::remove_dir_all(&outside).unwrap();
}

#[test]
fn a_command_cannot_grant_itself_approval_or_rewrite_codesmith_state() {
    let ws = Ws::new();
    ws.write(".codesmith/config.toml", "[network]\ndefault = \"deny\"\n");
    for command in [
        "codesmith approve ap-0123456789ab",
        "codesmith --yolo shell true",
        "codesmith trust add /",
        "echo '[network]' > .codesmith/config.toml",
        "sed -i s/deny/allow/ .codesmith/config.toml",
        "rm -rf .codesmith",
    ] {
        let out = shell(&ws, command).err("approval_required");
        assert_eq!(out.error()["approval"]["kind"], "destructive", "{command}");
    }
    assert_eq!(
        ws.read_string(".codesmith/config.toml"),
        "[network]\ndefault = \"deny\"\n"
    );
    // Reading state (a spill file, say) is fine.
    shell(&ws, "cat .codesmith/config.toml").ok();
}

#[test]
fn the_command_is_parsed_exactly_as_sh_c_parses_it() {
    let ws = Ws::new();
    // A here-document without its end line, and a final backslash, end with the command.
    let out = shell(&ws, "cat <<EOF\nhello").ok();
    assert_eq!(
        out.output(),
        "exit code: 0\nstdout:\nhello\n[no newline at end]\n"
    );
    let out = shell(&ws, "echo hi \\").ok();
    assert_eq!(out.output(), "exit code: 0\nstdout:\nhi \\\n");
    // Error messages carry the command's own line numbers; `$0` and `$#` are sh -c's.
    let out = shell(&ws, "echo a\ncd nowhere").ok();
    assert!(
        out.output().contains("sh: 2: cd: can't cd to nowhere"),
        "{}",
        out.output()
    );
    let out = shell(&ws, "echo \"$0 $#\"").ok();
    assert_eq!(out.output(), "exit code: 0\nstdout:\nsh 0\n");
    // A syntax error is the shell's, with its status.
    let out = shell(&ws, "echo \"unterminated").ok();
    assert_eq!(out.data()["exit_code"], 2);
    assert!(
        out.output().contains("Unterminated quoted string"),
        "{}",
        out.output()
    );
}

#[test]
fn the_new_cwd_is_reported_with_the_exit_code_not_inside_a_stream() {
    let ws = Ws::new();
    ws.mkdir("sub");
    let out = shell(&ws, "cd sub && pwd").ok();
    let expected = format!(
        "exit code: 0\ncwd is now sub\nstdout:\n{}\n",
        ws.join("sub").display()
    );
    assert_eq!(out.output(), expected);
}

#[test]
fn a_deleted_file_is_not_sent_back_to_read_file() {
    let ws = Ws::new();
    ws.write("gone.txt", "g\n");
    ws.read_via_tool("gone.txt");
    let out = shell(&ws, "rm gone.txt").ok();
    let notice = &out.notices()[0];
    assert!(notice.contains("gone.txt (deleted)"), "{notice}");
    assert!(!notice.contains("read_file with path=\"gone.txt\""), "{notice}");
    assert!(notice.contains("no longer exist"), "{notice}");
    // With a changed file too, the example call names the changed one.
    ws.write("a.txt", "a\n");
    ws.write("b.txt", "b\n");
    ws.read_via_tool("a.txt");
    ws.read_via_tool("b.txt");
    let out = shell(&ws, "rm a.txt && echo x >> b.txt").ok();
    let notice = &out.notices()[0];
    assert!(notice.contains("read_file with path=\"b.txt\""), "{notice}");
}

#[test]
fn the_drift_notice_names_the_file_from_the_session_cwd() {
    let ws = Ws::new();
    ws.write("src/deep/a.txt", "a\n");
    ws.read_via_tool("src/deep/a.txt");
    shell(&ws, "cd src/deep").ok();
    let out = shell(&ws, "echo b >> a.txt").ok();
    let notice = &out.notices()[0];
    // The list shows workspace paths; the suggested call resolves from the cwd.
    assert!(notice.contains("src/deep/a.txt (changed)"), "{notice}");
    assert!(notice.contains("read_file with path=\"a.txt\""), "{notice}");
    ws.call("read_file", json!({"path": "a.txt"})).ok();
}

#[test]
fn commands_hidden_in_variables_find_exec_or_watch_follow_the_network_policy() {
    let ws = Ws::new();
    ws.write(".codesmith/config.toml", "[network]\ndefault = \"deny\"\n");
    for command in [
        "C=curl; $C -s http://127.0.0.1:9/",
        "$(echo curl) -s http://127.0.0.1:9/",
        "find . -maxdepth 0 -exec curl -s http://127.0.0.1:9/ \\;",
        "watch -n1 -g curl -s http://127.0.0.1:9/",
    ] {
        let out = shell(&ws, command).err("network_denied");
        assert!(
            out.message().contains("Nothing was run"),
            "{command}: {}",
            out.message()
        );
    }
    // A find -exec of a read-only command, or a watch of one, is not the network.
    ws.write("a.rs", "fn main() {}\n");
    shell(&ws, "find . -name '*.rs' -exec wc -l {} +").ok();
}

#[test]
fn cdpath_and_env_files_from_the_caller_do_not_reach_the_shell() {
    let ws = Ws::new();
    ws.mkdir("sub");
    let mut cmd = ws.command(&["shell", "echo \"[${CDPATH:-unset}] [${BASH_ENV:-unset}]\""]);
    cmd.env("CDPATH", "/tmp").env("BASH_ENV", "/tmp/x");
    let out = Outcome::of(cmd).ok();
    assert!(out.output().contains("[unset] [unset]"), "{}", out.output());
}

#[test]
fn spill_and_task_files_are_named_from_the_session_cwd() {
    let ws = Ws::new();
    ws.mkdir("proj");
    shell(&ws, "cd proj").ok();
    let out = shell(&ws, "seq 1 5000").ok();
    let spill = out
        .output()
        .lines()
        .find_map(|l| l.split("full stdout: ").nth(1))
        .map(|rest| rest.trim_end_matches(" ...]").to_string())
        .expect("a spill line");
    assert!(spill.starts_with("../.codesmith/spill/"), "{spill}");
    let read = ws.call("read_file", json!({"path": spill, "max_lines": 1})).ok();
    assert!(read.output().contains("│ 1"), "{}", read.output());
    let out = ws
        .call("exec_shell", json!({"command": "echo bg", "background": true}))
        .ok();
    assert!(
        out.output().contains("goes to ../.codesmith/tasks/"),
        "{}",
        out.output()
    );
    // data keeps workspace-relative paths.
    assert!(out.data()["stdout_path"]
        .as_str()
        .unwrap()
        .starts_with(".codesmith/tasks/"));
    let id = out.data()["task_id"].as_str().unwrap().to_string();
    ws.call("task_wait", json!({"task_id": id, "timeout_ms": 5000}))
        .ok();
}

#[test]
fn a_here_document_fed_to_a_shell_is_judged_as_its_script() {
    let ws = Ws::new();
    let mark = marker("heredoc");
    let outside = std::env::temp_dir().join(&mark);
    std::fs::create_dir_all(&outside).unwrap();
    let command = format!("sh <<EOF\nrm -rf {}\nEOF", outside.display());
    shell(&ws, &command).err("approval_required");
    let command = format!("bash <<< 'rm -rf {}'", outside.display());
    shell(&ws, &command).err("approval_required");
    assert!(outside.exists());
    ws.write(".codesmith/config.toml", "[network]\ndefault = \"deny\"\n");
    shell(&ws, "bash -s <<'EOF'\ncurl -sS http://127.0.0.1:9/\nEOF").err("network_denied");
    // A here-document that is only data still runs.
    shell(&ws, "cat <<EOF > notes.md\n# Notes\nEOF").ok();
    std::fs::remove_dir_all(&outside).unwrap();
}

#[test]
fn a_command_that_ran_is_reported_even_when_its_cwd_cannot_be_saved() {
    let ws = Ws::new();
    ws.mkdir("sub");
    shell(&ws, "true").ok();
    std::fs::create_dir_all(ws.join(".codesmith/sessions/default.lock")).unwrap();
    let out = shell(&ws, "echo ran; cd sub").ok();
    assert!(out.output().contains("ran"), "{}", out.output());
    assert_eq!(out.data()["cwd"], ".");
    assert!(has_notice(&out, "could not be saved"), "{:?}", out.notices());
    std::fs::remove_dir_all(ws.join(".codesmith/sessions/default.lock")).unwrap();
}

#[test]
fn a_torn_journal_line_does_not_swallow_the_next_record() {
    let ws = Ws::new();
    ws.write("a.txt", "a\n");
    ws.write("b.txt", "b\n");
    ws.read_via_tool("a.txt");
    let journal = ws.join(".codesmith/sessions/default.journal");
    let mut bytes = std::fs::read(&journal).unwrap();
    bytes.extend_from_slice(b"{\"path\":\"torn");
    std::fs::write(&journal, bytes).unwrap();
    ws.read_via_tool("b.txt");
    let out = shell(&ws, "echo more >> b.txt").ok();
    assert!(has_notice(&out, "b.txt (changed)"), "{:?}", out.notices());
}

#[test]
fn a_misread_network_policy_is_named_in_the_refusal_too() {
    let ws = Ws::new();
    ws.write(".codesmith/config.toml", "[network]\ndefault = 5\n");
    let out = shell(&ws, "curl --version").err("approval_required");
    assert!(
        out.message()
            .contains("\nNote: The network policy was read narrowly"),
        "{}",
        out.message()
    );
}

#[test]
fn offline_package_manager_commands_run_without_a_network_approval() {
    let ws = Ws::new();
    // Each fails at once here (no manifest, no wheel, or the tool is not installed): what
    // matters is that it ran, judged `other`, without asking for the network.
    for command in [
        "cargo generate-lockfile --offline",
        "cargo --frozen update",
        "npm ci --offline",
        "npm_config_offline=true npm install",
        "pip install --no-index ./no-such.whl",
        "pip download --no-index -d out --find-links ./wheels pkg",
    ] {
        let out = shell(&ws, command).ok();
        assert_eq!(out.data()["class"], "other", "{command}: {}", out.output());
    }
    for command in [
        "cargo generate-lockfile",
        "npm install --prefer-offline",
        "pip install --no-index --find-links https://127.0.0.1:9/w pkg",
    ] {
        let out = shell(&ws, command).err("approval_required");
        assert_eq!(out.error()["approval"]["kind"], "network", "{command}");
    }
}
