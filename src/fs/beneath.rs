//! Opening paths beneath the workspace's roots by descriptor.
//!
//! The boundary check ([`crate::fs::workspace`]) decides which file a path means; this module is
//! how the file tools then reach it. Checking a path and later opening it again by name leaves a
//! window: a process running in the workspace (a background task) can swap a checked directory
//! with a symlink to somewhere else between the two, and the open follows the link. So every
//! open, create, rename and delete starts from a descriptor of the root the path lies under and
//! goes down from there:
//! - first with one `openat2(RESOLVE_BENEATH)`, where the kernel refuses any step that leaves
//!   the root (`..` above it, a symlink out, an absolute symlink);
//! - when the kernel refuses (or has no `openat2`), by a walk of its own: each directory opened
//!   `O_NOFOLLOW` from the one before, each symlink read with `readlinkat` and its target checked
//!   against the roots again before the walk goes on. So a symlink that stays inside a root
//!   (absolute ones too, which `RESOLVE_BENEATH` refuses) still works, one that leads out is
//!   [`Refusal::Escapes`], also when the file beneath it does not exist yet.
//!
//! A write then happens in the directory descriptor the walk ended on (temp file created with
//! `openat` in it, renamed with `renameat` within it, missing parents made with `mkdirat` from
//! their parent's descriptor), so whatever happens to the names meanwhile, the bytes land in a
//! directory that was inside when it was opened.

use std::ffi::{CString, OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::fs::workspace::normalize_lexically;

/// How many symlinks one resolution may follow before it is called a loop (as the kernel's 40).
const MAX_SYMLINK_HOPS: usize = 40;

/// The directories a path may resolve into: the workspace root first, then the trusted roots,
/// all canonical.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roots(Arc<[PathBuf]>);

/// Why a path could not be reached beneath a root.
#[derive(Debug)]
pub enum Refusal {
    /// The path leads out of every root; it resolves to this path.
    Escapes(PathBuf),
    /// More symlinks than [`MAX_SYMLINK_HOPS`] on the way.
    Loop,
    Io(io::Error),
}

impl From<io::Error> for Refusal {
    fn from(err: io::Error) -> Refusal {
        Refusal::Io(err)
    }
}

impl From<Refusal> for io::Error {
    fn from(refusal: Refusal) -> io::Error {
        match refusal {
            Refusal::Escapes(to) => io::Error::other(format!(
                "a symlink on the way leads outside the workspace, to `{}`",
                to.display()
            )),
            Refusal::Loop => io::Error::from_raw_os_error(libc::ELOOP),
            Refusal::Io(err) => err,
        }
    }
}

/// A directory opened beneath a root (an `O_PATH` descriptor: enough to create, rename, remove
/// and open entries in it).
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
}

impl From<File> for Dir {
    /// A directory already opened beneath a root (by [`Roots::open`]).
    fn from(file: File) -> Dir {
        Dir {
            fd: OwnedFd::from(file),
        }
    }
}

/// Opens files for reading beneath the roots, from descriptors of the roots opened once; see
/// [`Roots::reader`]. A walk lists a directory by name, and a directory swapped for a symlink
/// meanwhile would lead it out: the files it finds are opened through a reader, so their bytes
/// are never read from outside.
pub struct Reader<'a> {
    roots: &'a Roots,
    fds: std::sync::OnceLock<Vec<Option<OwnedFd>>>,
}

