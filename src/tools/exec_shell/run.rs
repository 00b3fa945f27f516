//! Running one `sh -c` script in its own session and process group, with a deadline.
//!
//! Over 600 lines: every unsafe call of the runner (spawn attributes, pipes, pidfd, poll,
//! waitpid, killpg) stays in this one file, to be reviewed together.
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
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;

use crate::sandbox::{Prepared, SetupFailure};
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
    /// Processes the command left running in its PID namespace, stopped when it ended.
    pub left_running: usize,
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

/// Starts the launch detached, for background tasks: its own session (so its process group id
/// is its pid), stdin `/dev/null`, stdout and stderr onto the given files. Returns the pid; the
/// child is not waited for (it must outlive this process, and is reaped by init after we exit).
pub fn spawn_detached(
    launch: &Launch,
    stdout: &std::fs::File,
    stderr: &std::fs::File,
) -> Result<i32, SpawnError> {
    spawn(launch, stdout.as_raw_fd(), stderr.as_raw_fd(), Lifetime::Detached)
}

/// Starts a detached command on a terminal: `terminal` (a pseudo-terminal's slave) becomes its
/// stdin, stdout and stderr and the controlling terminal of its new session, so programs see a
/// tty and a Ctrl-C typed there interrupts the job in its foreground. The terminal is made
/// controlling before the sandbox is entered; without a sandbox the same clone runs with no
/// layers (posix_spawn cannot make a controlling terminal).
pub fn spawn_on_terminal(launch: &Launch, terminal: &std::fs::File) -> Result<i32, SpawnError> {
    let strings = Strings::new(launch)?;
    let unconfined;
    let prepared = match launch.sandbox {
        Some(prepared) => prepared,
        None => {
            unconfined = Prepared::new(&crate::sandbox::Request::default(), &[]);
            &unconfined
        }
    };
    let fd = terminal.as_raw_fd();
    fork_spawn(&strings, (Some(fd), fd, fd), prepared, Lifetime::Detached)
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

/// Reads an exit status a script reported in its stderr.
pub type ReportedStatus<'a> = dyn Fn(&[u8]) -> Option<i32> + 'a;

/// What to start: `/bin/sh -c script [arguments…]` in `cwd`, with extra environment variables,
/// optionally inside a prepared sandbox.
pub struct Launch<'a> {
    pub script: &'a str,
    pub arguments: &'a [&'a str],
    pub cwd: &'a Path,
    pub env: &'a [(&'a str, String)],
    /// Variables of codesmith's environment the command does not get.
    pub unset: &'a [String],
    pub sandbox: Option<&'a Prepared>,
    /// Reads the exit status the script reports on stderr before it exits, if it does: once
    /// both pipes are closed and it is there, the run is over without waiting for the kernel
    /// to report the exit (which, for a sandboxed shell, waits for its namespace's teardown).
    pub reported_status: Option<&'a ReportedStatus<'a>>,
}

impl<'a> Launch<'a> {
    pub fn plain(script: &'a str, arguments: &'a [&'a str], cwd: &'a Path) -> Launch<'a> {
        Launch {
            script,
            arguments,
            cwd,
            env: &[],
            unset: &[],
            sandbox: None,
            reported_status: None,
        }
    }
}

/// Why a command did not start.
#[derive(Debug)]
pub enum SpawnError {
    Io(io::Error),
    /// The sandbox could not be entered (the child exited before running anything).
    Sandbox(SetupFailure),
}

impl From<io::Error> for SpawnError {
    fn from(err: io::Error) -> SpawnError {
        SpawnError::Io(err)
    }
}

/// Runs the launch and waits for it, at most `timeout`.
pub fn run(launch: &Launch, timeout: Duration) -> Result<Finished, SpawnError> {
    let Started {
        pid,
        _foreground,
        mut streams,
        pidfd,
    } = start(launch)?;
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
        // Until output turns heavy, wake only for the shell's exit, the pipes' closing (a
        // hang-up is reported even when no event is asked for) or a tick: each wake-up costs a
        // trip through the scheduler, and a busy machine makes those trips slow.
        let watch_pipes = streaming || exited.is_some();
        let pipe_events = if watch_pipes { libc::POLLIN } else { 0 };
        let shell = pidfd.as_ref().filter(|_| exited.is_none());
        let mut fds = poll_fds(&streams, pipe_events, shell);
        let millis = poll_millis(
            deadline - now,
            !watch_pipes || (pidfd.is_none() && exited.is_none()),
        );
        // SAFETY: `fds` is a live array of pollfd of the given length.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, millis) };
        if ready < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return Err(io::Error::last_os_error().into());
        }
        let mut read = 0;
        for stream in streams.iter_mut() {
            read += stream.drain(&mut chunk);
        }
        streaming |= read >= STREAMING_BYTES;
        if exited.is_none() && !finished.timed_out && streams.iter().all(|s| s.fd.is_none()) {
            exited = reported_exit(launch, &streams, pid)?;
            if exited.is_some() {
                break;
            }
        }
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

