//! The shell probe: after a command finished, the files this session read most recently are
//! re-stat'ed, so the model learns that a formatter, a code generator or a `git checkout` changed
//! a file it is holding in context before it edits from a stale copy.
//!
//! Bounded: the probe re-checks the [`journal::RECENT`] (256) files this session read (or wrote)
//! most recently, found in the end of the session's journal (at most [`journal::TAIL_BYTES`]
//! read, so fewer when paths are very long). Its cost is at most that many `stat`s, however many
//! files the session has read; an older file that changes gives no notice here, but the stale gate
//! still protects every edit. The per-file record (`freshness::lookup`) is read only for a file
//! that looks drifted: it decides whether a notice was already given (`notified`), whether a newer
//! read superseded the journal's view, or whether the file was forgotten.
//!
//! The content is hashed only when mtime and length are equal but cannot be trusted: when the
//! file's recorded mtime lies within [`SAME_TICK_NS`] of the moment the read was recorded (a
//! rewrite in the same tick keeps the mtime), or when the inode changed after its mtime (ctime
//! past mtime: `touch -r` restoring an mtime). A hash that confirms the content a tick after the
//! file's last change is noted in the journal with the file's ctime, so it is not repeated while
//! the ctime stays.
//!
//! Once per drift: a drifted record is marked `notified` (in the record and the journal) and gives
//! no second notice until a re-read records a fresh fingerprint (which clears the mark).

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::fs::workspace::{quote_arg, Workspace};
use crate::notice::{DriftedFile, Notice, ShellNotice};
use crate::session::freshness::{self, Fingerprint, Record};
use crate::session::journal::{self, Line};
use crate::session::state::State;

/// Timestamps this close are treated as possibly the same filesystem tick.
const SAME_TICK_NS: i128 = 2_000_000_000;
/// At most this many paths are named in the notice.
pub const NOTICE_PATHS: usize = 5;

#[derive(Debug, PartialEq, Eq)]
enum Drift {
    Changed,
    Deleted,
}

/// Re-checks the session's recently read files; returns the notice for newly drifted ones, if any.
pub fn probe(state: &State, workspace: &Workspace) -> Option<Notice> {
    let root = workspace.root();
    let lines = journal::recent(state, journal::RECENT);
    if lines.is_empty() {
        return None;
    }
    let root_dir = RootDir::open(root);
    let now = journal::now_ns();
    let mut drifted: Vec<(String, Drift)> = Vec::new();
    let mut updates: Vec<Line> = Vec::new();
    for line in lines {
        if line.notified {
            continue;
        }
        match drift_of(&root_dir, root, &line, now) {
            Check::Same => {}
            Check::Verified(ctime_ns) => updates.push(Line {
                verified_ctime_ns: Some(ctime_ns),
                ..line
            }),
            Check::Drifted(drift) => {
                if let Some(drift) = judge(state, &root_dir, root, line, drift, now, &mut updates) {
                    drifted.push(drift);
                }
            }
        }
    }
    let _ = journal::append(state, &updates);
    if drifted.is_empty() {
        return None;
    }
    drifted.sort_by(|a, b| a.0.cmp(&b.0));
    Some(notice(&drifted, workspace))
}

/// A file that looks drifted against its journal line, judged against its authoritative record:
/// the drift to report, if any. Every outcome appends the line that spares the next probe the
/// lookup.
fn judge(
    state: &State,
    root_dir: &RootDir,
    root: &Path,
    line: Line,
    drift: Drift,
    now: i128,
    updates: &mut Vec<Line>,
) -> Option<(String, Drift)> {
    let Some(record) = freshness::lookup(state, &line.path) else {
        updates.push(Line::forgotten(&line.path, now));
        return None;
    };
    let (line, drift) = if record.fingerprint == line.fingerprint() {
        (line, drift)
    } else {
        // A recording the journal does not show (a parallel read): judge the record instead; its
        // recording time is unknown, so the same-tick rule takes it as fresh (a hash decides).
        let line = Line::recorded(&record, record.fingerprint.mtime_ns);
        match drift_of(root_dir, root, &line, now) {
            Check::Drifted(drift) => (line, drift),
            Check::Same => {
                updates.push(line);
                return None;
            }
            Check::Verified(ctime_ns) => {
                updates.push(Line {
                    verified_ctime_ns: Some(ctime_ns),
                    ..line
                });
                return None;
            }
        }
    };
    let marked = Line {
        notified: true,
        ..line
    };
    if record.notified {
        updates.push(marked);
        return None;
    }
    let path = marked.path.clone();
    let _ = freshness::store(
        state,
        &Record {
            notified: true,
            ..record
        },
    );
    updates.push(marked);
    // A re-read that landed meanwhile must stay armed: its record wins over our mark.
    if let Some(current) = freshness::lookup(state, &path).filter(|c| !c.notified) {
        updates.push(Line::recorded(&current, current.fingerprint.mtime_ns));
    }
    Some((path, drift))
}

