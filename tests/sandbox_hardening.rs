//! The sandbox where it must hold hardest: against root's capabilities, calls that reach past
//! path rules, descendants that outlive their call, inherited descriptors, credentials in the
//! environment, git metadata that does not exist yet, and daemons' sockets.
//!
//! Every write a test expects to be stopped aims at a directory the test made (the workspace or
//! a scratch directory), and every capability check reads `/proc/self/status` of the confined
//! command: nothing here tries to escape for real.

use std::os::unix::net::UnixListener;
use std::path::Path;

use serde_json::{json, Value};

use crate::harness::WithoutCodesmithEnv;
use crate::harness::{Outcome, Ws};
use crate::sandbox::{approval_id, git_init, protections_here, sandbox_here, scratch, shell};

/// The sandbox is whole here, including the layers this file is about.
fn hardened_here(ws: &Ws) -> bool {
    protections_here(ws, &["filesystem", "network", "state", "privileges", "processes"])
}

#[test]
fn a_confined_command_holds_no_capability_whoever_runs_codesmith() {
    let ws = Ws::new();
    if !hardened_here(&ws) {
        return;
    }
    let out = shell(&ws, "grep -E '^(Cap|NoNewPrivs)' /proc/self/status").ok();
    let fields: Vec<(&str, &str)> = out
        .output()
        .lines()
        .filter_map(|line| line.split_once(":\t"))
        .collect();
    for name in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
        let value = fields.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
        assert_eq!(value, Some("0000000000000000"), "{name} in {}", out.output());
    }
    assert!(fields.contains(&("NoNewPrivs", "1")), "{}", out.output());
    assert_eq!(out.data()["sandbox"]["privileges"]["active"], true);
}

/// A python3 program that tries each call and prints `NAME ERRNO` (0 when it succeeded).
fn probe_calls_script() -> String {
    format!(
        r#"
import ctypes, os, pty, fcntl, stat, termios
libc = ctypes.CDLL(None, use_errno=True)
def report(name, rc):
    print(name, ctypes.get_errno() if rc < 0 else 0)
buf = ctypes.create_string_buffer(128)
ctypes.memmove(buf, (128).to_bytes(4, "little"), 4)
mount_id = ctypes.c_int()
report("name_to_handle_at", libc.syscall({name_to_handle}, -100, b".", buf, ctypes.byref(mount_id), 0))
report("open_by_handle_at", libc.syscall({open_by_handle}, -100, buf, 0))
report("bpf", libc.syscall({bpf}, 0, None, 0))
report("perf_event_open", libc.syscall({perf}, None, 0, -1, -1, 0))
report("keyctl", libc.syscall({keyctl}, 0, 0, 0, 0, 0))
report("userfaultfd", libc.syscall({userfaultfd}, 0))
report("ptrace", libc.syscall({ptrace}, 0, 0, 0, 0))
report("mknod_char", libc.mknod(b"dev-null", stat.S_IFCHR | 0o600, os.makedev(1, 3)))
report("mknod_block", libc.mknod(b"dev-disk", stat.S_IFBLK | 0o600, os.makedev(8, 0)))
report("mkfifo", libc.mkfifo(b"fifo", 0o600))
master, slave = pty.openpty()
c = ctypes.c_char(b"x")
report("TIOCSTI", libc.ioctl(slave, termios.TIOCSTI, ctypes.byref(c)))
report("TIOCGWINSZ", libc.ioctl(slave, termios.TIOCGWINSZ, buf))
"#,
        name_to_handle = libc::SYS_name_to_handle_at,
        open_by_handle = libc::SYS_open_by_handle_at,
        bpf = libc::SYS_bpf,
        perf = libc::SYS_perf_event_open,
        keyctl = libc::SYS_keyctl,
        userfaultfd = libc::SYS_userfaultfd,
        ptrace = libc::SYS_ptrace,
    )
}

