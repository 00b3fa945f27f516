//! Which paths changed while a command ran, from inotify watches on every directory the
//! "before" walk entered, so the "after" snapshot reads only those paths instead of the whole
//! tree.
//!
//! The kernel reports a change on the inode whatever mount or namespace it came through, so
//! the sandboxed command's writes are seen. What inotify does not report is a write through a
//! shared memory mapping or through a hard link whose name lies outside the watched
//! directories: such a change is left for the next command's "before" walk, which finds it
//! and attributes it to no one, so undo never reverts it. Whenever the events cannot be
//! trusted to be complete (the queue overflowed, a watch could not be added, a `.gitignore`
//! changed, the root itself moved), the caller walks the whole tree again.

use std::collections::HashMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;
use std::sync::Mutex;

/// Open watches, by descriptor, on the directories they name (workspace-relative).
pub struct Watch {
    fd: OwnedFd,
    dirs: Mutex<HashMap<i32, Vec<u8>>>,
    /// Set once a watch could not be added: the events would not cover the tree.
    incomplete: std::sync::atomic::AtomicBool,
}

/// What the events name.
#[derive(Default)]
pub struct Events {
    /// Paths (workspace-relative) of files created, changed, removed or moved.
    pub files: Vec<Vec<u8>>,
    /// Directories created, removed or moved: everything beneath them is to be read again.
    pub dirs: Vec<Vec<u8>>,
}

const MASK: u32 = libc::IN_MODIFY
    | libc::IN_ATTRIB
    | libc::IN_CLOSE_WRITE
    | libc::IN_MOVED_FROM
    | libc::IN_MOVED_TO
    | libc::IN_CREATE
    | libc::IN_DELETE
    | libc::IN_DELETE_SELF
    | libc::IN_MOVE_SELF
    | libc::IN_ONLYDIR
    | libc::IN_DONT_FOLLOW;

impl Watch {
    pub fn new() -> Option<Watch> {
        // SAFETY: plain system call; the descriptor it returns is owned from here on.
        let fd = unsafe { libc::inotify_init1(libc::IN_CLOEXEC | libc::IN_NONBLOCK) };
        if fd < 0 {
            return None;
        }
        Some(Watch {
            // SAFETY: `fd` is a fresh descriptor nothing else owns.
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
            dirs: Mutex::new(HashMap::new()),
            incomplete: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Watches the directory `abs`, known as `rel`.
    pub fn add(&self, abs: &Path, rel: &[u8]) {
        use std::os::unix::ffi::OsStrExt;
        let added = std::ffi::CString::new(abs.as_os_str().as_bytes())
            .ok()
            .map(|path| {
                // SAFETY: `path` is a NUL-terminated string that outlives the call.
                unsafe { libc::inotify_add_watch(self.fd.as_raw_fd(), path.as_ptr(), MASK) }
            });
        match (added, self.dirs.lock()) {
            (Some(wd), Ok(mut dirs)) if wd >= 0 => {
                dirs.insert(wd, rel.to_vec());
            }
            _ => self.incomplete.store(true, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// The events since the watches were added; `None` when they may not tell everything.
    pub fn events(self) -> Option<Events> {
        if self.incomplete.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        let dirs = self.dirs.into_inner().ok()?;
        let mut events = Events::default();
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            // SAFETY: the buffer is valid for its whole length.
            let read = unsafe { libc::read(self.fd.as_raw_fd(), buffer.as_mut_ptr().cast(), buffer.len()) };
            if read < 0 {
                let err = std::io::Error::last_os_error();
                if err.kind() == std::io::ErrorKind::WouldBlock {
                    return Some(events);
                }
                return None;
            }
            if read == 0 || !parse(&buffer[..read as usize], &dirs, &mut events) {
                return None;
            }
        }
    }
}

/// Adds the events in `bytes` to `events`; false when they say the record is incomplete.
fn parse(bytes: &[u8], dirs: &HashMap<i32, Vec<u8>>, events: &mut Events) -> bool {
    const HEADER: usize = 16;
    let mut at = 0;
    while at + HEADER <= bytes.len() {
        let word = |i: usize| {
            let b = &bytes[at + 4 * i..at + 4 * i + 4];
            u32::from_ne_bytes([b[0], b[1], b[2], b[3]])
        };
        let (wd, mask, len) = (word(0) as i32, word(1), word(3) as usize);
        let name_bytes = bytes.get(at + HEADER..at + HEADER + len).unwrap_or(&[]);
        let name = &name_bytes[..memchr::memchr(0, name_bytes).unwrap_or(name_bytes.len())];
        at += HEADER + len;
        if mask & libc::IN_Q_OVERFLOW != 0 {
            return false;
        }
        if mask & libc::IN_IGNORED != 0 {
            continue;
        }
        let Some(dir) = dirs.get(&wd) else {
            return false;
        };
        if mask & (libc::IN_DELETE_SELF | libc::IN_MOVE_SELF) != 0 {
            // Reported by the parent's watch too, except for the root.
            if dir.is_empty() {
                return false;
            }
            continue;
        }
        if name == b".gitignore" {
            return false;
        }
        let mut path = dir.clone();
        if !path.is_empty() {
            path.push(b'/');
        }
        path.extend_from_slice(name);
        if mask & libc::IN_ISDIR != 0 {
            events.dirs.push(path);
        } else {
            events.files.push(path);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(wd: i32, mask: u32, name: &[u8]) -> Vec<u8> {
        let len = name.len().div_ceil(16) * 16;
        let mut bytes = Vec::new();
        for word in [wd as u32, mask, 0, len as u32] {
            bytes.extend_from_slice(&word.to_ne_bytes());
        }
        bytes.extend_from_slice(name);
        bytes.resize(16 + len, 0);
        bytes
    }

    #[test]
    fn events_name_files_and_directories_under_their_watch() {
        let dirs = HashMap::from([(1, Vec::new()), (2, b"src".to_vec())]);
        let mut bytes = event(2, libc::IN_MODIFY, b"main.rs");
        bytes.extend(event(1, libc::IN_CREATE | libc::IN_ISDIR, b"new"));
        bytes.extend(event(2, libc::IN_IGNORED, b""));
        let mut events = Events::default();
        assert!(parse(&bytes, &dirs, &mut events));
        assert_eq!(events.files, [b"src/main.rs".to_vec()]);
        assert_eq!(events.dirs, [b"new".to_vec()]);
    }

    #[test]
    fn an_overflow_a_gitignore_or_a_moved_root_makes_the_record_incomplete() {
        let dirs = HashMap::from([(1, Vec::new()), (2, b"src".to_vec())]);
        for bytes in [
            event(-1, libc::IN_Q_OVERFLOW, b""),
            event(2, libc::IN_MODIFY, b".gitignore"),
            event(1, libc::IN_MOVE_SELF, b""),
            event(9, libc::IN_MODIFY, b"unknown-watch"),
        ] {
            assert!(!parse(&bytes, &dirs, &mut Events::default()));
        }
        assert!(parse(
            &event(2, libc::IN_DELETE_SELF, b""),
            &dirs,
            &mut Events::default()
        ));
    }
}
