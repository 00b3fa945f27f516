//! search_code's text: a count line that says how the regions were ranked, then each region
//! with its first lines numbered as read_file numbers them and the read_file call that opens it.

use super::settings::{Ranking, Resolved};
use super::{Found, SearchCodeArgs};
use crate::fs::workspace::quote_arg;
use crate::session::context::Context;
use crate::symbols::search::rank::Scored;
use crate::tools::ToolOutput;

/// Lines of each region shown.
const PREVIEW_LINES: usize = 4;
/// Characters of a preview line shown.
const PREVIEW_CHARS: usize = 160;

/// How the regions were ranked, for the count line.
fn how(ranking: Ranking, settings: &Resolved) -> String {
    let model = settings.setting.as_deref().unwrap_or_default();
    match ranking {
        Ranking::Hybrid => format!(
            "ranked by words and meaning: BM25 over code tokens fused with the similarity of \
             embeddings from `{model}`"
        ),
        Ranking::Embedding => format!("ranked by meaning: the similarity of embeddings from `{model}`"),
        Ranking::Lexical if settings.error.is_some() => {
            "ranked lexically (BM25 over code tokens): the embedding model cannot be used, see the \
             notice"
                .to_string()
        }
        Ranking::Lexical if settings.model.is_some() && settings.ranking != Ranking::Lexical => {
            "ranked lexically (BM25 over code tokens): the embedding model knows none of the query's \
             words"
                .to_string()
        }
        Ranking::Lexical if settings.setting.is_some() => {
            "ranked lexically (BM25 over code tokens), as [search] ranking asks".to_string()
        }
        Ranking::Lexical => "ranked lexically (BM25 over code tokens); no embedding model is set \
                             ([search] model in .codesmith/config.toml), so words are matched, not \
                             meanings"
            .to_string(),
    }
}

pub(super) fn render(
    ctx: &Context,
    args: &SearchCodeArgs,
    root_display: &str,
    found: &Found,
    grep_pattern: &str,
    ranking: Ranking,
    settings: &Resolved,
) -> ToolOutput {
    let how = how(ranking, settings);
    let mut text = if found.results.is_empty() {
        format!(
            "No code region matches {} under `{root_display}` ({} files, {} regions searched; {how}). \
             Describe it in other words or name an identifier it uses, or search the text: grep_files with pattern={grep_pattern}.",
            quote_arg(&args.query),
            found.files,
            found.chunks
        )
    } else {
        format!(
            "{} of {} matching regions for {} ({} files, {} regions searched; {how}):",
            found.results.len(),
            found.matched,
            quote_arg(&args.query),
            found.files,
            found.chunks
        )
    };
    for (i, hit) in found.results.iter().enumerate() {
        text.push_str(&format!("\n\n{}. {}", i + 1, heading(hit)));
        text.push_str(&preview(ctx, hit));
        text.push_str(&format!(
            "\n   read_file with path={} start_line={} max_lines={}",
            quote_arg(&ctx.workspace.call_path_of(&hit.path)),
            hit.chunk.start_line,
            max_lines(hit)
        ));
    }
    if found.matched > found.results.len() {
        text.push_str(&format!(
            "\n\n{} more regions matched; narrow path or glob, or raise max_results (at most {}).",
            found.matched - found.results.len(),
            super::MAX_RESULTS_CAP
        ));
    }
    let mut out = ToolOutput::new(text)
        .with("query", args.query.clone())
        .with("ranking", ranking.as_str())
        .with(
            "results",
            found.results.iter().map(result_data).collect::<Vec<_>>(),
        )
        .with("total_matches", found.matched)
        .with("truncated", found.matched > found.results.len())
        .with("files_searched", found.files)
        .with("chunks_searched", found.chunks);
    if let Some(path) = &settings.setting {
        let mut model = serde_json::json!({ "path": path });
        if let Some(m) = &settings.model {
            model["dimensions"] = m.dims.into();
            model["id"] = format!("{:016x}", m.id).into();
        }
        if let Some(error) = &settings.error {
            model["error"] = format!("`{}` {}", error.file, error.problem).into();
        }
        out = out.with("model", model);
    }
    out
}

fn max_lines(hit: &Scored) -> u32 {
    (hit.chunk.end_line - hit.chunk.start_line + 1).clamp(1, 500)
}

/// `path:start-end  kind name in container  (score S)`.
fn heading(hit: &Scored) -> String {
    let c = &hit.chunk;
    let what = if c.name.is_empty() {
        c.kind.clone()
    } else {
        format!("{} {}", c.kind, c.name)
    };
    let within = if c.container.is_empty() {
        String::new()
    } else {
        format!(" in {}", c.container)
    };
    format!(
        "{}:{}-{}  {what}{within}  (score {:.2})",
        hit.path, c.start_line, c.end_line, hit.score
    )
}

/// The region's first lines, numbered as read_file numbers them.
fn preview(ctx: &Context, hit: &Scored) -> String {
    let abs = ctx.workspace.root().join(&hit.path);
    let Ok(bytes) = ctx.workspace.roots().reader().read(&abs) else {
        return String::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let start = hit.chunk.start_line as usize;
    let take = (hit.chunk.end_line as usize + 1 - start).min(PREVIEW_LINES);
    let mut out = String::new();
    for (i, line) in text.lines().skip(start - 1).take(take).enumerate() {
        let line = crate::terminal::strip_escapes(line.trim_end());
        let mut shown: String = line.chars().take(PREVIEW_CHARS).collect();
        if line.chars().count() > PREVIEW_CHARS {
            shown.push('…');
        }
        out.push_str(&format!("\n{:>6}│ {shown}", start + i));
    }
    out
}

fn result_data(hit: &Scored) -> serde_json::Value {
    let c = &hit.chunk;
    let mut data = serde_json::json!({
        "path": hit.path,
        "start_line": c.start_line,
        "end_line": c.end_line,
        "kind": c.kind,
        "name": c.name,
        "container": c.container,
        "score": (hit.score * 1000.0).round() / 1000.0,
    });
    if let Some(similarity) = hit.similarity {
        data["similarity"] = ((similarity * 1000.0).round() / 1000.0).into();
    }
    data
}
