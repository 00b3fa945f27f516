//! Telling a command the sandbox stopped from one that failed on its own.
//!
//! The kernel does not say why a call was refused, so this reads the command's own words: the
//! denial messages of common tools and interpreters (`Permission denied`, `Read-only file
//! system`, `Operation not permitted`, Python's `[Errno 13]`, …) and the paths they name, each
//! checked against what the command was allowed to write; and, for the network, the ways a
//! refused socket or a failed name lookup read. A path outside the writable roots (or inside
//! the protected state) is named in the hint. A denial that names no path at all still gets a
//! hint: a false hint costs a sentence, a missing one costs the model a wrong guess.

use std::path::{Path, PathBuf};

use crate::fs::workspace::normalize_lexically as normalize;
use crate::notice::{ApprovalReason, SandboxHint, SandboxStop, WritableLine};
use crate::sandbox::Request;
use crate::session::approval::ApprovalRequest;
use crate::session::context::Context;

use super::confine::lifting_requests;

/// What the sandbox stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// A write to this path (absolute, as resolved from the command's cwd).
    Path { path: PathBuf, protected: bool },
    /// A write whose path the command's messages did not name.
    UnnamedPath,
    /// A connection: the symptom seen.
    Network(&'static str),
    /// A connection under the policy `deny`, which no approval lifts.
    NetworkDenied(&'static str),
    /// A program killed by seccomp for a call of another architecture (32-bit `int 0x80`).
    Syscall,
    /// A socket (or other path) in a directory the sandbox hides from commands (`/run`, …).
    Socket(PathBuf),
    /// An operation on a path the command may write that only root's capabilities allow
    /// (chown to another user, a device node): root runs commands without them.
    Privilege(PathBuf),
}

impl Stop {
    /// The stop as the network policy has it: under `deny` a refused connection is final.
    pub fn under_policy(self, network: crate::net::Decision) -> Stop {
        match self {
            Stop::Network(symptom) if network == crate::net::Decision::Deny => Stop::NetworkDenied(symptom),
            stop => stop,
        }
    }
}

/// Phrases by which commands report a refused file operation.
const DENIALS: [&str; 12] = [
    "Permission denied",
    "Read-only file system",
    "Operation not permitted",
    "Device or resource busy",
    "Invalid cross-device link",
    "EACCES",
    "EROFS",
    "EPERM",
    "EXDEV",
    "[Errno 13]",
    "[Errno 30]",
    "[Errno 1]",
];

/// Shells, whose own messages are `SHELL: [LINE: ]NAME: REASON`.
const SHELLS: [&str; 6] = ["sh", "bash", "dash", "zsh", "ksh", "busybox"];

/// What tools put before the name in a denial (`touch: cannot touch 'x': …`).
const VERBS: [&str; 9] = [
    "cannot create regular file ",
    "cannot create directory ",
    "cannot create ",
    "can't create ",
    "cannot touch ",
    "cannot open ",
    "cannot remove ",
    "cannot move ",
    "failed to create symbolic link ",
];

/// The ways a refused socket or an unreachable resolver show.
const NETWORK_SYMPTOMS: [&str; 19] = [
    "Could not resolve host",
    "Couldn't resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "No route to host",
    "unable to resolve host",
    "getaddrinfo",
    "EAI_AGAIN",
    "ENOTFOUND",
    "ENETUNREACH",
    "nodename nor servname",
    "Failed to establish a new connection",
    "Could not resolve",
    "Failed to connect to",
    "Couldn't connect to server",
    "socket: Operation not permitted",
    "Immediate connect fail",
    "Name resolution",
];

/// How an operation refused for want of a capability reads.
const EPERM: [&str; 3] = ["Operation not permitted", "[Errno 1]", "EPERM"];

/// Words that put an `Operation not permitted` on the network side.
const NETWORK_WORDS: [&str; 6] = ["socket", "connect", "network", "urlopen", "http", "tcp"];

/// The first thing the sandbox visibly stopped, if any. `request` says what was confined
/// (only what actually held: a layer that was missing is taken out by the caller).
pub fn detect(stdout: &str, stderr: &str, cwd: &Path, request: &Request) -> Option<Stop> {
    let mut denial_without_path = false;
    let mut privilege = None;
    // Root holds no capability inside the sandbox: an EPERM on a path it may write is that.
    // SAFETY: a plain getter.
    let rootless_root = request.filesystem && unsafe { libc::geteuid() } == 0;
    if request.filesystem || request.state {
        let lines: Vec<&str> = stderr.lines().chain(stdout.lines()).collect();
        for (at, line) in lines.iter().enumerate() {
            if !DENIALS.iter().any(|phrase| line.contains(phrase)) {
                continue;
            }
            let candidates = candidates_near(&lines, at);
            // A path under /proc is another process's view (`/proc/1/root/…`, `/proc/PID/fd/N`):
            // it is not followed with codesmith's rights, nor shown as a path to trust.
            let (proc_paths, candidates): (Vec<String>, Vec<String>) = candidates
                .into_iter()
                .partition(|c| resolve_lexically(cwd, c).starts_with("/proc"));
            let mut explained = false;
            for candidate in candidates.iter() {
                let path = resolve(cwd, candidate);
                if !request.may_write(&path) {
                    let protected = request.is_protected(&path);
                    return Some(Stop::Path { path, protected });
                }
                if rootless_root && privilege.is_none() && EPERM.iter().any(|p| line.contains(p)) {
                    privilege = Some(path);
                }
                explained = true;
            }
            // A read-only file system inside the writable roots cannot be: the name was relative
            // to a directory the command moved to (`cd /x && touch f`).
            let read_only = ["Read-only file system", "[Errno 30]", "EROFS"]
                .iter()
                .any(|p| line.contains(p));
            if !explained || read_only || !proc_paths.is_empty() {
                denial_without_path = true;
            }
        }
    }
    if stderr.contains("Bad system call") || stdout.contains("Bad system call") {
        return Some(Stop::Syscall);
    }
    if let Some(path) = privilege {
        return Some(Stop::Privilege(path));
    }
    if request.block_network {
        if let Some(symptom) = network_symptom(stdout, stderr) {
            return Some(Stop::Network(symptom));
        }
    }
    denial_without_path.then_some(Stop::UnnamedPath)
}

/// Words with which a failed connection to a unix socket reads.
const SOCKET_FAILURES: [&str; 6] = [
    "No such file or directory",
    "Connection refused",
    "Cannot connect",
    "connect",
    "ENOENT",
    "socket",
];

/// A stop at a path the command failed to reach in a directory the sandbox hides (a daemon's
/// socket, such as `unix:///var/run/docker.sock`): named by a failure message, or by the
/// command line when a failure message names no path (Python's `FileNotFoundError: [Errno 2]
/// No such file or directory`).
pub fn hidden_socket(
    command: &str,
    stdout: &str,
    stderr: &str,
    cwd: &Path,
    request: &Request,
) -> Option<Stop> {
    if request.masked.is_empty() {
        return None;
    }
    let failures: Vec<&str> = stderr
        .lines()
        .chain(stdout.lines())
        .filter(|line| SOCKET_FAILURES.iter().any(|word| line.contains(word)))
        .collect();
    if failures.is_empty() {
        return None;
    }
    let hidden = |text: &str| {
        let text = text.replace("unix://", " ");
        path_candidates(&text)
            .into_iter()
            .map(|candidate| resolve_lexically(cwd, &candidate))
            .find(|path| super::confine::hidden_by(path, &request.masked).is_some())
    };
    failures
        .iter()
        .find_map(|line| hidden(line))
        .or_else(|| hidden(command))
        .map(Stop::Socket)
}

/// The way the output shows a refused socket or an unreachable resolver, if it does.
pub fn network_symptom(stdout: &str, stderr: &str) -> Option<&'static str> {
    let text = |needle: &str| stderr.contains(needle) || stdout.contains(needle);
    if let Some(symptom) = NETWORK_SYMPTOMS.iter().find(|s| text(s)) {
        return Some(symptom);
    }
    // A refused socket reads as a bare EPERM (`PermissionError: [Errno 1] Operation not
    // permitted`); the trace or message around it names the socket.
    let eperm = ["Operation not permitted", "[Errno 1]", "EPERM"]
        .iter()
        .any(|s| text(s));
    let lower = format!("{stdout}\n{stderr}").to_ascii_lowercase();
    let refused = eperm && NETWORK_WORDS.iter().any(|w| lower.contains(w));
    if refused {
        return Some("a socket refused with Operation not permitted");
    }
    (stdout.trim() == "000").then_some("curl's HTTP status 000")
}

