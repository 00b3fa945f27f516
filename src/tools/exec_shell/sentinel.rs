//! The cwd fold-back: each call is its own `sh` process, so a `cd` would be lost with it. The
//! user's command is wrapped so that, when it runs to its end, the shell prints one sentinel
//! line with `$PWD` on stderr; codesmith strips that line and adopts the directory for the
//! next call.
//!
//! Why it is built this way:
//! - The command is not pasted into the script: it is passed as the script's first argument
//!   and run with `eval`, so it is parsed on its own exactly as `sh -c COMMAND` would parse it.
//!   A trailing `for` loop, a comment, a here-document without its end line or a final
//!   backslash cannot swallow the sentinel line, error messages keep the command's own line
//!   numbers, and `$0`/`$#` are what `sh -c` gives. Its exit status is saved in a variable
//!   before the sentinel runs and returned after, so `false` still exits 1.
//! - The sentinel runs only if the group finishes: `exit` inside the command, `set -e`
//!   tripping, a kill at the deadline all end the shell first, and then the cwd stays where it
//!   was ("only if the command ran to the end").
//! - The status is saved, and a `set -x` the command left on is turned off, with stderr sent to
//!   `/dev/null`, so no trace of the wrapper shows in the output; `command printf` is used so a
//!   function the command defined named `printf` does not replace it.
//! - The line also carries the exit status the shell is about to exit with, and the shell then
//!   closes its stdout and stderr itself. Its own end can be slow to be reported (a sandboxed
//!   shell tears down its mount namespace before its parent is told it exited, and a descriptor
//!   left open at exit is only released after that), while a descriptor closed by `exec >&-`
//!   is released at once: once both pipes are closed and the line is there, the run is over.
//! - Run as the first process of its own PID namespace (the sandbox's process layer), the
//!   shell is the namespace's init: the kernel delivers it no signal it has no handler for
//!   from inside, so `kill $$` would do nothing. The wrapper therefore traps HUP, INT and TERM
//!   and exits as a shell killed by them reports (128+N). When it ends, everything else in the
//!   namespace is killed: before that, the line counts the processes still there (its own
//!   `/proc` lists only the namespace), so the model can be told a server it started with `&`
//!   was stopped.
//! - The marker carries a fresh 128-bit nonce from the kernel's random source per run. A line
//!   the command itself prints (`echo __codesmith_cwd_…`, a log of an earlier run) cannot
//!   carry this run's nonce, so it is never mistaken for the sentinel and stays in the output.
//!   A command that reads its own script out of `/proc` could learn the nonce; what it would
//!   gain is bounded by the next rule.
//! - The reported directory is canonicalized and adopted only when it lies inside the
//!   workspace or a trusted root; otherwise the cwd stays and a notice says why.

use std::path::PathBuf;

/// One run's sentinel.
#[derive(Debug, Clone)]
pub struct Sentinel {
    marker: String,
    /// The line's opening and closing, as searched for in stderr.
    open: String,
    close: String,
}

impl Sentinel {
    pub fn new() -> Sentinel {
        let marker = format!("__codesmith_cwd_{}__", nonce_hex());
        Sentinel {
            open: format!("\n{marker}:"),
            close: format!(":{marker}\n"),
            marker,
        }
    }

    /// The script `sh -c` runs with the user's command as its first argument (after `$0`,
    /// see [`Sentinel::arguments`]): the command, then the sentinel.
    pub fn script(&self) -> String {
        let m = &self.marker;
        format!(
            "trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM\n\
             __codesmith_command=$1; shift\neval \"$__codesmith_command\"\n\
             {{ __codesmith_status=$?; set +x; }} 2>/dev/null\n\
             __codesmith_left=0\n\
             [ /proc/1 -ef /proc/self ] && set -- /proc/[0-9]* && __codesmith_left=$(($# - 1))\n\
             command printf '\\n{m}:%s/%s:%s:{m}\\n' \"$__codesmith_status\" \"$__codesmith_left\" \"$PWD\" >&2\n\
             exec >&- 2>&-\nexit $__codesmith_status\n"
        )
    }

    /// The arguments after the script: `$0` (`sh`, as `sh -c` sets it) and the command.
    pub fn arguments(command: &str) -> [&str; 2] {
        ["sh", command]
    }

