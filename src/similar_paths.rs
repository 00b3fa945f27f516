//! "Did you mean": existing paths that resemble one that does not exist.

use std::path::Path;

use crate::workspace::Workspace;

/// How many entries the search looks at before it settles for what it has.
const MAX_ENTRIES: usize = 20_000;
/// Candidates scoring below this are not worth suggesting.
const MIN_SCORE: f64 = 0.75;

/// Up to `limit` workspace paths that look like `wanted` (workspace-relative), best first.
pub fn suggest(workspace: &Workspace, wanted: &str, limit: usize) -> Vec<String> {
    let wanted_lower = wanted.to_lowercase();
    let wanted_name = Path::new(&wanted_lower)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| wanted_lower.clone());
    let mut scored: Vec<(f64, String)> = Vec::new();
    let walker = ignore::WalkBuilder::new(workspace.root())
        .hidden(false)
        .filter_entry(|entry| {
            let name = entry.file_name().to_string_lossy();
            !matches!(name.as_ref(), ".git" | ".codesmith" | "node_modules" | "target")
        })
        .build();
    for entry in walker.filter_map(Result::ok).take(MAX_ENTRIES) {
        if entry.depth() == 0 {
            continue;
        }
        let display = workspace.display(entry.path());
        let lower = display.to_lowercase();
        let name = entry.file_name().to_string_lossy().to_lowercase();
        let score = strsim::jaro_winkler(&wanted_name, &name)
            .max(strsim::normalized_levenshtein(&wanted_lower, &lower))
            - if name == wanted_name { 0.0 } else { 0.05 };
        if score >= MIN_SCORE || (name == wanted_name) {
            let score = if name == wanted_name { 2.0 } else { score };
            scored.push((score, display));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    scored.into_iter().take(limit).map(|(_, path)| path).collect()
}