/// How many lines before a denial that names no path are searched for one: cargo, git and
/// others print a chain of causes (`failed to open `/x/y``, `Caused by:`, `Read-only file
/// system (os error 30)`), the path a few lines above the reason.
const CAUSE_LINES: usize = 6;

/// What a cause line above the reason says it failed at (`failed to open `/x``).
const CAUSES: [&str; 4] = ["failed to ", "could not ", "unable to ", "cannot "];

/// The path-like words of the denial on line `at`, or, when it names none and is a file
/// system's refusal (not the `Operation not permitted` a refused socket gives), of the nearest
/// cause line above it (within [`CAUSE_LINES`]) that names an absolute path. A traceback's
/// `File "/usr/lib/…"` lines are not causes.
fn candidates_near(lines: &[&str], at: usize) -> Vec<String> {
    let own = path_candidates(lines[at]);
    let file_system = [
        "Read-only file system",
        "Permission denied",
        "os error 30",
        "os error 13",
    ]
    .iter()
    .any(|phrase| lines[at].contains(phrase));
    if !own.is_empty() || !file_system {
        return own;
    }
    (at.saturating_sub(CAUSE_LINES)..at)
        .rev()
        .filter(|&i| CAUSES.iter().any(|cause| lines[i].contains(cause)))
        .map(|i| path_candidates(lines[i]))
        .find(|found| found.iter().any(|c| c.starts_with('/')))
        .unwrap_or_default()
}

