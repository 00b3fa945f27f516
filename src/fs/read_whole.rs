//! Reading a whole file into memory, with the buffer's pages made ready before the read.
//!
//! A fresh buffer is untouched anonymous memory: the read's copy would take a page fault on
//! every 4 KiB of it (1,400 faults for a 5.7 MB file, about a third of the read's time, more
//! than the copy itself). For a large file the buffer's pages are therefore faulted in by one
//! `madvise(MADV_POPULATE_WRITE)` before the read, as transparent huge pages where the system
//! allows them on request (`madvise` mode, the common default), which also makes every later
//! pass over the bytes (hashes, line scans) and their release cheaper. Both are advice: where the
//! kernel refuses either (older than 5.14, huge pages off), the read faults page by page as before.

use std::fs;
use std::io::{self, Read};

/// Below this, the faults are too few to be worth a system call.
const PREFAULT_MIN: usize = 256 * 1024;

/// The size of a transparent huge page on x86-64 and aarch64 with 4 KiB pages: a buffer smaller
/// than this holds no aligned huge page.
const HUGE_PAGE: usize = 2 * 1024 * 1024;

/// Reads `file` to its end into a new buffer sized for `len` bytes (its length when opened;
/// the buffer grows if the file did).
pub fn read_whole(file: &mut fs::File, len: u64) -> io::Result<Vec<u8>> {
    let len = usize::try_from(len).map_err(io::Error::other)?;
    let mut bytes = Vec::with_capacity(len);
    if len >= PREFAULT_MIN {
        prefault(bytes.spare_capacity_mut().as_mut_ptr().cast(), len);
    }
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Faults in the whole pages within `len` bytes at `start`, as huge pages where possible.
#[cfg(target_os = "linux")]
fn prefault(start: *mut u8, len: usize) {
    // SAFETY: sysconf only reads a system constant.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
    let from = (start as usize).next_multiple_of(page);
    let to = (start as usize + len) / page * page;
    if to <= from {
        return;
    }
    let (addr, span) = (from as *mut libc::c_void, to - from);
    // SAFETY: the range lies within an allocation this function's caller owns and has not
    // handed out; both calls are advice that leaves its contents as they are (zero-filled
    // anonymous memory either way), and a refusal changes nothing.
    unsafe {
        if span >= HUGE_PAGE {
            libc::madvise(addr, span, libc::MADV_HUGEPAGE);
        }
        libc::madvise(addr, span, libc::MADV_POPULATE_WRITE);
    }
}

/// Elsewhere the read faults page by page.
#[cfg(not(target_os = "linux"))]
fn prefault(_start: *mut u8, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_byte_of_small_large_and_growing_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        for size in [0usize, 10, PREFAULT_MIN, HUGE_PAGE + 12_345] {
            let content: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
            let path = dir.path().join(format!("f{size}"));
            std::fs::write(&path, &content).expect("write");
            let mut file = fs::File::open(&path).expect("open");
            assert_eq!(read_whole(&mut file, size as u64).expect("read"), content);
            // A file that grew after its length was taken is still read to its end.
            let mut file = fs::File::open(&path).expect("open");
            assert_eq!(read_whole(&mut file, (size / 2) as u64).expect("read"), content);
        }
    }
}
