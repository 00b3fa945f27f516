//! Stopping the call in progress from another thread: the MCP server's answer to
//! `notifications/cancelled` and to its client closing stdin.
//!
//! A foreground exec_shell command runs in a process group of its own (its shell is a session
//! leader), so stopping it means killing that group; codesmith registers the group for as long
//! as it waits for it. A cancellation kills every registered group at once, and a group
//! registered after the cancellation (the call had not reached its spawn yet) is killed as it
//! registers, so a cancelled call never leaves a foreground process behind. Background tasks are
//! not registered: they are detached on purpose and outlive the call that started them.
//!
//! One call runs at a time in a process, so the state is one flag and a list. The CLI never
//! cancels; there, registering costs one uncontended lock.

use std::sync::Mutex;

struct Foreground {
    groups: Vec<i32>,
    cancelled: bool,
}

static FOREGROUND: Mutex<Foreground> = Mutex::new(Foreground {
    groups: Vec::new(),
    cancelled: false,
});

fn with<T>(f: impl FnOnce(&mut Foreground) -> T) -> T {
    let mut guard = FOREGROUND.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    f(&mut guard)
}

/// A foreground process group, registered until the guard drops (after its leader is reaped).
#[must_use = "the group is unregistered when the guard drops"]
pub struct ForegroundGroup(i32);

impl ForegroundGroup {
    /// Registers the process group `pgid`; kills it at once when the call is already cancelled.
    pub fn register(pgid: i32) -> ForegroundGroup {
        with(|state| {
            if state.cancelled {
                kill_group(pgid);
            }
            state.groups.push(pgid);
        });
        ForegroundGroup(pgid)
    }
}

impl Drop for ForegroundGroup {
    fn drop(&mut self) {
        let pgid = self.0;
        with(|state| state.groups.retain(|&group| group != pgid));
    }
}

/// Starts a new call: forgets an earlier cancellation.
pub fn reset() {
    with(|state| state.cancelled = false);
}

/// Cancels the call in progress: kills every registered foreground group, and any that
/// registers later, until [`reset`].
pub fn cancel() {
    with(|state| {
        state.cancelled = true;
        for &pgid in &state.groups {
            kill_group(pgid);
        }
    });
}

/// Whether the call in progress was cancelled (for tools that wait in a loop).
pub fn requested() -> bool {
    with(|state| state.cancelled)
}

fn kill_group(pgid: i32) {
    // SAFETY: plain syscall; a negative pid addresses the process group. Group ids 0 and 1
    // would address our own group or init's and are never registered by a spawn.
    if pgid > 1 {
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    #[test]
    fn a_group_registered_after_a_cancel_is_killed_and_reset_forgets_it() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .expect("spawn sleep");
        let pgid = child.id() as i32;
        cancel();
        assert!(requested());
        let guard = ForegroundGroup::register(pgid);
        let status = child.wait().expect("wait");
        drop(guard);
        reset();
        assert!(!requested());
        assert!(!status.success());
        assert!(with(|state| state.groups.is_empty()));
    }
}