#[test]
fn calls_that_reach_past_the_path_rules_are_refused_and_ordinary_ones_are_not() {
    let ws = Ws::new();
    if !hardened_here(&ws) {
        return;
    }
    ws.write("probe.py", probe_calls_script());
    let out = shell(&ws, "python3 probe.py").ok();
    let results: Vec<(String, i32)> = out
        .output()
        .lines()
        .filter_map(|line| {
            let (name, errno) = line.split_once(' ')?;
            Some((name.to_string(), errno.trim().parse().ok()?))
        })
        .collect();
    let errno = |name: &str| {
        results
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, e)| *e)
            .unwrap_or_else(|| panic!("{name} not reported: {}", out.output()))
    };
    for refused in [
        "name_to_handle_at",
        "open_by_handle_at",
        "bpf",
        "perf_event_open",
        "keyctl",
        "userfaultfd",
        "ptrace",
        "mknod_char",
        "mknod_block",
        "TIOCSTI",
    ] {
        assert_eq!(errno(refused), libc::EPERM, "{refused}: {}", out.output());
    }
    assert_eq!(errno("mkfifo"), 0, "{}", out.output());
    assert_eq!(errno("TIOCGWINSZ"), 0, "{}", out.output());
    assert!(!ws.exists("dev-null") && !ws.exists("dev-disk"));
}

#[test]
fn writable_roots_are_mounted_nodev_and_nosuid() {
    let ws = Ws::new();
    if !hardened_here(&ws) {
        return;
    }
    let root = ws.path();
    let out = shell(&ws, "cat /proc/self/mountinfo").ok();
    let line = out
        .output()
        .lines()
        .find(|line| line.split(' ').nth(4) == Some(root.to_str().unwrap()))
        .unwrap_or_else(|| panic!("no mount at {} in {}", root.display(), out.output()));
    let options = line.split(' ').nth(5).unwrap_or_default();
    for flag in ["nodev", "nosuid", "rw"] {
        assert!(options.split(',').any(|o| o == flag), "{flag} missing: {line}");
    }
}

#[test]
fn a_command_sees_only_its_own_processes() {
    let ws = Ws::new();
    if !hardened_here(&ws) {
        return;
    }
    let out = shell(&ws, "ls /proc | grep -c '^[0-9]'; echo $$").ok();
    let lines: Vec<&str> = out.output().lines().collect();
    // The shell, ls and grep, at most: not the machine's processes.
    assert_eq!(lines[1], "stdout:", "{}", out.output());
    let count: usize = lines[2].trim().parse().expect("a count");
    assert!(count <= 4, "{}", out.output());
    assert_eq!(lines[3], "1", "{}", out.output());
}

#[test]
fn a_background_task_and_everything_it_started_end_with_task_cancel() {
    let ws = Ws::new();
    if !hardened_here(&ws) {
        return;
    }
    let mark = crate::exec_shell::marker("task-escape");
    ws.write(&format!("{mark}.sh"), "sleep 60\n");
    let out = ws
        .call(
            "exec_shell",
            json!({"command": format!(
                "(setsid sh -c 'CS_TEST_MARK={mark} sh ./{mark}.sh &' </dev/null >/dev/null 2>&1 &); sleep 60"
            ), "background": true}),
        )
        .ok();
    let id = out.data()["task_id"].as_str().unwrap().to_string();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while crate::exec_shell::procs_with(&mark).is_empty() {
        assert!(std::time::Instant::now() < deadline, "the daemon never started");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    ws.call("task_cancel", json!({"task_id": id})).ok();
    crate::exec_shell::assert_gone(&mark);
}

#[test]
fn descriptors_the_harness_left_open_do_not_reach_the_command() {
    use std::os::unix::process::CommandExt;
    let ws = Ws::new();
    let (_keep, dir) = scratch();
    let file = std::fs::File::create(dir.join("harness.log")).unwrap();
    let raw = std::os::fd::AsRawFd::as_raw_fd(&file);
    let mut cmd = ws.command(&["shell", "ls /proc/self/fd; echo written >&7"]);
    // SAFETY: dup2 into the child's descriptor table between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if libc::dup2(raw, 7) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = Outcome::of(cmd).ok();
    let fds: Vec<&str> = out
        .output()
        .split("stdout:\n")
        .nth(1)
        .unwrap_or_default()
        .lines()
        .take_while(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_digit()))
        .collect();
    assert!(!fds.contains(&"7"), "{}", out.output());
    assert!(fds.len() <= 4, "{}", out.output());
    assert_eq!(std::fs::read_to_string(dir.join("harness.log")).unwrap(), "");
}

