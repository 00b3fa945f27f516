//! Linux: namespaces, Landlock, capabilities and seccomp, prepared in the parent and entered
//! in the child between clone and exec.
//!
//! Everything that allocates (paths as C strings, the Landlock ruleset, the BPF program) is
//! built by [`Prepared::new`] before the clone; [`Prepared::enter`] makes only system calls, so
//! it is safe in a cloned child.

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

mod mounts;
mod privileges;

use mounts::MountPlan;

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

/// The steps of [`Prepared::enter`] (and of the clone that starts it), by index, as the child
/// reports a failure through a pipe.
pub(super) const STEPS: [(Layer, &str); 16] = [
    (Layer::Mounts, "unshare(CLONE_NEWNS)"),
    (Layer::Mounts, "clone(CLONE_NEWUSER)"),
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
    (Layer::Mounts, "hiding the daemons' socket directories"),
    (Layer::Capabilities, "dropping the capabilities"),
    (Layer::Pids, "clone(CLONE_NEWPID)"),
    (Layer::Pids, "clone(CLONE_NEWUSER|CLONE_NEWPID)"),
];

/// Indexes into [`STEPS`].
pub(super) mod step {
    pub(crate) const UNSHARE_MOUNTS: usize = 0;
    pub(crate) const CLONE_USER: usize = 1;
    pub(crate) const ID_MAPS: usize = 2;
    pub(crate) const PRIVATE: usize = 3;
    pub(crate) const CLONE_ROOT: usize = 4;
    pub(crate) const READ_ONLY: usize = 5;
    pub(crate) const MOUNT_BACK: usize = 6;
    pub(crate) const PROTECT: usize = 7;
    pub(crate) const REOPEN: usize = 8;
    pub(crate) const NO_NEW_PRIVS: usize = 9;
    pub(crate) const LANDLOCK: usize = 10;
    pub(crate) const SECCOMP: usize = 11;
    pub(crate) const MASK: usize = 12;
    pub(crate) const CAPABILITIES: usize = 13;
    pub(crate) const CLONE_PIDS: usize = 14;
    pub(crate) const CLONE_USER_PIDS: usize = 15;
}

/// Builds the failure of step `index` with the current errno.
pub fn failure(index: usize, errno: i32) -> SetupFailure {
    let (layer, step) = STEPS[index.min(STEPS.len() - 1)];
    SetupFailure { layer, step, errno }
}

