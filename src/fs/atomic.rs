//! Atomic file replacement: a temp file in the same directory, written and flushed, then renamed
//! over the target, both through the directory's descriptor ([`write_beneath`] for files a tool
//! writes, reached beneath the workspace's roots). A reader sees the old bytes or the new, never a mix; a crash before the
//! rename leaves the original untouched (and at worst a stray `.codesmith-tmp-*` file).
//!
//! The temp file's name carries the writer's process id (`.codesmith-tmp-<pid>-<random>`), so
//! a later write into the same directory can tell a stray left by a killed writer from one a
//! live writer is still filling, and removes the strays: the cost is one listing of the one
//! directory being written anyway, never a walk of the workspace.

use std::ffi::OsString;
use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::fs::beneath::{Dir, Refusal, Slot};
use crate::fs::workspace::WsPath;

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

/// Writes `parts` to `path`, a path checked against the workspace, in the directory its walk
/// from the root ended on (see [`crate::fs::beneath`]): the temp file is created in that
/// directory's descriptor and renamed within it, so the bytes land where the check said,
/// however the names change meanwhile. `mode` as for [`write_atomically_in_mode`]; `None` keeps
/// a replaced file's mode. Returns the written file's metadata (for its fingerprint).
pub fn write_beneath(
    path: &WsPath,
    parts: &[&[u8]],
    options: WriteOptions,
    mode: Option<u32>,
) -> Result<fs::Metadata, Refusal> {
    let slot = path.slot(options.create_parents)?;
    Ok(write_in_slot(
        &slot,
        parts,
        options,
        mode.map(|m| m & 0o7777),
        &path.abs,
    )?)
}

/// The by-name form, for codesmith's own state under `.codesmith/`, which no tool call writes.
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
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::from_raw_os_error(libc::EISDIR))?;
    if options.create_parents {
        fs::create_dir_all(dir)?;
    }
    let slot = Slot {
        dir: Dir::open_path(dir)?,
        name: name.to_os_string(),
    };
    write_in_slot(&slot, parts, options, mode, path).map(|_| ())
}

/// The write itself, all of it relative to the slot's directory descriptor (`path` names the
/// file for the fault hook).
pub fn write_in_slot(
    slot: &Slot,
    parts: &[&[u8]],
    options: WriteOptions,
    mode: Option<u32>,
    path: &Path,
) -> io::Result<fs::Metadata> {
    let mode = mode
        .or_else(|| slot.dir.file_mode(&slot.name))
        .unwrap_or_else(|| new_file_mode(false));
    let (temp_name, temp) = create_temp(&slot.dir)?;
    let written = (|| -> io::Result<fs::Metadata> {
        write_all_parts(&temp, parts)?;
        temp.set_permissions(fs::Permissions::from_mode(mode))?;
        if options.durable {
            temp.sync_all()?;
        }
        injected_fault("rename", path)?;
        // Taken before the rename, which changes no time the fingerprint holds.
        let meta = temp.metadata()?;
        slot.dir.rename(&temp_name, &slot.name)?;
        Ok(meta)
    })();
    let meta = written.inspect_err(|_| {
        let _ = slot.dir.remove_file(&temp_name);
    })?;
    if options.durable {
        slot.dir.sync();
    }
    sweep_strays(&slot.dir);
    Ok(meta)
}

/// Writes `parts` back to back with vectored writes, straight from where they are: a spliced
/// file's thousands of parts go out in a few `writev` calls, and its bytes are not first copied
/// through a buffer.
fn write_all_parts(mut file: &fs::File, parts: &[&[u8]]) -> io::Result<()> {
    let mut slices: Vec<io::IoSlice> = parts
        .iter()
        .filter(|part| !part.is_empty())
        .map(|part| io::IoSlice::new(part))
        .collect();
    let mut rest = &mut slices[..];
    while !rest.is_empty() {
        match file.write_vectored(rest) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
            Ok(n) => io::IoSlice::advance_slices(&mut rest, n),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(())
}

/// Creates a fresh temp file (`0600` until the content is in) in `dir`, named for this writer.
fn create_temp(dir: &Dir) -> io::Result<(OsString, fs::File)> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let pid = std::process::id();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut last = io::Error::from_raw_os_error(libc::EEXIST);
    for _ in 0..16 {
        let count = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let seed = xxhash_rust::xxh3::xxh3_64(&[nanos.to_le_bytes(), count.to_le_bytes()].concat());
        let name = OsString::from(format!("{TEMP_PREFIX}{pid}-{}", suffix(seed)));
        match dir.create_new(&name, 0o600) {
            Ok(file) => return Ok((name, file)),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => last = err,
            Err(err) => return Err(err),
        }
    }
    Err(last)
}

/// Six letters and digits from `seed`.
fn suffix(mut seed: u64) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    (0..6)
        .map(|_| {
            let c = ALPHABET[(seed % ALPHABET.len() as u64) as usize];
            seed /= ALPHABET.len() as u64;
            c as char
        })
        .collect()
}

/// The start of every temp file's name.
pub const TEMP_PREFIX: &str = ".codesmith-tmp-";

/// Removes the temp files in `dir` whose writer is gone: a process killed between creating its
/// temp file and the rename. A name without a process id (an older codesmith) or whose process
/// is alive (or cannot be signalled, so may be alive) is left alone.
pub fn sweep_strays(dir: &Dir) {
    let Ok(entries) = dir.entries() else {
        return;
    };
    let me = std::process::id();
    for (name, regular) in entries {
        let Some(pid) = name.to_str().and_then(writer_of) else {
            continue;
        };
        if pid == me || writer_alive(pid) {
            continue;
        }
        if regular {
            let _ = dir.remove_file(&name);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_of_parts_empty_ones_among_them_are_written_in_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("spliced.txt");
        // More parts than one writev takes (IOV_MAX is 1024), of uneven sizes.
        let owned: Vec<Vec<u8>> = (0..3000u32)
            .map(|i| match i % 4 {
                0 => Vec::new(),
                _ => format!("part {i}\n").repeat((i % 7) as usize).into_bytes(),
            })
            .collect();
        let parts: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        write_atomically_parts(&path, &parts, WriteOptions::STATE_FILE).expect("write");
        assert_eq!(fs::read(&path).expect("read"), parts.concat());
        write_atomically_parts(&path, &[], WriteOptions::STATE_FILE).expect("write nothing");
        assert_eq!(fs::read(&path).expect("read"), b"");
    }
}