/// The path-like words of one message line: quoted strings first (`'…'`, `"…"`, `` `…' ``,
/// `‘…’`), then bare words with a `/` in them, stripped of the punctuation messages put
/// around them.
fn path_candidates(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (open, close) in [('\'', '\''), ('"', '"'), ('`', '\''), ('‘', '’'), ('“', '”')] {
        let mut rest = line;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + open.len_utf8()..];
            let Some(end) = after.find(close) else {
                break;
            };
            let inner = &after[..end];
            if looks_like_path(inner) {
                found.push(inner.to_string());
            }
            rest = &after[end + close.len_utf8()..];
        }
    }
    // `sh: 1: cannot create NAME: Permission denied`, `bash: NAME: Read-only file system`: the
    // field before the denial, less the verb a tool puts in front of the name.
    let fields: Vec<&str> = line.split(": ").collect();
    if let Some(at) = fields.iter().position(|f| DENIALS.iter().any(|d| f.contains(d))) {
        if let Some(field) = at.checked_sub(1).map(|i| fields[i]) {
            let shell_said = SHELLS.contains(&fields[0]);
            let stripped = VERBS.iter().find_map(|verb| field.strip_prefix(verb));
            let name = stripped
                .unwrap_or(field)
                .trim_matches(|c: char| matches!(c, '\'' | '"' | '`' | '‘' | '’'));
            let named = stripped.is_some() || shell_said;
            if named
                && !name.contains(' ')
                && looks_like_path(name)
                && !name.bytes().all(|b| b.is_ascii_digit())
            {
                found.push(name.to_string());
            }
        }
    }
    for word in line.split_whitespace() {
        let word = word.trim_matches(|c: char| {
            matches!(
                c,
                ':' | ',' | ';' | '(' | ')' | '\'' | '"' | '`' | '[' | ']' | '‘' | '’' | '“' | '”'
            )
        });
        if word.contains('/') && looks_like_path(word) {
            found.push(word.to_string());
        }
    }
    let mut unique: Vec<String> = Vec::new();
    for candidate in found {
        if !unique.contains(&candidate) {
            unique.push(candidate);
        }
    }
    unique
}

fn looks_like_path(text: &str) -> bool {
    !text.is_empty() && text.len() < 4096 && !text.contains("://") && !text.chars().any(char::is_control)
}

fn resolve_lexically(cwd: &Path, candidate: &str) -> PathBuf {
    normalize(&cwd.join(candidate))
}

/// `candidate` as an absolute path: from `cwd` when relative, with symlinks followed the way
/// the kernel follows them (a dangling link leads where it points), lexically normalized, then
/// with its deepest existing ancestor canonicalized.
fn resolve(cwd: &Path, candidate: &str) -> PathBuf {
    let mut path = normalize(&cwd.join(candidate));
    for _ in 0..40 {
        match std::fs::read_link(&path) {
            Ok(target) => {
                let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
                path = normalize(&base.join(target));
            }
            Err(_) => break,
        }
    }
    let mut existing = path.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(canonical) = existing.canonicalize() {
            let mut resolved = canonical;
            for part in rest.iter().rev() {
                resolved.push(part);
            }
            return resolved;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return path,
        }
    }
}