#[test]
fn credentials_stay_with_the_harness_unless_pass_env_names_them() {
    let ws = Ws::new();
    let run = |ws: &Ws| {
        let mut cmd = ws.command(&["shell", "env"]);
        cmd.env("OPENAI_API_KEY", "sk-test-not-a-real-key")
            .env("CS_TEST_GITHUB_TOKEN", "ghp-test-value")
            .env("CS_TEST_PLAIN", "visible");
        Outcome::of(cmd).ok()
    };
    let out = run(&ws);
    assert!(
        !out.output().contains("sk-test-not-a-real-key"),
        "{}",
        out.output()
    );
    assert!(!out.output().contains("ghp-test-value"), "{}", out.output());
    assert!(out.output().contains("CS_TEST_PLAIN=visible"));
    let held: Vec<&str> = out.data()["env_held_back"]
        .as_array()
        .expect("env_held_back")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        held.contains(&"OPENAI_API_KEY") && held.contains(&"CS_TEST_GITHUB_TOKEN"),
        "{held:?}"
    );
    assert!(!serde_json::to_string(out.data()).unwrap().contains("sk-test"));

    ws.write(
        ".codesmith/config.toml",
        "[shell]\npass_env = [\"CS_TEST_GITHUB_TOKEN\"]\n",
    );
    let out = run(&ws);
    assert!(
        out.output().contains("CS_TEST_GITHUB_TOKEN=ghp-test-value"),
        "{}",
        out.output()
    );
    assert!(!out.output().contains("sk-test-not-a-real-key"));
}

#[test]
fn git_hooks_modules_and_worktrees_are_protected_whether_or_not_they_exist() {
    let ws = Ws::new();
    if !sandbox_here(&ws) || !git_init(&ws) {
        return;
    }
    std::fs::remove_dir_all(ws.join(".git/hooks")).unwrap();
    for (attempt, planted) in [
        (
            "mkdir -p .git/hooks && echo 'touch pwned' > .git/hooks/pre-commit",
            ".git/hooks/pre-commit",
        ),
        (
            "mkdir -p .git/modules/evil/hooks && echo x > .git/modules/evil/config",
            ".git/modules/evil/config",
        ),
        (
            "mkdir -p .git/worktrees/evil && echo ../x > .git/worktrees/evil/commondir",
            ".git/worktrees/evil/commondir",
        ),
    ] {
        let out = shell(&ws, attempt).ok();
        assert!(!ws.exists(planted), "{planted}: {}", out.output());
        assert!(out.output().starts_with("Sandbox: "), "{}", out.output());
    }
}

#[test]
fn a_submodules_git_directory_stays_writable_but_not_its_config_or_hooks() {
    let ws = Ws::new();
    if !sandbox_here(&ws) || !git_init(&ws) {
        return;
    }
    ws.mkdir(".git/modules/lib/objects");
    ws.write(".git/modules/lib/HEAD", "ref: refs/heads/main\n");
    ws.write(".git/modules/lib/config", "[core]\n");
    let out = shell(&ws, "echo data > .git/modules/lib/objects/o && echo ok").ok();
    assert!(ws.exists(".git/modules/lib/objects/o"), "{}", out.output());
    let out = shell(&ws, "echo '[core] fsmonitor = evil' >> .git/modules/lib/config").ok();
    assert_eq!(
        ws.read_string(".git/modules/lib/config"),
        "[core]\n",
        "{}",
        out.output()
    );
    assert!(
        out.output()
            .contains("kept the command from changing `.git/modules/lib/config`"),
        "{}",
        out.output()
    );
    let out = shell(&ws, "echo x > .git/modules/lib/hooks/post-checkout").ok();
    assert!(
        !ws.exists(".git/modules/lib/hooks/post-checkout"),
        "{}",
        out.output()
    );
}

#[test]
fn git_config_is_refused_with_the_approval_that_runs_it() {
    let ws = Ws::new();
    if !sandbox_here(&ws) || !git_init(&ws) {
        return;
    }
    let out = shell(&ws, "git config user.email dev@example.com").ok();
    assert!(out.output().starts_with("Sandbox: "), "{}", out.output());
    assert!(out.output().contains(".git/config"), "{}", out.output());
    let id = approval_id(&out);
    let before = ws.read_string(".git/config");
    assert!(!before.contains("dev@example.com"));
    let mut cmd = ws.command(&["--approve", &id, "shell", "git config user.email dev@example.com"]);
    cmd.without_codesmith_env();
    let out = Outcome::of(cmd).ok();
    assert_eq!(out.data()["exit_code"], 0, "{}", out.output());
    assert!(ws.read_string(".git/config").contains("dev@example.com"));
}

