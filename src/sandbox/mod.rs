//! The kernel sandbox around exec_shell's commands: what the classifier cannot see, the kernel
//! stops.
//!
//! The classifier reads a command before it runs and asks about what it can see; it cannot see
//! through interpreters, scripts, functions or paths known only at run time. This module is the
//! wall behind that guard. A confined command:
//! - reads everywhere, but writes, creates, removes, renames, truncates and re-permissions only
//!   beneath the writable roots (the workspace, the trusted roots, its private `TMPDIR`,
//!   `/dev/shm`, the `[shell] writable` list) and the device files commands need;
//! - cannot change codesmith's own state (`.codesmith/`) or the workspace's `.git/config` and
//!   `.git/hooks/`, though they sit inside the workspace: a command must not grant itself
//!   anything for later calls;
//! - opens no internet socket unless the network is allowed for it.
//!
//! Three kernel mechanisms carry it, each a layer that can be missing on its own:
//! - **Landlock** (write access rights beneath the writable roots; also forbids the confined
//!   command to mount, unmount or ptrace anything outside its domain);
//! - **a private mount namespace** (entered through a user namespace when codesmith is not
//!   root): the whole tree is remounted read-only, the writable roots are mounted back writable,
//!   and the protected state is bind-mounted read-only on top. This is what covers chmod and
//!   chown, which Landlock does not govern, and what carves the state out of the workspace,
//!   which Landlock (rules only ever add access beneath a directory) cannot;
//! - **seccomp**, which refuses `socket()` for every family but `AF_UNIX` (and io_uring, which
//!   could open sockets behind its back); when the mount layer is up, every mount-changing call,
//!   so not even root inside the sandbox can unmount the protection; and with writes confined,
//!   the calls that act on the whole machine (reboot, the clock, the host name, modules).
//!
//! The platform code lives in one module per platform behind [`Prepared`]; everything the
//! child does between fork and exec is a plain system call on memory prepared before the fork.

#[cfg(target_os = "linux")]
mod bpf;
#[cfg(target_os = "linux")]
mod linux;
#[cfg(not(target_os = "linux"))]
mod other;
mod report;

use std::path::PathBuf;

#[cfg(target_os = "linux")]
pub use linux::{failure, Prepared};
#[cfg(not(target_os = "linux"))]
pub use other::{failure, Prepared};
pub use report::{Lifted, Protection, Report};

/// `[shell] sandbox` in config.toml.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Confine with what the kernel offers; run guarded by the classifier alone where it offers
    /// nothing, and say so.
    Auto,
    /// Refuse to run a command unless every layer it needs is available.
    Required,
    /// Do not confine.
    Off,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Required => "required",
            Mode::Off => "off",
        }
    }
}

/// A kernel mechanism the sandbox is built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layer {
    Landlock,
    Mounts,
    /// A PID namespace whose first process is the command's shell: when it ends, the kernel
    /// ends everything else in the namespace.
    Pids,
    /// Every capability dropped (effective, permitted, inheritable, ambient, bounding set).
    Capabilities,
    Seccomp,
}

impl Layer {
    pub const ALL: [Layer; 5] = [
        Layer::Landlock,
        Layer::Mounts,
        Layer::Pids,
        Layer::Capabilities,
        Layer::Seccomp,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Landlock => "landlock",
            Layer::Mounts => "mount namespace",
            Layer::Pids => "pid namespace",
            Layer::Capabilities => "capabilities",
            Layer::Seccomp => "seccomp",
        }
    }

    /// The word `CODESMITH_SANDBOX_UNSUPPORTED` uses for it.
    fn simulation_name(self) -> &'static str {
        match self {
            Layer::Landlock => "landlock",
            Layer::Mounts | Layer::Pids => "namespaces",
            Layer::Capabilities => "capabilities",
            Layer::Seccomp => "seccomp",
        }
    }
}

/// What one command may do: the paths are canonical.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Request {
    /// Directories (or device files) the command may write beneath.
    pub writable: Vec<PathBuf>,
    /// Existing paths inside writable roots that must stay read-only.
    pub protected: Vec<PathBuf>,
    /// Existing directories inside writable roots that must not be renamed or removed (so a
    /// protected path inside cannot be swapped for a look-alike): `.git`.
    pub pinned: Vec<PathBuf>,
    /// Existing directories inside protected ones that stay writable: the command's `TMPDIR`,
    /// a background task's own directory.
    pub reopened: Vec<PathBuf>,
    /// Confine writes to the writable roots (lifted by an approval to write outside).
    pub filesystem: bool,
    /// Keep the state read-only (lifted together with the filesystem rule).
    pub state: bool,
    /// Refuse internet sockets (lifted when the network is allowed for this command).
    pub block_network: bool,
    /// Run the command as the first process of its own PID namespace, so nothing it starts
    /// outlives it (`setsid` and double forks included).
    pub contain: bool,
    /// Directories of daemons' sockets hidden behind an empty read-only tmpfs (`/run`, the
    /// user's runtime directory, ...): a command reaches no socket outside the workspace
    /// unless it is in `sockets`.
    pub masked: Vec<PathBuf>,
    /// Paths inside `masked` directories that stay reachable: the sockets `[shell] sockets`
    /// grants, and files such as a resolver configuration that `/etc` links into `/run`.
    pub sockets: Vec<PathBuf>,
}