/// The `Sandbox:` lines for what the sandbox did to a command, and the approval that lifts a
/// stop (recorded as pending, so `codesmith approve ID` knows it).
pub struct Hint {
    pub lines: Vec<SandboxHint>,
    /// `None` when no approval can lift the stop.
    pub approval: Option<serde_json::Value>,
}

impl Hint {
    /// `hint` with `lines` put before its own; a hint of those lines alone when there was none.
    pub fn with_lines_first(hint: Option<Hint>, mut lines: Vec<SandboxHint>) -> Option<Hint> {
        if lines.is_empty() {
            return hint;
        }
        let mut hint = hint.unwrap_or(Hint {
            lines: Vec::new(),
            approval: None,
        });
        lines.append(&mut hint.lines);
        hint.lines = lines;
        Some(hint)
    }

    /// The lines as the output starts with them, each ended by a newline.
    pub fn text(&self) -> String {
        self.lines.iter().map(|line| line.to_string() + "\n").collect()
    }
}

/// For a stop a person can lift: the approval that lifts it (the request to write outside,
/// or the one for the network) and what happened.
fn what_stopped(
    ctx: &Context,
    stop: &Stop,
    write_outside: ApprovalRequest,
    network: ApprovalRequest,
) -> (ApprovalRequest, SandboxStop) {
    match stop {
        Stop::Network(symptom) | Stop::NetworkDenied(symptom) => (network, SandboxStop::Network { symptom }),
        Stop::Path {
            path,
            protected: true,
        } => (
            write_outside,
            SandboxStop::Protected {
                path: ctx.workspace.display(path),
            },
        ),
        Stop::Path {
            path,
            protected: false,
        } => (
            write_outside,
            SandboxStop::Outside {
                path: path.display().to_string(),
                writable: writable_dir(path, ctx.workspace.root()).map(|dir| writable_line(ctx, &dir)),
            },
        ),
        Stop::Socket(path) => (
            write_outside,
            SandboxStop::Socket {
                path: path.display().to_string(),
            },
        ),
        Stop::Privilege(path) => (
            write_outside,
            SandboxStop::Privilege {
                path: ctx.workspace.display(path),
            },
        ),
        Stop::UnnamedPath | Stop::Syscall => (write_outside, SandboxStop::FileOperation),
    }
}

/// Caches that live under the home directory, named whole in a hint: a command that unpacks a
/// crate writes somewhere deep in `~/.cargo/registry`, and the next crate lands elsewhere in it.
const HOME_CACHES: [&str; 10] = [
    ".cargo/registry",
    ".cargo/git",
    ".rustup",
    ".npm",
    ".cache",
    ".local/share/pnpm",
    "go/pkg/mod",
    ".m2",
    ".gradle",
    ".yarn",
];

/// The directory to make writable so a write to `path` goes through: the cache under `$HOME`
/// (or `$CARGO_HOME`) it lies in, else its deepest existing directory. `None` when that would
/// be `/` or would hold the workspace, which `[shell] writable` refuses.
pub fn writable_dir(path: &Path, root: &Path) -> Option<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let cargo_home = std::env::var_os("CARGO_HOME").map(PathBuf::from);
    let caches = home
        .iter()
        .flat_map(|home| HOME_CACHES.iter().map(move |cache| home.join(cache)))
        .chain(
            cargo_home
                .iter()
                .flat_map(|c| [c.join("registry"), c.join("git")]),
        );
    let dir = caches
        .filter_map(|cache| cache.canonicalize().ok())
        .find(|cache| path.starts_with(cache) && cache.is_dir())
        .or_else(|| path.ancestors().find(|a| a.is_dir()).map(Path::to_path_buf))?;
    (dir.parent().is_some() && !root.starts_with(&dir)).then_some(dir)
}

/// The `writable = [...]` line that adds `dir` to the entries `[shell] writable` has.
fn writable_line(ctx: &Context, dir: &Path) -> WritableLine {
    let config = ctx.config().ok();
    let mut dirs = super::confine::ShellSettings::load(config, ctx.workspace.root()).writable;
    if !dirs.iter().any(|d| d == dir) {
        dirs.push(dir.to_path_buf());
    }
    WritableLine {
        entries: dirs
            .iter()
            .map(|d| toml::Value::String(d.display().to_string()).to_string())
            .collect(),
        dir: crate::fs::workspace::shell_word(&dir.display().to_string()),
    }
}

