//! The `codesmith` executable: one tool call per process.
//!
//! The entry point is C's `main` rather than Rust's: codesmith runs as one short process per
//! call, and std's start-up work (placing a guard page for the main thread by parsing
//! `/proc/self/maps`, installing a stack-overflow handler) is about a sixth of the instructions
//! of a small `read`. The parts of it codesmith relies on are done here: standard descriptors
//! that were closed are opened on `/dev/null` (so a file opened later cannot become stdout and
//! receive the envelope), and SIGPIPE is ignored (a closed stdout is an error, not a kill).
//! Every other descriptor inherited from the harness is marked close-on-exec, so no command
//! codesmith runs receives one (one system call).
//! `std::env::args_os` still works: glibc hands argv to std when the program is loaded.
#![cfg_attr(not(test), no_main)]

#[cfg(not(test))]
use std::ffi::{c_char, c_int};

#[cfg(not(test))]
#[unsafe(no_mangle)]
extern "C" fn main(_argc: c_int, _argv: *const *const c_char) -> c_int {
    sanitize_standard_descriptors();
    // SAFETY: marks descriptors close-on-exec; none is closed under anyone's feet.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::close_range(3, libc::c_uint::MAX, libc::CLOSE_RANGE_CLOEXEC as libc::c_int)
    };
    // SAFETY: setting a signal's disposition before any thread exists.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    let code = std::panic::catch_unwind(|| codesmith::run(std::env::args_os().collect())).unwrap_or(101);
    std::process::exit(code)
}

#[cfg(not(test))]
/// Opens `/dev/null` on each of descriptors 0, 1 and 2 that is closed, as std's own start-up does.
fn sanitize_standard_descriptors() {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    // SAFETY: `fds` is a valid array of three pollfd for the duration of the call.
    if unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) } == -1 {
        return;
    }
    for pollfd in fds {
        if pollfd.revents & libc::POLLNVAL != 0 {
            // SAFETY: open of a constant path; the lowest free descriptor is the closed one.
            unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
        }
    }
}
