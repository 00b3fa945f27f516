//! The lines exec_shell puts before a command's output when the kernel sandbox stood in its way:
//! what it stopped and the approval that lifts it, the git redirections it removed, and the hint
//! that a failed command may have met a blocked network.

use std::fmt;

/// What the sandbox stopped, in a form a person can lift with an approval; the same words are
/// the approval's reason ([`super::ApprovalReason::Stopped`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxStop {
    /// A connection refused because the network policy does not allow it without asking: the
    /// symptom the output showed.
    Network { symptom: &'static str },
    /// A change to codesmith's state or the workspace's git configuration (`path` as the
    /// workspace displays it).
    Protected { path: String },
    /// A write to `path` (absolute) outside the directories a command may write; `writable`
    /// when a directory can be made writable for every command.
    Outside {
        path: String,
        writable: Option<WritableLine>,
    },
    /// A daemon's socket in a directory the sandbox hides (`path` absolute).
    Socket { path: String },
    /// An operation on `path` (as the workspace displays it) that needs root's capabilities.
    Privilege { path: String },
    /// A refused file operation whose path the command's messages did not name.
    FileOperation,
}

/// The `[shell] writable` line that adds a directory to the entries the setting has: the
/// entries as TOML strings (quoted), and the directory as a shell word for `codesmith trust add`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WritableLine {
    pub entries: Vec<String>,
    pub dir: String,
}

/// Who planted the git redirections that were removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Planter {
    /// The command that just ran.
    Command,
    /// A process an earlier command left running (found before this command ran).
    EarlierCommand,
}

/// One line before a command's output (without its newline).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxHint {
    /// A program killed by seccomp for a system call of another architecture.
    BadSystemCall,
    /// A connection refused under the network policy `deny`, which no approval lifts: the
    /// symptom the output showed.
    NetworkDenied { symptom: &'static str },
    /// A stop that approval `id` lifts.
    Liftable { stop: SandboxStop, id: String },
    /// Redirections of git's configuration (paths relative to the workspace) that were removed.
    GitRedirectionsRemoved { by: Planter, paths: Vec<String> },
    /// A command the classifier says needs the network failed the way a blocked network fails
    /// (the symptom), and the policy does not allow the network.
    NetworkMayBeBlocked { symptom: &'static str },
}

impl SandboxStop {
    /// What happened, as the `Sandbox:` line and the approval's reason say it.
    pub(super) fn fmt_what(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SandboxStop::Network { symptom } => write!(
                f,
                "the network is off for commands by the workspace's network policy, so this \
                 command could not connect ({symptom})"
            ),
            SandboxStop::Protected { path } => write!(
                f,
                "the sandbox kept the command from changing `{path}`: codesmith's state and the \
                 workspace's git configuration and hooks (.git/config, .git/hooks, .git/modules, \
                 .git/worktrees) are read-only to commands"
            ),
            SandboxStop::Outside { path, .. } => write!(
                f,
                "the sandbox kept the command from writing `{path}`, outside the directories a \
                 command may write (the workspace, trusted directories, [shell] writable, $TMPDIR)"
            ),
            SandboxStop::Socket { path } => write!(
                f,
                "the sandbox hides the sockets of daemons outside the workspace (`/run`, the \
                 user's runtime directory, the ssh agent's) from commands, so this command could \
                 not reach `{path}`"
            ),
            SandboxStop::Privilege { path } => write!(
                f,
                "the command was refused an operation on `{path}` that needs root's privileges: \
                 commands run without capabilities, even as root (no chown to another user, no \
                 device nodes, no raw sockets)"
            ),
            SandboxStop::FileOperation => f.write_str(
                "the command was refused a file operation, which may be the sandbox: commands write \
                 only in the workspace, trusted directories and $TMPDIR",
            ),
        }
    }

    /// The way out other than the approval.
    fn fmt_other_way(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SandboxStop::Network { .. } => f.write_str(
                "or ask the user to set default = \"allow\" under [network] in .codesmith/config.toml; \
                 for a web page use fetch_url",
            ),
            SandboxStop::Protected { .. } => f.write_str("a person can change it outside codesmith"),
            SandboxStop::Outside {
                writable: Some(WritableLine { entries, dir }),
                ..
            } => write!(
                f,
                "or, to let every command write there, ask the user to put this line under \
                 [shell] in .codesmith/config.toml: `writable = [{}]` (or to run `codesmith trust add {dir}`)",
                entries.join(", ")
            ),
            SandboxStop::Socket { path } => write!(
                f,
                "or, to let every command reach it, ask the user to add `sockets = [{}]` under \
                 [shell] in .codesmith/config.toml",
                toml::Value::String(path.clone())
            ),
            SandboxStop::Privilege { .. } => f.write_str(
                "or do without them (`tar --no-same-owner`, `cp` without `-a`, files owned by \
                 whoever runs the command)",
            ),
            SandboxStop::Outside { writable: None, .. } | SandboxStop::FileOperation => {
                f.write_str("or write inside the workspace or $TMPDIR instead")
            }
        }
    }
}

