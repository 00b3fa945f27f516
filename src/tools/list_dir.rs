//! list_dir: the entries of a directory, sorted, as a tree up to `depth` levels.

use std::fs;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::ToolError;
use crate::session::context::Context;
use crate::tools::{Cap, Capability, ToolOutput, ToolSpec};

pub const SPEC: ToolSpec = ToolSpec {
    name: "list_dir",
    alias: "ls",
    positional: Some("path"),
    capability: Capability::ReadOnly,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<ListDirArgs>,
    caps: &[DEPTH],
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

fn default_path() -> String {
    ".".to_string()
}

fn default_depth() -> u64 {
    1
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDirArgs {
    /// The directory to list, relative to the session cwd or absolute inside the workspace.
    #[serde(default = "default_path")]
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
    let meta = match fs::metadata(&path.abs) {
        Ok(meta) => meta,
        Err(err) if crate::fs::open::is_missing(&err) => {
            return Err(crate::fs::open::not_found(
                &ctx.workspace,
                ctx.tool,
                &path,
                &args.path,
            ))
        }
        Err(err) => return Err(ToolError::io(&path.display, "list", &err)),
    };
    if !meta.is_dir() {
        return Err(ToolError::not_a_directory(&path.file_ref()));
    }
    let listing = list(ctx, &path.abs, args.depth as usize)?;
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

/// Walks `dir` to `depth` levels with the shared walker's listing rules: every entry (ignore
/// rules do not hide files from a listing), sorted by name, `.codesmith/` left out, always-skip
/// directories listed but not expanded. Counts every entry; keeps the first [`MAX_ENTRIES`].
fn list(ctx: &Context, dir: &std::path::Path, depth: usize) -> Result<Listing, ToolError> {
    // The walker would only report an unreadable root as an entry error; say it plainly.
    fs::read_dir(dir).map_err(|err| ToolError::io(&ctx.workspace.display(dir), "list", &err))?;
    let mut out = Listing {
        lines: Vec::new(),
        total: 0,
    };
    let walker = crate::fs::walk::listing_walker(dir, depth, &ctx.workspace.state_dir()).build();
    for entry in walker.filter_map(Result::ok) {
        if entry.depth() == 0 {
            continue;
        }
        let Some(kind) = entry.file_type() else { continue };
        out.total += 1;
        if out.lines.len() >= MAX_ENTRIES {
            continue;
        }
        let indent = "  ".repeat(entry.depth() - 1);
        let name = escape_controls(&entry.file_name().to_string_lossy());
        let entry_path = entry.path();
        let line = if kind.is_symlink() {
            let target = fs::read_link(entry_path)
                .map(|t| escape_controls(&t.to_string_lossy()))
                .unwrap_or_default();
            let is_dir = fs::metadata(entry_path).is_ok_and(|m| m.is_dir());
            format!("{indent}{name} -> {target}{}", if is_dir { "/" } else { "" })
        } else if kind.is_dir() {
            let unexpanded =
                entry.depth() < depth && crate::fs::walk::is_always_skipped(entry.file_name(), true);
            format!(
                "{indent}{name}/{}",
                if unexpanded {
                    " (not expanded: always skipped)"
                } else {
                    ""
                }
            )
        } else if let Some(special) = special_kind(kind) {
            // A FIFO, socket or device has no size worth showing; its kind is what matters
            // (read_file refuses it).
            format!("{indent}{name} [{special}]")
        } else {
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            format!("{indent}{name} ({})", human_size(size))
        };
        out.lines.push(line);
    }
    Ok(out)
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

/// The kind of an entry that is neither a file, a directory nor a symlink.
fn special_kind(kind: fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        Some("fifo")
    } else if kind.is_socket() {
        Some("socket")
    } else if kind.is_char_device() {
        Some("char device")
    } else if kind.is_block_device() {
        Some("block device")
    } else {
        None
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
