//! Running one `sh -c` script in its own session and process group, with a deadline.
//!
//! Three things must never make a call hang:
//! - a command that waits for input: stdin is `/dev/null`, and `setsid` leaves the process
//!   without a controlling terminal, so even `/dev/tty` prompts (ssh, git credentials) fail fast;
//! - a command that never ends: at the deadline the whole process group is killed, not just the
//!   shell, so `sleep 1000 | cat` leaves nothing behind;
//! - a daemon child that keeps our pipes open after the shell exited: the pipes are read by
//!   threads, and once the shell is gone we wait only [`PIPE_GRACE`] for end-of-file before
//!   taking what was read. The daemon keeps running (it may be a server the user wanted).

use std::io::{self, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How long to keep reading after the shell exited, for output its children still write.
pub const PIPE_GRACE: Duration = Duration::from_millis(250);
/// At most this many bytes of one stream are kept in memory; the rest is counted.
pub const STREAM_MEMORY_CAP: usize = 64 * 1024 * 1024;

/// The environment every command gets on top of codesmith's own, so nothing waits for a person.
pub const ENV: [(&str, &str); 5] = [
    ("CI", "true"),
    ("PAGER", "cat"),
    ("GIT_PAGER", "cat"),
    ("TERM", "dumb"),
    ("GIT_TERMINAL_PROMPT", "0"),
];

/// What a foreground run produced.
#[derive(Debug, Default)]
pub struct Finished {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Bytes beyond [`STREAM_MEMORY_CAP`] that were read and dropped (stdout, stderr).
    pub dropped: (usize, usize),
    /// The shell's status; `None` when it was killed at the deadline.
    pub status: Option<ExitStatus>,
    pub timed_out: bool,
    /// The shell exited but something it started still held the output pipes.
    pub pipes_held: bool,
}

impl Finished {
    pub fn exit_code(&self) -> Option<i32> {
        self.status.and_then(|s| s.code())
    }

    pub fn signal(&self) -> Option<i32> {
        self.status.and_then(|s| s.signal())
    }
}

#[derive(Default)]
struct Buffer {
    bytes: Vec<u8>,
    dropped: usize,
}

enum Event {
    Eof,
    Exited(io::Result<ExitStatus>),
}

/// A `sh -c script` command in `cwd`: stdin `/dev/null`, [`ENV`] set, its own session (and so
/// its own process group, whose id is its pid).
pub fn shell_command(script: &str, cwd: &Path) -> Command {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c").arg(script).current_dir(cwd).stdin(Stdio::null());
    for (key, value) in ENV {
        cmd.env(key, value);
    }
    // SAFETY: setsid is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd
}

/// Kills every process in the group `pgid`.
pub fn kill_group(pgid: i32, signal: i32) -> bool {
    // SAFETY: plain syscall; a negative pid addresses the process group.
    pgid > 1 && unsafe { libc::kill(-pgid, signal) } == 0
}

/// Runs `script` in `cwd` and waits for it, at most `timeout`.
pub fn run(script: &str, cwd: &Path, timeout: Duration) -> io::Result<Finished> {
    let mut cmd = shell_command(script, cwd);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn()?;
    let started = Instant::now();
    let pgid = child.id() as i32;
    let (tx, rx) = mpsc::channel::<Event>();
    let stdout = Arc::new(Mutex::new(Buffer::default()));
    let stderr = Arc::new(Mutex::new(Buffer::default()));
    if let Some(pipe) = child.stdout.take() {
        spawn_reader(pipe, Arc::clone(&stdout), tx.clone());
    }
    if let Some(pipe) = child.stderr.take() {
        spawn_reader(pipe, Arc::clone(&stderr), tx.clone());
    }
    let waiter = tx.clone();
    thread::spawn(move || {
        let _ = waiter.send(Event::Exited(child.wait()));
    });
    drop(tx);

    let mut finished = Finished::default();
    let mut open_pipes = 2;
    let mut exited: Option<ExitStatus> = None;
    let mut deadline = started + timeout;
    loop {
        if exited.is_some() && open_pipes == 0 {
            break;
        }
        let now = Instant::now();
        if now >= deadline {
            if exited.is_none() && !finished.timed_out {
                finished.timed_out = true;
                kill_group(pgid, libc::SIGKILL);
                // The group is dead; give the reaper and the pipes a moment to notice.
                deadline = Instant::now() + Duration::from_secs(2);
                continue;
            }
            finished.pipes_held = open_pipes > 0;
            break;
        }
        match rx.recv_timeout(deadline - now) {
            Ok(Event::Eof) => open_pipes -= 1,
            Ok(Event::Exited(status)) => {
                exited = Some(status?);
                if !finished.timed_out {
                    deadline = deadline.min(Instant::now() + PIPE_GRACE);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    if !finished.timed_out {
        finished.status = exited;
    }
    let take = |buffer: &Arc<Mutex<Buffer>>| match buffer.lock() {
        Ok(mut guard) => (std::mem::take(&mut guard.bytes), guard.dropped),
        Err(_) => (Vec::new(), 0),
    };
    let (out, out_dropped) = take(&stdout);
    let (err, err_dropped) = take(&stderr);
    finished.stdout = out;
    finished.stderr = err;
    finished.dropped = (out_dropped, err_dropped);
    Ok(finished)
}

fn spawn_reader(mut pipe: impl Read + Send + 'static, buffer: Arc<Mutex<Buffer>>, tx: mpsc::Sender<Event>) {
    thread::spawn(move || {
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => {
                    if let Ok(mut guard) = buffer.lock() {
                        let room = STREAM_MEMORY_CAP.saturating_sub(guard.bytes.len());
                        let keep = n.min(room);
                        guard.bytes.extend_from_slice(&chunk[..keep]);
                        guard.dropped += n - keep;
                    }
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = tx.send(Event::Eof);
    });
}