impl Reader<'_> {
    /// Opens `abs` read-only, as [`Roots::open`] does.
    pub fn open(&self, abs: &Path) -> Result<File, Refusal> {
        let fds = self
            .fds
            .get_or_init(|| self.roots.0.iter().map(|root| sys::open_dir(root).ok()).collect());
        let flags = libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOCTTY;
        let found = self.roots.0.iter().zip(fds).find_map(|(root, fd)| {
            let rel = abs.strip_prefix(root).ok()?;
            Some((rel, fd.as_ref()?))
        });
        if let Some((rel, fd)) = found {
            if !rel.as_os_str().is_empty() && !rel.components().any(|c| c == std::path::Component::ParentDir)
            {
                match sys::openat2_beneath(fd, rel.as_os_str(), flags) {
                    Ok(fd) => return Ok(File::from(fd)),
                    Err(err) if !sys::walk_instead(&err) => return Err(err.into()),
                    Err(_) => {}
                }
            }
        }
        self.roots.open(abs, libc::O_RDONLY)
    }

    /// Whether an entry named like the last component of `abs` (a symlink itself, not
    /// followed) is in its parent directory as reached beneath the roots. A walk that listed a
    /// directory swapped for a symlink out would have found names outside: they fail this.
    pub fn holds(&self, abs: &Path) -> bool {
        let (Some(parent), Some(name)) = (abs.parent(), abs.file_name()) else {
            return false;
        };
        self.open(parent)
            .is_ok_and(|dir| sys::fstatat(&OwnedFd::from(dir), name).is_ok())
    }

    /// Reads the whole file at `abs`.
    pub fn read(&self, abs: &Path) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        io::Read::read_to_end(&mut self.open(abs)?, &mut bytes)?;
        Ok(bytes)
    }
}

/// Where a path lands: the directory that holds it, opened beneath a root, and its name there.
#[derive(Debug)]
pub struct Slot {
    pub dir: Dir,
    pub name: OsString,
}

impl Roots {
    pub fn new(roots: Vec<PathBuf>) -> Roots {
        Roots(roots.into())
    }

    /// The workspace root.
    pub fn workspace(&self) -> &Path {
        self.0.first().map_or(Path::new("/"), PathBuf::as_path)
    }

    pub fn all(&self) -> &[PathBuf] {
        &self.0
    }