/// A spawned shell: its pid (and process group), its registration for cancellation, its two
/// output pipes and, on kernels that have them, a pidfd that becomes readable when it exits.
struct Started {
    pid: libc::pid_t,
    _foreground: crate::session::cancel::ForegroundGroup,
    streams: [Stream; 2],
    pidfd: Option<OwnedFd>,
}

fn start(launch: &Launch) -> Result<Started, SpawnError> {
    let (out_read, out_write) = pipe()?;
    let (err_read, err_write) = pipe()?;
    let pid = spawn(
        launch,
        out_write.as_raw_fd(),
        err_write.as_raw_fd(),
        Lifetime::Foreground,
    )?;
    // Until it is reaped, the group can be killed by a cancellation (see crate::session::cancel).
    let foreground = crate::session::cancel::ForegroundGroup::register(pid);
    drop(out_write);
    drop(err_write);
    set_nonblocking(out_read.as_raw_fd())?;
    set_nonblocking(err_read.as_raw_fd())?;
    // SAFETY: pidfd_open on our own child; -1 (old kernel) falls back to polling waitpid.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as RawFd;
    // SAFETY: a fresh descriptor we now own.
    let pidfd = (pidfd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(pidfd) });
    let stream = |fd| Stream {
        fd: Some(fd),
        bytes: Vec::new(),
        dropped: 0,
    };
    Ok(Started {
        pid,
        _foreground: foreground,
        streams: [stream(out_read), stream(err_read)],
        pidfd,
    })
}

/// How long one poll may wait, in milliseconds: until the deadline, or a tick when something
/// is only noticed by polling (`ticking`).
fn poll_millis(until_deadline: Duration, ticking: bool) -> i32 {
    let wait = if ticking {
        until_deadline.min(TICK)
    } else {
        until_deadline
    };
    wait.as_millis().clamp(1, i32::MAX as u128) as i32
}

/// The exit status the script reported on stderr, if it did (see [`Launch::reported_status`]).
/// The shell is reaped if it is already gone; otherwise init reaps it after we exit.
fn reported_exit(
    launch: &Launch,
    streams: &[Stream; 2],
    pid: libc::pid_t,
) -> Result<Option<ExitStatus>, SpawnError> {
    let Some(code) = launch
        .reported_status
        .and_then(|status| status(&streams[1].bytes))
    else {
        return Ok(None);
    };
    Ok(Some(
        reap(pid, false)?.unwrap_or(ExitStatus::from_raw((code & 0xff) << 8)),
    ))
}

/// The descriptors to poll: the open pipes with `pipe_events`, and the shell's pidfd while it
/// has not exited.
fn poll_fds(streams: &[Stream; 2], pipe_events: libc::c_short, shell: Option<&OwnedFd>) -> Vec<libc::pollfd> {
    streams
        .iter()
        .filter_map(|s| s.fd.as_ref())
        .map(|fd| (fd, pipe_events))
        .chain(shell.map(|fd| (fd, libc::POLLIN)))
        .map(|(fd, events)| libc::pollfd {
            fd: fd.as_raw_fd(),
            events,
            revents: 0,
        })
        .collect()
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

/// The child's environment: ours without [`UNSET`] and `unset`, with [`ENV`] and `extra`
/// replacing any same-named variable.
fn environment(extra: &[(&str, String)], unset: &[String]) -> io::Result<Vec<CString>> {
    let mut env = Vec::new();
    for (key, value) in std::env::vars_os() {
        if ENV.iter().any(|(k, _)| OsStr::new(k) == key)
            || UNSET.iter().any(|k| OsStr::new(k) == key)
            || unset.iter().any(|k| OsStr::new(k) == key)
            || extra.iter().any(|(k, _)| OsStr::new(k) == key)
        {
            continue;
        }
        let mut entry = key.as_bytes().to_vec();
        entry.push(b'=');
        entry.extend_from_slice(value.as_bytes());
        env.push(cstring(&entry)?);
    }
    // A launch's own value wins (an interactive task's TERM).
    for (key, value) in ENV.iter().filter(|(k, _)| !extra.iter().any(|(e, _)| e == k)) {
        env.push(cstring(format!("{key}={value}").as_bytes())?);
    }
    for (key, value) in extra {
        env.push(cstring(format!("{key}={value}").as_bytes())?);
    }
    Ok(env)
}

/// The argument, environment and directory strings of a launch, built before any fork.
struct Strings {
    program: CString,
    _args: Vec<CString>,
    argv: Vec<*mut libc::c_char>,
    _env: Vec<CString>,
    envp: Vec<*mut libc::c_char>,
    dir: CString,
}

impl Strings {
    fn new(launch: &Launch) -> io::Result<Strings> {
        let program = cstring(b"/bin/sh")?;
        let mut args = vec![
            cstring(b"/bin/sh")?,
            cstring(b"-c")?,
            cstring(launch.script.as_bytes())?,
        ];
        for argument in launch.arguments {
            args.push(cstring(argument.as_bytes())?);
        }
        let mut argv: Vec<*mut libc::c_char> = args.iter().map(|a| a.as_ptr().cast_mut()).collect();
        argv.push(std::ptr::null_mut());
        let env = environment(launch.env, launch.unset)?;
        let mut envp: Vec<*mut libc::c_char> = env.iter().map(|e| e.as_ptr().cast_mut()).collect();
        envp.push(std::ptr::null_mut());
        let dir = cstring(launch.cwd.as_os_str().as_bytes())?;
        Ok(Strings {
            program,
            _args: args,
            argv,
            _env: env,
            envp,
            dir,
        })
    }
}

/// Whether a command lives only as long as the codesmith that waits for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lifetime {
    /// Killed if codesmith dies first (with its PID namespace, everything it started).
    Foreground,
    /// A background task: outlives codesmith.
    Detached,
}

