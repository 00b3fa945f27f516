//! The mount layer: a private view of the tree in which only the writable roots are writable,
//! the protected state is read-only, and daemons' socket directories are empty.

use std::cell::Cell;
use std::ffi::{CStr, CString};
use std::os::fd::RawFd;
use std::path::{Path, PathBuf};

use super::{c_path, c_paths, errno, fd_slots, step, Unavailable};
use crate::sandbox::Request;

// Constants of the new mount API (linux/mount.h), spelled out so older libc headers do not matter.
const OPEN_TREE_CLONE: libc::c_uint = 1;
const AT_RECURSIVE: libc::c_uint = 0x8000;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;
const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;
const MOUNT_ATTR_NODEV: u64 = 0x4;

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// What a bind mount of a path onto itself does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bind {
    /// Makes the path a mount point, so it cannot be renamed or removed (`.git`).
    Pin,
    /// Read-only (the protected state).
    ReadOnly,
    /// Writable again inside something read-only (a command's `TMPDIR` in `.codesmith/`).
    Writable,
}

/// A path inside a masked directory that is brought back into the empty tmpfs.
struct Kept {
    path: CString,
    /// The directories between the masked one and `path`, outermost first, made in the tmpfs.
    parents: Vec<CString>,
    is_dir: bool,
}

pub(super) struct MountPlan {
    /// Mount a `/proc` of the command's own PID namespace (set when that layer is entered).
    pub fresh_proc: bool,
    /// Outermost first, so an inner root is mounted on top of the outer one.
    writable: Vec<CString>,
    /// The detached clones of `writable`, then of `kept`, filled in by the child.
    clones: Box<[Cell<RawFd>]>,
    masked: Vec<CString>,
    kept: Vec<Kept>,
    /// Outermost first: a read-only path inside a reopened one is bound after it.
    binds: Vec<(CString, Bind)>,
}

pub(super) fn plan(request: &Request) -> Result<MountPlan, Unavailable> {
    let mut writable: Vec<&PathBuf> = request.writable.iter().filter(|p| p.is_dir()).collect();
    writable.sort_by_key(|p| p.components().count());
    let mut binds: Vec<(&PathBuf, Bind)> = Vec::new();
    binds.extend(request.pinned.iter().map(|p| (p, Bind::Pin)));
    binds.extend(request.protected.iter().map(|p| (p, Bind::ReadOnly)));
    binds.extend(request.reopened.iter().map(|p| (p, Bind::Writable)));
    binds.sort_by_key(|(p, _)| p.components().count());
    let kept = kept(request)?;
    Ok(MountPlan {
        fresh_proc: false,
        clones: fd_slots(writable.len() + kept.len()),
        writable: c_paths(writable)?,
        masked: c_paths(&request.masked)?,
        kept,
        binds: binds
            .into_iter()
            .map(|(p, bind)| Ok((c_path(p)?, bind)))
            .collect::<Result<_, Unavailable>>()?,
    })
}

/// The granted paths that lie in a masked directory and exist.
fn kept(request: &Request) -> Result<Vec<Kept>, Unavailable> {
    let mut kept = Vec::new();
    for path in &request.sockets {
        let Some(mask) = request.masked.iter().find(|m| path.starts_with(m) && *m != path) else {
            continue;
        };
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            continue;
        };
        let parents: Vec<&Path> = path
            .ancestors()
            .skip(1)
            .take_while(|a| *a != mask.as_path())
            .collect();
        let parents: Vec<PathBuf> = parents.into_iter().rev().map(Path::to_path_buf).collect();
        kept.push(Kept {
            path: c_path(path)?,
            parents: c_paths(&parents)?,
            is_dir: meta.is_dir(),
        });
    }
    Ok(kept)
}

/// Enters the plan, in the child.
///
/// 1. A new mount namespace, private, so nothing done here reaches the rest of the machine;
///    a fresh `/proc` when the command has its own PID namespace (so it sees only its own
///    processes).
/// 2. Each writable root is cloned as it is, `nodev,nosuid` (a device node or a set-uid file
///    in the workspace means nothing inside), and each kept socket too.
/// 3. The masked directories get an empty tmpfs, with the kept sockets mounted back on
///    placeholders.
/// 4. Everything is made read-only; the writable roots are mounted back on top.
/// 5. The binds, outermost first: `.git` pinned as a mount point that cannot be renamed away,
///    the protected paths read-only, the reopened ones writable.
///
/// The working directory is set by the caller afterwards: a cwd taken before step 4 would
/// still point into the read-only copy.
pub(super) unsafe fn enter(plan: &MountPlan) -> Result<(), (usize, i32)> {
    if libc::unshare(libc::CLONE_NEWNS) != 0 {
        return Err((step::UNSHARE_MOUNTS, errno()));
    }
    let none: *const libc::c_char = std::ptr::null();
    if libc::mount(
        none,
        c"/".as_ptr(),
        none,
        libc::MS_REC | libc::MS_PRIVATE,
        std::ptr::null(),
    ) != 0
    {
        return Err((step::PRIVATE, errno()));
    }
    if plan.fresh_proc {
        // Best effort: where a fresh proc may not be mounted (a container that masks parts of
        // its own), the command still cannot signal what it sees there.
        let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
        libc::mount(
            c"proc".as_ptr(),
            c"/proc".as_ptr(),
            c"proc".as_ptr(),
            flags,
            std::ptr::null(),
        );
    }
    let (roots, kept) = plan.clones.split_at(plan.writable.len());
    for (path, clone) in plan.writable.iter().zip(roots) {
        let fd = clone_tree(path, AT_RECURSIVE).map_err(|e| (step::CLONE_ROOT, e))?;
        clone.set(fd);
        let attr = attributes(MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID, 0);
        set_attributes(fd, c"", libc::AT_EMPTY_PATH as libc::c_uint | AT_RECURSIVE, &attr)
            .map_err(|e| (step::CLONE_ROOT, e))?;
    }
    for (socket, clone) in plan.kept.iter().zip(kept) {
        clone.set(clone_tree(&socket.path, 0).unwrap_or(-1));
    }
    mask(plan, kept).map_err(|e| (step::MASK, e))?;
    set_read_only(c"/", true, AT_RECURSIVE).map_err(|e| (step::READ_ONLY, e))?;
    for (path, clone) in plan.writable.iter().zip(roots) {
        let moved = move_onto(clone.get(), path);
        libc::close(clone.get());
        moved.map_err(|e| (step::MOUNT_BACK, e))?;
    }
    for (path, bind) in &plan.binds {
        let done = match bind {
            Bind::Pin => bind_onto_itself(path),
            Bind::ReadOnly => bind_onto_itself(path).and_then(|()| set_read_only(path, true, 0)),
            Bind::Writable => bind_onto_itself(path).and_then(|()| set_read_only(path, false, 0)),
        };
        let index = if *bind == Bind::Writable {
            step::REOPEN
        } else {
            step::PROTECT
        };
        done.map_err(|e| (index, e))?;
    }
    Ok(())
}