    /// The root `abs` lies under, and the rest of the path below it.
    fn locate<'a>(&self, abs: &'a Path) -> Option<(&Path, &'a Path)> {
        self.0
            .iter()
            .find_map(|root| abs.strip_prefix(root).ok().map(|rel| (root.as_path(), rel)))
    }

    /// Opens the file at `abs` with `flags` (`O_CLOEXEC` and, unless `O_PATH`, `O_NOCTTY`
    /// added). A symlink on the way, the last component's included, is followed only while it
    /// stays inside a root.
    pub fn open(&self, abs: &Path, flags: libc::c_int) -> Result<File, Refusal> {
        // openat2 takes no flag with O_PATH but these three (it refuses O_NOCTTY there).
        let flags = match flags & libc::O_PATH {
            0 => flags | libc::O_CLOEXEC | libc::O_NOCTTY,
            _ => flags & (libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW) | libc::O_CLOEXEC,
        };
        let mut abs = normalize_lexically(abs);
        let mut hops = 0;
        loop {
            let (root, rel) = self.locate(&abs).ok_or_else(|| Refusal::Escapes(abs.clone()))?;
            let root_fd = sys::open_dir(root)?;
            if rel.as_os_str().is_empty() {
                return Ok(File::from(sys::openat(&root_fd, OsStr::new("."), flags)?));
            }
            match sys::openat2_beneath(&root_fd, rel.as_os_str(), flags) {
                Ok(fd) => return Ok(File::from(fd)),
                Err(err) if !sys::walk_instead(&err) => return Err(err.into()),
                Err(_) => {}
            }
            let (slot, dir_path) = match self.walk(&abs, false, &mut hops)? {
                Walked::Slot(slot, dir_path) => (slot, dir_path),
                Walked::Missing(err) => return Err(err.into()),
            };
            match sys::openat(&slot.dir.fd, &slot.name, flags | libc::O_NOFOLLOW) {
                Ok(fd) => return Ok(File::from(fd)),
                Err(err) if matches!(err.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => {
                    match sys::readlinkat(&slot.dir.fd, &slot.name) {
                        Ok(target) => abs = follow(&dir_path, &target, &[], &mut hops)?,
                        // Not a symlink: what `flags` asked for does not fit it (`O_DIRECTORY`
                        // on a file), unless it was one a moment ago; then look again.
                        Err(_)
                            if sys::fstatat(&slot.dir.fd, &slot.name).is_ok_and(|s| is_dir_or_link(&s)) =>
                        {
                            count_hop(&mut hops)?
                        }
                        Err(_) => return Err(err.into()),
                    }
                }
                Err(err) => return Err(err.into()),
            }
        }
    }

    /// A reader for many files under these roots (a search's walk): it keeps each root's
    /// descriptor, so a file costs one `openat2` rather than an open of its root as well.
    pub fn reader(&self) -> Reader<'_> {
        Reader {
            roots: self,
            fds: std::sync::OnceLock::new(),
        }
    }

    /// The directory that holds `abs` and the name `abs` has in it, without following `abs`
    /// itself if it is a symlink (a rename or delete acts on the link). With `create`, missing
    /// directories on the way are made.
    pub fn slot(&self, abs: &Path, create: bool) -> Result<Slot, Refusal> {
        let abs = normalize_lexically(abs);
        let (root, rel) = self.locate(&abs).ok_or_else(|| Refusal::Escapes(abs.clone()))?;
        let (Some(parent), Some(name)) = (rel.parent(), rel.file_name()) else {
            // The root itself is nobody's entry.
            return Err(Refusal::Io(io::Error::from_raw_os_error(libc::EISDIR)));
        };
        let root_fd = sys::open_dir(root)?;
        let fast = if parent.as_os_str().is_empty() {
            Ok(root_fd)
        } else {
            // Opened for reading where permitted (so it can be synced), else as a path.
            sys::openat2_beneath(&root_fd, parent.as_os_str(), sys::DIR_READ).or_else(|err| {
                match err.raw_os_error() {
                    Some(libc::EACCES) => sys::openat2_beneath(&root_fd, parent.as_os_str(), sys::DIR_FLAGS),
                    _ => Err(err),
                }
            })
        };
        match fast {
            Ok(fd) => {
                return Ok(Slot {
                    dir: Dir { fd },
                    name: name.to_os_string(),
                })
            }
            Err(err) if !(sys::walk_instead(&err) || create && crate::fs::open::is_missing(&err)) => {
                return Err(err.into())
            }
            Err(_) => {}
        }
        match self.walk(&abs, create, &mut 0)? {
            Walked::Slot(slot, _) => Ok(slot),
            Walked::Missing(err) => Err(err.into()),
        }
    }

    /// Removes the file or symlink at `abs` (a symlink itself, never what it points at).
    pub fn remove_file(&self, abs: &Path) -> Result<(), Refusal> {
        let slot = self.slot(abs, false)?;
        Ok(slot.dir.remove_file(&slot.name)?)
    }

    /// Removes the empty directory at `abs`.
    pub fn remove_dir(&self, abs: &Path) -> Result<(), Refusal> {
        let slot = self.slot(abs, false)?;
        Ok(slot.dir.remove_dir(&slot.name)?)
    }

    /// Moves the entry at `from` (a symlink itself) to `to`, making `to`'s missing parents.
    pub fn rename(&self, from: &Path, to: &Path) -> Result<(), Refusal> {
        let from = self.slot(from, false)?;
        let to = self.slot(to, true)?;
        Ok(from.dir.rename_to(&from.name, &to.dir, &to.name)?)
    }

    /// Makes a symlink at `abs` pointing at `target`, making missing parents.
    pub fn symlink(&self, target: &Path, abs: &Path) -> Result<(), Refusal> {
        let slot = self.slot(abs, true)?;
        Ok(slot.dir.symlink(target, &slot.name)?)
    }

    /// Opens the directory at `abs` (following symlinks that stay inside a root).
    pub fn dir(&self, abs: &Path) -> Result<Dir, Refusal> {
        let file = self.open(abs, sys::DIR_FLAGS)?;
        Ok(Dir {
            fd: OwnedFd::from(file),
        })
    }

    /// Goes down from the root of `abs` to the directory holding its last component, one
    /// component at a time, none followed blindly: a directory is opened `O_NOFOLLOW`; a
    /// symlink is read and its target, joined with the rest of the path, starts the walk again
    /// from the root it lies under (or is refused if it lies under none). `..` goes back to the
    /// descriptor the walk came through; above a root, the walk starts again from the path.
    fn walk(&self, abs: &Path, create: bool, hops: &mut usize) -> Result<Walked, Refusal> {
        let mut abs = abs.to_path_buf();
        'restart: loop {
            let (root, rel) = self.locate(&abs).ok_or_else(|| Refusal::Escapes(abs.clone()))?;
            let parts: Vec<OsString> = rel.iter().map(OsStr::to_os_string).collect();
            let ends_in_dots = parts.last().is_some_and(|p| *p == ".." || *p == ".");
            // A path ending in `..` names a directory: walk all of it, then look its real path up.
            let (last, dirs) = match parts.split_last() {
                Some((last, dirs)) if !ends_in_dots => (Some(last), dirs),
                _ => (None, &parts[..]),
            };
            let mut stack = vec![sys::open_dir(root)?];
            let mut pos = root.to_path_buf();
            let mut i = 0;
            while let Some(name) = dirs.get(i) {
                let name = name.as_os_str();
                let here = stack.last().ok_or(Refusal::Loop)?;
                if name == "." {
                    i += 1;
                    continue;
                }
                if name == ".." {
                    if stack.len() == 1 {
                        count_hop(hops)?;
                        abs = pos.parent().unwrap_or(Path::new("/")).to_path_buf();
                        abs.extend(&parts[i + 1..]);
                        continue 'restart;
                    }
                    stack.pop();
                    pos.pop();
                    i += 1;
                    continue;
                }
                match sys::openat(here, name, sys::DIR_FLAGS | libc::O_NOFOLLOW) {
                    Ok(fd) => {
                        stack.push(fd);
                        pos.push(name);
                        i += 1;
                    }
                    Err(err) if matches!(err.raw_os_error(), Some(libc::ENOTDIR | libc::ELOOP)) => {
                        match sys::readlinkat(here, name) {
                            Ok(target) => {
                                abs = follow(&pos, &target, &parts[i + 1..], hops)?;
                                continue 'restart;
                            }
                            // Not a symlink when read: unless it is a file, it changed under
                            // the walk (a directory again, or a symlink again); look again.
                            Err(_) if sys::fstatat(here, name).is_ok_and(|s| is_dir_or_link(&s)) => {
                                count_hop(hops)?;
                            }
                            Err(_) => return Ok(Walked::Missing(err)),
                        }
                    }
                    Err(err) if create && err.raw_os_error() == Some(libc::ENOENT) => {
                        // Counted as a hop, so a directory that keeps vanishing ends the walk.
                        count_hop(hops)?;
                        sys::mkdirat(here, name).or_else(|err| match err.raw_os_error() {
                            Some(libc::EEXIST) => Ok(()),
                            _ => Err(err),
                        })?;
                    }
                    Err(err) if crate::fs::open::is_missing(&err) => return Ok(Walked::Missing(err)),
                    Err(err) => return Err(err.into()),
                }
            }
            let Some(last) = last else {
                // `pos` is real (built from directories opened), so it has no `..` to fold.
                count_hop(hops)?;
                abs = pos;
                continue 'restart;
            };
            let slot = Slot {
                dir: Dir {
                    fd: stack.pop().ok_or(Refusal::Loop)?,
                },
                name: last.to_os_string(),
            };
            return Ok(Walked::Slot(slot, pos));
        }
    }
}