/// Starts the launch with stdout and stderr onto the given descriptors: `posix_spawn` when
/// unconfined (no copy of our page tables), a clone that enters the sandbox otherwise.
fn spawn(launch: &Launch, stdout: RawFd, stderr: RawFd, lifetime: Lifetime) -> Result<i32, SpawnError> {
    let strings = Strings::new(launch)?;
    match launch.sandbox.filter(|prepared| !prepared.is_empty()) {
        None => Ok(posix_spawn(&strings, stdout, stderr)?),
        Some(prepared) => fork_spawn(&strings, (None, stdout, stderr), prepared, lifetime),
    }
}

/// Step numbers past the sandbox's own, for the child's report.
const STEP_CHDIR: u32 = 1000;
const STEP_EXEC: u32 = 1001;

/// Clones a child that sets up its session, signals and descriptors as [`posix_spawn`] does,
/// enters the sandbox, changes into the directory (after the sandbox's mounts, so the cwd is
/// the new mount) and execs. A failure before exec comes back through a close-on-exec pipe
/// as (step, errno); a clean exec closes it empty.
///
/// With the PID layer the child is cloned as the first process of a new PID namespace: when
/// it exits (or is killed), the kernel kills everything else in the namespace, so nothing the
/// command started outlives it, whatever session or process group it moved to.
fn fork_spawn(
    strings: &Strings,
    (terminal, stdout, stderr): (Option<RawFd>, RawFd, RawFd),
    prepared: &Prepared,
    lifetime: Lifetime,
) -> Result<i32, SpawnError> {
    let (status_read, status_write) = pipe()?;
    let args = ChildArgs {
        strings,
        terminal,
        stdout,
        stderr,
        prepared,
        status: status_write.as_raw_fd(),
        foreground: lifetime == Lifetime::Foreground,
    };
    let (namespaces, clone_step) = prepared.clone_flags();
    // The child runs on its own stack in our address space (CLONE_VM) while we wait for its
    // exec (CLONE_VFORK), as posix_spawn does: no copy of our page tables, no copy-on-write
    // faults afterwards. Only the pages it touches are ever mapped.
    let mut stack: Vec<u8> = Vec::with_capacity(CHILD_STACK);
    // SAFETY: the top of our own allocation, aligned down to 16 bytes as the ABI wants.
    let top = unsafe { stack.as_mut_ptr().add(CHILD_STACK) } as usize & !15;
    // SAFETY: the child makes only system calls on memory prepared before the clone and on
    // its own stack, then execs or exits; we are suspended until it does.
    let pid = unsafe {
        libc::clone(
            child_entry,
            top as *mut libc::c_void,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD | namespaces,
            &args as *const ChildArgs as *mut libc::c_void,
        )
    };
    if pid < 0 {
        let err = io::Error::last_os_error();
        return Err(match (namespaces, err.raw_os_error()) {
            (0, _) | (_, None) => err.into(),
            (_, Some(errno)) => SpawnError::Sandbox(crate::sandbox::failure(clone_step, errno)),
        });
    }
    drop(stack);
    drop(status_write);
    let mut record = [0u8; 8];
    let mut got = 0;
    while got < record.len() {
        // SAFETY: reading into our own buffer.
        let n = unsafe {
            libc::read(
                status_read.as_raw_fd(),
                record[got..].as_mut_ptr().cast(),
                record.len() - got,
            )
        };
        if n > 0 {
            got += n as usize;
        } else if n == 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            break;
        }
    }
    if got < record.len() {
        return Ok(pid);
    }
    // The child failed before exec and exited: reap it, then say why.
    let _ = reap(pid, true);
    let step = u32::from_ne_bytes([record[0], record[1], record[2], record[3]]);
    let errno = i32::from_ne_bytes([record[4], record[5], record[6], record[7]]);
    match step {
        STEP_CHDIR | STEP_EXEC => Err(io::Error::from_raw_os_error(errno).into()),
        step => Err(SpawnError::Sandbox(crate::sandbox::failure(step as usize, errno))),
    }
}

