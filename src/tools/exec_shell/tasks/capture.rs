//! The capturing process of a background task: it reads the task's two output pipes and keeps
//! at most [`STREAM_CAP`] bytes of each stream on disk, the first half as the head and the last
//! half as a rotating tail, whatever the task writes.
//!
//! Why a process of its own: a task outlives the codesmith invocation that started it, so
//! something must keep reading after that invocation exits, and the task cannot be trusted to
//! bound itself (it once filled the disk with `yes`). When the task wrote into files directly,
//! nothing could stop it short of killing it. Now it writes into pipes, and this process — the
//! codesmith binary re-executed as `codesmith __task-capture DIR CAP`, outside the task's
//! sandbox, in a session of its own — decides what reaches `.codesmith/tasks/<id>/`, where the
//! confined task cannot write. A pipe nobody reads only blocks its writer, so a task that
//! kills this process stops itself.
//!
//! The files of stream `S` (`stdout` or `stderr`), read back by [`super::spool`]:
//! - `S`: the head, the stream's first `cap / 2` bytes;
//! - `S.tail-<offset>`: up to [`SEGMENTS`] tail segments of `cap / 2 / SEGMENTS` bytes each,
//!   named after the stream offset of their first byte; when a new one starts, the oldest is
//!   removed. The bytes between the head and the oldest segment are dropped, counted by
//!   their offsets.
//!
//! When both pipes are closed it writes `captured`, so a reader knows the files are whole.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// At most this many bytes of each stream are kept: half head, half tail.
pub const STREAM_CAP: u64 = 64 * 1024 * 1024;
/// Lowers [`STREAM_CAP`] (bytes per stream, never raises it), so a test can fill the cap with
/// a few megabytes.
pub const CAP_ENV: &str = "CODESMITH_TASK_OUTPUT_CAP";
/// The lowest cap [`CAP_ENV`] can set.
const MIN_CAP: u64 = 16 * 1024;
/// The tail is kept in this many segments, so at least 3/4 of its budget is always on disk.
const SEGMENTS: usize = 4;
/// The hidden first argument that runs the capturing process.
pub const COMMAND: &str = "__task-capture";
/// The marker the capturing process writes when both streams ended.
pub const DONE: &str = "captured";
/// The capturing process's pid, for a reader deciding whether to wait for [`DONE`].
pub const PID: &str = "capture.pid";
/// The cap in effect for the task, for the reader's drop notice.
pub const CAP_FILE: &str = "output-cap";
/// The stream files, in the pipe order (descriptors 3 and 4 of the capturing process).
pub const STREAMS: [&str; 2] = ["stdout", "stderr"];

/// The cap in effect: [`STREAM_CAP`], or less when [`CAP_ENV`] says so.
pub fn cap_from_env() -> u64 {
    std::env::var(CAP_ENV)
        .ok()
        .and_then(|value| value.trim().parse::<u64>().ok())
        .map_or(STREAM_CAP, |cap| cap.clamp(MIN_CAP, STREAM_CAP))
}

/// How a cap splits into head and tail segments.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub head: u64,
    pub segment: u64,
}

impl Layout {
    pub fn of(cap: u64) -> Layout {
        let head = cap / 2;
        Layout {
            head,
            segment: ((cap - head) / SEGMENTS as u64).max(1),
        }
    }
}

/// The name of the tail segment of `stream` that starts at `offset`.
pub fn segment_name(stream: &str, offset: u64) -> String {
    format!("{stream}.tail-{offset}")
}

/// Starts the capturing process for the task in `dir` and returns the write ends of the two
/// pipes it reads, for the task's stdout and stderr. The process is detached (its own session,
/// its parent gone at once, so no invocation has to reap it) and outlives this one.
pub fn start(dir: &Path, cap: u64) -> io::Result<(File, File)> {
    for stream in STREAMS {
        File::create(dir.join(stream))?;
    }
    fs::write(dir.join(CAP_FILE), cap.to_string())?;
    let (out_read, out_write) = pipe()?;
    let (err_read, err_write) = pipe()?;
    let program = if Path::new("/proc/self/exe").exists() {
        PathBuf::from("/proc/self/exe")
    } else {
        std::env::current_exe()?
    };
    let mut command = Command::new(program);
    command
        .arg(COMMAND)
        .arg(dir)
        .arg(cap.to_string())
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let (out_fd, err_fd) = (out_read.as_raw_fd(), err_read.as_raw_fd());
    // SAFETY: the closure makes only async-signal-safe system calls (fcntl, dup2, close_range,
    // setsid, fork, _exit), as a child of a possibly multi-threaded process must.
    unsafe { command.pre_exec(move || detach(out_fd, err_fd)) };
    let mut intermediate = command.spawn()?;
    intermediate.wait()?;
    Ok((File::from(out_write), File::from(err_write)))
}