/// What a walk found: the slot (and the real path of its directory), or that a directory on
/// the way is missing (or is a file).
enum Walked {
    Slot(Slot, PathBuf),
    Missing(io::Error),
}

/// Where a symlink at `dir/<link>` with `target` leads, with `rest` re-attached; one more hop.
/// `..` in the target is left for the walk: after a symlink it means the parent of where the
/// link led, which only the walk knows.
fn follow(dir: &Path, target: &Path, rest: &[OsString], hops: &mut usize) -> Result<PathBuf, Refusal> {
    count_hop(hops)?;
    let mut next = dir.join(target);
    next.extend(rest);
    Ok(next)
}

/// One more step that went back instead of forward (a symlink followed, a lookup retried).
fn count_hop(hops: &mut usize) -> Result<(), Refusal> {
    *hops += 1;
    if *hops > MAX_SYMLINK_HOPS {
        return Err(Refusal::Loop);
    }
    Ok(())
}

fn is_dir(stat: &libc::stat) -> bool {
    stat.st_mode & libc::S_IFMT == libc::S_IFDIR
}

fn is_dir_or_link(stat: &libc::stat) -> bool {
    matches!(stat.st_mode & libc::S_IFMT, libc::S_IFDIR | libc::S_IFLNK)
}

impl Dir {
    /// Opens the directory at `path` by name, with no boundary: for codesmith's own state.
    pub fn open_path(path: &Path) -> io::Result<Dir> {
        Ok(Dir {
            fd: sys::open_dir(path)?,
        })
    }