/// A unix socket server the test owns, answering `pong` once.
fn serve_once(path: &Path) -> std::thread::JoinHandle<()> {
    let listener = UnixListener::bind(path).expect("bind");
    std::thread::spawn(move || {
        use std::io::Write;
        if let Ok((mut stream, _)) = listener.accept() {
            let _ = stream.write_all(b"pong");
        }
    })
}

const CONNECT: &str = "python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.recv(4).decode())'";

#[test]
fn a_daemons_socket_outside_the_workspace_is_hidden_unless_granted() {
    let ws = Ws::new();
    if !hardened_here(&ws) {
        return;
    }
    let (_keep, runtime) = scratch();
    let socket = runtime.join("daemon.sock");
    let server = serve_once(&socket);
    let command = format!("{CONNECT} {}", socket.display());
    let mut cmd = ws.command(&["shell", &command]);
    cmd.env("XDG_RUNTIME_DIR", &runtime);
    let out = Outcome::of(cmd).ok();
    assert!(!out.output().contains("pong"), "{}", out.output());
    assert!(out.output().starts_with("Sandbox: "), "{}", out.output());
    let line = format!("sockets = [\"{}\"]", socket.display());
    assert!(out.output().contains(&line), "{}", out.output());
    approval_id(&out);

    ws.write(".codesmith/config.toml", format!("[shell]\n{line}\n"));
    let mut cmd = ws.command(&["shell", &command]);
    cmd.env("XDG_RUNTIME_DIR", &runtime);
    let out = Outcome::of(cmd).ok();
    assert!(out.output().contains("pong"), "{}", out.output());
    server.join().unwrap();
}

#[test]
fn an_abstract_socket_made_outside_is_out_of_reach() {
    use std::os::linux::net::SocketAddrExt;
    let ws = Ws::new();
    if !hardened_here(&ws) {
        return;
    }
    let name = format!("codesmith-test-{}", std::process::id());
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let listener = UnixListener::bind_addr(&addr).expect("bind");
    listener.set_nonblocking(true).unwrap();
    let out = shell(
        &ws,
        &format!(
            "python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"\\0{name}\"); print(\"connected\")'"
        ),
    )
    .ok();
    assert!(!out.output().contains("connected"), "{}", out.output());
    assert!(listener.accept().is_err());
    // One the command makes itself is its own to use.
    let out = shell(
        &ws,
        "python3 -c 'import socket; a=socket.socket(socket.AF_UNIX); a.bind(\"\\0cs-own\"); a.listen(); b=socket.socket(socket.AF_UNIX); b.connect(\"\\0cs-own\"); print(\"own ok\")'",
    )
    .ok();
    assert!(out.output().contains("own ok"), "{}", out.output());
}

fn running_as_root() -> bool {
    // SAFETY: a plain getter.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        eprintln!("skipped: only root has capabilities to lose");
    }
    root
}

#[test]
fn root_without_capabilities_still_extracts_an_archive_and_is_told_about_chown() {
    let ws = Ws::new();
    if !hardened_here(&ws) || !running_as_root() {
        return;
    }
    // An archive whose file belongs to another user, as release tarballs do.
    ws.write(
        "make.py",
        "import io, tarfile\n\
         with tarfile.open('a.tar', 'w') as t:\n\
         \x20   info = tarfile.TarInfo('pkg/file.txt'); info.size = 3; info.uid = 1234; info.gid = 1234\n\
         \x20   t.addfile(info, io.BytesIO(b'hi\\n'))\n",
    );
    shell(&ws, "python3 make.py").ok();
    let out = shell(&ws, "tar xf a.tar").ok();
    assert_eq!(out.data()["exit_code"], 0, "{}", out.output());
    assert_eq!(ws.read_string("pkg/file.txt"), "hi\n");

    let out = shell(&ws, "chown 1234 pkg/file.txt").ok();
    assert_ne!(out.data()["exit_code"], 0, "{}", out.output());
    assert!(
        out.output().starts_with(
            "Sandbox: the command was refused an operation on `pkg/file.txt` that needs root's privileges"
        ),
        "{}",
        out.output()
    );
    approval_id(&out);
}
