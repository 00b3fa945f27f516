//! Dropping every capability in the child, root or not.
//!
//! Root keeps its capabilities across `exec` (the kernel grants root a full permitted set from
//! the bounding set), and they reach past every path rule: `open_by_handle_at` opens any inode
//! of a filesystem through a writable mount of it, `mknod` makes a block device of the disk,
//! `CAP_SYS_ADMIN` undoes mounts. So the bounding set is emptied first (needs `CAP_SETPCAP`,
//! which root has), then the ambient set, then the effective, permitted and inheritable sets:
//! after `exec` even uid 0 holds nothing, and `no_new_privs` keeps a set-uid program from
//! bringing any back. In a user namespace (codesmith not root) the child holds every
//! capability of that namespace until this runs.

/// `_LINUX_CAPABILITY_VERSION_3`: 64-bit sets as two 32-bit words.
const CAPABILITY_VERSION_3: u32 = 0x2008_0522;

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// Empties every capability set of the calling thread and sets `no_new_privs`.
///
/// # Safety
/// System calls only; meant for the child between clone and exec.
pub(super) unsafe fn drop_all() -> Result<(), i32> {
    use super::errno;
    if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
        return Err(errno());
    }
    // Capabilities are numbered from 0 to the kernel's last one; past it, EINVAL.
    for cap in 0..64 {
        if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 {
            match errno() {
                libc::EINVAL => break,
                other => return Err(other),
            }
        }
    }
    // Ambient capabilities arrived in Linux 4.3; an older kernel has none to clear.
    if libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0
        && errno() != libc::EINVAL
    {
        return Err(errno());
    }
    let mut header = CapHeader {
        version: CAPABILITY_VERSION_3,
        pid: 0,
    };
    let empty = [CapData {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    if libc::syscall(libc::SYS_capset, &mut header as *mut CapHeader, empty.as_ptr()) != 0 {
        return Err(errno());
    }
    Ok(())
}