    /// Opens the directory `name` in this one, not following a symlink there.
    pub fn subdir(&self, name: &OsStr) -> io::Result<Dir> {
        Ok(Dir {
            fd: sys::openat(&self.fd, name, sys::DIR_FLAGS | libc::O_NOFOLLOW)?,
        })
    }

    /// Opens `name` in this directory without following a symlink there.
    pub fn open(&self, name: &OsStr, flags: libc::c_int) -> io::Result<File> {
        sys::openat(&self.fd, name, flags | libc::O_CLOEXEC | libc::O_NOFOLLOW).map(File::from)
    }

    /// Creates `name` exclusively (never through a symlink), with `mode` less the umask.
    pub fn create_new(&self, name: &OsStr, mode: u32) -> io::Result<File> {
        let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC | libc::O_NOFOLLOW;
        sys::openat_mode(&self.fd, name, flags, mode).map(File::from)
    }

    /// The status of `name` (a symlink's own, not its target's).
    pub fn stat(&self, name: &OsStr) -> io::Result<libc::stat> {
        sys::fstatat(&self.fd, name)
    }

    /// The status of what `name` leads to, following symlinks (for display only: nothing is
    /// opened through it).
    pub fn stat_target(&self, name: &OsStr) -> io::Result<libc::stat> {
        sys::fstatat_follow(&self.fd, name)
    }

    /// The permission bits of `name` if it is a regular file (a symlink is not followed).
    pub fn file_mode(&self, name: &OsStr) -> Option<u32> {
        let stat = sys::fstatat(&self.fd, name).ok()?;
        (stat.st_mode & libc::S_IFMT == libc::S_IFREG).then_some(stat.st_mode & 0o7777)
    }

    /// Whether `name` is a directory (a symlink is not followed).
    pub fn is_dir(&self, name: &OsStr) -> bool {
        sys::fstatat(&self.fd, name).is_ok_and(|stat| is_dir(&stat))
    }

    /// Whether anything (a dangling symlink too) is at `name`.
    pub fn exists(&self, name: &OsStr) -> bool {
        sys::fstatat(&self.fd, name).is_ok()
    }

    /// Renames `from` to `to`, both in this directory.
    pub fn rename(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
        sys::renameat(&self.fd, from, &self.fd, to)
    }

    /// Moves `from` here to `to` in `other`.
    pub fn rename_to(&self, from: &OsStr, other: &Dir, to: &OsStr) -> io::Result<()> {
        sys::renameat(&self.fd, from, &other.fd, to)
    }

    /// Removes the file (or symlink) `name`.
    pub fn remove_file(&self, name: &OsStr) -> io::Result<()> {
        sys::unlinkat(&self.fd, name, 0)
    }

    /// Removes the empty directory `name`.
    pub fn remove_dir(&self, name: &OsStr) -> io::Result<()> {
        sys::unlinkat(&self.fd, name, libc::AT_REMOVEDIR)
    }

    /// Makes a symlink `name` pointing at `target`.
    pub fn symlink(&self, target: &Path, name: &OsStr) -> io::Result<()> {
        sys::symlinkat(target.as_os_str(), &self.fd, name)
    }

    /// The target of the symlink `name`.
    pub fn read_link(&self, name: &OsStr) -> io::Result<PathBuf> {
        sys::readlinkat(&self.fd, name)
    }

    /// Flushes the directory's entries to disk (after a rename); best effort.
    pub fn sync(&self) {
        // SAFETY: fsync of a valid descriptor.
        if unsafe { libc::fsync(self.fd.as_raw_fd()) } == 0 {
            return;
        }
        // A path descriptor (from the walk) cannot be synced; a descriptor of the same
        // directory opened for reading can.
        if let Ok(fd) = sys::openat(&self.fd, OsStr::new("."), sys::DIR_READ) {
            let _ = File::from(fd).sync_all();
        }
    }

