//! Linux: Landlock, a private mount namespace and seccomp, prepared in the parent and entered
//! in the child between fork and exec.
//!
//! Everything that allocates (paths as C strings, the Landlock ruleset, the BPF program) is
//! built by [`Prepared::new`] before the fork; [`Prepared::enter`] makes only system calls, so
//! it is safe in a forked child.

use std::cell::Cell;
use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use landlock::{
    path_beneath_rules, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
    ABI,
};

use super::{Layer, Missing, Request, SetupFailure};

/// The device files a confined command may write: the ones ordinary commands open for writing.
const DEVICES: [&str; 8] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
    "/dev/random",
    "/dev/urandom",
];

// Constants of the new mount API (linux/mount.h), spelled out so older libc headers do not matter.
const OPEN_TREE_CLONE: libc::c_uint = 1;
const AT_RECURSIVE: libc::c_uint = 0x8000;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;
const MOUNT_ATTR_RDONLY: u64 = 0x1;

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// The steps of [`Prepared::enter`], by index, as the child reports a failure through a pipe.
pub const STEPS: [(Layer, &str); 12] = [
    (Layer::Mounts, "unshare(CLONE_NEWNS)"),
    (Layer::Mounts, "unshare(CLONE_NEWUSER|CLONE_NEWNS)"),
    (Layer::Mounts, "writing the user namespace's id maps"),
    (Layer::Mounts, "making the mounts private"),
    (Layer::Mounts, "cloning a writable root"),
    (Layer::Mounts, "remounting the tree read-only"),
    (Layer::Mounts, "mounting a writable root back"),
    (Layer::Mounts, "bind-mounting the protected state read-only"),
    (Layer::Mounts, "reopening a directory for writing"),
    (Layer::Landlock, "prctl(PR_SET_NO_NEW_PRIVS)"),
    (Layer::Landlock, "landlock_restrict_self"),
    (Layer::Seccomp, "installing the seccomp filter"),
];

/// Builds the failure of step `index` with the current errno.
pub fn failure(index: usize, errno: i32) -> SetupFailure {
    let (layer, step) = STEPS[index.min(STEPS.len() - 1)];
    SetupFailure { layer, step, errno }
}

/// What the child writes when the mount layer runs in a user namespace.
struct IdMaps {
    uid_map: CString,
    gid_map: CString,
}

struct MountPlan {
    /// `None` when codesmith is root: the mount namespace is entered directly.
    user_namespace: Option<IdMaps>,
    /// Outermost first, so an inner root is mounted on top of the outer one.
    writable: Vec<CString>,
    /// The detached clones of `writable`, filled in by the child.
    clones: Box<[Cell<RawFd>]>,
    pinned: Vec<CString>,
    protected: Vec<CString>,
    reopened: Vec<CString>,
}

/// A sandbox ready to be entered in a child.
pub struct Prepared {
    landlock: Option<OwnedFd>,
    mounts: Option<MountPlan>,
    seccomp: Option<Vec<libc::sock_filter>>,
    /// The layers that were asked for but cannot be had, with the reason.
    pub missing: Vec<Missing>,
    /// The layers that will be entered.
    pub layers: Vec<Layer>,
}

impl Prepared {
    /// Prepares the layers `request` needs, leaving out those in `unavailable` (already known to
    /// fail here). A layer the kernel lacks is left out and named in `missing`.
    pub fn new(request: &Request, unavailable: &[Missing]) -> Prepared {
        let mut prepared = Prepared {
            landlock: None,
            mounts: None,
            seccomp: None,
            missing: Vec::new(),
            layers: Vec::new(),
        };
        for layer in request.layers() {
            if let Some(known) = unavailable.iter().find(|m| m.layer == layer) {
                prepared.missing.push(known.clone());
                continue;
            }
            let built = match layer {
                Layer::Landlock => landlock_ruleset(request).map(|fd| prepared.landlock = Some(fd)),
                Layer::Mounts => mount_plan(request).map(|plan| prepared.mounts = Some(plan)),
                Layer::Seccomp => {
                    // The mount-changing calls are refused only when the mount layer is used
                    // (it is decided first: Layer order puts Mounts before Seccomp).
                    let refuse = Refused {
                        network: request.block_network,
                        mounts: prepared.mounts.is_some(),
                        host: request.filesystem,
                    };
                    seccomp_program(refuse).map(|bpf| prepared.seccomp = Some(bpf))
                }
            };
            match built {
                Ok(()) => prepared.layers.push(layer),
                Err(reason) => prepared.missing.push(Missing { layer, reason }),
            }
        }
        prepared
    }

