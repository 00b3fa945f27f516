//! The one walker setup shared by grep_files and file_search, and the skip list list_dir uses too.
//!
//! The rules are ripgrep's with `--hidden --no-require-git`, plus a fixed skip list:
//! - `.gitignore`, `.ignore`, `.git/info/exclude` and the global git excludes file are respected,
//!   also outside a git repository. ripgrep needs a `.git` before it reads `.gitignore`; an agent
//!   working in an unpacked tarball or a fresh directory still means "not this" when it writes a
//!   `.gitignore`, so codesmith honours it everywhere.
//! - Hidden files are searched: `.github/`, `.env.example` and `.eslintrc` are real project files.
//! - [`ALWAYS_SKIP_DIRS`] and [`ALWAYS_SKIP_FILE_SUFFIXES`] are skipped even with
//!   `include_ignored=true`: they hold vendored, generated or minified text that drowns every
//!   search, and `.codesmith/` holds codesmith's own state.
//! - Symlinks are never followed, so a walk cannot leave the workspace through one (the root
//!   itself has passed the workspace guard, which resolves symlinks).
//!
//! ripgrep equivalent of the search walk (see bench/search.sh):
//! `rg --hidden --no-require-git --max-filesize 10M -g '!.git/' -g '!node_modules/' … -g '!*.min.js'`.

use std::ffi::OsStr;
use std::path::Path;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::{DirEntry, WalkBuilder};

use crate::error::GlobError;

/// Files larger than this are not searched for content.
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;

/// Directory names skipped at any depth, whatever the ignore rules say.
pub const ALWAYS_SKIP_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    "dist",
    "build",
    "__pycache__",
    ".venv",
    "venv",
    ".codesmith",
];

/// File-name endings skipped at any depth, whatever the ignore rules say.
pub const ALWAYS_SKIP_FILE_SUFFIXES: &[&str] = &[".min.js", ".min.css"];

/// The skip list as one line, for tool descriptions and messages.
pub const SKIP_LIST_TEXT: &str =
    ".git, node_modules, target, dist, build, __pycache__, .venv, venv, .codesmith, *.min.js, *.min.css";

/// True when an entry with this name is on the always-skip list.
pub fn is_always_skipped(name: &OsStr, is_dir: bool) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    if is_dir {
        ALWAYS_SKIP_DIRS.contains(&name)
    } else {
        ALWAYS_SKIP_FILE_SUFFIXES
            .iter()
            .any(|suffix| name.ends_with(suffix))
    }
}

/// An extra predicate over entries below the root: false drops the entry (and a directory's
/// whole subtree).
pub type EntryFilter = Box<dyn Fn(&DirEntry) -> bool + Send + Sync + 'static>;

/// How a walk treats ignore rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rules {
    /// `.gitignore`, `.ignore` and git excludes respected, plus the always-skip list.
    Respect,
    /// Ignore files disregarded; the always-skip list still applies.
    IncludeIgnored,
}

/// The walker for grep_files and file_search rooted at `root` (already through the workspace
/// guard). `extra` adds a caller's filter (exclude globs) to the skip list.
pub fn search_walker(root: &Path, rules: Rules, extra: Option<EntryFilter>) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    let respect = rules == Rules::Respect;
    builder
        .hidden(false)
        .parents(respect)
        .ignore(respect)
        .git_ignore(respect)
        .git_global(respect)
        .git_exclude(respect)
        .require_git(false)
        .follow_links(false)
        .threads(threads());
    builder.filter_entry(move |entry| {
        if entry.depth() == 0 {
            return true;
        }
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        if is_always_skipped(entry.file_name(), is_dir) {
            return false;
        }
        extra.as_ref().is_none_or(|filter| filter(entry))
    });
    builder
}