/// The stop's own words: what happened.
struct What<'a>(&'a SandboxStop);

impl fmt::Display for What<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_what(f)
    }
}

/// The stop's other way out.
struct OtherWay<'a>(&'a SandboxStop);

impl fmt::Display for OtherWay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_other_way(f)
    }
}

impl fmt::Display for SandboxHint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SandboxHint::BadSystemCall => f.write_str(
                "Sandbox: a program was killed for a system call the sandbox refuses (\"Bad system \
                 call\": 32-bit system calls cannot run confined). Use a 64-bit build of the \
                 program, or ask the user to run the command with --yolo.",
            ),
            SandboxHint::NetworkDenied { symptom } => write!(
                f,
                "Sandbox: the workspace's network policy denies the network ([network] default = \
                 \"deny\" in .codesmith/config.toml), so this command could not connect ({symptom}). \
                 No approval lifts that: do the work without the network, use fetch_url for a web \
                 page the allow list permits, or ask the user to change the policy."
            ),
            SandboxHint::Liftable { stop, id } => write!(
                f,
                "Sandbox: {}. To run it without that limit, ask the user to approve it with \
                 `codesmith approve {id}` and repeat this exact call (or repeat it with `--approve {id}` \
                 if the user already agreed); {}.",
                What(stop),
                OtherWay(stop)
            ),
            SandboxHint::GitRedirectionsRemoved { by, paths } => {
                let how = match by {
                    Planter::Command => "the command created",
                    Planter::EarlierCommand => {
                        "an earlier command (through a process it left running) created"
                    }
                };
                write!(
                    f,
                    "Sandbox: {how} `{}`, which would point git at another configuration and hooks, so it \
                     was removed. Commands may not change the workspace's git configuration; ask the user \
                     to make that change.",
                    paths.join("`, `")
                )
            }
            SandboxHint::NetworkMayBeBlocked { symptom } => write!(
                f,
                "Hint: this command needs the network and failed the way a blocked network fails \
                 ({symptom}). The workspace's network policy does not allow the network, so the \
                 sandbox may be cutting it off. Ask the user to allow it (set default = \"allow\" \
                 under [network] in .codesmith/config.toml, or approve the command), or use \
                 fetch_url for web pages."
            ),
        }
    }
}

/// Why a protection did not hold for a command: `data.sandbox.<protection>.why`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unprotected {
    /// `[shell] sandbox = "off"`.
    SandboxOff,
    /// Lifted for this command by a person's approval.
    Approved { id: String },
    /// The workspace's network policy allows the network.
    NetworkAllowed,
    /// The layers it needs are missing here, each with the reason the sandbox found; none
    /// named: not available on this system.
    Missing(Vec<(&'static str, String)>),
}

impl Unprotected {
    /// Whether the protection is missing (rather than lifted by a grant or the policy).
    pub fn is_missing(&self) -> bool {
        matches!(self, Unprotected::Missing(_))
    }
}

impl fmt::Display for Unprotected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unprotected::SandboxOff => f.write_str("[shell] sandbox = \"off\" in .codesmith/config.toml"),
            Unprotected::Approved { id } => write!(f, "lifted for this command by approval {id}"),
            Unprotected::NetworkAllowed => f.write_str("the workspace's network policy allows the network"),
            Unprotected::Missing(layers) if layers.is_empty() => f.write_str("not available here"),
            Unprotected::Missing(layers) => {
                let reasons: Vec<String> = layers
                    .iter()
                    .map(|(layer, why)| format!("{layer}: {why}"))
                    .collect();
                f.write_str(&reasons.join("; "))
            }
        }
    }
}