    /// The names in this directory (without `.` and `..`), with whether each is a regular file.
    pub fn entries(&self) -> io::Result<Vec<(OsString, bool)>> {
        let fd = sys::openat(&self.fd, OsStr::new("."), sys::DIR_READ)?;
        sys::read_dir(&fd)
    }
}

/// The system calls, each a thin safe wrapper.
mod sys {
    use super::*;

    /// How the walk opens a directory: a path descriptor, enough to go on from.
    pub(super) const DIR_FLAGS: libc::c_int = libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC;
    /// How the directory a write happens in is opened where it can be: for reading, so the
    /// same descriptor can be synced after the rename.
    pub(super) const DIR_READ: libc::c_int = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;

    fn c_name(name: &OsStr) -> io::Result<CString> {
        CString::new(name.as_bytes()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
    }

    fn fd_result(fd: libc::c_int) -> io::Result<OwnedFd> {
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the kernel just returned this descriptor to us; nothing else owns it.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    fn unit(result: libc::c_int) -> io::Result<()> {
        if result < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }

    /// Opens a root (or a state directory) by its path: for reading where permitted (so a
    /// write at its top level can sync it), else as a path.
    pub(super) fn open_dir(path: &Path) -> io::Result<OwnedFd> {
        let path = c_name(path.as_os_str())?;
        // SAFETY: a valid C string; the returned descriptor is checked.
        let read = fd_result(unsafe { libc::open(path.as_ptr(), DIR_READ) });
        match read {
            Err(err) if err.raw_os_error() == Some(libc::EACCES) => {
                // SAFETY: as above.
                fd_result(unsafe { libc::open(path.as_ptr(), DIR_FLAGS) })
            }
            read => read,
        }
    }

    pub(super) fn openat(dir: &OwnedFd, name: &OsStr, flags: libc::c_int) -> io::Result<OwnedFd> {
        openat_mode(dir, name, flags, 0)
    }

    pub(super) fn openat_mode(
        dir: &OwnedFd,
        name: &OsStr,
        flags: libc::c_int,
        mode: u32,
    ) -> io::Result<OwnedFd> {
        let name = c_name(name)?;
        // SAFETY: a valid descriptor and C string; the returned descriptor is checked.
        fd_result(unsafe { libc::openat(dir.as_raw_fd(), name.as_ptr(), flags, mode as libc::c_uint) })
    }

    /// `openat2` with `RESOLVE_BENEATH` (and no magic links such as `/proc/self/fd/N`).
    pub(super) fn openat2_beneath(dir: &OwnedFd, path: &OsStr, flags: libc::c_int) -> io::Result<OwnedFd> {
        #[cfg(test)]
        if tests::NO_OPENAT2.with(std::cell::Cell::get) {
            return Err(io::Error::from_raw_os_error(libc::ENOSYS));
        }
        let path = c_name(path)?;
        // SAFETY: open_how is plain data; zeroed is a valid value for it.
        let mut how: libc::open_how = unsafe { std::mem::zeroed() };
        how.flags = flags as u64;
        how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS;
        // SAFETY: valid descriptor, C string and open_how of the size passed.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                dir.as_raw_fd(),
                path.as_ptr(),
                &how as *const libc::open_how,
                std::mem::size_of::<libc::open_how>(),
            )
        };
        fd_result(libc::c_int::try_from(fd).unwrap_or(-1))
    }

    /// Whether an `openat2` failure is one the walk decides instead: the kernel refused a
    /// step it would not take beneath the root (an escape, an absolute symlink), a rename
    /// raced the lookup, a loop, or the call itself is missing or filtered.
    pub(super) fn walk_instead(err: &io::Error) -> bool {
        matches!(
            err.raw_os_error(),
            Some(
                libc::EXDEV
                    | libc::ELOOP
                    | libc::EAGAIN
                    | libc::ENOSYS
                    | libc::EPERM
                    | libc::EINVAL
                    | libc::E2BIG
            )
        )
    }

