//! list_dir: the entries of a directory, sorted, as a tree up to `depth` levels.

use std::fs;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::context::Context;
use crate::error::{ErrorCode, ToolError};
use crate::tools::{Capability, ToolOutput, ToolSpec};

pub const SPEC: ToolSpec = ToolSpec {
    name: "list_dir",
    alias: "ls",
    positional: Some("path"),
    capability: Capability::ReadOnly,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<ListDirArgs>,
    run: |args, ctx| run(crate::tools::parse("list_dir", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "List a directory's entries, sorted by name: directories end with `/`, symlinks show `-> target`, files show their size.
Use this instead of ls or tree in exec_shell. depth=1 (the default) lists the directory itself; depth=2 or more lists a tree, indented. .codesmith/ is never listed. Listings over 1000 entries are cut, with a line saying how many were left out. To find files by name pattern use file_search; to read a file use read_file.
Examples:
{\"path\": \".\"}
{\"path\": \"src\", \"depth\": 2}";

/// At most this many entries are listed.
pub const MAX_ENTRIES: usize = 1000;
/// The deepest tree list_dir will show.
pub const MAX_DEPTH: u64 = 10;

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
        return Err(ToolError::invalid(format!(
            "depth must be 1 to {MAX_DEPTH}. Call list_dir with path=\"{}\" depth=1.",
            args.path
        )));
    }
    let path = ctx.resolve(&args.path)?;
    let meta = match fs::metadata(&path.abs) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err(crate::tools::read_file::not_found(ctx, &path, &args.path))
        }
        Err(err) => return Err(ToolError::io(&path.display, "list", &err)),
    };
    if !meta.is_dir() {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "`{0}` is a file, not a directory. Call read_file with path=\"{0}\" to read it.",
                path.display
            ),
        )
        .with("path", path.display.clone()));
    }
    let mut listing = Listing {
        lines: Vec::new(),
        total: 0,
    };
    list(ctx, &path.abs, 0, args.depth, &mut listing)?;
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

fn list(
    ctx: &Context,
    dir: &std::path::Path,
    level: u64,
    depth: u64,
    out: &mut Listing,
) -> Result<(), ToolError> {
    let display = ctx.workspace.display(dir);
    let entries = fs::read_dir(dir).map_err(|err| ToolError::io(&display, "list", &err))?;
    let mut entries: Vec<fs::DirEntry> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    let indent = "  ".repeat(level as usize);
    for entry in entries {
        let entry_path = entry.path();
        if ctx.workspace.is_state_path(&entry_path) {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(kind) = entry.file_type() else { continue };
        out.total += 1;
        let line = if kind.is_symlink() {
            let target = fs::read_link(&entry_path)
                .map(|t| t.to_string_lossy().into_owned())
                .unwrap_or_default();
            let is_dir = fs::metadata(&entry_path).is_ok_and(|m| m.is_dir());
            format!("{indent}{name} -> {target}{}", if is_dir { "/" } else { "" })
        } else if kind.is_dir() {
            format!("{indent}{name}/")
        } else {
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            format!("{indent}{name} ({})", human_size(size))
        };
        if out.lines.len() < MAX_ENTRIES {
            out.lines.push(line);
        }
        if kind.is_dir() && level + 1 < depth {
            list(ctx, &entry_path, level + 1, depth, out)?;
        }
    }
    Ok(())
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
