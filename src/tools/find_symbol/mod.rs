//! find_symbol: definitions (and on request references) of a name across the workspace, from
//! the incremental symbol index (see [`crate::symbols::index`]).

mod render;

use std::collections::{HashMap, HashSet};

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::{Hint, ToolError};
use crate::notice::SearchNotice;
use crate::session::context::Context;
use crate::symbols::index::{self, Index, Refresh, View};
use crate::symbols::{languages, Symbol};
use crate::tools::{Cap, Capability, DataField, ToolOutput, ToolSpec};

pub const SPEC: ToolSpec = ToolSpec {
    name: "find_symbol",
    id: crate::tool_id::ToolId::FindSymbol,
    alias: "symbol",
    positional: Some("name"),
    capability: Capability::ReadOnly,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<FindSymbolArgs>,
    caps: &[MAX_RESULTS],
    data: &[
        DataField::always("name", "string"),
        DataField::always("match", "string"),
        DataField::always("total_definitions", "integer"),
        DataField::always("total_references", "integer"),
        DataField::always("definitions", "array"),
        DataField::always("references", "array"),
        DataField::always("truncated", "boolean"),
        DataField::always("files_searched", "integer"),
        DataField::always("index", "object"),
        DataField::sometimes("references_partial", "array"),
        DataField::sometimes("suggestions", "array"),
    ],
    run: |args, ctx| run(crate::tools::parse("find_symbol", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "Find where a function, method, type, class, trait, constant or macro is defined, across the workspace; optionally where it is called, imported or otherwise referenced.
Use this instead of grep_files when you look for a definition: grep_files finds every mention of a name and cannot tell the definition on line 42 from the call on line 189; find_symbol lists the definitions first, each with its kind (function, method, struct, class, interface, ...), its container (`impl Config`, `class Parser`) and its line range, so the next call can be read_file on exactly those lines.
The name is matched exactly; when nothing matches exactly, case-insensitively. Qualified forms narrow the search: `Config::new` or `Config.new` finds `new` defined inside `Config` (an impl, class or namespace), with `Config` as the receiver (`func (c *Config) new`), or in a file or directory named `config`. kind keeps one kind (\"function\", \"method\", \"struct\", \"class\", ...). include_references=true adds every use of the name as an identifier in code (calls, qualified paths such as `Compiler::compile(...)`, method calls, imports, type uses, macro arguments), one per line, each marked `call`, `import`, `type`, `field` or `other`; comments and strings are left out, so the list is what a rename must change. Uses are matched by name, not resolved: a same-named local in another scope is listed too. A file that does not parse cleanly is named in the output (its references may be incomplete); for every textual mention use grep_files.
Languages: Rust (.rs), Python (.py, .pyi), JavaScript (.js, .jsx, .mjs, .cjs), TypeScript (.ts, .mts, .cts), TSX (.tsx), Go (.go), Java (.java), C (.c, .h) and C++ (.cc, .cpp, .cxx, .hh, .hpp, .hxx, ...). Files are walked as grep_files walks them (.gitignore respected; .git, node_modules, target, dist, build, __pycache__, .venv, venv, .codesmith, *.min.js, *.min.css skipped; files over 10 MB skipped).
The index lives in .codesmith/index/ and is brought up to date by each call: only files whose content changed are parsed again, so the first call on a large tree takes longer (seconds) and later calls are fast. Counts come first; at most max_results (default 50, at most 500) definitions and references are shown. With no match, similar defined names are suggested.
Examples:
{\"name\": \"parse_config\"}
{\"name\": \"Config::new\", \"include_references\": true}
{\"name\": \"Handler\", \"kind\": \"interface\", \"path\": \"src\"}";

/// The most definitions and references one call shows.
pub const MAX_RESULTS_CAP: u64 = 500;
/// max_results: held inside 1..=MAX_RESULTS_CAP, with a notice.
pub const MAX_RESULTS: Cap = Cap::new("max_results", 1, MAX_RESULTS_CAP);

fn default_max_results() -> u64 {
    50
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindSymbolArgs {
    /// The name to find: `parse_config`, or qualified as `Config::new` or `config.load`.
    pub name: String,
    /// Only definitions (and references) of this kind: function, method, struct, class,
    /// interface, trait, enum, type, module, macro, constant, ... (references: call, import, type).
    #[serde(default)]
    pub kind: Option<String>,
    /// The directory (searched recursively) or file to look in, relative to the session cwd.
    #[serde(default = "crate::tools::default_path")]
    pub path: String,
    /// Also list every use of the name as an identifier (calls, imports, type uses, fields,
    /// other), comments and strings left out.
    #[serde(default)]
    pub include_references: bool,
    /// How many definitions and references to show, 1 to 500 (values outside are clamped);
    /// all are counted.
    #[serde(default = "default_max_results")]
    // No schema range: out-of-range values are clamped, not refused.
    #[schemars(with = "i64")]
    pub max_results: u64,
}

/// The name asked for: the last segment, and the qualifiers before it.
pub struct Wanted {
    pub base: String,
    pub qualifiers: Vec<String>,
    pub kind: Option<String>,
}

impl Wanted {
    fn parse(args: &FindSymbolArgs) -> Result<Wanted, ToolError> {
        let name = args.name.trim();
        let segments: Vec<&str> = if name.contains("::") {
            name.split("::").collect()
        } else {
            name.split('.').collect()
        };
        let bad =
            name.is_empty() || name.chars().any(char::is_whitespace) || segments.iter().any(|s| s.is_empty());
        if bad {
            return Err(ToolError::bad_symbol_name(
                &crate::fs::workspace::quote_arg(&args.name),
                &crate::fs::workspace::quote_arg(name),
            ));
        }
        let (base, qualifiers) = segments.split_last().map(|(b, q)| (*b, q)).unwrap_or((name, &[]));
        Ok(Wanted {
            base: base.to_string(),
            qualifiers: qualifiers.iter().map(|q| q.to_string()).collect(),
            kind: args
                .kind
                .as_ref()
                .map(|k| k.trim().to_lowercase())
                .filter(|k| !k.is_empty()),
        })
    }

    /// Whether `symbol`, found in `path`, is the one asked for.
    fn accepts(&self, symbol: &Symbol, path: &str, case_insensitive: bool) -> bool {
        let same = |a: &str, b: &str| {
            if case_insensitive {
                a.eq_ignore_ascii_case(b)
            } else {
                a == b
            }
        };
        if !same(&symbol.name, &self.base) {
            return false;
        }
        if self.kind.as_ref().is_some_and(|kind| symbol.kind != *kind) {
            return false;
        }
        self.qualifiers.iter().all(|q| qualifier_fits(q, symbol, path))
    }
}

/// A qualifier fits when it names an enclosing definition, a word of the line before the name
/// (a Go receiver, C++'s `Config::`), or a file or directory of the path (`module.func`).
fn qualifier_fits(qualifier: &str, symbol: &Symbol, path: &str) -> bool {
    let lower = qualifier.to_lowercase();
    let words = |text: &str| -> bool {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|word| word == qualifier)
    };
    symbol.scope.split("::").any(|s| s == qualifier)
        || words(&symbol.container)
        || symbol
            .text
            .find(symbol.name.as_str())
            .is_some_and(|at| words(&symbol.text[..at]))
        || path.split('/').any(|part| {
            let stem = part.split('.').next().unwrap_or(part);
            stem.to_lowercase() == lower
        })
}

/// One result line: a symbol at a path.
pub struct Hit {
    pub path: String,
    pub symbol: Symbol,
}

/// The path searched, and its place in the workspace as the index names paths (`/`-separated,
/// relative to the root): it must exist in the workspace and, if a file, be in a known language.
fn resolve_root(
    ctx: &Context,
    args: &FindSymbolArgs,
    wanted: &Wanted,
) -> Result<(crate::fs::workspace::WsPath, String), ToolError> {
    let root = ctx.resolve(&args.path)?;
    crate::tools::refuse_state_path(ctx, &root, "find_symbol")?;
    let meta = std::fs::metadata(&root.abs)
        .map_err(|_| crate::fs::open::not_found(&ctx.workspace, ctx.tool, &root, &args.path))?;
    let Ok(prefix) = root.abs.strip_prefix(ctx.workspace.root()) else {
        return Err(ToolError::symbols_outside_workspace(
            &root.file_ref(),
            &crate::fs::workspace::quote_arg(&format!("\\b{}\\b", wanted.base)),
        ));
    };
    if meta.is_file() && languages::for_path(&root.abs).is_none() {
        return Err(crate::symbols::languages::unsupported_language(
            &root,
            crate::tool_id::ToolId::FindSymbol,
        ));
    }
    let prefix = prefix.to_string_lossy().replace('\\', "/");
    Ok((root, prefix))
}

pub fn run(args: FindSymbolArgs, ctx: &mut Context) -> Result<ToolOutput, ToolError> {
    let wanted = Wanted::parse(&args)?;
    let mut notices = Vec::new();
    let max_results = MAX_RESULTS.hold(args.max_results, &mut notices) as usize;
    if let Some(kind) = &wanted.kind {
        check_kind(kind, &args)?;
    }
    let (root, prefix) = resolve_root(ctx, &args, &wanted)?;
    let walk_started = index::walk_clock();
    let sources = index::walk_sources(ctx.workspace.root(), &root.abs);
    let index_dir = ctx.state.dir().join("index");
    let pattern_arg = crate::fs::workspace::quote_arg(&format!("\\b{}\\b", wanted.base));
    let io_error = |err: std::io::Error| {
        ctx.state
            .io_error(&index_dir, ".codesmith/index", "update the symbol index in", &err)
            .hint(Hint::GrepInstead {
                pattern_arg: pattern_arg.clone(),
            })
    };
    ctx.state.ensure_dir().map_err(io_error)?;
    let index = Index::new(ctx.state.dir());
    let (mut view, mut refresh) = index.refresh(&sources, &prefix, walk_started).map_err(io_error)?;
    let key = wanted.base.to_lowercase();
    let postings = match index.lookup(&view, &key) {
        Ok(postings) => postings,
        Err(index::IndexCorrupt) => {
            drop(view);
            index.reset().map_err(io_error)?;
            (view, refresh) = index.refresh(&sources, &prefix, walk_started).map_err(io_error)?;
            notices.push(SearchNotice::SymbolIndexRebuilt.into());
            index.lookup(&view, &key).unwrap_or_default()
        }
    };
    let mut found = collect(
        &index,
        &view,
        &wanted,
        &postings,
        &prefix,
        args.include_references,
    );
    let shown_references = found
        .references
        .len()
        .min(max_results.saturating_sub(found.definitions.len()));
    read_reference_lines(ctx.workspace.root(), &mut found.references[..shown_references]);
    let suggestions = if found.definitions.is_empty() && found.references.is_empty() {
        suggest(&index, &view, &wanted.base)
    } else {
        Vec::new()
    };
    let search = render::Search {
        args: &args,
        wanted: &wanted,
        root_display: &root.display,
        max_results,
        files: sources.len(),
        referenced_elsewhere: postings.iter().filter(|p| !p.defines).count(),
    };
    let mut out = render::render(ctx, &search, &found, &suggestions);
    out = out.with("index", refresh_data(&refresh));
    out.notices.extend(notices);
    Ok(out)
}

/// What a lookup found, sorted by path and line.
pub struct Found {
    pub definitions: Vec<Hit>,
    pub references: Vec<Hit>,
    pub case_insensitive: bool,
    /// Files that hold the name but did not parse cleanly: uses in their broken parts are
    /// not seen. Sorted.
    pub partial: Vec<String>,
}

fn collect(
    index: &Index,
    view: &View,
    wanted: &Wanted,
    postings: &[index::postings::Posting],
    prefix: &str,
    include_references: bool,
) -> Found {
    let exact = postings.iter().any(|p| p.name == wanted.base);
    let wanted_hashes: HashSet<u64> = postings
        .iter()
        .filter(|p| (!exact || p.name == wanted.base) && (p.defines || include_references))
        .map(|p| p.hash)
        .collect();
    let mut paths: HashMap<u64, Vec<&str>> = HashMap::new();
    for (path, entry) in &view.manifest.files {
        if wanted_hashes.contains(&entry.hash) && index::under(path, prefix) {
            paths.entry(entry.hash).or_default().push(path);
        }
    }
    let mut found = Found {
        definitions: Vec::new(),
        references: Vec::new(),
        case_insensitive: !exact,
        partial: Vec::new(),
    };
    for (hash, files) in paths {
        let record = match index.load_record(hash) {
            Some(record) => record,
            None => {
                let abs = view_abs(index, files[0]);
                match abs.and_then(|abs| index.repair_record(&abs, hash)) {
                    Some(record) => record,
                    None => continue,
                }
            }
        };
        let symbols = record.symbols;
        if record.syntax_errors && include_references {
            found.partial.extend(files.iter().map(|p| p.to_string()));
        }
        for path in files {
            for symbol in &symbols {
                if !symbol.definition && !include_references {
                    continue;
                }
                if wanted.accepts(symbol, path, !exact) {
                    let hit = Hit {
                        path: path.to_string(),
                        symbol: symbol.clone(),
                    };
                    if symbol.definition {
                        found.definitions.push(hit);
                    } else {
                        found.references.push(hit);
                    }
                }
            }
        }
    }
    found.partial.sort();
    for list in [&mut found.definitions, &mut found.references] {
        list.sort_by(|a, b| (&a.path, a.symbol.line).cmp(&(&b.path, b.symbol.line)));
    }
    found
}

/// Fills in the text of the references to be shown, from their files (records keep only the
/// line numbers of references).
fn read_reference_lines(root: &std::path::Path, references: &mut [Hit]) {
    let mut at = 0;
    while at < references.len() {
        let path = references[at].path.clone();
        let text = std::fs::read(root.join(&path))
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        while at < references.len() && references[at].path == path {
            let line = references[at].symbol.line as usize;
            references[at].symbol.text = lines
                .get(line.wrapping_sub(1))
                .map(|l| crate::symbols::display_line(l))
                .unwrap_or_default();
            at += 1;
        }
    }
}

/// The absolute path of a workspace-relative `path` (the index lives in `<root>/.codesmith/index`).
fn view_abs(index: &Index, path: &str) -> Option<std::path::PathBuf> {
    Some(index.workspace_root()?.join(path))
}

/// Defined names close to `base`: the same letters in another case, a name containing it, or a
/// small edit away.
fn suggest(index: &Index, view: &View, base: &str) -> Vec<String> {
    let Ok(names) = index.defined_names(view) else {
        return Vec::new();
    };
    let lower = base.to_lowercase();
    let mut scored: Vec<(f64, String)> = names
        .into_iter()
        .filter_map(|name| {
            let name_lower = name.to_lowercase();
            let score = if name_lower.contains(&lower) || (lower.len() >= 4 && lower.contains(&name_lower)) {
                0.9 + 0.1 * strsim::jaro_winkler(&lower, &name_lower)
            } else {
                strsim::jaro_winkler(&lower, &name_lower)
            };
            (score >= 0.85).then_some((score, name))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    scored.into_iter().take(5).map(|(_, name)| name).collect()
}

/// Refuses a kind no language's tags produce, listing those that exist.
fn check_kind(kind: &str, args: &FindSymbolArgs) -> Result<(), ToolError> {
    let kinds = languages::kinds();
    if kinds.iter().any(|k| k == kind) {
        return Ok(());
    }
    Err(ToolError::unknown_symbol_kind(
        &crate::fs::workspace::quote_arg(kind),
        kinds,
        &crate::fs::workspace::quote_arg(&args.name),
    ))
}

fn refresh_data(refresh: &Refresh) -> serde_json::Value {
    serde_json::json!({
        "files": refresh.files,
        "hashed": refresh.hashed,
        "parsed": refresh.parsed,
        "removed": refresh.removed,
        "dropped_records": refresh.dropped_records,
        "rebuilt": refresh.rebuilt,
        "merged": refresh.merged,
    })
}