/// In the forked child before exec: the read ends become descriptors 3 and 4, every other
/// inherited descriptor is marked close-on-exec, and a new session is made whose leader forks
/// and exits, so the capturing process is nobody's child but init's.
fn detach(out_fd: RawFd, err_fd: RawFd) -> io::Result<()> {
    let last_os = io::Error::last_os_error;
    // SAFETY: plain system calls on descriptors this process holds.
    unsafe {
        // Moved above 4 first, so neither dup2 overwrites the other's source. (Descriptors 3 and
        // 4 hold nothing std needs: its exec-error pipe was opened after these two pipes, so it
        // got higher numbers than whatever free ones they took.)
        let out_high = libc::fcntl(out_fd, libc::F_DUPFD_CLOEXEC, 10);
        let err_high = libc::fcntl(err_fd, libc::F_DUPFD_CLOEXEC, 10);
        if out_high < 0 || err_high < 0 || libc::dup2(out_high, 3) < 0 || libc::dup2(err_high, 4) < 0 {
            return Err(last_os());
        }
        // Descriptors the harness left open must not be held for the task's lifetime. Marked
        // rather than closed: std reports a failed exec through one of them. Best effort
        // (close_range with this flag needs Linux 5.11).
        const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
        libc::syscall(libc::SYS_close_range, 5u32, u32::MAX, CLOSE_RANGE_CLOEXEC);
        if libc::setsid() < 0 {
            return Err(last_os());
        }
        match libc::fork() {
            -1 => Err(last_os()),
            0 => Ok(()),
            _ => libc::_exit(0),
        }
    }
}

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2 fills the two descriptors, which we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// The capturing process: `codesmith __task-capture DIR CAP`, with the pipes on descriptors 3
/// and 4. Returns the exit status.
pub fn serve(args: &[OsString]) -> i32 {
    let (Some(dir), Some(cap)) = (args.first(), args.get(1)) else {
        return 2;
    };
    let Some(cap) = cap.to_str().and_then(|c| c.parse::<u64>().ok()) else {
        return 2;
    };
    let dir = PathBuf::from(dir);
    let mut sources = Vec::new();
    for fd in [3, 4] {
        if !is_pipe(fd) {
            return 2;
        }
        // SAFETY: descriptors 3 and 4 are the pipes our starter placed there, owned by nobody else.
        sources.push(Some(unsafe { OwnedFd::from_raw_fd(fd) }));
    }
    let _ = fs::write(dir.join(PID), std::process::id().to_string());
    let layout = Layout::of(cap.clamp(MIN_CAP, STREAM_CAP));
    let mut sinks = STREAMS.map(|stream| Sink::new(&dir, stream, layout));
    pump(&mut sources, &mut sinks);
    let _ = fs::write(dir.join(DONE), "");
    0
}

fn is_pipe(fd: RawFd) -> bool {
    // SAFETY: fstat into our own zeroed struct; a closed descriptor fails with EBADF.
    unsafe {
        let mut stat: libc::stat = std::mem::zeroed();
        libc::fstat(fd, &mut stat) == 0 && stat.st_mode & libc::S_IFMT == libc::S_IFIFO
    }
}

