//! The workspace boundary.
//!
//! Every path a tool touches passes three stages, because each alone can be fooled:
//! 1. *Lexical*: the path is joined to the session cwd and `.`/`..` are folded without touching
//!    the disk, then compared component-wise with the roots (so `/ws-evil` is not inside `/ws`).
//!    Stages 2 and 3 always run as well; a lexically outside path is accepted only when it
//!    resolves inside (it reached the workspace through a symlink, e.g. `/link -> /ws`).
//! 2. *Canonical*: an existing path is resolved by the kernel (`realpath`), which follows every
//!    symlink; the resolved path must still be inside a root. This catches `link -> /etc`.
//! 3. *Deepest ancestor*: a path that does not exist yet is resolved component by component,
//!    following symlinks (dangling ones too) until the first missing component, and the rest is
//!    re-attached. This catches creating `out/new.txt` where `out -> /tmp`.
//!
//! Tools then operate on the resolved path, never the raw one, so what was checked is what is
//! opened. Extra roots come from `codesmith trust add`.

use std::path::{Component, Path, PathBuf};

use crate::error::{PathForm, ToolError};
use crate::fs::beneath::{Refusal, Roots, Slot};

/// The longest path accepted, in bytes (Linux's PATH_MAX).
const MAX_PATH_BYTES: usize = 4096;
/// The longest single path component accepted, in bytes (NAME_MAX).
const MAX_COMPONENT_BYTES: usize = 255;
/// How many symlinks one resolution may follow before it is called a loop.
const MAX_SYMLINK_HOPS: usize = 40;

/// The workspace root, the extra trusted roots, and the session's cwd, all canonical.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    trusted: Vec<PathBuf>,
    cwd: PathBuf,
    roots: Roots,
}

/// A path that passed the boundary: `abs` is resolved (symlinks followed), `display` is what
/// results show — workspace-relative with `/`, or absolute for a path under a trusted root.
///
/// The file is reached through [`WsPath::open`] and [`WsPath::slot`], which go down from a
/// descriptor of the root again (see [`crate::fs::beneath`]), never by opening `abs` by name:
/// the check above and the open are then one and the same walk, however the tree changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WsPath {
    pub abs: PathBuf,
    pub display: String,
    /// The path as a suggested call or command names it: relative to the session cwd (see
    /// [`Workspace::call_path`]), so following the advice reaches this file.
    pub call: String,
    /// The roots the path was checked against, which every open of it stays beneath.
    pub roots: Roots,
}

impl WsPath {
    /// Opens the file (`flags` as for `open(2)`), beneath its root.
    pub fn open(&self, flags: libc::c_int) -> Result<std::fs::File, Refusal> {
        self.roots.open(&self.abs, flags)
    }

    /// The directory that holds the path, opened beneath its root, and the path's name there;
    /// with `create`, missing directories on the way are made.
    pub fn slot(&self, create: bool) -> Result<Slot, Refusal> {
        self.roots.slot(&self.abs, create)
    }

    /// The error a failed [`WsPath::open`] or [`WsPath::slot`] reports: a path that led out
    /// (the tree changed since the check) is refused as any path leading out is; `verb` names
    /// what failed otherwise ("read", "write", ...).
    pub fn refusal(&self, verb: &str, refusal: Refusal) -> ToolError {
        match refusal {
            Refusal::Escapes(to) => escape_error(&self.roots, &self.call, &to),
            Refusal::Loop => ToolError::symlink_loop(&self.call),
            Refusal::Io(err) => ToolError::io(&self.display, verb, &err),
        }
    }

    /// The path as a call argument, `path={}`: [`WsPath::call`], JSON-quoted.
    pub fn call_arg(&self) -> String {
        quote_arg(&self.call)
    }

    /// The path as a word of a suggested shell command (run in the session cwd).
    pub fn shell_word(&self) -> String {
        shell_word(&self.call)
    }

    /// The names an error message gives this path.
    pub fn file_ref(&self) -> crate::error::FileRef<'_> {
        crate::error::FileRef {
            display: &self.display,
            call_arg: self.call_arg(),
            shell_word: self.shell_word(),
        }
    }
}

impl Workspace {
    /// `root` must be canonical; `trusted` entries that no longer resolve are dropped.
    pub fn new(root: PathBuf, trusted: Vec<PathBuf>) -> Workspace {
        let trusted: Vec<PathBuf> = trusted
            .into_iter()
            .filter_map(|p| p.canonicalize().ok())
            .collect();
        Workspace::with_cwd(root.clone(), trusted, root)
    }

    fn with_cwd(root: PathBuf, trusted: Vec<PathBuf>, cwd: PathBuf) -> Workspace {
        let roots = Roots::new(
            std::iter::once(root.clone())
                .chain(trusted.iter().cloned())
                .collect(),
        );
        Workspace {
            root,
            trusted,
            cwd,
            roots,
        }
    }

