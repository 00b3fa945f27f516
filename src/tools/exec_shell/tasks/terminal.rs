//! The pseudo-terminal of an interactive task, and the relay that keeps it open.
//!
//! codesmith is one process per call, but a terminal lives as long as someone holds its master
//! side: closed, the task would get a hangup. So a small relay process, forked from the call
//! that starts the task and detached from it, holds the master. It copies what the task prints
//! to the task's `stdout` file, and what task_input writes into the task's `input` FIFO to the
//! terminal. When every process holding the terminal has ended, reading the master fails and
//! the relay exits.
//!
//! The relay runs only system calls on memory set up before the fork (the MCP server that may
//! fork it has other threads, whose locks a forked child must never touch).

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::{Duration, Instant};

/// The FIFO task_input writes to, in the task's directory.
pub const INPUT: &str = "input";
/// Present in the directory of a task started on a terminal.
pub const MARK: &str = "interactive";

/// The terminal's size: wide enough that most lines are not wrapped.
const ROWS: u16 = 40;
const COLUMNS: u16 = 160;

/// Input not yet taken by the terminal is held up to this many bytes; past that the relay
/// stops reading the FIFO until the program reads.
const PENDING: usize = 64 * 1024;

/// A new pseudo-terminal: (master, slave).
fn open() -> io::Result<(OwnedFd, File)> {
    let (mut master, mut slave) = (-1, -1);
    let size = libc::winsize {
        ws_row: ROWS,
        ws_col: COLUMNS,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes the two descriptors; the name, termios pointers may be null.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors are fresh and ours.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), File::from_raw_fd(slave)) };
    for fd in [master.as_raw_fd(), slave.as_raw_fd()] {
        // SAFETY: plain fcntl on our descriptors.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    Ok((master, slave))
}

/// Everything a task in `dir` needs to start on a terminal: its input FIFO, the mark that
/// says so, and the terminal (master, slave).
pub fn prepare(dir: &Path) -> io::Result<(OwnedFd, File)> {
    make_input(dir)?;
    std::fs::write(dir.join(MARK), "")?;
    open()
}

/// Makes the task's input FIFO.
fn make_input(dir: &Path) -> io::Result<()> {
    let path = CString::new(dir.join(INPUT).as_os_str().as_bytes())?;
    // SAFETY: a path we own.
    if unsafe { libc::mkfifo(path.as_ptr(), 0o600) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Starts the relay for `master`, appending the terminal's output to `output` and taking input
/// from the task's FIFO. The relay is a grandchild (its parent exits at once and is waited
/// for), so it is nobody's zombie: init reaps it.
pub fn start_relay(master: &OwnedFd, output: &File, dir: &Path) -> io::Result<()> {
    let path = CString::new(dir.join(INPUT).as_os_str().as_bytes())?;
    // Opened read-write so the FIFO never reports end-of-file between two writers.
    // SAFETY: a path we own.
    let fifo = unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC) };
    if fifo < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor of ours.
    let fifo = unsafe { OwnedFd::from_raw_fd(fifo) };
    let (master, output, input) = (master.as_raw_fd(), output.as_raw_fd(), fifo.as_raw_fd());
    // SAFETY: the child only makes system calls on descriptors opened above (see the module
    // comment) and leaves with _exit.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        // SAFETY: in the forked child.
        unsafe {
            libc::setsid();
            if libc::fork() != 0 {
                libc::_exit(0);
            }
            relay(master, output, input)
        }
    }
    let mut status = 0;
    // SAFETY: waiting for our own child, which exits at once.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    Ok(())
}

