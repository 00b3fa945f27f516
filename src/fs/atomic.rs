//! Atomic file replacement: a temp file in the same directory, written and flushed, then renamed
//! over the target. A reader sees the old bytes or the new, never a mix; a crash before the
//! rename leaves the original untouched (and at worst a stray `.codesmith-tmp-*` file).
//!
//! The temp file's name carries the writer's process id (`.codesmith-tmp-<pid>-<random>`), so
//! a later write into the same directory can tell a stray left by a killed writer from one a
//! live writer is still filling, and removes the strays: the cost is one listing of the one
//! directory being written anyway, never a walk of the workspace.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// How careful a write is.
#[derive(Debug, Clone, Copy)]
pub struct WriteOptions {
    /// fsync the file before the rename and the directory after it (user files: yes;
    /// codesmith's own small state files: no, the rename is what matters there).
    pub durable: bool,
    /// Create missing parent directories.
    pub create_parents: bool,
}

impl WriteOptions {
    pub const USER_FILE: WriteOptions = WriteOptions {
        durable: true,
        create_parents: true,
    };
    pub const STATE_FILE: WriteOptions = WriteOptions {
        durable: false,
        create_parents: true,
    };
}

/// Replaces (or creates) `path` with `bytes`. The mode of a replaced file is kept; a new file
/// gets the usual 0644 less the umask.
pub fn write_atomically(path: &Path, bytes: &[u8], options: WriteOptions) -> io::Result<()> {
    write_atomically_parts(path, &[bytes], options)
}

/// Like [`write_atomically`], with the content given as consecutive parts (a spliced file:
/// untouched stretches of the old content and new lines), so it is never copied whole.
pub fn write_atomically_parts(path: &Path, parts: &[&[u8]], options: WriteOptions) -> io::Result<()> {
    write_parts_in_mode(path, parts, options, None)
}

/// Like [`write_atomically`], giving the file exactly `mode` before it is renamed into place, so
/// no reader (and no crash) ever sees the new bytes with the old permissions.
pub fn write_atomically_in_mode(
    path: &Path,
    bytes: &[u8],
    options: WriteOptions,
    mode: u32,
) -> io::Result<()> {
    write_parts_in_mode(path, &[bytes], options, Some(mode & 0o7777))
}

fn write_parts_in_mode(
    path: &Path,
    parts: &[&[u8]],
    options: WriteOptions,
    mode: Option<u32>,
) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if options.create_parents {
        fs::create_dir_all(dir)?;
    }
    let existing_mode = mode.or_else(|| fs::metadata(path).ok().map(|m| m.permissions().mode()));
    let prefix = format!("{TEMP_PREFIX}{}-", std::process::id());
    let mut temp = tempfile::Builder::new().prefix(&prefix).tempfile_in(dir)?;
    {
        let mut out = io::BufWriter::with_capacity(64 * 1024, temp.as_file_mut());
        for part in parts {
            out.write_all(part)?;
        }
        out.flush()?;
    }
    let mode = existing_mode.unwrap_or_else(|| new_file_mode(false));
    temp.as_file().set_permissions(fs::Permissions::from_mode(mode))?;
    if options.durable {
        temp.as_file().sync_all()?;
    }
    injected_fault("rename", path)?;
    temp.persist(path).map_err(|err| err.error)?;
    if options.durable {
        if let Ok(dir) = fs::File::open(dir) {
            let _ = dir.sync_all();
        }
    }
    sweep_strays(dir);
    Ok(())
}

/// The start of every temp file's name.
pub const TEMP_PREFIX: &str = ".codesmith-tmp-";

/// Removes the temp files in `dir` whose writer is gone: a process killed between creating its
/// temp file and the rename. A name without a process id (an older codesmith) or whose process
/// is alive (or cannot be signalled, so may be alive) is left alone.
pub fn sweep_strays(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let me = std::process::id();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(writer_of) else {
            continue;
        };
        if pid == me || writer_alive(pid) {
            continue;
        }
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The writer's process id in a temp file's name.
fn writer_of(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(TEMP_PREFIX)?;
    let (pid, _) = rest.split_once('-')?;
    pid.parse().ok().filter(|pid| *pid > 0)
}

fn writer_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return true;
    };
    // SAFETY: signal 0 only asks whether the process exists; nothing is sent.
    let result = unsafe { libc::kill(pid, 0) };
    result == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// A test hook (debug builds only): `CODESMITH_FAULT=rename` makes every write of a user file
/// (not of `.codesmith/` state) fail after the temp file is written and flushed but before the
/// rename, as a crash at that point would; `CODESMITH_FAULT=rename:NAME` fails only writes to
/// files named NAME. Tests use it to prove that the original survives and that multi-file
/// writes roll back.
fn injected_fault(point: &str, path: &Path) -> io::Result<()> {
    if !cfg!(debug_assertions) {
        return Ok(());
    }
    let Ok(spec) = std::env::var("CODESMITH_FAULT") else {
        return Ok(());
    };
    // codesmith's own state (fingerprints, session) is never the subject of these tests.
    if path.components().any(|c| c.as_os_str() == ".codesmith") {
        return Ok(());
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    // `stall`: the writer stops for good before the rename, for a test to kill it there.
    let stalls = spec
        .split(',')
        .any(|entry| entry == "stall" || entry.strip_prefix("stall:") == name.as_deref());
    if stalls && point == "rename" {
        loop {
            std::thread::sleep(std::time::Duration::from_secs(60));
        }
    }
    let hit = spec.split(',').any(|entry| match entry.split_once(':') {
        Some((p, file)) => p == point && name.as_deref() == Some(file),
        None => entry == point,
    });
    if hit {
        return Err(io::Error::other(format!(
            "injected fault before {point} (CODESMITH_FAULT)"
        )));
    }
    Ok(())
}

/// The permission bits a new file gets: 0666, or 0777 when `executable`, less the umask.
pub fn new_file_mode(executable: bool) -> u32 {
    let full = if executable { 0o777 } else { 0o666 };
    full & !current_umask()
}

pub fn current_umask() -> u32 {
    // SAFETY: umask only swaps the process mask; it is set straight back. codesmith is
    // single-threaded where it writes files.
    unsafe {
        let old = libc::umask(0o022);
        libc::umask(old);
        old as u32
    }
}
