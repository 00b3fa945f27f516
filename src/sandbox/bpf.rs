//! The sandbox's seccomp program, emitted as classic BPF.
//!
//! The program is entered in the child of every confined command, so what it costs is paid on
//! every call: the kernel translates and JIT-compiles it, then runs it once per syscall number
//! to build its cache of constant verdicts. It is therefore small and decides by a balanced
//! tree of comparisons on the syscall number (a handful of instructions for any call) rather
//! than one comparison per refused call.
//!
//! Verdicts: another architecture's calls (32-bit `int 0x80` on x86_64) kill the process, as
//! their numbers mean different calls; a refused call fails with `EPERM`; `socket()` of any
//! family but `AF_UNIX` fails with `EPERM` when sockets are refused; everything else is allowed.
//! On x86_64 the x32 spelling of a call (bit 30 set) gets the verdict of the native call.

use libc::sock_filter;

/// Offsets in `struct seccomp_data`.
const NR: u32 = 0;
const ARCH: u32 = 4;
/// The low 32 bits of the first argument (every architecture built here is little-endian);
/// each further argument is 8 bytes on.
const ARG0_LOW: u32 = 16;

const ALLOW: u32 = libc::SECCOMP_RET_ALLOW;
const DENY: u32 = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
const KILL: u32 = libc::SECCOMP_RET_KILL_PROCESS;

/// x86_64's x32 calls carry this bit in their number, under the x86_64 audit architecture.
#[cfg(target_arch = "x86_64")]
const X32_BIT: u32 = 0x4000_0000;

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: Option<u32> = Some(0xC000_003E);
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: Option<u32> = Some(0xC000_00B7);
#[cfg(target_arch = "riscv64")]
const AUDIT_ARCH: Option<u32> = Some(0xC000_00F3);
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64")))]
const AUDIT_ARCH: Option<u32> = None;

/// A call refused when one of its arguments, masked, is one of `values` (its low 32 bits:
/// the arguments filtered here are all `int` or `mode_t`, which the kernel reads as such).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ArgFilter {
    pub nr: i64,
    /// Which argument, from 0.
    pub arg: u32,
    pub mask: u32,
    pub values: &'static [u32],
}

/// Why no program could be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(super) enum ProgramError {
    #[error("the seccomp program is not written for {arch}")]
    UnknownArchitecture { arch: &'static str },
    #[error("nothing to refuse")]
    NothingToRefuse,
    /// A forward jump past 255 instructions, which classic BPF cannot hold.
    #[error("the seccomp program outgrew its jumps")]
    JumpTooFar,
}

/// What one refused syscall number gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Deny,
    /// `socket()`: refused unless its family is `AF_UNIX`.
    DenyUnlessUnix,
    /// Refused for some values of an argument.
    DenyWhen(ArgFilter),
}

impl Verdict {
    /// Which verdict a number named twice keeps: the strictest.
    fn rank(self) -> u8 {
        match self {
            Verdict::Deny => 0,
            Verdict::DenyUnlessUnix => 1,
            Verdict::DenyWhen(_) => 2,
        }
    }
}

/// The program refusing `calls` (syscall numbers), the calls of `filters` for the argument
/// values they name and, with `sockets`, `socket()` of every family but `AF_UNIX`.
pub(super) fn program(
    calls: &[i64],
    sockets: bool,
    filters: &[ArgFilter],
) -> Result<Vec<sock_filter>, ProgramError> {
    let arch = AUDIT_ARCH.ok_or(ProgramError::UnknownArchitecture {
        arch: std::env::consts::ARCH,
    })?;
    let mut native: Vec<(u32, Verdict)> = calls.iter().map(|&nr| (nr as u32, Verdict::Deny)).collect();
    if sockets {
        native.push((libc::SYS_socket as u32, Verdict::DenyUnlessUnix));
    }
    native.extend(filters.iter().map(|f| (f.nr as u32, Verdict::DenyWhen(*f))));
    if native.is_empty() {
        return Err(ProgramError::NothingToRefuse);
    }
    native.sort_unstable_by_key(|(nr, verdict)| (*nr, verdict.rank()));
    native.dedup_by_key(|(nr, _)| *nr);
    let mut out = vec![load(ARCH), jump(libc::BPF_JEQ, arch, 1, 0), ret(KILL), load(NR)];
    // An x32 call (x86_64 only) is decided as the native call of the same number: the bit is
    // masked off before the tree.
    #[cfg(target_arch = "x86_64")]
    out.extend([
        jump(libc::BPF_JSET, X32_BIT, 0, 1),
        stmt(libc::BPF_ALU | libc::BPF_AND | libc::BPF_K, !X32_BIT),
    ]);
    out.extend(tree(&native)?);
    Ok(out)
}