/// The stack of the cloned child: it only makes system calls before its exec.
const CHILD_STACK: usize = 256 * 1024;

struct ChildArgs<'a> {
    strings: &'a Strings,
    /// A terminal for stdin that also becomes the controlling one; `/dev/null` when `None`.
    terminal: Option<RawFd>,
    stdout: RawFd,
    stderr: RawFd,
    prepared: &'a Prepared,
    status: RawFd,
    foreground: bool,
}

extern "C" fn child_entry(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the `ChildArgs` the parent passed, alive while it waits for us.
    let args = unsafe { &*(arg as *const ChildArgs) };
    // SAFETY: in the cloned child, before exec.
    unsafe { child(args, c"/dev/null") }
}

/// The cloned child: never returns.
///
/// # Safety
/// Only in the child of a fork of a single-threaded process.
unsafe fn child(args: &ChildArgs, dev_null: &std::ffi::CStr) -> ! {
    let ChildArgs {
        strings,
        terminal,
        stdout,
        stderr,
        prepared,
        status,
        foreground,
    } = *args;
    let fail = |step: u32, errno: i32| -> ! {
        let mut record = [0u8; 8];
        record[..4].copy_from_slice(&step.to_ne_bytes());
        record[4..].copy_from_slice(&errno.to_ne_bytes());
        libc::write(status, record.as_ptr().cast(), record.len());
        libc::_exit(127)
    };
    let errno = || io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO);
    libc::setsid();
    if foreground {
        // Should codesmith die while it waits, the command (and, as the first process of its
        // PID namespace, everything it started) goes with it.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
    }
    let mut mask: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut mask);
    libc::sigprocmask(libc::SIG_SETMASK, &mask, std::ptr::null_mut());
    libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    let null = match terminal {
        Some(fd) => fd,
        None => libc::open(dev_null.as_ptr(), libc::O_RDONLY),
    };
    if null < 0 || libc::dup2(null, 0) < 0 || libc::dup2(stdout, 1) < 0 || libc::dup2(stderr, 2) < 0 {
        fail(STEP_EXEC, errno());
    }
    if null > 2 {
        libc::close(null);
    }
    // The new session's controlling terminal: its line discipline turns a typed Ctrl-C into
    // SIGINT for the foreground job.
    if terminal.is_some() && libc::ioctl(0, libc::TIOCSCTTY, 0) != 0 {
        fail(STEP_EXEC, errno());
    }
    if let Err((step, errno)) = prepared.enter() {
        fail(step as u32, errno);
    }
    if libc::chdir(strings.dir.as_ptr()) != 0 {
        fail(STEP_CHDIR, errno());
    }
    // Nothing but stdin, stdout and stderr reaches the command: a descriptor the harness left
    // open (a socket, a file it writes) is closed at exec. (codesmith's own start-up marks
    // inherited descriptors close-on-exec too; this holds for whatever was opened since.)
    libc::close_range(3, libc::c_uint::MAX, libc::CLOSE_RANGE_CLOEXEC as libc::c_int);
    libc::execve(
        strings.program.as_ptr(),
        strings.argv.as_ptr().cast(),
        strings.envp.as_ptr().cast(),
    );
    fail(STEP_EXEC, errno())
}

/// `posix_spawn` of the launch's strings, in a new session, stdin `/dev/null`, stdout and
/// stderr onto the given pipe ends, signals reset to their defaults.
fn posix_spawn(strings: &Strings, stdout: RawFd, stderr: RawFd) -> io::Result<i32> {
    let (program, argv, envp, dir) = (&strings.program, &strings.argv, &strings.envp, &strings.dir);
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
            &Launch::plain("echo out; echo err >&2; exit 3", &[], &dir),
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
        let finished = run(
            &Launch::plain("yes | head -1", &[], &dir),
            Duration::from_secs(10),
        )
        .expect("run");
        assert_eq!(finished.stdout, b"y\n");
        assert!(!finished.timed_out);
    }

    #[test]
    fn a_missing_cwd_is_an_error_not_a_hang() {
        let missing = std::env::temp_dir().join("codesmith-no-such-dir-for-run");
        assert!(run(&Launch::plain("true", &[], &missing), Duration::from_secs(10)).is_err());
    }
}