    /// The roots every path is checked against, the workspace root first.
    pub fn roots(&self) -> &Roots {
        &self.roots
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    pub fn trusted(&self) -> &[PathBuf] {
        &self.trusted
    }

    /// Sets the cwd if it is an existing directory inside a root; otherwise keeps the root.
    pub fn set_cwd(&mut self, cwd: &Path) {
        if let Ok(canonical) = cwd.canonicalize() {
            if canonical.is_dir() && self.is_inside(&canonical) {
                self.cwd = canonical;
            }
        }
    }

    /// The `.codesmith` directory at the root.
    pub fn state_dir(&self) -> PathBuf {
        self.root.join(".codesmith")
    }

    /// True when `path` (absolute, normalized) lies within the root or a trusted root.
    pub fn is_inside(&self, path: &Path) -> bool {
        path.starts_with(&self.root) || self.trusted.iter().any(|t| path.starts_with(t))
    }

    /// True when `path` lies within `.codesmith/` at the root, or within the directory it
    /// resolves to (should `.codesmith` be a symlink after all, its target is state too).
    pub fn is_state_path(&self, path: &Path) -> bool {
        let dir = self.state_dir();
        path.starts_with(&dir) || dir.canonicalize().is_ok_and(|real| path.starts_with(real))
    }

    /// Resolves a path argument through the three stages.
    ///
    /// A path whose lexical form lies outside every root is not refused on that alone: it may
    /// reach the workspace through a symlink (a workspace opened as `/link` when `/link -> /ws`,
    /// or a shell whose `$PWD` keeps the link). It is then resolved on disk, and accepted only
    /// if what it resolves to lies inside a root, which is all the boundary promises: the file
    /// touched is the resolved one.
    pub fn resolve(&self, input: &str) -> Result<WsPath, ToolError> {
        check_form(input)?;
        let joined = self.cwd.join(input);
        let lexical = normalize_lexically(&joined);
        let resolved = match resolve_on_disk(&lexical) {
            Ok(resolved) => resolved,
            Err(_) if !self.is_inside(&lexical) => return Err(self.escape_error(input, &lexical)),
            Err(ResolveError::Loop) => return Err(ToolError::symlink_loop(input)),
            Err(ResolveError::Io(err)) => return Err(ToolError::io(input, "resolve", &err)),
        };
        if !self.is_inside(&resolved) {
            return Err(self.escape_error(input, &resolved));
        }
        Ok(WsPath {
            display: self.display(&resolved),
            call: self.call_path(&resolved),
            abs: resolved,
            roots: self.roots.clone(),
        })
    }

    /// Like [`Workspace::resolve`], and refuses paths inside `.codesmith/`, which holds the
    /// session's own freshness records.
    pub fn resolve_for_write(&self, input: &str) -> Result<WsPath, ToolError> {
        let path = self.resolve(input)?;
        if self.is_state_path(&path.abs) {
            return Err(ToolError::inside_state_dir(input));
        }
        Ok(path)
    }

    /// How results show an absolute path: relative to the root with `/`, `.` for the root
    /// itself, or the absolute path for one outside it (under a trusted root).
    pub fn display(&self, abs: &Path) -> String {
        match abs.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
            Err(_) => abs.to_string_lossy().into_owned(),
        }
    }

    /// How a suggested call ("Call read_file with path=...") names `abs` so that it resolves
    /// to `abs` from the session cwd, which is where the next call resolves relative paths:
    /// - cwd at the root: the workspace-relative path, as results show it;
    /// - `abs` under the cwd: relative to the cwd (`.` for the cwd itself);
    /// - `abs` elsewhere in the workspace, cwd inside it: `../`-relative to the cwd (`..`,
    ///   `../lib/a.rs`), which keeps it short and free of the machine's directory layout;
    /// - otherwise (a trusted root is involved): absolute.
    ///
    /// Results (`data.path`, listings) stay workspace-relative; only calls use this.
    pub fn call_path(&self, abs: &Path) -> String {
        if self.cwd == self.root {
            return self.display(abs);
        }
        if let Ok(rel) = abs.strip_prefix(&self.cwd) {
            return if rel.as_os_str().is_empty() {
                ".".to_string()
            } else {
                rel.to_string_lossy().into_owned()
            };
        }
        if !(abs.starts_with(&self.root) && self.cwd.starts_with(&self.root)) {
            return abs.to_string_lossy().into_owned();
        }
        let shared = abs
            .components()
            .zip(self.cwd.components())
            .take_while(|(a, b)| a == b)
            .count();
        let ups = self.cwd.components().count() - shared;
        let mut path = vec![std::ffi::OsStr::new(".."); ups];
        path.extend(abs.components().skip(shared).map(|c| c.as_os_str()));
        path.iter()
            .map(|part| part.to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    }

    /// [`Workspace::call_path`] of a path given relative to the root (as results and state
    /// files name paths), or absolute.
    pub fn call_path_of(&self, rel: &str) -> String {
        self.call_path(&self.root.join(rel))
    }

    fn escape_error(&self, input: &str, resolved: &Path) -> ToolError {
        escape_error(&self.roots, input, resolved)
    }
}

/// `outside_workspace` for `input`, which resolves to `resolved`, outside every root.
fn escape_error(roots: &Roots, input: &str, resolved: &Path) -> ToolError {
    ToolError::escapes_workspace(
        input,
        &resolved.display().to_string(),
        &roots.workspace().display().to_string(),
        roots
            .all()
            .iter()
            .map(|r| r.to_string_lossy().into_owned())
            .collect(),
    )
}

/// A value as a suggested call writes it: a JSON string. An ordinary path prints as
/// `"src/a.rs"`; `"` and `\` are escaped and control characters written as `\n`, `\u0001`,
/// so a path holding them cannot break the call text.
pub fn quote_arg(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| format!("\"{text}\""))
}