/// The relay loop: never returns.
///
/// # Safety
/// Only in a forked child; touches nothing but the three descriptors and its stack.
unsafe fn relay(master: RawFd, output: RawFd, input: RawFd) -> ! {
    // Everything else codesmith had open is closed: the terminal's slave side (else reading
    // the master would never fail once the task ends), the state lock, a client's pipes.
    let mut keep = [master, output, input];
    keep.sort_unstable();
    let mut from = 0;
    for fd in keep {
        if fd > from {
            libc::close_range(from as libc::c_uint, (fd - 1) as libc::c_uint, 0);
        }
        from = fd + 1;
    }
    libc::close_range(from as libc::c_uint, libc::c_uint::MAX, 0);
    libc::fcntl(master, libc::F_SETFL, libc::O_NONBLOCK);
    let mut chunk = [0u8; 16 * 1024];
    let mut pending = [0u8; PENDING];
    let (mut start, mut end) = (0usize, 0usize);
    loop {
        let mut fds = [
            libc::pollfd {
                fd: master,
                events: libc::POLLIN | if end > start { libc::POLLOUT } else { 0 },
                revents: 0,
            },
            libc::pollfd {
                fd: if end < PENDING { input } else { -1 },
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        if libc::poll(fds.as_mut_ptr(), 2, -1) < 0 {
            if *libc::__errno_location() == libc::EINTR {
                continue;
            }
            libc::_exit(1);
        }
        if fds[0].revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0 {
            let n = libc::read(master, chunk.as_mut_ptr().cast(), chunk.len());
            if n > 0 {
                write_all(output, &chunk[..n as usize]);
            } else if n == 0 || *libc::__errno_location() != libc::EAGAIN {
                // EIO: no process holds the terminal any more.
                libc::_exit(0);
            }
        }
        if fds[1].revents & libc::POLLIN != 0 {
            if start == end {
                (start, end) = (0, 0);
            }
            let n = libc::read(input, pending[end..].as_mut_ptr().cast(), PENDING - end);
            if n > 0 {
                end += n as usize;
            }
        }
        if end > start && fds[0].revents & libc::POLLOUT != 0 {
            let n = libc::write(master, pending[start..end].as_ptr().cast(), end - start);
            if n > 0 {
                start += n as usize;
            }
        }
    }
}

/// Writes all of `bytes` to a regular file (gives up on an error: the output is lost, the
/// terminal keeps running).
unsafe fn write_all(fd: RawFd, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        if n <= 0 {
            if n < 0 && *libc::__errno_location() == libc::EINTR {
                continue;
            }
            return;
        }
        bytes = &bytes[n as usize..];
    }
}

/// Writes `bytes` into the task's FIFO for the relay. `Ok(false)` when no relay reads it any
/// more (the task has ended).
pub fn send(dir: &Path, bytes: &[u8]) -> io::Result<bool> {
    let path = CString::new(dir.join(INPUT).as_os_str().as_bytes())?;
    // SAFETY: a path we own; O_NOFOLLOW: the task directory's FIFO, not what a link names.
    let fd = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_WRONLY | libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        let err = io::Error::last_os_error();
        return match err.raw_os_error() {
            Some(libc::ENXIO) | Some(libc::ENOENT) => Ok(false),
            _ => Err(err),
        };
    }
    // SAFETY: a fresh descriptor of ours.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut rest = bytes;
    let deadline = Instant::now() + Duration::from_secs(5);
    while !rest.is_empty() {
        // SAFETY: writing our own buffer to our descriptor.
        let n = unsafe { libc::write(fd.as_raw_fd(), rest.as_ptr().cast(), rest.len()) };
        if n > 0 {
            rest = &rest[n as usize..];
            continue;
        }
        let err = io::Error::last_os_error();
        match err.kind() {
            io::ErrorKind::Interrupted => {}
            io::ErrorKind::WouldBlock if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10))
            }
            _ if err.raw_os_error() == Some(libc::EPIPE) => return Ok(false),
            _ => return Err(err),
        }
    }
    Ok(true)
}

/// Waits until the task's output has been still for a moment after growing (the program
/// answered and waits again), the task ended, or `wait` passed.
pub fn settle(dir: &Path, wait: Duration, finished: impl Fn() -> bool) {
    const QUIET: Duration = Duration::from_millis(150);
    let size = || std::fs::metadata(dir.join("stdout")).map_or(0, |m| m.len());
    let started = Instant::now();
    let mut last = size();
    let mut grown_at: Option<Instant> = None;
    while started.elapsed() < wait {
        std::thread::sleep(Duration::from_millis(25));
        let now = size();
        if now != last {
            last = now;
            grown_at = Some(Instant::now());
        } else if grown_at.is_some_and(|at| at.elapsed() >= QUIET) || finished() {
            return;
        }
    }
}