impl Request {
    /// Whether the command may write `path` (absolute, resolved): beneath a writable root
    /// (when writes are confined) and not in the protected state (when it is protected).
    pub fn may_write(&self, path: &std::path::Path) -> bool {
        let beneath_root = !self.filesystem || self.writable.iter().any(|root| path.starts_with(root));
        beneath_root && !(self.state && self.is_protected(path))
    }

    /// Whether `path` lies in the protected state: the deepest protected or reopened directory
    /// holding it is a protected one (a submodule's config is protected inside its reopened
    /// git directory, inside the protected `.git/modules`).
    pub fn is_protected(&self, path: &std::path::Path) -> bool {
        let deepest = |paths: &[PathBuf]| {
            paths
                .iter()
                .filter(|p| path.starts_with(p))
                .map(|p| p.components().count())
                .max()
        };
        match (deepest(&self.protected), deepest(&self.reopened)) {
            (Some(protected), Some(reopened)) => protected > reopened,
            (protected, _) => protected.is_some(),
        }
    }

    /// The layers this request needs.
    pub fn layers(&self) -> Vec<Layer> {
        let mut layers = Vec::new();
        if self.filesystem {
            layers.push(Layer::Landlock);
        }
        if self.filesystem || self.state {
            layers.push(Layer::Mounts);
        }
        if self.contain {
            layers.push(Layer::Pids);
        }
        // Root's capabilities reach past every path rule (open_by_handle_at, mknod, raw I/O):
        // they go wherever writes are confined.
        if self.filesystem {
            layers.push(Layer::Capabilities);
        }
        if self.block_network || self.state || self.filesystem {
            layers.push(Layer::Seccomp);
        }
        layers
    }
}

/// A layer that could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    pub layer: Layer,
    pub reason: String,
}

/// The layers a test (or a person checking the fallback) asks to treat as unsupported, from
/// `CODESMITH_SANDBOX_UNSUPPORTED` (a comma-separated list of `landlock`, `namespaces`,
/// `seccomp`, or `all`). It can only take protection away from the process it is given to, and
/// a confined command that sets it for a nested codesmith is still inside its own sandbox.
pub fn simulated_missing() -> Vec<Missing> {
    let Some(value) = std::env::var_os("CODESMITH_SANDBOX_UNSUPPORTED") else {
        return Vec::new();
    };
    let value = value.to_string_lossy().to_ascii_lowercase();
    let words: Vec<&str> = value.split(',').map(str::trim).collect();
    Layer::ALL
        .into_iter()
        .filter(|layer| words.contains(&"all") || words.contains(&layer.simulation_name()))
        .map(|layer| Missing {
            layer,
            reason: "marked unsupported by CODESMITH_SANDBOX_UNSUPPORTED".to_string(),
        })
        .collect()
}

/// Why the child could not be confined: the step, and the system error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetupFailure {
    pub layer: Layer,
    pub step: &'static str,
    pub errno: i32,
}

impl SetupFailure {
    pub fn describe(&self) -> String {
        format!(
            "{} failed: {}",
            self.step,
            std::io::Error::from_raw_os_error(self.errno)
        )
    }

    /// Whether the failure says something about this machine that the next call would meet
    /// again (the kernel lacks the feature or forbids it), rather than a passing shortage
    /// (memory, descriptors, a namespace limit reached for the moment) that a later call
    /// should try again.
    pub fn is_lasting(&self) -> bool {
        !matches!(
            self.errno,
            libc::ENOMEM
                | libc::EAGAIN
                | libc::ENOSPC
                | libc::EMFILE
                | libc::ENFILE
                | libc::EBUSY
                | libc::EINTR
                | libc::EUSERS
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn the_deepest_protected_or_reopened_directory_decides() {
        let request = Request {
            protected: vec![
                PathBuf::from("/ws/.git/modules"),
                PathBuf::from("/ws/.git/modules/a/config"),
            ],
            reopened: vec![PathBuf::from("/ws/.git/modules/a")],
            ..Request::default()
        };
        assert!(request.is_protected(Path::new("/ws/.git/modules/new/config")));
        assert!(!request.is_protected(Path::new("/ws/.git/modules/a/objects/x")));
        assert!(request.is_protected(Path::new("/ws/.git/modules/a/config")));
        assert!(!request.is_protected(Path::new("/ws/src/main.rs")));
    }

    fn failure(errno: i32) -> SetupFailure {
        SetupFailure {
            layer: Layer::Mounts,
            step: "entering a mount namespace",
            errno,
        }
    }

    #[test]
    fn a_missing_feature_is_lasting_and_a_shortage_is_not() {
        for errno in [
            libc::ENOSYS,
            libc::EPERM,
            libc::EACCES,
            libc::EINVAL,
            libc::EOPNOTSUPP,
        ] {
            assert!(failure(errno).is_lasting(), "{errno}");
        }
        for errno in [
            libc::ENOMEM,
            libc::EAGAIN,
            libc::ENOSPC,
            libc::EMFILE,
            libc::EUSERS,
        ] {
            assert!(!failure(errno).is_lasting(), "{errno}");
        }
    }
}