/// Why a layer cannot be prepared; it becomes the layer's [`Missing::reason`].
#[derive(Debug, thiserror::Error)]
enum Unavailable {
    #[error("Landlock ruleset: {0}")]
    Ruleset(#[from] landlock::RulesetError),
    #[error("the kernel does not offer Landlock (too old, or not among the enabled LSMs)")]
    NoLandlock,
    #[error("a path holds a NUL byte")]
    NulByte,
    #[error("seccomp filter: {0}")]
    Seccomp(#[from] super::bpf::ProgramError),
}

/// What the child writes when it runs in a user namespace of its own.
struct IdMaps {
    uid_map: CString,
    gid_map: CString,
}

/// A sandbox ready to be entered in a child.
pub struct Prepared {
    /// Set when codesmith is not root and a namespace is needed: the child is cloned into a
    /// user namespace of its own, where it may create the others.
    user_namespace: Option<IdMaps>,
    pids: bool,
    landlock: Option<OwnedFd>,
    mounts: Option<MountPlan>,
    capabilities: bool,
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
            user_namespace: None,
            pids: false,
            landlock: None,
            mounts: None,
            capabilities: false,
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
                Layer::Mounts => mounts::plan(request).map(|plan| prepared.mounts = Some(plan)),
                Layer::Pids => {
                    prepared.pids = true;
                    Ok(())
                }
                Layer::Capabilities => {
                    prepared.capabilities = true;
                    Ok(())
                }
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
                Err(reason) => prepared.missing.push(Missing {
                    layer,
                    reason: reason.to_string(),
                }),
            }
        }
        // SAFETY: a plain getter.
        let root = unsafe { libc::geteuid() } == 0;
        if !root && (prepared.pids || prepared.mounts.is_some()) {
            match id_maps() {
                Ok(maps) => prepared.user_namespace = Some(maps),
                Err(reason) => prepared.drop_namespaces(&reason),
            }
        }
        if let Some(plan) = &mut prepared.mounts {
            plan.fresh_proc = prepared.pids;
        }
        prepared
    }

    /// Leaves out the namespace layers (no user namespace could be prepared for them).
    fn drop_namespaces(&mut self, reason: &Unavailable) {
        for layer in [Layer::Mounts, Layer::Pids] {
            if self.layers.contains(&layer) {
                self.layers.retain(|&l| l != layer);
                self.missing.push(Missing {
                    layer,
                    reason: reason.to_string(),
                });
            }
        }
        self.mounts = None;
        self.pids = false;
    }

    /// Whether nothing will be entered.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    /// The namespaces the child must be cloned into (`CLONE_NEWPID` cannot be entered by the
    /// child itself: only its own children would be in it), and the step a failed clone is.
    pub fn clone_flags(&self) -> (libc::c_int, usize) {
        let user = if self.user_namespace.is_some() {
            libc::CLONE_NEWUSER
        } else {
            0
        };
        match (self.pids, user != 0) {
            (true, true) => (libc::CLONE_NEWPID | user, step::CLONE_USER_PIDS),
            (true, false) => (libc::CLONE_NEWPID, step::CLONE_PIDS),
            (false, _) => (user, step::CLONE_USER),
        }
    }

    /// Enters the prepared layers. Called in the cloned child before `exec`: it makes system
    /// calls only. On failure returns the index of the step in [`STEPS`] and the errno.
    ///
    /// # Safety
    /// Only in a single-threaded child between clone and exec.
    pub unsafe fn enter(&self) -> Result<(), (usize, i32)> {
        if let Some(maps) = &self.user_namespace {
            let written = write_file(c"/proc/self/setgroups", b"deny")
                && write_file(c"/proc/self/uid_map", maps.uid_map.as_bytes())
                && write_file(c"/proc/self/gid_map", maps.gid_map.as_bytes());
            if !written {
                return Err((step::ID_MAPS, errno()));
            }
        }
        if let Some(plan) = &self.mounts {
            mounts::enter(plan)?;
        }
        if self.capabilities {
            privileges::drop_all().map_err(|e| (step::CAPABILITIES, e))?;
        }
        if let Some(fd) = &self.landlock {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err((step::NO_NEW_PRIVS, errno()));
            }
            if libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0) != 0 {
                return Err((step::LANDLOCK, errno()));
            }
        }
        if let Some(program) = &self.seccomp {
            super::bpf::install(program).map_err(|errno| (step::SECCOMP, errno))?;
        }
        Ok(())
    }
}

fn errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

fn id_maps() -> Result<IdMaps, Unavailable> {
    // SAFETY: plain getters.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    Ok(IdMaps {
        uid_map: c_string(format!("{uid} {uid} 1").as_bytes())?,
        gid_map: c_string(format!("{gid} {gid} 1").as_bytes())?,
    })
}

/// The Landlock ruleset: every write right is handled, and granted beneath the writable roots
/// and on the device files. Reading and executing stay unrestricted.
fn landlock_ruleset(request: &Request) -> Result<OwnedFd, Unavailable> {
    // ABI 3: writes, removals, creations, cross-directory links and renames (REFER, so a hard
    // link cannot carry an outside file in), truncation. Device ioctls (ABI 5) stay free, or a
    // terminal could not be driven.
    let abi = ABI::V3;
    let write = AccessFs::from_write(abi);
    let devices: Vec<&Path> = DEVICES.iter().map(Path::new).filter(|p| p.exists()).collect();
    // Scopes (ABI 6): a confined command cannot signal a process outside its domain (root
    // would otherwise kill anything on the machine), nor connect to an abstract unix socket
    // made outside it (D-Bus, X11, a container runtime's). Older kernels skip them.
    let created = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(write)
        .and_then(|ruleset| ruleset.scope(Scope::Signal | Scope::AbstractUnixSocket))
        .and_then(|ruleset| ruleset.create())
        .and_then(|ruleset| ruleset.add_rules(path_beneath_rules(&request.writable, write)))
        .and_then(|ruleset| ruleset.add_rules(path_beneath_rules(devices, write)))?;
    let fd: Option<OwnedFd> = created.into();
    fd.ok_or(Unavailable::NoLandlock)
}