    /// Whether nothing will be entered.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    /// Enters the prepared layers. Called in the forked child before `exec`: it makes system
    /// calls only. On failure returns the index of the step in [`STEPS`] and the errno.
    ///
    /// # Safety
    /// Only in a single-threaded child between fork and exec.
    pub unsafe fn enter(&self) -> Result<(), (usize, i32)> {
        if let Some(plan) = &self.mounts {
            enter_mounts(plan)?;
        }
        if let Some(fd) = &self.landlock {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err((9, errno()));
            }
            if libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0) != 0 {
                return Err((10, errno()));
            }
        }
        if let Some(program) = &self.seccomp {
            super::bpf::install(program).map_err(|errno| (11, errno))?;
        }
        Ok(())
    }
}

fn errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// The Landlock ruleset: every write right is handled, and granted beneath the writable roots
/// and on the device files. Reading and executing stay unrestricted.
fn landlock_ruleset(request: &Request) -> Result<OwnedFd, String> {
    // ABI 3: writes, removals, creations, cross-directory links and renames (REFER, so a hard
    // link cannot carry an outside file in), truncation. Device ioctls (ABI 5) stay free, or a
    // terminal could not be driven.
    let abi = ABI::V3;
    let write = AccessFs::from_write(abi);
    let devices: Vec<&Path> = DEVICES.iter().map(Path::new).filter(|p| p.exists()).collect();
    // Signals are scoped too (ABI 6): a confined command cannot signal a process outside its
    // domain (root would otherwise kill anything on the machine). Older kernels skip it.
    let created = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(write)
        .and_then(|ruleset| ruleset.scope(Scope::Signal))
        .and_then(|ruleset| ruleset.create())
        .and_then(|ruleset| ruleset.add_rules(path_beneath_rules(&request.writable, write)))
        .and_then(|ruleset| ruleset.add_rules(path_beneath_rules(devices, write)))
        .map_err(|err| format!("Landlock ruleset: {err}"))?;
    let fd: Option<OwnedFd> = created.into();
    fd.ok_or_else(|| {
        "the kernel does not offer Landlock (too old, or not among the enabled LSMs)".to_string()
    })
}

fn mount_plan(request: &Request) -> Result<MountPlan, String> {
    let user_namespace = if unsafe { libc::geteuid() } == 0 {
        None
    } else {
        // SAFETY: plain getters.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        Some(IdMaps {
            uid_map: c_string(format!("{uid} {uid} 1").as_bytes())?,
            gid_map: c_string(format!("{gid} {gid} 1").as_bytes())?,
        })
    };
    let mut writable: Vec<&PathBuf> = request.writable.iter().filter(|p| p.is_dir()).collect();
    writable.sort_by_key(|p| p.components().count());
    let to_c = |paths: &mut dyn Iterator<Item = &PathBuf>| -> Result<Vec<CString>, String> {
        paths.map(|p| c_string(p.as_os_str().as_bytes())).collect()
    };
    let writable = to_c(&mut writable.into_iter())?;
    let clones = (0..writable.len()).map(|_| Cell::new(-1)).collect();
    Ok(MountPlan {
        user_namespace,
        clones,
        writable,
        pinned: to_c(&mut request.pinned.iter())?,
        protected: to_c(&mut request.protected.iter())?,
        reopened: to_c(&mut request.reopened.iter())?,
    })
}

fn c_string(bytes: &[u8]) -> Result<CString, String> {
    CString::new(bytes).map_err(|_| "a path holds a NUL byte".to_string())
}