/// Builds the hint for `stop` of `command`, run from the cwd `scope`.
pub fn hint(ctx: &Context, stop: &Stop, command: &str, scope: &str) -> Hint {
    let only = |line: SandboxHint| Hint {
        lines: vec![line],
        approval: None,
    };
    if let Stop::Syscall = stop {
        return only(SandboxHint::BadSystemCall);
    }
    if let Stop::NetworkDenied(symptom) = stop {
        return only(SandboxHint::NetworkDenied { symptom });
    }
    let [write_outside, network] = lifting_requests(command, scope);
    let (request, stopped) = what_stopped(ctx, stop, write_outside, network);
    let request = ApprovalRequest {
        reason: ApprovalReason::Stopped(stopped.clone()),
        ..request
    };
    let id = request.id();
    let mut pending = request.pending();
    pending.tool = Some(super::SPEC.name.to_string());
    let _ = ctx.state.update_session(|session| {
        session.pending.insert(id.clone(), pending);
    });
    let approval = serde_json::json!({
        "id": id, "kind": request.kind.as_str(), "subject": request.subject, "reason": request.reason.to_string(),
    });
    Hint {
        lines: vec![SandboxHint::Liftable { stop: stopped, id }],
        approval: Some(approval),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_come_from_the_messages_of_common_tools() {
        assert_eq!(
            path_candidates("sh: 1: cannot create /x/y: Permission denied"),
            ["/x/y"]
        );
        assert_eq!(
            path_candidates("touch: cannot touch '/x/y': Read-only file system"),
            ["/x/y"]
        );
        assert_eq!(
            path_candidates("PermissionError: [Errno 13] Permission denied: '/scratch/f'"),
            ["/scratch/f"]
        );
        assert_eq!(
            path_candidates("rm: cannot remove ‘a b/c’: Permission denied")[0],
            "a b/c"
        );
        assert!(path_candidates("Permission denied").is_empty());
        assert_eq!(
            path_candidates("sh: 1: cannot create link: Read-only file system"),
            ["link"]
        );
        assert_eq!(path_candidates("bash: out: Permission denied"), ["out"]);
    }

    #[test]
    fn a_cause_chain_names_the_path_lines_above_the_reason() {
        let cargo = "error: failed to unpack package `x v1.0`\n\nCaused by:\n  failed to open \
                     `/h/.cargo/registry/src/x-1.0/.cargo-ok`\n\nCaused by:\n  Read-only file system (os error 30)";
        let lines: Vec<&str> = cargo.lines().collect();
        assert_eq!(
            candidates_near(&lines, 6),
            ["/h/.cargo/registry/src/x-1.0/.cargo-ok"]
        );
        let unrelated: Vec<&str> = "a\nb\nc\nd\ne\nf\ng /far/away\nh\ni\nj\nk\nl\nm\nPermission denied"
            .lines()
            .collect();
        assert!(candidates_near(&unrelated, 13).is_empty());
        let traceback = "  File \"/usr/lib/python3/socket.py\", line 232, in __init__\n\
                         PermissionError: [Errno 1] Operation not permitted";
        let lines: Vec<&str> = traceback.lines().collect();
        assert!(
            candidates_near(&lines, 1).is_empty(),
            "a refused socket names no file"
        );
    }

    #[test]
    fn the_writable_dir_is_the_deepest_existing_one_never_the_root_or_above_the_workspace() {
        let scratch = tempfile::tempdir().expect("tempdir");
        let dir = scratch.path().canonicalize().expect("canonical");
        let ws = dir.join("ws");
        std::fs::create_dir_all(ws.join("sub")).expect("mkdir");
        std::fs::create_dir_all(dir.join("out")).expect("mkdir");
        assert_eq!(
            writable_dir(&dir.join("out/new/file"), &ws),
            Some(dir.join("out"))
        );
        assert_eq!(
            writable_dir(&dir.join("file"), &ws),
            None,
            "it holds the workspace"
        );
        assert_eq!(writable_dir(Path::new("/no-such-dir/x"), &ws), None, "the root");
    }

    #[test]
    fn a_network_refusal_is_told_from_a_file_refusal() {
        assert!(network_symptom("", "socket.socket(): [Errno 1] Operation not permitted").is_some());
        assert!(network_symptom("", "curl: (6) Could not resolve host: example.com").is_some());
        assert!(network_symptom("", "touch: cannot touch '/x': Operation not permitted").is_none());
    }
}