/// Covers each masked directory with an empty tmpfs and mounts the kept paths back. A kept
/// path that cannot be brought back stays hidden (the command then fails to reach it, as
/// without the grant) rather than costing the whole layer.
unsafe fn mask(plan: &MountPlan, clones: &[Cell<RawFd>]) -> Result<(), i32> {
    let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    for dir in &plan.masked {
        let options = c"mode=0755,size=64k";
        if libc::mount(
            c"tmpfs".as_ptr(),
            dir.as_ptr(),
            c"tmpfs".as_ptr(),
            flags,
            options.as_ptr().cast(),
        ) != 0
        {
            return Err(errno());
        }
    }
    for (socket, clone) in plan.kept.iter().zip(clones) {
        if clone.get() < 0 {
            continue;
        }
        for parent in &socket.parents {
            libc::mkdir(parent.as_ptr(), 0o755);
        }
        let placed = if socket.is_dir {
            libc::mkdir(socket.path.as_ptr(), 0o755) == 0
        } else {
            let fd = libc::open(
                socket.path.as_ptr(),
                libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
                0o644,
            );
            fd >= 0 && libc::close(fd) == 0
        };
        if placed {
            let _ = move_onto(clone.get(), &socket.path);
        }
        libc::close(clone.get());
    }
    Ok(())
}

unsafe fn clone_tree(path: &CStr, flags: libc::c_uint) -> Result<RawFd, i32> {
    let flags = OPEN_TREE_CLONE | flags | libc::O_CLOEXEC as libc::c_uint;
    let fd = libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, path.as_ptr(), flags);
    if fd < 0 {
        return Err(errno());
    }
    Ok(fd as RawFd)
}

unsafe fn move_onto(fd: RawFd, path: &CStr) -> Result<(), i32> {
    let moved = libc::syscall(
        libc::SYS_move_mount,
        fd,
        c"".as_ptr(),
        libc::AT_FDCWD,
        path.as_ptr(),
        MOVE_MOUNT_F_EMPTY_PATH,
    );
    if moved != 0 {
        return Err(errno());
    }
    Ok(())
}

unsafe fn bind_onto_itself(path: &CStr) -> Result<(), i32> {
    let none: *const libc::c_char = std::ptr::null();
    if libc::mount(
        path.as_ptr(),
        path.as_ptr(),
        none,
        libc::MS_BIND,
        std::ptr::null(),
    ) != 0
    {
        return Err(errno());
    }
    Ok(())
}

fn attributes(set: u64, clear: u64) -> MountAttr {
    MountAttr {
        attr_set: set,
        attr_clr: clear,
        propagation: 0,
        userns_fd: 0,
    }
}

unsafe fn set_attributes(
    dirfd: RawFd,
    path: &CStr,
    flags: libc::c_uint,
    attr: &MountAttr,
) -> Result<(), i32> {
    let rc = libc::syscall(
        libc::SYS_mount_setattr,
        dirfd,
        path.as_ptr(),
        flags,
        attr as *const MountAttr,
        std::mem::size_of::<MountAttr>(),
    );
    if rc != 0 {
        return Err(errno());
    }
    Ok(())
}

/// Sets or clears the read-only attribute of the mount at `path` (and those below it with
/// `AT_RECURSIVE`); mount_setattr changes only that attribute, so flags a user namespace may
/// not drop (nosuid, nodev, …) stay as they are.
unsafe fn set_read_only(path: &CStr, read_only: bool, flags: libc::c_uint) -> Result<(), i32> {
    let attr = if read_only {
        attributes(MOUNT_ATTR_RDONLY, 0)
    } else {
        attributes(0, MOUNT_ATTR_RDONLY)
    };
    set_attributes(libc::AT_FDCWD, path, flags, &attr)
}
