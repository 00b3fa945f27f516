//! search_code: code regions ranked by how well they answer a question in words or code, from
//! the search index (see [`crate::symbols::search`]).

mod render;
mod settings;

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::{Hint, ToolError};
use crate::fs::walk::GlobFilter;
use crate::fs::workspace::quote_arg;
use crate::fs::workspace::WsPath;
use crate::notice::{Notice, SearchNotice};
use crate::session::context::Context;
use crate::symbols::search::{self, fusion, rank, tokens, SearchIndex, TextFile};
use crate::tools::{Cap, Capability, DataField, ToolOutput, ToolSpec};
use settings::Ranking;

pub const SPEC: ToolSpec = ToolSpec {
    name: "search_code",
    id: crate::tool_id::ToolId::SearchCode,
    alias: "search",
    positional: Some("query"),
    capability: Capability::ReadOnly,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<SearchCodeArgs>,
    caps: &[MAX_RESULTS],
    data: &[
        DataField::always("query", "string"),
        DataField::always("ranking", "string"),
        DataField::always("results", "array"),
        DataField::always("total_matches", "integer"),
        DataField::always("truncated", "boolean"),
        DataField::always("files_searched", "integer"),
        DataField::always("chunks_searched", "integer"),
        DataField::always("index", "object"),
        DataField::sometimes("model", "object"),
    ],
    run: |args, ctx| run(crate::tools::parse("search_code", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "Find the code that does something, from a description in words or a fragment of code: \"where is the config file parsed\", \"retry with backoff\", \"check_credentials\". Returns ranked code regions (functions, methods, types, classes with their doc comments; other text in windows of 40 lines), best first, each with its path, line range, kind and name, its first lines, and the read_file call that opens it.
Use this when you do not know the name to look for; use grep_files for exact text or a regex, find_symbol when you know the name of a definition, file_search for file names.
Ranking is lexical (BM25): identifiers are split on case and `_` (`checkCredentials` matches \"check credentials\"), word endings are folded (parse, parser, parsing), words of the file's path count, and a definition's name counts more than its body. When the workspace sets an embedding model ([search] model in .codesmith/config.toml), ranking is hybrid: BM25 fused with the similarity of embeddings, so a description also finds code that uses other words for it (\"authenticate\" finds check_credentials); the first line of the output says which ranking ran. It works on any language and on text; definitions are recognised in Rust, Python, JavaScript, TypeScript, TSX, Go, Java, C and C++. Files are walked as grep_files walks them (.gitignore respected; .git, node_modules, target, dist, build, __pycache__, .venv, .codesmith skipped); binary files and files over 1 MB are not searched.
The index lives in .codesmith/index/ and is brought up to date by each call: only files whose content changed are read again, so the first call on a large tree takes longer and later calls are fast. path narrows to a directory or file; glob to matching files (`*.rs` by name at any depth, `src/**/*.ts` by path). At most max_results regions (default 10, at most 50).
Examples:
{\"query\": \"parse the config file\"}
{\"query\": \"retry failed requests with backoff\", \"path\": \"src\", \"glob\": \"*.ts\"}";

/// The most regions one call shows.
pub const MAX_RESULTS_CAP: u64 = 50;
/// max_results: held inside 1..=MAX_RESULTS_CAP, with a notice.
pub const MAX_RESULTS: Cap = Cap::new("max_results", 1, MAX_RESULTS_CAP);

fn default_max_results() -> u64 {
    10
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchCodeArgs {
    /// What the code does, in words ("parse the config file"), or a fragment of code or an
    /// identifier.
    pub query: String,
    /// The directory (searched recursively) or file to look in, relative to the session cwd.
    #[serde(default = "crate::tools::default_path")]
    pub path: String,
    /// Only files matching this glob: `*.rs` matches names at any depth, `src/**/*.ts` paths.
    #[serde(default)]
    pub glob: Option<String>,
    /// How many regions to show, 1 to 50 (values outside are clamped).
    #[serde(default = "default_max_results")]
    // No schema range: out-of-range values are clamped, not refused.
    #[schemars(with = "i64")]
    pub max_results: u64,
}

/// What one search found, for rendering.
pub struct Found {
    pub results: Vec<rank::Scored>,
    /// Regions that scored, before the cut to max_results.
    pub matched: usize,
    /// Regions searched.
    pub chunks: usize,
    /// Files in scope.
    pub files: usize,
}

pub fn run(args: SearchCodeArgs, ctx: &mut Context) -> Result<ToolOutput, ToolError> {
    let mut notices = Vec::new();
    let max_results = MAX_RESULTS.hold(args.max_results, &mut notices) as usize;
    let terms = tokens::query_terms(&args.query);
    if terms.is_empty() {
        return Err(ToolError::empty_search_query(&quote_arg(&args.query)));
    }
    let grep_pattern = quote_arg(&tokens::query_words(&args.query).join("|"));
    let (root, prefix) = search_root(ctx, &args.path, &grep_pattern)?;
    let filter = match &args.glob {
        Some(glob) => GlobFilter::new(std::slice::from_ref(glob), std::path::Path::new(&root.display))
            .map_err(|why| ToolError::bad_filter_glob("glob", &why))?,
        None => None,
    };
    let walk_started = crate::symbols::index::walk_clock();
    let files = search::walk(ctx.workspace.root(), &root.abs);
    let index_dir = ctx.state.dir().join("index");
    let io_error = |err: std::io::Error| {
        ctx.state
            .io_error(&index_dir, ".codesmith/index", "update the search index in", &err)
            .hint(Hint::GrepInstead {
                pattern_arg: grep_pattern.clone(),
            })
    };
    ctx.state.ensure_dir().map_err(io_error)?;
    let settings = settings::resolve(ctx.config()?, ctx.workspace.root(), ctx.state.dir(), &mut notices);
    if settings.setting.is_none() && settings.ranking == Ranking::Lexical {
        notices.extend(settings::no_model_notice(ctx));
    }
    let (session, refresh) = SearchIndex::new(ctx.state.dir())
        .refresh(&files, &prefix, walk_started)
        .map_err(io_error)?;
    let in_scope = in_scope(&files, filter.as_ref(), &root.abs);
    let term_set: HashSet<String> = terms.iter().cloned().collect();
    let loaded = session.load(&in_scope, &term_set);
    let (lexical, chunks) = rank::bm25(&loaded, &terms);
    let walked: Vec<&str> = files.iter().map(|f| f.rel.as_str()).collect();
    let (mut scored, ranked, embedded) = by_meaning(
        &session,
        &settings,
        &walked,
        &loaded,
        lexical,
        &args.query,
        &mut notices,
    );
    drop(session);
    let matched = scored.len();
    scored.truncate(max_results);
    let found = Found {
        results: scored,
        matched,
        chunks,
        files: in_scope.len(),
    };
    let mut out = render::render(
        ctx,
        &args,
        &root.display,
        &found,
        &grep_pattern,
        ranked,
        &settings,
    );
    let mut index = refresh_data(&refresh);
    index["embedded"] = embedded.into();
    out = out.with("index", index);
    out.notices.extend(notices);
    Ok(out)
}

/// The directory searched, checked, and its workspace-relative prefix (`/`-separated).
fn search_root(ctx: &Context, path: &str, grep_pattern: &str) -> Result<(WsPath, String), ToolError> {
    let root = ctx.resolve(path)?;
    crate::tools::refuse_state_path(ctx, &root, "search_code")?;
    std::fs::metadata(&root.abs)
        .map_err(|_| crate::fs::open::not_found(&ctx.workspace, ctx.tool, &root, path))?;
    let Ok(prefix) = root.abs.strip_prefix(ctx.workspace.root()) else {
        return Err(ToolError::search_outside_workspace(
            &root.file_ref(),
            grep_pattern,
        ));
    };
    let prefix = prefix.to_string_lossy().replace('\\', "/");
    Ok((root, prefix))
}

/// The walked files the glob (relative to the searched directory) keeps.
fn in_scope<'a>(files: &'a [TextFile], filter: Option<&GlobFilter>, root: &std::path::Path) -> Vec<&'a str> {
    files
        .iter()
        .filter(|f| {
            filter.is_none_or(|filter| {
                f.abs
                    .strip_prefix(root)
                    .is_ok_and(|rel| filter.matches(if rel.as_os_str().is_empty() { &f.abs } else { rel }))
            })
        })
        .map(|f| f.rel.as_str())
        .collect()
}

/// The ranking `settings` ask for: the lexical one as it is, or with the model's, after the
/// files of the walk are embedded. Also the ranking that ran and how many files were embedded.
fn by_meaning(
    session: &search::Session,
    settings: &settings::Resolved,
    walked: &[&str],
    loaded: &[(String, Vec<search::chunks::Chunk>)],
    lexical: Vec<rank::Scored>,
    query: &str,
    notices: &mut Vec<Notice>,
) -> (Vec<rank::Scored>, Ranking, usize) {
    let Some(model) = settings
        .model
        .as_ref()
        .filter(|_| settings.ranking != Ranking::Lexical)
    else {
        return (lexical, Ranking::Lexical, 0);
    };
    let embedded = session.embed_missing(model, walked);
    let Some(query_vector) = model.embedder().embed(query) else {
        notices.push(
            SearchNotice::NoKnownWords {
                query_arg: quote_arg(query),
            }
            .into(),
        );
        return (lexical, Ranking::Lexical, embedded);
    };
    let semantic = semantic(session, model, loaded, &query_vector);
    let scored = match settings.ranking {
        Ranking::Embedding => semantic,
        _ => fusion::fuse(lexical, semantic),
    };
    (scored, settings.ranking, embedded)
}

/// The regions of `loaded` by the similarity of their stored vectors to `query`.
fn semantic(
    session: &search::Session,
    model: &crate::symbols::embed::Model,
    loaded: &[(String, Vec<search::chunks::Chunk>)],
    query: &[f32],
) -> Vec<rank::Scored> {
    let hashes: Vec<u64> = loaded
        .iter()
        .map(|(path, _)| session.manifest.files.get(path).map_or(0, |e| e.hash))
        .collect();
    let vectors = session.vectors(model, &hashes);
    fusion::by_similarity(loaded, |f, c| vectors.get(hashes.get(f)?)?.similarity(c, query))
}

fn refresh_data(refresh: &search::Refresh) -> serde_json::Value {
    serde_json::json!({
        "files": refresh.files,
        "hashed": refresh.hashed,
        "chunked": refresh.chunked,
        "removed": refresh.removed,
        "rebuilt": refresh.rebuilt,
    })
}
