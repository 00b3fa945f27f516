//! Room for recursive parsers.
//!
//! Some parsers reachable from input recurse once (or several frames) per nesting level of
//! what they read: syn for the syntax gate, htmd's DOM walk for fetch_url's markdown. A deeply
//! nested input overflows the main thread's stack, and a stack overflow is not a panic: the
//! process aborts and prints nothing, breaking the one-envelope promise. So such work runs
//! here, on a thread with a large stack, and its callers also measure the nesting cheaply
//! beforehand and refuse to recurse past a limit this stack holds with room to spare. The
//! stack is only reserved address space; pages are committed as they are touched.

/// The stack for recursive parsing. Debug builds spend up to ~45 KB per nesting level in
/// syn's type parser, so the callers' limits (a few thousand levels) fit several times over.
pub const DEEP_STACK_BYTES: usize = 1024 * 1024 * 1024;

/// Runs `work` on a thread with a [`DEEP_STACK_BYTES`] stack and returns its result; `None`
/// when no such thread could be made or the work panicked (the caller falls back to a path
/// that does not recurse).
pub fn with_deep_stack<T: Send>(work: impl FnOnce() -> T + Send) -> Option<T> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("deep-stack".into())
            .stack_size(DEEP_STACK_BYTES)
            .spawn_scoped(scope, work)
            .ok()?
            .join()
            .ok()
    })
}

#[cfg(test)]
mod tests {
    use super::with_deep_stack;

    fn depth(n: u64) -> u64 {
        let pad = std::hint::black_box([n; 64]);
        if n == 0 {
            0
        } else {
            1 + depth(pad[0] - 1)
        }
    }

    #[test]
    fn borrows_and_returns() {
        let text = String::from("abc");
        assert_eq!(with_deep_stack(|| text.len()), Some(3));
        // Far deeper than the 2 MB default test thread stack holds.
        assert_eq!(with_deep_stack(|| depth(200_000)), Some(200_000));
    }
}