/// A set of user globs over paths, as grep_files' `include`/`exclude` take them: a glob without
/// `/` matches a name at any depth (`*.rs`, `tests`); one with `/` matches the path relative to
/// the search root or to the workspace (`src/**/*.ts`). `*` never crosses `/`; `**` does.
#[derive(Debug, Clone)]
pub struct GlobFilter {
    names: GlobSet,
    paths: GlobSet,
    /// The search root relative to the workspace (`src`), for globs written from the root.
    root_prefix: std::path::PathBuf,
}

/// The longest glob taken, in characters. Real globs are a few dozen; a longer one is a
/// mistake (a pasted file, a generated list), and its regex may exceed what the glob compiler
/// builds (it panics where it cannot).
pub const MAX_GLOB_CHARS: usize = 1000;
/// The most globs one list (include, exclude) takes.
pub const MAX_GLOBS: usize = 256;

/// Refuses a glob longer than [`MAX_GLOB_CHARS`].
pub fn check_glob_length(glob: &str) -> Result<(), GlobError> {
    let chars = glob.chars().count();
    if chars > MAX_GLOB_CHARS {
        return Err(GlobError::TooLong {
            head: glob.chars().take(40).collect(),
            chars,
            max: MAX_GLOB_CHARS,
        });
    }
    Ok(())
}

/// Compiles one glob into a set, which reports a glob whose regex cannot be built as an error
/// instead of panicking as a single compiled matcher does.
pub fn compile_glob(builder: &GlobBuilder) -> Result<GlobSet, GlobError> {
    let glob = builder
        .build()
        .map_err(|err| GlobError::Syntax(err.kind().clone()))?;
    let mut set = GlobSetBuilder::new();
    set.add(glob);
    set.build().map_err(GlobError::Set)
}

impl GlobFilter {
    /// Compiles `globs`; the error names the glob and the parser's complaint.
    pub fn new(globs: &[String], root_prefix: &Path) -> Result<Option<GlobFilter>, GlobError> {
        if globs.is_empty() {
            return Ok(None);
        }
        if globs.len() > MAX_GLOBS {
            return Err(GlobError::TooMany {
                count: globs.len(),
                max: MAX_GLOBS,
            });
        }
        let mut names = GlobSetBuilder::new();
        let mut paths = GlobSetBuilder::new();
        for raw in globs {
            let mut glob = raw.trim();
            glob = glob.strip_prefix("./").unwrap_or(glob);
            glob = glob.trim_start_matches('/');
            glob = glob.trim_end_matches('/');
            if glob.is_empty() {
                return Err(GlobError::Empty { raw: raw.clone() });
            }
            check_glob_length(glob)?;
            let compiled = GlobBuilder::new(glob)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .map_err(|err| GlobError::Invalid {
                    raw: raw.clone(),
                    kind: err.kind().clone(),
                })?;
            if glob.contains('/') {
                paths.add(compiled);
            } else {
                names.add(compiled);
            }
        }
        let build = |set: GlobSetBuilder| set.build().map_err(GlobError::Set);
        Ok(Some(GlobFilter {
            names: build(names)?,
            paths: build(paths)?,
            root_prefix: if root_prefix == Path::new(".") {
                std::path::PathBuf::new()
            } else {
                root_prefix.to_path_buf()
            },
        }))
    }

    /// True when the entry at `rel` (relative to the search root) matches by name or path.
    pub fn matches(&self, rel: &Path) -> bool {
        if rel.file_name().is_some_and(|name| self.names.is_match(name)) {
            return true;
        }
        if self.paths.is_empty() {
            return false;
        }
        self.paths.is_match(rel)
            || (!self.root_prefix.as_os_str().is_empty() && self.paths.is_match(self.root_prefix.join(rel)))
    }

    /// True when `rel` or one of its ancestors below the search root matches, so that
    /// `include: "tests"` means the files under any `tests` directory.
    pub fn matches_self_or_ancestor(&self, rel: &Path) -> bool {
        rel.ancestors()
            .take_while(|p| !p.as_os_str().is_empty())
            .any(|p| self.matches(p))
    }
}

