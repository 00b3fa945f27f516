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
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use inotify::{EventMask, Inotify, WatchMask};

/// Open watches, by descriptor, on the directories they name (workspace-relative).
pub(super) struct Watch {
    inotify: Inotify,
    dirs: Mutex<HashMap<i32, Vec<u8>>>,
    /// Set once a watch could not be added: the events would not cover the tree.
    incomplete: AtomicBool,
}

/// What the events name.
#[derive(Default)]
pub(super) struct Events {
    /// Paths (workspace-relative) of files created, changed, removed or moved.
    pub files: Vec<Vec<u8>>,
    /// Directories created, removed or moved: everything beneath them is to be read again.
    pub dirs: Vec<Vec<u8>>,
}

const MASK: WatchMask = WatchMask::MODIFY
    .union(WatchMask::ATTRIB)
    .union(WatchMask::CLOSE_WRITE)
    .union(WatchMask::MOVED_FROM)
    .union(WatchMask::MOVED_TO)
    .union(WatchMask::CREATE)
    .union(WatchMask::DELETE)
    .union(WatchMask::DELETE_SELF)
    .union(WatchMask::MOVE_SELF)
    .union(WatchMask::ONLYDIR)
    .union(WatchMask::DONT_FOLLOW);

impl Watch {
    pub(super) fn new() -> Option<Watch> {
        Some(Watch {
            inotify: Inotify::init().ok()?,
            dirs: Mutex::new(HashMap::new()),
            incomplete: AtomicBool::new(false),
        })
    }

    /// Watches the directory `abs`, known as `rel`.
    pub(super) fn add(&self, abs: &Path, rel: &[u8]) {
        let added = self.inotify.watches().add(abs, MASK);
        match (added, self.dirs.lock()) {
            (Ok(wd), Ok(mut dirs)) => {
                dirs.insert(wd.get_watch_descriptor_id(), rel.to_vec());
            }
            _ => self.incomplete.store(true, Ordering::Relaxed),
        }
    }

    /// The events since the watches were added; `None` when they may not tell everything.
    pub(super) fn events(mut self) -> Option<Events> {
        if self.incomplete.load(Ordering::Relaxed) {
            return None;
        }
        let dirs = self.dirs.into_inner().ok()?;
        let mut events = Events::default();
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            match self.inotify.read_events(&mut buffer) {
                Ok(read) => {
                    for event in read {
                        let name = event.name.map_or(&[][..], |name| name.as_bytes());
                        let wd = event.wd.get_watch_descriptor_id();
                        if !record(wd, event.mask, name, &dirs, &mut events) {
                            return None;
                        }
                    }
                }
                Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => return Some(events),
                Err(_) => return None,
            }
        }
    }
}

/// Adds what one event names to `events`; false when it says the record is incomplete.
fn record(wd: i32, mask: EventMask, name: &[u8], dirs: &HashMap<i32, Vec<u8>>, events: &mut Events) -> bool {
    if mask.contains(EventMask::Q_OVERFLOW) {
        return false;
    }
    if mask.contains(EventMask::IGNORED) {
        return true;
    }
    let Some(dir) = dirs.get(&wd) else {
        return false;
    };
    if mask.intersects(EventMask::DELETE_SELF | EventMask::MOVE_SELF) {
        // Reported by the parent's watch too, except for the root.
        return !dir.is_empty();
    }
    if name == b".gitignore" {
        return false;
    }
    let mut path = dir.clone();
    if !path.is_empty() {
        path.push(b'/');
    }
    path.extend_from_slice(name);
    if mask.contains(EventMask::ISDIR) {
        events.dirs.push(path);
    } else {
        events.files.push(path);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_name_files_and_directories_under_their_watch() {
        let dirs = HashMap::from([(1, Vec::new()), (2, b"src".to_vec())]);
        let mut events = Events::default();
        assert!(record(2, EventMask::MODIFY, b"main.rs", &dirs, &mut events));
        assert!(record(
            1,
            EventMask::CREATE | EventMask::ISDIR,
            b"new",
            &dirs,
            &mut events
        ));
        assert!(record(2, EventMask::IGNORED, b"", &dirs, &mut events));
        assert_eq!(events.files, [b"src/main.rs".to_vec()]);
        assert_eq!(events.dirs, [b"new".to_vec()]);
    }

    #[test]
    fn an_overflow_a_gitignore_or_a_moved_root_makes_the_record_incomplete() {
        let dirs = HashMap::from([(1, Vec::new()), (2, b"src".to_vec())]);
        for (wd, mask, name) in [
            (-1, EventMask::Q_OVERFLOW, &b""[..]),
            (2, EventMask::MODIFY, b".gitignore"),
            (1, EventMask::MOVE_SELF, b""),
            (9, EventMask::MODIFY, b"unknown-watch"),
        ] {
            assert!(!record(wd, mask, name, &dirs, &mut Events::default()));
        }
        assert!(record(
            2,
            EventMask::DELETE_SELF,
            b"",
            &dirs,
            &mut Events::default()
        ));
    }

    #[test]
    fn the_kernel_s_events_name_what_changed_beneath_the_watched_directories() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("src")).unwrap();
        std::fs::write(root.path().join("src/kept.rs"), "").unwrap();
        let watch = Watch::new().unwrap();
        watch.add(root.path(), b"");
        watch.add(&root.path().join("src"), b"src");
        std::fs::write(root.path().join("src/main.rs"), "fn main() {}").unwrap();
        std::fs::create_dir(root.path().join("docs")).unwrap();
        std::fs::remove_file(root.path().join("src/kept.rs")).unwrap();
        let events = watch.events().unwrap();
        let mut files = events.files;
        files.dedup();
        assert_eq!(files, [b"src/main.rs".to_vec(), b"src/kept.rs".to_vec()]);
        assert_eq!(events.dirs, [b"docs".to_vec()]);
    }

    #[test]
    fn a_directory_that_cannot_be_watched_leaves_the_record_incomplete() {
        let root = tempfile::tempdir().unwrap();
        let watch = Watch::new().unwrap();
        watch.add(root.path(), b"");
        watch.add(&root.path().join("missing"), b"missing");
        std::fs::write(root.path().join("a"), "").unwrap();
        assert!(watch.events().is_none());
    }
}