fn c_string(bytes: &[u8]) -> Result<CString, Unavailable> {
    CString::new(bytes).map_err(|_| Unavailable::NulByte)
}

fn c_path(path: &Path) -> Result<CString, Unavailable> {
    c_string(path.as_os_str().as_bytes())
}

fn c_paths<'a>(paths: impl IntoIterator<Item = &'a PathBuf>) -> Result<Vec<CString>, Unavailable> {
    paths.into_iter().map(|p| c_path(p)).collect()
}

/// A descriptor slot the child fills in (a detached mount) and closes.
fn fd_slots(count: usize) -> Box<[Cell<RawFd>]> {
    (0..count).map(|_| Cell::new(-1)).collect()
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
    /// What acts on the whole machine or reaches past the path rules rather than on files:
    /// reboot, the clock, kernel modules, file handles, device nodes, terminal injection,
    /// BPF, the kernel keyring, tracing. Not governed by any path; refused wherever writes are
    /// confined, on top of the capabilities being dropped.
    host: bool,
}

/// The calls refused with [`Refused::host`].
const HOST_CALLS: [libc::c_long; 25] = [
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
    // A file handle opens any inode of a filesystem, past every path rule and mount.
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_ptrace,
    libc::SYS_process_vm_writev,
];

/// Raw port I/O, which only x86 has.
#[cfg(target_arch = "x86_64")]
const PORT_CALLS: [libc::c_long; 2] = [libc::SYS_iopl, libc::SYS_ioperm];
#[cfg(not(target_arch = "x86_64"))]
const PORT_CALLS: [libc::c_long; 0] = [];

/// The calls refused for some arguments only, with [`Refused::host`]: device nodes (a
/// block device is the whole disk), and the terminal ioctls that type into another
/// terminal's input (`TIOCSTI`) or drive the console (`TIOCLINUX`).
fn host_filters() -> Vec<super::bpf::ArgFilter> {
    use super::bpf::ArgFilter;
    const DEVICE_KINDS: &[u32] = &[libc::S_IFCHR, libc::S_IFBLK];
    const TERMINAL_INJECTION: &[u32] = &[libc::TIOCSTI as u32, libc::TIOCLINUX as u32];
    vec![
        #[cfg(target_arch = "x86_64")]
        ArgFilter {
            nr: libc::SYS_mknod,
            arg: 1,
            mask: libc::S_IFMT,
            values: DEVICE_KINDS,
        },
        ArgFilter {
            nr: libc::SYS_mknodat,
            arg: 2,
            mask: libc::S_IFMT,
            values: DEVICE_KINDS,
        },
        ArgFilter {
            nr: libc::SYS_ioctl,
            arg: 1,
            mask: u32::MAX,
            values: TERMINAL_INJECTION,
        },
    ]
}

/// The seccomp program: what `refuse` names is refused with `EPERM` (which commands report as
/// "Operation not permitted"); everything else is allowed.
fn seccomp_program(refuse: Refused) -> Result<Vec<libc::sock_filter>, Unavailable> {
    let mut calls: Vec<i64> = Vec::new();
    let mut filters = Vec::new();
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
        calls.extend(PORT_CALLS);
        filters = host_filters();
    }
    Ok(super::bpf::program(&calls, refuse.network, &filters)?)
}