/// The mount layer, in the child.
///
/// 1. A new mount namespace (through a user namespace when not root), private, so nothing
///    done here reaches the rest of the machine.
/// 2. Each writable root is cloned as it is (writable) before everything is made read-only,
///    then mounted back on top of its read-only self.
/// 3. `.git` is bind-mounted onto itself, so it is a mount point that cannot be renamed away;
///    the protected paths are bind-mounted read-only; the reopened directories writable again.
///
/// The working directory is set by the caller afterwards: a cwd taken before step 2 would
/// still point into the read-only copy.
unsafe fn enter_mounts(plan: &MountPlan) -> Result<(), (usize, i32)> {
    match &plan.user_namespace {
        None => {
            if libc::unshare(libc::CLONE_NEWNS) != 0 {
                return Err((0, errno()));
            }
        }
        Some(maps) => {
            if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) != 0 {
                return Err((1, errno()));
            }
            let written = write_file(c"/proc/self/setgroups", b"deny")
                && write_file(c"/proc/self/uid_map", maps.uid_map.as_bytes())
                && write_file(c"/proc/self/gid_map", maps.gid_map.as_bytes());
            if !written {
                return Err((2, errno()));
            }
        }
    }
    let none = std::ptr::null();
    if libc::mount(
        none,
        c"/".as_ptr(),
        none,
        libc::MS_REC | libc::MS_PRIVATE,
        std::ptr::null(),
    ) != 0
    {
        return Err((3, errno()));
    }
    for (path, clone) in plan.writable.iter().zip(plan.clones.iter()) {
        let flags = OPEN_TREE_CLONE | AT_RECURSIVE | libc::O_CLOEXEC as libc::c_uint;
        let fd = libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, path.as_ptr(), flags);
        if fd < 0 {
            return Err((4, errno()));
        }
        clone.set(fd as RawFd);
    }
    set_read_only(c"/", true, AT_RECURSIVE).map_err(|e| (5, e))?;
    for (path, clone) in plan.writable.iter().zip(plan.clones.iter()) {
        let moved = libc::syscall(
            libc::SYS_move_mount,
            clone.get(),
            c"".as_ptr(),
            libc::AT_FDCWD,
            path.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        );
        libc::close(clone.get());
        if moved != 0 {
            return Err((6, errno()));
        }
    }
    for path in &plan.pinned {
        bind(path).map_err(|e| (7, e))?;
    }
    for path in &plan.protected {
        bind(path)
            .and_then(|()| set_read_only(path, true, 0))
            .map_err(|e| (7, e))?;
    }
    for path in &plan.reopened {
        bind(path)
            .and_then(|()| set_read_only(path, false, 0))
            .map_err(|e| (8, e))?;
    }
    Ok(())
}

unsafe fn bind(path: &CString) -> Result<(), i32> {
    let none = std::ptr::null();
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

/// Sets or clears the read-only attribute of the mount at `path` (and those below it with
/// `AT_RECURSIVE`); mount_setattr changes only that attribute, so flags a user namespace may
/// not drop (nosuid, nodev, …) stay as they are.
unsafe fn set_read_only(path: &std::ffi::CStr, read_only: bool, flags: libc::c_uint) -> Result<(), i32> {
    let attr = MountAttr {
        attr_set: if read_only { MOUNT_ATTR_RDONLY } else { 0 },
        attr_clr: if read_only { 0 } else { MOUNT_ATTR_RDONLY },
        propagation: 0,
        userns_fd: 0,
    };
    let rc = libc::syscall(
        libc::SYS_mount_setattr,
        libc::AT_FDCWD,
        path.as_ptr(),
        flags,
        &attr as *const MountAttr,
        std::mem::size_of::<MountAttr>(),
    );
    if rc != 0 {
        return Err(errno());
    }
    Ok(())
}

unsafe fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> bool {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return false;
    }
    let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
    libc::close(fd);
    written == bytes.len() as isize
}

/// What the seccomp program refuses.
#[derive(Debug, Clone, Copy)]
struct Refused {
    /// `socket()` for every family but `AF_UNIX`, and io_uring.
    network: bool,
    /// Every mount-changing call, so nothing inside can undo the mount layer.
    mounts: bool,
    /// What acts on the whole machine rather than on files: reboot, the clock, the host name,
    /// kernel modules, swap, process accounting. Root inside the sandbox keeps its capabilities,
    /// and these are not governed by any path.
    host: bool,
}

/// The calls that act on the whole machine, refused with [`Refused::host`].
const HOST_CALLS: [libc::c_long; 15] = [
    libc::SYS_reboot,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_clock_adjtime,
    libc::SYS_adjtimex,
    libc::SYS_sethostname,
    libc::SYS_setdomainname,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_acct,
];

/// The seccomp program: what `refuse` names is refused with `EPERM` (which commands report as
/// "Operation not permitted"); everything else is allowed.
fn seccomp_program(refuse: Refused) -> Result<Vec<libc::sock_filter>, String> {
    let mut calls: Vec<i64> = Vec::new();
    if refuse.network {
        calls.push(libc::SYS_io_uring_setup);
    }
    if refuse.mounts {
        calls.extend([
            libc::SYS_mount,
            libc::SYS_umount2,
            libc::SYS_pivot_root,
            libc::SYS_open_tree,
            libc::SYS_move_mount,
            libc::SYS_fsopen,
            libc::SYS_fsconfig,
            libc::SYS_fsmount,
            libc::SYS_fspick,
            libc::SYS_mount_setattr,
        ]);
    }
    if refuse.host {
        calls.extend(HOST_CALLS);
    }
    super::bpf::program(&calls, refuse.network).map_err(|err| format!("seccomp filter: {err}"))
}
