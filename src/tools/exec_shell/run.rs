//! Running one `sh -c` script in its own session and process group, with a deadline.
//!
//! Three things must never make a call hang:
//! - a command that waits for input: stdin is `/dev/null`, and the new session has no
//!   controlling terminal, so even `/dev/tty` prompts (ssh, git credentials) fail fast;
//! - a command that never ends: at the deadline the whole process group is killed, not just the
//!   shell, so `sleep 1000 | cat` leaves nothing behind;
//! - a daemon child that keeps our pipes open after the shell exited: once the shell is gone
//!   (its pidfd becomes readable) we read only [`PIPE_GRACE`] longer before taking what was
//!   read. The daemon keeps running (it may be a server the user wanted).
//!
//! The foreground path uses `posix_spawn` with `POSIX_SPAWN_SETSID` (a vfork-style spawn, no
//! copy of our page tables) and one `poll` loop over both pipes and the pidfd, without threads:
//! a short command is dominated by process start-up, and the bench holds us to 1.5x of `sh -c`.

use std::ffi::{CString, OsStr};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long to keep reading after the shell exited, for output its children still write.
pub const PIPE_GRACE: Duration = Duration::from_millis(250);
/// At most this many bytes of one stream are kept in memory; the rest is counted.
pub const STREAM_MEMORY_CAP: usize = 64 * 1024 * 1024;
/// While output is light, the pipes are drained on this tick and at the shell's exit.
const TICK: Duration = Duration::from_millis(10);
/// A drain that finds this much switches to waking on every write of the command.
const STREAMING_BYTES: usize = 32 * 1024;
/// The pipe size asked for, so a light command never blocks on a full pipe between ticks.
const PIPE_BYTES: libc::c_int = 1024 * 1024;
/// After the group was killed at the deadline, how long to wait for the pipes to close.
const KILL_GRACE: Duration = Duration::from_secs(2);

