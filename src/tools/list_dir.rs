//! list_dir: the entries of a directory, sorted, as a tree up to `depth` levels.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::ToolError;
use crate::fs::beneath::{Dir, Refusal};
use crate::fs::workspace::WsPath;
use crate::session::context::Context;
use crate::tools::{Cap, Capability, DataField, ToolOutput, ToolSpec};

pub const SPEC: ToolSpec = ToolSpec {
    name: "list_dir",
    id: crate::tool_id::ToolId::ListDir,
    alias: "ls",
    positional: Some("path"),
    capability: Capability::ReadOnly,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<ListDirArgs>,
    caps: &[DEPTH],
    data: &[
        DataField::always("path", "string"),
        DataField::always("entries", "integer"),
        DataField::always("shown", "integer"),
        DataField::always("truncated", "boolean"),
    ],
    run: |args, ctx| run(crate::tools::parse("list_dir", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "List a directory's entries, sorted by name: directories end with `/`, symlinks show `-> target`, files show their size.
Use this instead of ls or tree in exec_shell. depth=1 (the default) lists the directory itself; depth=2 or more lists a tree, indented; a tree does not expand .git, node_modules, target, dist, build, __pycache__, .venv or venv (they are listed, marked not expanded). .codesmith/ is never listed; .gitignore'd entries are listed. Listings over 1000 entries are cut, with a line saying how many were left out. To find files by name pattern use file_search; to read a file use read_file.
Examples:
{\"path\": \".\"}
{\"path\": \"src\", \"depth\": 2}";

/// At most this many entries are listed.
pub const MAX_ENTRIES: usize = 1000;
/// The deepest tree list_dir will show.
pub const MAX_DEPTH: u64 = 10;
/// depth: outside 1..=MAX_DEPTH is refused, naming the nearest legal depth.
const DEPTH: Cap = Cap::new("depth", 1, MAX_DEPTH);

fn default_depth() -> u64 {
    1
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDirArgs {
    /// The directory to list, relative to the session cwd or absolute inside the workspace.
    #[serde(default = "crate::tools::default_path")]
    pub path: String,
    /// How many levels to list: 1 is the directory itself, 2 adds its subdirectories, up to 10.
    #[serde(default = "default_depth")]
    #[schemars(range(min = 1, max = 10))]
    pub depth: u64,
}

struct Listing {
    lines: Vec<String>,
    total: usize,
}

pub fn run(args: ListDirArgs, ctx: &mut Context) -> Result<ToolOutput, ToolError> {
    if args.depth == 0 || args.depth > MAX_DEPTH {
        // The nearest legal depth is the likeliest intent.
        return Err(ToolError::depth_out_of_range(
            &crate::fs::workspace::quote_arg(&args.path),
            MAX_DEPTH,
            args.depth.clamp(1, MAX_DEPTH),
        ));
    }
    let path = ctx.resolve(&args.path)?;
    crate::tools::refuse_state_path(ctx, &path, "list_dir")?;
    let dir = match path
        .open(libc::O_PATH)
        .and_then(|file| Ok((file.metadata()?, file)))
    {
        Ok((meta, file)) if meta.is_dir() => Dir::from(file),
        Ok(_) => return Err(ToolError::not_a_directory(&path.file_ref())),
        Err(Refusal::Io(err)) if crate::fs::open::is_missing(&err) => {
            return Err(crate::fs::open::not_found(
                &ctx.workspace,
                ctx.tool,
                &path,
                &args.path,
            ))
        }
        Err(refusal) => return Err(path.refusal("list", refusal)),
    };
    let listing = list(ctx, &dir, &path, args.depth as usize)?;
    let mut output = if listing.lines.is_empty() {
        format!("`{}` is empty.", path.display)
    } else {
        listing.lines.join("\n")
    };
    let truncated = listing.total > listing.lines.len();
    if truncated {
        output.push_str(&format!(
            "\n[{} of {} entries shown; list a subdirectory or use file_search to narrow]",
            listing.lines.len(),
            listing.total
        ));
    }
    Ok(ToolOutput::new(output)
        .with("path", path.display)
        .with("entries", listing.total)
        .with("shown", listing.lines.len())
        .with("truncated", truncated))
}

/// Lists `dir` to `depth` levels with the listing rules of the shared walker: every entry
/// (ignore rules do not hide files from a listing), sorted by name, `.codesmith/` left out,
/// always-skip directories listed but not expanded. Counts every entry; keeps the first
/// [`MAX_ENTRIES`]. Each subdirectory is opened from its parent's descriptor without following
/// a symlink, so the tree listed is the one beneath the directory that was checked, whatever
/// is renamed meanwhile.
fn list(ctx: &Context, dir: &Dir, path: &WsPath, depth: usize) -> Result<Listing, ToolError> {
    let mut out = Listing {
        lines: Vec::new(),
        total: 0,
    };
    let level = Level {
        depth,
        state_dir: ctx.workspace.state_dir(),
    };
    level
        .list(dir, &path.abs, 1, &mut out)
        .map_err(|err| ToolError::io(&path.display, "list", &err))?;
    Ok(out)
}

struct Level {
    depth: usize,
    state_dir: PathBuf,
}

impl Level {
    /// The entries of `dir` (at `abs`, `level` deep) and, below the depth, theirs.
    fn list(&self, dir: &Dir, abs: &Path, level: usize, out: &mut Listing) -> std::io::Result<()> {
        let mut names: Vec<OsString> = dir.entries()?.into_iter().map(|(name, _)| name).collect();
        names.sort();
        for name in names {
            let entry_abs = abs.join(&name);
            if entry_abs.starts_with(&self.state_dir) {
                continue;
            }
            let Ok(stat) = dir.stat(&name) else { continue };
            out.total += 1;
            let kind = stat.st_mode & libc::S_IFMT;
            let expand = kind == libc::S_IFDIR && level < self.depth;
            if out.lines.len() < MAX_ENTRIES {
                out.lines.push(line(dir, &name, &stat, level, expand));
            }
            if expand && !crate::fs::walk::is_always_skipped(&name, true) {
                if let Ok(sub) = dir.subdir(&name) {
                    let _ = self.list(&sub, &entry_abs, level + 1, out);
                }
            }
        }
        Ok(())
    }
}

/// One listing line: indented by level, a directory with `/`, a symlink with its target, a
/// special file with its kind, a file with its size.
fn line(dir: &Dir, name: &OsStr, stat: &libc::stat, level: usize, expandable: bool) -> String {
    let indent = "  ".repeat(level - 1);
    let shown = escape_controls(&name.to_string_lossy());
    match stat.st_mode & libc::S_IFMT {
        libc::S_IFLNK => {
            let target = dir
                .read_link(name)
                .map(|t| escape_controls(&t.to_string_lossy()))
                .unwrap_or_default();
            // Only a marker: whether the target is a directory is stat'ed, never listed.
            let is_dir = dir
                .stat_target(name)
                .is_ok_and(|s| s.st_mode & libc::S_IFMT == libc::S_IFDIR);
            format!("{indent}{shown} -> {target}{}", if is_dir { "/" } else { "" })
        }
        libc::S_IFDIR => {
            let unexpanded = expandable && crate::fs::walk::is_always_skipped(name, true);
            let note = if unexpanded {
                " (not expanded: always skipped)"
            } else {
                ""
            };
            format!("{indent}{shown}/{note}")
        }
        libc::S_IFREG => format!("{indent}{shown} ({})", human_size(stat.st_size as u64)),
        // A FIFO, socket or device has no size worth showing; its kind is what matters
        // (read_file refuses it).
        kind => format!("{indent}{shown} [{}]", special_kind(kind)),
    }
}

/// A name as one listing line can show it: control characters (a newline in a file name would
/// read as two entries) written as escapes, `\n`, `\t`, `\u{1b}`.
fn escape_controls(name: &str) -> String {
    if !name.chars().any(char::is_control) {
        return name.to_string();
    }
    name.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The kind of an entry that is neither a file, a directory nor a symlink (`S_IFMT` bits).
fn special_kind(kind: libc::mode_t) -> &'static str {
    match kind {
        libc::S_IFIFO => "fifo",
        libc::S_IFSOCK => "socket",
        libc::S_IFCHR => "char device",
        libc::S_IFBLK => "block device",
        _ => "unknown kind",
    }
}

/// Sizes as people read them: bytes below 1 KiB, then KiB/MiB/GiB with one decimal.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}