    /// Removes the sentinel line (and the newline printed before it) from `stderr` and returns
    /// the directory it carried, if the shell printed one.
    pub fn extract(&self, stderr: &mut Vec<u8>) -> Option<PathBuf> {
        let (start, end, _, dir) = self.locate(stderr)?;
        let dir = dir.to_vec();
        stderr.drain(start..end);
        use std::os::unix::ffi::OsStringExt;
        Some(PathBuf::from(std::ffi::OsString::from_vec(dir)))
    }

    /// The exit status the sentinel line carries, if the shell printed it (it did when the
    /// command ran to its end: the status is what the shell then exits with).
    pub fn status(&self, stderr: &[u8]) -> Option<i32> {
        let (status, _) = self.counts(stderr)?;
        Some(status)
    }

    /// How many processes the command left running in its PID namespace when it ended (they
    /// were killed with it); 0 when it had no namespace of its own or left none.
    pub fn left_running(&self, stderr: &[u8]) -> usize {
        self.counts(stderr).map_or(0, |(_, left)| left)
    }

    /// The line's `STATUS/LEFT` field.
    fn counts(&self, stderr: &[u8]) -> Option<(i32, usize)> {
        let (_, _, field, _) = self.locate(stderr)?;
        let field = std::str::from_utf8(field).ok()?;
        let (status, left) = field.split_once('/').unwrap_or((field, "0"));
        Some((status.parse().ok()?, left.parse().unwrap_or(0)))
    }

    /// The sentinel line in `stderr`: its span, its status field and its directory field.
    fn locate<'a>(&self, stderr: &'a [u8]) -> Option<(usize, usize, &'a [u8], &'a [u8])> {
        let (open, close) = (&self.open, &self.close);
        let start = rfind(stderr, open.as_bytes())?;
        let after_open = start + open.len();
        let close_at = after_open + find(&stderr[after_open..], close.as_bytes())?;
        let fields = &stderr[after_open..close_at];
        let colon = fields.iter().position(|&b| b == b':')?;
        Some((
            start,
            close_at + close.len(),
            &fields[..colon],
            &fields[colon + 1..],
        ))
    }
}

impl Default for Sentinel {
    fn default() -> Sentinel {
        Sentinel::new()
    }
}

// Plain searches rather than memchr's: the line sits at the end of a short stderr, and
// memchr's first use costs more than the search (it asks the CPU for its features, a trap per
// `cpuid` under virtualization).
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let last = haystack.len().checked_sub(needle.len())?;
    (0..=last).find(|&i| haystack[i..].starts_with(needle))
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let last = haystack.len().checked_sub(needle.len())?;
    (0..=last).rev().find(|&i| haystack[i..].starts_with(needle))
}

/// 32 hex digits from the kernel's random source. Falls back to a mix of time, pid and
/// addresses if `getrandom` fails (it does not on any supported kernel).
pub fn nonce_hex() -> String {
    let mut bytes = [0u8; 16];
    // SAFETY: writes at most `bytes.len()` bytes into our buffer.
    let got = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    if got != bytes.len() as isize {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let seed = format!("{now}:{}:{:p}", std::process::id(), &bytes);
        let a = xxhash_rust::xxh3::xxh3_128(seed.as_bytes());
        bytes = a.to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extract_strips_only_the_real_sentinel() {
        let sentinel = Sentinel::new();
        let m = sentinel.marker.clone();
        let text = format!("warn\nfake\nlast\n{m}:3/2:/ws/a:b:{m}\n");
        let mut bytes = text.into_bytes();
        assert_eq!(sentinel.status(&bytes), Some(3));
        assert_eq!(sentinel.left_running(&bytes), 2);
        assert_eq!(sentinel.extract(&mut bytes), Some(PathBuf::from("/ws/a:b")));
        assert_eq!(bytes, b"warn\nfake\nlast");
        let mut spoof = b"\n__codesmith_cwd_00__:0:/evil:__codesmith_cwd_00__\n".to_vec();
        assert_eq!(sentinel.extract(&mut spoof), None);
    }

    #[test]
    fn searches_find_first_and_last() {
        assert_eq!(find(b"abcabc", b"bc"), Some(1));
        assert_eq!(rfind(b"abcabc", b"bc"), Some(4));
        assert_eq!(find(b"ab", b"abc"), None);
        assert_eq!(rfind(b"", b"a"), None);
        assert_eq!(rfind(b"a", b"a"), Some(0));
    }

    #[test]
    fn nonces_differ() {
        assert_ne!(nonce_hex(), nonce_hex());
        assert_eq!(nonce_hex().len(), 32);
    }
}