/// Installs `program` on the calling thread (with `no_new_privs`, which seccomp requires).
///
/// # Safety
/// System calls only; meant for the child between fork and exec.
pub(super) unsafe fn install(program: &[sock_filter]) -> Result<(), i32> {
    let errno = || {
        std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO)
    };
    if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
        return Err(errno());
    }
    let fprog = libc::sock_fprog {
        len: program.len() as u16,
        filter: program.as_ptr() as *mut sock_filter,
    };
    let rc = libc::syscall(
        libc::SYS_seccomp,
        libc::SECCOMP_SET_MODE_FILTER,
        0,
        &fprog as *const libc::sock_fprog,
    );
    if rc != 0 {
        return Err(errno());
    }
    Ok(())
}

/// Decides the syscall number in the accumulator against `calls` (sorted): a balanced tree of
/// `>=` comparisons down to runs of at most four, each compared for equality.
fn tree(calls: &[(u32, Verdict)]) -> Result<Vec<sock_filter>, ProgramError> {
    if calls.len() <= 4 {
        let mut out = Vec::new();
        for &(nr, verdict) in calls {
            let action = action(verdict)?;
            out.push(jump(libc::BPF_JEQ, nr, 0, offset(action.len())?));
            out.extend(action);
        }
        out.push(ret(ALLOW));
        return Ok(out);
    }
    let mid = calls.len() / 2;
    let below = tree(&calls[..mid])?;
    let above = tree(&calls[mid..])?;
    let mut out = vec![jump(libc::BPF_JGE, calls[mid].0, offset(below.len())?, 0)];
    out.extend(below);
    out.extend(above);
    Ok(out)
}

fn action(verdict: Verdict) -> Result<Vec<sock_filter>, ProgramError> {
    Ok(match verdict {
        Verdict::Deny => vec![ret(DENY)],
        Verdict::DenyUnlessUnix => vec![
            load(ARG0_LOW),
            jump(libc::BPF_JEQ, libc::AF_UNIX as u32, 0, 1),
            ret(ALLOW),
            ret(DENY),
        ],
        Verdict::DenyWhen(filter) => {
            let mut out = vec![load(ARG0_LOW + 8 * filter.arg)];
            if filter.mask != u32::MAX {
                out.push(stmt(libc::BPF_ALU | libc::BPF_AND | libc::BPF_K, filter.mask));
            }
            // Each comparison that matches jumps over the rest and the ALLOW to the DENY.
            let count = filter.values.len();
            for (i, &value) in filter.values.iter().enumerate() {
                out.push(jump(libc::BPF_JEQ, value, offset(count - i)?, 0));
            }
            out.extend([ret(ALLOW), ret(DENY)]);
            out
        }
    })
}

/// A forward jump distance, which classic BPF holds in a byte.
fn offset(len: usize) -> Result<u8, ProgramError> {
    u8::try_from(len).map_err(|_| ProgramError::JumpTooFar)
}

fn stmt(code: u32, k: u32) -> sock_filter {
    sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    }
}

fn load(offset: u32) -> sock_filter {
    stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, offset)
}

fn ret(value: u32) -> sock_filter {
    stmt(libc::BPF_RET | libc::BPF_K, value)
}

fn jump(op: u32, k: u32, jt: u8, jf: u8) -> sock_filter {
    sock_filter {
        code: (libc::BPF_JMP | op | libc::BPF_K) as u16,
        jt,
        jf,
        k,
    }
}

#[cfg(test)]
#[path = "bpf_tests.rs"]
mod tests;
