//! "Did you mean": existing paths that resemble one that does not exist.

use std::path::Path;

use crate::fs::workspace::Workspace;

/// How many entries the search looks at before it settles for what it has.
const MAX_ENTRIES: usize = 20_000;
/// Candidates scoring below this are not worth suggesting.
const MIN_SCORE: f64 = 0.75;

/// Up to `limit` existing paths that look like `wanted` (absolute, resolved), best first, as
/// results show them ([`Workspace::display`]).
///
/// The search stays in the root `wanted` lies under: the workspace, or the trusted root a path
/// outside it points into. Files of one root are no answer to a typo in another, and comparing
/// paths relative to their own root keeps a long shared absolute prefix from making every file
/// of a trusted root look alike.
pub fn suggest(workspace: &Workspace, wanted: &Path, limit: usize) -> Vec<String> {
    let Some(root) = root_of(workspace, wanted) else {
        return Vec::new();
    };
    let relative = |path: &Path| {
        path.strip_prefix(root)
            .map(|rel| rel.to_string_lossy().to_lowercase())
            .unwrap_or_default()
    };
    let wanted_lower = relative(wanted);
    let wanted_name = Path::new(&wanted_lower)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| wanted_lower.clone());
    let mut scored: Vec<(f64, String)> = Vec::new();
    // The search tools' walker, in order (one thread: the walk stops after MAX_ENTRIES):
    // what they never show is not suggested either.
    let walker = crate::fs::walk::search_walker(root, crate::fs::walk::Rules::Respect, None).build();
    for entry in walker.filter_map(Result::ok).take(MAX_ENTRIES) {
        if entry.depth() == 0 {
            continue;
        }
        let lower = relative(entry.path());
        let name = entry.file_name().to_string_lossy().to_lowercase();
        let score = strsim::jaro_winkler(&wanted_name, &name)
            .max(strsim::normalized_levenshtein(&wanted_lower, &lower))
            - if name == wanted_name { 0.0 } else { 0.05 };
        if score >= MIN_SCORE || (name == wanted_name) {
            let score = if name == wanted_name { 2.0 } else { score };
            scored.push((score, workspace.display(entry.path())));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    scored.into_iter().take(limit).map(|(_, path)| path).collect()
}

/// The root `path` lies under: the workspace root first, else the deepest trusted root.
fn root_of<'w>(workspace: &'w Workspace, path: &Path) -> Option<&'w Path> {
    if path.starts_with(workspace.root()) {
        return Some(workspace.root());
    }
    workspace
        .trusted()
        .iter()
        .filter(|root| path.starts_with(root))
        .max_by_key(|root| root.components().count())
        .map(|root| root.as_path())
}