/// Reads both pipes until both are closed, handing what comes to the sinks.
fn pump(sources: &mut [Option<OwnedFd>], sinks: &mut [Sink; 2]) {
    let mut buffer = vec![0u8; 256 * 1024];
    while sources.iter().any(Option::is_some) {
        let mut fds: Vec<libc::pollfd> = sources
            .iter()
            .map(|source| libc::pollfd {
                fd: source.as_ref().map_or(-1, AsRawFd::as_raw_fd),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        // SAFETY: `fds` is a live array of pollfd; a negative fd is ignored by poll.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, -1) };
        if ready < 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        for (index, pollfd) in fds.iter().enumerate() {
            if pollfd.revents == 0 {
                continue;
            }
            // SAFETY: reading into our own buffer from a descriptor we own.
            let n = unsafe { libc::read(pollfd.fd, buffer.as_mut_ptr().cast(), buffer.len()) };
            if n > 0 {
                sinks[index].write(&buffer[..n as usize]);
            } else if n == 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                sources[index] = None;
            }
        }
    }
}

/// Where one stream goes: the head file until it is full, then the rotating tail segments.
/// A write that fails (a full disk) loses those bytes but not the offsets: the reader sees a
/// file shorter than its place and reports the difference as dropped.
struct Sink {
    dir: PathBuf,
    stream: &'static str,
    layout: Layout,
    head: Option<File>,
    /// Bytes of the stream seen so far.
    written: u64,
    /// The open segment (none when it could not be created) and the bytes already in it.
    segment: Option<(Option<File>, u64)>,
    /// The start offsets of the segments on disk, oldest first.
    segments: std::collections::VecDeque<u64>,
}

impl Sink {
    fn new(dir: &Path, stream: &'static str, layout: Layout) -> Sink {
        Sink {
            dir: dir.to_path_buf(),
            stream,
            layout,
            head: OpenOptions::new().append(true).open(dir.join(stream)).ok(),
            written: 0,
            segment: None,
            segments: std::collections::VecDeque::new(),
        }
    }

    fn write(&mut self, mut bytes: &[u8]) {
        if self.written < self.layout.head {
            let n = bytes.len().min((self.layout.head - self.written) as usize);
            if let Some(head) = &mut self.head {
                let _ = head.write_all(&bytes[..n]);
            }
            self.written += n as u64;
            bytes = &bytes[n..];
        }
        while !bytes.is_empty() {
            let full = self
                .segment
                .as_ref()
                .is_none_or(|(_, len)| *len >= self.layout.segment);
            if full {
                self.rotate();
            }
            let room = self
                .segment
                .as_ref()
                .map_or(self.layout.segment, |(_, len)| self.layout.segment - len);
            let n = bytes.len().min(room as usize);
            if let Some((file, len)) = &mut self.segment {
                if let Some(file) = file {
                    let _ = file.write_all(&bytes[..n]);
                }
                *len += n as u64;
            }
            self.written += n as u64;
            bytes = &bytes[n..];
        }
    }

    /// Removes the oldest segment when the tail is full, and starts a new one here.
    fn rotate(&mut self) {
        while self.segments.len() >= SEGMENTS {
            if let Some(oldest) = self.segments.pop_front() {
                let _ = fs::remove_file(self.dir.join(segment_name(self.stream, oldest)));
            }
        }
        let start = self.written;
        let path = self.dir.join(segment_name(self.stream, start));
        self.segments.push_back(start);
        // A segment that cannot be created still counts its bytes (the reader sees them as dropped).
        self.segment = Some((File::create(path).ok(), 0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sink_keeps_the_head_and_the_last_segments() {
        let dir = tempfile::tempdir().expect("tempdir");
        File::create(dir.path().join("stdout")).expect("head");
        let layout = Layout { head: 10, segment: 4 };
        let mut sink = Sink::new(dir.path(), "stdout", layout);
        let stream: Vec<u8> = (0..100u8).collect();
        for chunk in stream.chunks(7) {
            sink.write(chunk);
        }
        assert_eq!(fs::read(dir.path().join("stdout")).expect("head"), &stream[..10]);
        let mut names: Vec<String> = fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("stdout.tail-"))
            .collect();
        names.sort();
        // 90 tail bytes in segments of 4 starting at 10: the last four start at 86, 90, 94, 98.
        assert_eq!(
            names,
            [
                "stdout.tail-86",
                "stdout.tail-90",
                "stdout.tail-94",
                "stdout.tail-98"
            ]
        );
        assert_eq!(
            fs::read(dir.path().join("stdout.tail-98")).expect("last"),
            &stream[98..]
        );
    }

    #[test]
    fn the_full_cap_is_a_32_mib_head_and_four_8_mib_segments() {
        assert_eq!(Layout::of(STREAM_CAP).head, 32 * 1024 * 1024);
        assert_eq!(Layout::of(STREAM_CAP).segment, 8 * 1024 * 1024);
    }
}