/// Worker threads for a parallel walk: one per core, at most 12 (ripgrep's choice).
pub fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(12)
}

/// `work` applied to each of `items` on [`threads`] threads (each with its own `state`, made
/// once: a parser's context, an embedder), the results in the order of `items`. Items are
/// handed out one at a time, so a slow one holds up only its own thread.
pub fn map_parallel<T: Sync, S, R: Send>(
    items: &[T],
    state: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let done = std::sync::Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|scope| {
        for _ in 0..threads().min(items.len()).max(1) {
            scope.spawn(|| {
                let mut state = state();
                let mut local = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    local.push((i, work(&mut state, item)));
                }
                if let Ok(mut done) = done.lock() {
                    done.append(&mut local);
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_default();
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// What one thread of a parallel walk collects, moved into the shared list when the thread's
/// visitor is dropped (one lock a thread rather than one a hit).
pub struct Flush<'a, T> {
    pub local: Vec<T>,
    shared: &'a std::sync::Mutex<Vec<T>>,
}

impl<'a, T> Flush<'a, T> {
    pub fn into(shared: &'a std::sync::Mutex<Vec<T>>) -> Flush<'a, T> {
        Flush {
            local: Vec::new(),
            shared,
        }
    }
}

impl<T> Drop for Flush<'_, T> {
    fn drop(&mut self) {
        if let Ok(mut shared) = self.shared.lock() {
            shared.append(&mut self.local);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_parallel_keeps_the_order_of_its_items() {
        let items: Vec<u32> = (0..500).collect();
        let made = std::sync::atomic::AtomicUsize::new(0);
        let doubled = map_parallel(
            &items,
            || made.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            |_, n| n * 2,
        );
        assert_eq!(doubled, items.iter().map(|n| n * 2).collect::<Vec<_>>());
        assert!(made.into_inner() <= threads());
        assert!(map_parallel(&[] as &[u32], || (), |(), n| *n).is_empty());
    }

    #[test]
    fn skip_list_applies_dir_names_to_dirs_and_suffixes_to_files() {
        assert!(is_always_skipped(OsStr::new("node_modules"), true));
        assert!(!is_always_skipped(OsStr::new("build"), false));
        assert!(is_always_skipped(OsStr::new("app.min.js"), false));
        assert!(!is_always_skipped(OsStr::new("app.min.js"), true));
        assert!(!is_always_skipped(OsStr::new("src"), true));
        for name in ALWAYS_SKIP_DIRS {
            assert!(SKIP_LIST_TEXT.contains(name));
        }
    }

    #[test]
    fn globs_without_a_slash_match_names_and_with_one_match_paths() {
        let globs = |g: &[&str], prefix: &str| {
            let owned: Vec<String> = g.iter().map(|s| s.to_string()).collect();
            GlobFilter::new(&owned, Path::new(prefix))
                .expect("globs")
                .expect("some")
        };
        let names = globs(&["*.rs"], ".");
        assert!(names.matches(Path::new("a/b/c.rs")));
        assert!(!names.matches(Path::new("a/b/c.rsx")));
        let paths = globs(&["src/*.rs"], ".");
        assert!(paths.matches(Path::new("src/a.rs")));
        assert!(!paths.matches(Path::new("src/x/a.rs")));
        let deep = globs(&["./src/**/*.rs"], ".");
        assert!(deep.matches(Path::new("src/x/a.rs")));
        let from_root = globs(&["src/x/*.rs"], "src");
        assert!(from_root.matches(Path::new("x/a.rs")));
        let dir = globs(&["tests/"], ".");
        assert!(dir.matches_self_or_ancestor(Path::new("a/tests/t.rs")));
        assert!(!dir.matches_self_or_ancestor(Path::new("a/test/t.rs")));
        assert!(GlobFilter::new(&[], Path::new(".")).expect("empty").is_none());
        assert!(GlobFilter::new(&["[".to_string()], Path::new(".")).is_err());
    }
}