/// The environment every command gets on top of codesmith's own, so nothing waits for a person.
/// (`GIT_EDITOR=true` keeps `git commit` without `-m` or `git rebase -i` from opening an editor
/// that would wait for keys until the timeout.)
pub const ENV: [(&str, &str); 6] = [
    ("CI", "true"),
    ("PAGER", "cat"),
    ("GIT_PAGER", "cat"),
    ("TERM", "dumb"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_EDITOR", "true"),
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
    /// The exit code as a shell reports it in `$?`: a death by signal N is 128+N.
    pub fn exit_code(&self) -> Option<i32> {
        let status = self.status?;
        status
            .code()
            .or_else(|| status.signal().map(|signal| 128 + signal))
    }

    pub fn signal(&self) -> Option<i32> {
        self.status.and_then(|s| s.signal())
    }
}

/// A `sh -c script` command in `cwd` for detached tasks: stdin `/dev/null`, [`ENV`] set, its
/// own session (and so its own process group, whose id is its pid).
pub fn shell_command(script: &str, cwd: &Path) -> Command {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c").arg(script).current_dir(cwd).stdin(Stdio::null());
    for key in UNSET {
        cmd.env_remove(key);
    }
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

/// One output pipe being drained.
struct Stream {
    fd: Option<OwnedFd>,
    bytes: Vec<u8>,
    dropped: usize,
}

impl Stream {
    /// Reads what is available; closes the pipe at end-of-file.
    /// Returns how many bytes were read.
    ///
    /// `chunk` is scratch space: only its capacity is used, and it is left empty. It is never
    /// zero-filled, so a call with little output touches only the pages `read` writes (a
    /// zeroed 64 KiB buffer cost ~70 k instructions and 16 page faults per shell call).
    fn drain(&mut self, chunk: &mut Vec<u8>) -> usize {
        let Some(fd) = &self.fd else {
            return 0;
        };
        let mut total = 0;
        loop {
            chunk.clear();
            let spare = chunk.spare_capacity_mut();
            // SAFETY: reading into the spare capacity of our own buffer (at most its length)
            // from a descriptor we own.
            let n = unsafe { libc::read(fd.as_raw_fd(), spare.as_mut_ptr().cast(), spare.len()) };
            if n > 0 {
                let n = n as usize;
                // SAFETY: `read` initialized the first `n` bytes, and `n <= spare.len()`.
                unsafe { chunk.set_len(n) };
                total += n;
                let keep = n.min(STREAM_MEMORY_CAP.saturating_sub(self.bytes.len()));
                self.bytes.extend_from_slice(&chunk[..keep]);
                self.dropped += n - keep;
                continue;
            }
            if n == 0 {
                self.fd = None;
                return total;
            }
            match io::Error::last_os_error().kind() {
                io::ErrorKind::Interrupted => continue,
                io::ErrorKind::WouldBlock => return total,
                _ => {
                    self.fd = None;
                    return total;
                }
            }
        }
    }
}

/// Runs `/bin/sh -c script [arguments…]` in `cwd` and waits for it, at most `timeout`.
pub fn run(script: &str, arguments: &[&str], cwd: &Path, timeout: Duration) -> io::Result<Finished> {
    let (out_read, out_write) = pipe()?;
    let (err_read, err_write) = pipe()?;
    let pid = spawn(
        script,
        arguments,
        cwd,
        out_write.as_raw_fd(),
        err_write.as_raw_fd(),
    )?;
    // Until it is reaped, the group can be killed by a cancellation (see crate::cancel).
    let _foreground = crate::cancel::ForegroundGroup::register(pid);
    drop(out_write);
    drop(err_write);
    set_nonblocking(out_read.as_raw_fd())?;
    set_nonblocking(err_read.as_raw_fd())?;
    // SAFETY: pidfd_open on our own child; -1 (old kernel) falls back to polling waitpid.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as RawFd;
    // SAFETY: a fresh descriptor we now own.
    let pidfd = (pidfd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(pidfd) });

    let mut streams = [
        Stream {
            fd: Some(out_read),
            bytes: Vec::new(),
            dropped: 0,
        },
        Stream {
            fd: Some(err_read),
            bytes: Vec::new(),
            dropped: 0,
        },
    ];
    let mut finished = Finished::default();
    let mut exited: Option<ExitStatus> = None;
    let mut deadline = Instant::now() + timeout;
    let mut chunk: Vec<u8> = Vec::with_capacity(64 * 1024);
    let mut streaming = pidfd.is_none();
    loop {
        let open = streams.iter().filter(|s| s.fd.is_some()).count();
        if exited.is_some() && open == 0 {
            break;
        }
        let now = Instant::now();
        if now >= deadline {
            if exited.is_none() && !finished.timed_out {
                finished.timed_out = true;
                kill_group(pid, libc::SIGKILL);
                deadline = Instant::now() + KILL_GRACE;
                continue;
            }
            finished.pipes_held = open > 0;
            break;
        }
        // Until output turns heavy, wake only for the shell's exit (or a tick): each wake-up costs
        // a trip through the scheduler, and a busy machine makes those trips slow.
        let watch_pipes = streaming || exited.is_some();
        let mut fds: Vec<libc::pollfd> = streams
            .iter()
            .filter(|_| watch_pipes)
            .filter_map(|s| s.fd.as_ref())
            .chain(pidfd.as_ref().filter(|_| exited.is_none()))
            .map(|fd| libc::pollfd {
                fd: fd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        let mut wait = deadline - now;
        if !watch_pipes || (pidfd.is_none() && exited.is_none()) {
            wait = wait.min(TICK);
        }
        let millis = wait.as_millis().clamp(1, i32::MAX as u128) as i32;
        // SAFETY: `fds` is a live array of pollfd of the given length.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, millis) };
        if ready < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return Err(io::Error::last_os_error());
        }
        let mut read = 0;
        for stream in streams.iter_mut() {
            read += stream.drain(&mut chunk);
        }
        streaming |= read >= STREAMING_BYTES;
        if exited.is_none() {
            if let Some(status) = reap(pid, pidfd.is_some() && ready > 0 && shell_ready(&fds, &pidfd))? {
                exited = Some(status);
                if !finished.timed_out {
                    deadline = deadline.min(Instant::now() + PIPE_GRACE);
                }
            }
        }
    }
    if exited.is_none() {
        // Killed at the deadline and still not reaped: wait for it (SIGKILL cannot be ignored).
        exited = reap(pid, true)?;
    }
    if !finished.timed_out {
        finished.status = exited;
    }
    let [out, err] = streams;
    finished.dropped = (out.dropped, err.dropped);
    finished.stdout = out.bytes;
    finished.stderr = err.bytes;
    Ok(finished)
}

fn shell_ready(fds: &[libc::pollfd], pidfd: &Option<OwnedFd>) -> bool {
    let Some(pidfd) = pidfd else {
        return false;
    };
    fds.iter()
        .any(|p| p.fd == pidfd.as_raw_fd() && p.revents & (libc::POLLIN | libc::POLLHUP) != 0)
}

/// `waitpid` on the shell: blocking when it is known to have exited, else a non-blocking look.
fn reap(pid: i32, known_exited: bool) -> io::Result<Option<ExitStatus>> {
    let mut status = 0;
    let flags = if known_exited { 0 } else { libc::WNOHANG };
    loop {
        // SAFETY: waiting for our own child.
        let got = unsafe { libc::waitpid(pid, &mut status, flags) };
        if got == pid {
            return Ok(Some(ExitStatus::from_raw(status)));
        }
        if got == 0 {
            return Ok(None);
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2 fills the two descriptors, which we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // Best effort: a larger pipe only saves wake-ups (capped by /proc/sys/fs/pipe-max-size).
    // SAFETY: fcntl on a descriptor we just created.
    unsafe { libc::fcntl(fds[0], libc::F_SETPIPE_SZ, PIPE_BYTES) };
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl flag changes on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

fn cstring(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in an argument"))
}

/// Variables removed from the child's environment because they change what a command line
/// means behind the classifier's back: `CDPATH` moves a relative `cd`, `ENV` and `BASH_ENV`
/// make the shell run a file first.
pub const UNSET: [&str; 3] = ["CDPATH", "ENV", "BASH_ENV"];

/// The child's environment: ours without [`UNSET`], with [`ENV`] replacing any same-named
/// variable.
fn environment() -> io::Result<Vec<CString>> {
    let mut env = Vec::new();
    for (key, value) in std::env::vars_os() {
        if ENV.iter().any(|(k, _)| OsStr::new(k) == key) || UNSET.iter().any(|k| OsStr::new(k) == key) {
            continue;
        }
        let mut entry = key.as_bytes().to_vec();
        entry.push(b'=');
        entry.extend_from_slice(value.as_bytes());
        env.push(cstring(&entry)?);
    }
    for (key, value) in ENV {
        env.push(cstring(format!("{key}={value}").as_bytes())?);
    }
    Ok(env)
}

/// `posix_spawn` of `/bin/sh -c script [arguments…]` in `cwd`, in a new session, stdin
/// `/dev/null`, stdout and stderr onto the given pipe ends, signals reset to their defaults.
fn spawn(script: &str, arguments: &[&str], cwd: &Path, stdout: RawFd, stderr: RawFd) -> io::Result<i32> {
    let program = cstring(b"/bin/sh")?;
    let mut args = vec![cstring(b"/bin/sh")?, cstring(b"-c")?, cstring(script.as_bytes())?];
    for argument in arguments {
        args.push(cstring(argument.as_bytes())?);
    }
    let mut argv: Vec<*mut libc::c_char> = args.iter().map(|a| a.as_ptr().cast_mut()).collect();
    argv.push(std::ptr::null_mut());
    let env = environment()?;
    let mut envp: Vec<*mut libc::c_char> = env.iter().map(|e| e.as_ptr().cast_mut()).collect();
    envp.push(std::ptr::null_mut());
    let dir = cstring(cwd.as_os_str().as_bytes())?;
    let dev_null = cstring(b"/dev/null")?;
    let check = |rc: libc::c_int| {
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::from_raw_os_error(rc))
        }
    };
    // SAFETY: the attribute and action objects are initialized before use and destroyed after;
    // every pointer handed to posix_spawn points into values that outlive the call.
    unsafe {
        let mut actions: libc::posix_spawn_file_actions_t = std::mem::zeroed();
        check(libc::posix_spawn_file_actions_init(&mut actions))?;
        let mut attr: libc::posix_spawnattr_t = std::mem::zeroed();
        if let Err(err) = check(libc::posix_spawnattr_init(&mut attr)) {
            libc::posix_spawn_file_actions_destroy(&mut actions);
            return Err(err);
        }
        let result = (|| {
            check(libc::posix_spawn_file_actions_addopen(
                &mut actions,
                0,
                dev_null.as_ptr(),
                libc::O_RDONLY,
                0,
            ))?;
            check(libc::posix_spawn_file_actions_adddup2(&mut actions, stdout, 1))?;
            check(libc::posix_spawn_file_actions_adddup2(&mut actions, stderr, 2))?;
            check(libc::posix_spawn_file_actions_addchdir_np(
                &mut actions,
                dir.as_ptr(),
            ))?;
            // Rust ignores SIGPIPE in its own process; the shell must get the default back, or
            // `yes | head -1` would spin on write errors instead of ending.
            let mut defaults: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut defaults);
            libc::sigaddset(&mut defaults, libc::SIGPIPE);
            let mut mask: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut mask);
            check(libc::posix_spawnattr_setsigdefault(&mut attr, &defaults))?;
            check(libc::posix_spawnattr_setsigmask(&mut attr, &mask))?;
            let flags = libc::POSIX_SPAWN_SETSID as libc::c_int
                | libc::POSIX_SPAWN_SETSIGDEF as libc::c_int
                | libc::POSIX_SPAWN_SETSIGMASK as libc::c_int;
            check(libc::posix_spawnattr_setflags(&mut attr, flags as libc::c_short))?;
            let mut pid: libc::pid_t = 0;
            check(libc::posix_spawn(
                &mut pid,
                program.as_ptr(),
                &actions,
                &attr,
                argv.as_ptr(),
                envp.as_ptr(),
            ))?;
            Ok(pid)
        })();
        libc::posix_spawn_file_actions_destroy(&mut actions);
        libc::posix_spawnattr_destroy(&mut attr);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_both_streams_and_the_status() {
        let dir = std::env::temp_dir();
        let finished = run(
            "echo out; echo err >&2; exit 3",
            &[],
            &dir,
            Duration::from_secs(10),
        )
        .expect("run");
        assert_eq!(finished.stdout, b"out\n");
        assert_eq!(finished.stderr, b"err\n");
        assert_eq!(finished.exit_code(), Some(3));
        assert!(!finished.timed_out && !finished.pipes_held);
    }

    #[test]
    fn sigpipe_is_default_in_the_child() {
        let dir = std::env::temp_dir();
        let finished = run("yes | head -1", &[], &dir, Duration::from_secs(10)).expect("run");
        assert_eq!(finished.stdout, b"y\n");
        assert!(!finished.timed_out);
    }

    #[test]
    fn a_missing_cwd_is_an_error_not_a_hang() {
        let missing = std::env::temp_dir().join("codesmith-no-such-dir-for-run");
        assert!(run("true", &[], &missing, Duration::from_secs(10)).is_err());
    }
}
