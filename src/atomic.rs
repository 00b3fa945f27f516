//! Atomic file replacement: a temp file in the same directory, written and flushed, then renamed
//! over the target. A reader sees the old bytes or the new, never a mix; a crash before the
//! rename leaves the original untouched (and at worst a stray `.codesmith-tmp-*` file).

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
    let mut temp = tempfile::Builder::new()
        .prefix(".codesmith-tmp-")
        .tempfile_in(dir)?;
    {
        let mut out = io::BufWriter::with_capacity(64 * 1024, temp.as_file_mut());
        for part in parts {
            out.write_all(part)?;
        }
        out.flush()?;
    }
    let mode = existing_mode.unwrap_or_else(|| 0o666 & !current_umask());
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
    Ok(())
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

pub fn current_umask() -> u32 {
    // SAFETY: umask only swaps the process mask; it is set straight back. codesmith is
    // single-threaded where it writes files.
    unsafe {
        let old = libc::umask(0o022);
        libc::umask(old);
        old as u32
    }
}