/// A word (a path, an argument) as a printed shell command writes it: as is when no shell
/// treats any of its characters specially, otherwise quoted (`shlex`). Every command line
/// codesmith prints quotes its words here.
pub fn shell_word(text: &str) -> String {
    match shlex::try_quote(text) {
        Ok(word) => word.into_owned(),
        // A NUL byte, which no argument can hold: single quotes keep the text readable.
        Err(_) => format!("'{}'", text.replace('\'', "'\\''")),
    }
}

/// Refuses path forms that mean something different to a model than to POSIX.
fn check_form(input: &str) -> Result<(), ToolError> {
    let refuse = |why: PathForm| Err(ToolError::bad_path_form(input, &abbreviate(input), &why));
    if input.is_empty() {
        return refuse(PathForm::Empty);
    }
    if input.contains('\0') {
        return refuse(PathForm::Nul);
    }
    if input.starts_with('~') {
        return refuse(PathForm::Tilde);
    }
    let bytes = input.as_bytes();
    if bytes.len() >= 2
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && (bytes.len() == 2 || bytes[2] == b'/' || bytes[2] == b'\\')
    {
        return refuse(PathForm::DriveLetter);
    }
    if input.contains('\\') {
        return refuse(PathForm::Backslash);
    }
    if input.len() > MAX_PATH_BYTES {
        return refuse(PathForm::TooLong {
            bytes: input.len(),
            max: MAX_PATH_BYTES,
        });
    }
    if let Some(long) = input.split('/').find(|c| c.len() > MAX_COMPONENT_BYTES) {
        return refuse(PathForm::ComponentTooLong {
            bytes: long.len(),
            max: MAX_COMPONENT_BYTES,
        });
    }
    Ok(())
}

/// A path as messages quote it: control characters escaped, and cut in the middle when long,
/// so a 4,000-byte path does not drown the message.
fn abbreviate(input: &str) -> String {
    const KEEP: usize = 60;
    let escaped: String = input
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect();
    let chars: Vec<char> = escaped.chars().collect();
    if chars.len() <= 2 * KEEP + 20 {
        return escaped;
    }
    let head: String = chars[..KEEP].iter().collect();
    let tail: String = chars[chars.len() - KEEP..].iter().collect();
    format!("{head}…({} characters)…{tail}", chars.len() - 2 * KEEP)
}

/// Folds `.` and `..` without touching the disk. `..` at `/` stays at `/`.
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Stages 2 and 3: `realpath` for an existing path, [`resolve_leniently`] for one that is not
/// there yet.
fn resolve_on_disk(lexical: &Path) -> Result<PathBuf, ResolveError> {
    match lexical.canonicalize() {
        Ok(path) => Ok(path),
        Err(_) => resolve_leniently(lexical),
    }
}

enum ResolveError {
    Loop,
    Io(std::io::Error),
}