    pub(super) fn readlinkat(dir: &OwnedFd, name: &OsStr) -> io::Result<PathBuf> {
        let name = c_name(name)?;
        let mut buf = vec![0u8; libc::PATH_MAX as usize];
        // SAFETY: the buffer is as long as the length passed.
        let len =
            unsafe { libc::readlinkat(dir.as_raw_fd(), name.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
        let len = usize::try_from(len).map_err(|_| io::Error::last_os_error())?;
        buf.truncate(len);
        Ok(PathBuf::from(OsString::from_vec(buf)))
    }

    pub(super) fn mkdirat(dir: &OwnedFd, name: &OsStr) -> io::Result<()> {
        let name = c_name(name)?;
        // SAFETY: a valid descriptor and C string.
        unit(unsafe { libc::mkdirat(dir.as_raw_fd(), name.as_ptr(), 0o777) })
    }

    pub(super) fn fstatat(dir: &OwnedFd, name: &OsStr) -> io::Result<libc::stat> {
        stat_at(dir, name, libc::AT_SYMLINK_NOFOLLOW)
    }

    pub(super) fn fstatat_follow(dir: &OwnedFd, name: &OsStr) -> io::Result<libc::stat> {
        stat_at(dir, name, 0)
    }

    fn stat_at(dir: &OwnedFd, name: &OsStr, flags: libc::c_int) -> io::Result<libc::stat> {
        let name = c_name(name)?;
        // SAFETY: stat is plain data, filled by the kernel on success.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: valid descriptor, C string and stat buffer.
        unit(unsafe { libc::fstatat(dir.as_raw_fd(), name.as_ptr(), &mut stat, flags) })?;
        Ok(stat)
    }

    pub(super) fn renameat(from_dir: &OwnedFd, from: &OsStr, to_dir: &OwnedFd, to: &OsStr) -> io::Result<()> {
        let (from, to) = (c_name(from)?, c_name(to)?);
        // SAFETY: valid descriptors and C strings.
        unit(unsafe {
            libc::renameat(
                from_dir.as_raw_fd(),
                from.as_ptr(),
                to_dir.as_raw_fd(),
                to.as_ptr(),
            )
        })
    }

    pub(super) fn unlinkat(dir: &OwnedFd, name: &OsStr, flags: libc::c_int) -> io::Result<()> {
        let name = c_name(name)?;
        // SAFETY: a valid descriptor and C string.
        unit(unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), flags) })
    }

    pub(super) fn symlinkat(target: &OsStr, dir: &OwnedFd, name: &OsStr) -> io::Result<()> {
        let (target, name) = (c_name(target)?, c_name(name)?);
        // SAFETY: valid C strings and descriptor.
        unit(unsafe { libc::symlinkat(target.as_ptr(), dir.as_raw_fd(), name.as_ptr()) })
    }

    /// Lists a directory from a descriptor opened for reading, with `getdents64` itself (no
    /// `DIR` stream, whose set-up costs two more calls per listing).
    pub(super) fn read_dir(fd: &OwnedFd) -> io::Result<Vec<(OsString, bool)>> {
        // linux_dirent64: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name (NUL-ended).
        const NAME_AT: usize = 19;
        let mut buf = vec![0u8; 32 * 1024];
        let mut names = Vec::new();
        loop {
            // SAFETY: the buffer is as long as the length passed; the kernel fills whole records.
            let filled =
                unsafe { libc::syscall(libc::SYS_getdents64, fd.as_raw_fd(), buf.as_mut_ptr(), buf.len()) };
            let filled = usize::try_from(filled).map_err(|_| io::Error::last_os_error())?;
            if filled == 0 {
                return Ok(names);
            }
            let mut at = 0;
            while let Some(record) = buf.get(at..filled) {
                let (Some(&[lo, hi]), Some(&kind)) = (record.get(16..18), record.get(18)) else {
                    break;
                };
                let len = usize::from(u16::from_ne_bytes([lo, hi]));
                let Some(name) = record.get(NAME_AT..len.max(NAME_AT)) else {
                    break;
                };
                let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
                if name != b"." && name != b".." {
                    names.push((OsStr::from_bytes(name).to_os_string(), kind == libc::DT_REG));
                }
                if len == 0 {
                    break;
                }
                at += len;
            }
        }
    }
}

#[cfg(test)]
#[path = "beneath_tests.rs"]
mod tests;