enum Check {
    Same,
    /// Same, confirmed by a hash that can be trusted from now on while the ctime stays.
    Verified(i128),
    Drifted(Drift),
}
/// What the probe needs of a file's status.
struct Stat {
    is_file: bool,
    mtime_ns: i128,
    ctime_ns: i128,
    len: u64,
}

/// The workspace root held open, so each probe `stat` walks only the workspace-relative part of
/// the path (the walk dominates the probe's cost in a large session).
struct RootDir {
    fd: Option<std::os::fd::OwnedFd>,
}

impl RootDir {
    fn open(root: &Path) -> RootDir {
        use std::os::fd::FromRawFd;
        use std::os::unix::ffi::OsStrExt;
        let fd = std::ffi::CString::new(root.as_os_str().as_bytes())
            .ok()
            .and_then(|path| {
                // SAFETY: opening a directory path we own as a C string; the fd is owned below.
                let fd =
                    unsafe { libc::open(path.as_ptr(), libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC) };
                // SAFETY: a fresh descriptor owned by nobody else.
                (fd >= 0).then(|| unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
            });
        RootDir { fd }
    }

    /// `stat` of a record's path (workspace-relative, or absolute under a trusted root).
    fn stat(&self, relative: &str, root: &Path) -> Option<Stat> {
        use std::os::fd::AsRawFd;
        let Some(fd) = &self.fd else {
            return fs::metadata(root.join(relative)).ok().map(|meta| Stat {
                is_file: meta.is_file(),
                mtime_ns: freshness::mtime_ns(&meta),
                ctime_ns: meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128,
                len: meta.len(),
            });
        };
        let path = std::ffi::CString::new(relative).ok()?;
        // SAFETY: `st` is written by fstatat before it is read; the path is a valid C string.
        let st = unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstatat(fd.as_raw_fd(), path.as_ptr(), &mut st, 0) != 0 {
                return None;
            }
            st
        };
        Some(Stat {
            is_file: st.st_mode & libc::S_IFMT == libc::S_IFREG,
            mtime_ns: st.st_mtime as i128 * 1_000_000_000 + st.st_mtime_nsec as i128,
            ctime_ns: st.st_ctime as i128 * 1_000_000_000 + st.st_ctime_nsec as i128,
            len: st.st_size as u64,
        })
    }
}

fn drift_of(root_dir: &RootDir, root: &Path, line: &Line, now: i128) -> Check {
    let Some(stat) = root_dir.stat(&line.path, root) else {
        return Check::Drifted(Drift::Deleted);
    };
    if !stat.is_file {
        return Check::Drifted(Drift::Deleted);
    }
    if stat.mtime_ns != line.mtime_ns || stat.len != line.len {
        return Check::Drifted(Drift::Changed);
    }
    if line.hash.is_none() || !uncertain(&stat, line) {
        return Check::Same;
    }
    match Fingerprint::of_file(&root.join(&line.path)) {
        Ok(current) if current == line.fingerprint() => {
            // A tick after the last change, a later write would move the ctime.
            if now - stat.ctime_ns > SAME_TICK_NS && now - stat.mtime_ns > SAME_TICK_NS {
                Check::Verified(stat.ctime_ns)
            } else {
                Check::Same
            }
        }
        Ok(_) => Check::Drifted(Drift::Changed),
        Err(_) => Check::Drifted(Drift::Deleted),
    }
}

fn uncertain(stat: &Stat, line: &Line) -> bool {
    if line.verified_ctime_ns == Some(stat.ctime_ns) {
        return false;
    }
    stat.ctime_ns > line.mtime_ns + SAME_TICK_NS || (line.recorded_at_ns - line.mtime_ns).abs() < SAME_TICK_NS
}

fn notice(drifted: &[(String, Drift)], workspace: &Workspace) -> Notice {
    let shown = drifted
        .iter()
        .take(NOTICE_PATHS)
        .map(|(path, drift)| DriftedFile {
            path: path.clone(),
            deleted: *drift == Drift::Deleted,
        })
        .collect();
    // Named so that it resolves from the session cwd, like every suggested call.
    let reread_arg = drifted
        .iter()
        .find(|(_, drift)| *drift == Drift::Changed)
        .map(|(first, _)| quote_arg(&workspace.call_path_of(first)));
    ShellNotice::FilesDrifted {
        shown,
        more: drifted.len().saturating_sub(NOTICE_PATHS),
        reread_arg,
        any_deleted: drifted.iter().any(|(_, drift)| *drift == Drift::Deleted),
    }
    .into()
}