/// `realpath` that tolerates a missing tail: symlinks (dangling ones included) are followed up
/// to the first component that does not exist; the rest is attached as written.
fn resolve_leniently(path: &Path) -> Result<PathBuf, ResolveError> {
    let mut pending: Vec<std::ffi::OsString> = path
        .components()
        .rev()
        .map(|c| c.as_os_str().to_os_string())
        .collect();
    let mut out = PathBuf::from("/");
    let mut hops = 0;
    let mut missing = false;
    while let Some(part) = pending.pop() {
        match Path::new(&part).components().next() {
            Some(Component::RootDir) | None => out = PathBuf::from("/"),
            Some(Component::CurDir) => {}
            Some(Component::ParentDir) => {
                out.pop();
            }
            Some(_) => {
                let candidate = out.join(&part);
                if missing {
                    out = candidate;
                    continue;
                }
                match std::fs::symlink_metadata(&candidate) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        hops += 1;
                        if hops > MAX_SYMLINK_HOPS {
                            return Err(ResolveError::Loop);
                        }
                        let target = match std::fs::read_link(&candidate) {
                            Ok(target) => target,
                            // No longer a symlink: the tree changed since the stat; look again.
                            Err(err) if err.raw_os_error() == Some(libc::EINVAL) => {
                                pending.push(part);
                                continue;
                            }
                            Err(err) => return Err(ResolveError::Io(err)),
                        };
                        if target.is_absolute() {
                            out = PathBuf::from("/");
                        }
                        pending.extend(target.components().rev().map(|c| c.as_os_str().to_os_string()));
                    }
                    Ok(_) => out = candidate,
                    // `file.txt/x` cannot exist either: from here on nothing is on disk.
                    Err(err)
                        if matches!(
                            err.kind(),
                            std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                        ) =>
                    {
                        missing = true;
                        out = candidate;
                    }
                    Err(err) => return Err(ResolveError::Io(err)),
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn lexical_normalization_folds_dots() {
        assert_eq!(
            normalize_lexically(Path::new("/ws/a/../b/./c")),
            PathBuf::from("/ws/b/c")
        );
        assert_eq!(normalize_lexically(Path::new("/ws/../../..")), PathBuf::from("/"));
    }

    #[test]
    fn sibling_with_common_prefix_is_outside() {
        let ws = Workspace::with_cwd("/ws".into(), vec![], "/ws".into());
        assert!(!ws.is_inside(Path::new("/ws-evil/x")));
        assert!(ws.is_inside(Path::new("/ws/x")));
    }

    #[test]
    fn call_paths_resolve_from_the_cwd() {
        let mut ws = Workspace::with_cwd("/ws".into(), vec!["/shared".into()], "/ws".into());
        assert_eq!(ws.call_path(Path::new("/ws/src/a.rs")), "src/a.rs");
        assert_eq!(ws.call_path(Path::new("/ws")), ".");
        ws.cwd = "/ws/src/deep".into();
        assert_eq!(ws.call_path(Path::new("/ws/src/deep/x.rs")), "x.rs");
        assert_eq!(ws.call_path(Path::new("/ws/src/deep")), ".");
        assert_eq!(ws.call_path(Path::new("/ws/src")), "..");
        assert_eq!(ws.call_path(Path::new("/ws/src/main.rs")), "../main.rs");
        assert_eq!(ws.call_path(Path::new("/ws")), "../..");
        assert_eq!(ws.call_path(Path::new("/ws/lib/a.rs")), "../../lib/a.rs");
        assert_eq!(ws.call_path(Path::new("/shared/x")), "/shared/x");
        ws.cwd = "/shared/sub".into();
        assert_eq!(ws.call_path(Path::new("/ws/a.rs")), "/ws/a.rs");
    }

    #[test]
    fn call_arguments_are_json_strings() {
        assert_eq!(quote_arg("src/a.rs"), "\"src/a.rs\"");
        assert_eq!(quote_arg("q\"x"), "\"q\\\"x\"");
        assert_eq!(quote_arg("n\ny"), "\"n\\ny\"");
        assert_eq!(shell_word("src/a.rs"), "src/a.rs");
        assert_eq!(shell_word("it's here"), "\"it's here\"");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
    }

    #[test]
    fn the_state_ban_covers_where_a_linked_state_directory_resolves() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("real")).unwrap();
        std::os::unix::fs::symlink("real", root.join(".codesmith")).unwrap();
        let ws = Workspace::new(root.clone(), vec![]);
        assert!(ws.is_state_path(&root.join(".codesmith/sessions/x")));
        assert!(ws.is_state_path(&root.join("real/sessions/x")));
        assert!(!ws.is_state_path(&root.join("realm/x")));
        let err = ws
            .resolve_for_write("real/sessions/default.fp/x.json")
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::OutsideWorkspace);
    }

    #[test]
    fn form_checks() {
        for bad in [
            "",
            "a\0b",
            "~/x",
            "~",
            "C:\\x",
            "C:/x",
            "\\\\server\\share",
            "\\\\?\\C:\\x",
            "a\\b",
        ] {
            assert!(check_form(bad).is_err(), "{bad:?} should be refused");
        }
        for good in ["a", "./a", "../a", "/abs", "dir/~file", "a:b"] {
            assert!(check_form(good).is_ok(), "{good:?} should pass");
        }
    }
}
