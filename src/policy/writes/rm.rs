//! `rm`, judged by where each target lands, with reasons that say which case it is, because
//! the answer a person gives differs: wiping `/` (or `/*`) or the home directory is never what
//! an agent means; a parent directory (`..`) or the workspace itself takes the project with it;
//! deleting a path outside the workspace such as `/tmp/build` is often legitimate but is outside
//! what the agent was given, so it also asks, under its own reason.

use std::path::Path;

use super::{physical, Follow, Judge};
use crate::fs::workspace::normalize_lexically as normalize;
use crate::policy::rules::Word;

/// Reasons for each `rm` target that lands somewhere it should not.
pub(super) fn targets(args: &[Word], judge: &Judge) -> Vec<String> {
    let mut recursive = false;
    let mut targets = Vec::new();
    let mut options_done = false;
    for word in args {
        match word.text.as_deref() {
            Some("--") if !options_done => options_done = true,
            Some("--recursive") if !options_done => recursive = true,
            Some(t) if !options_done && t.starts_with("--") => {}
            Some(t) if !options_done && t.starts_with('-') && t.len() > 1 => {
                recursive |= t.contains('r') || t.contains('R');
            }
            _ => targets.push(word),
        }
    }
    targets
        .into_iter()
        .filter_map(|word| target(word, recursive, judge))
        .collect()
}

fn target(word: &Word, recursive: bool, judge: &Judge) -> Option<String> {
    let shown = &word.raw;
    let Some(text) = word.text.as_deref() else {
        return recursive.then(|| format!("`rm -r` deletes `{shown}`, a path known only at run time"));
    };
    if text.starts_with('~') {
        let rest = text.trim_start_matches('~').trim_matches('/');
        return Some(if rest.is_empty() || rest == "*" {
            format!("`rm` wipes the home directory (`{shown}`)")
        } else {
            format!("`rm` deletes `{shown}` in the home directory, outside the workspace")
        });
    }
    // A glob is judged by the directory it expands in: `/tmp/build/*` is inside `/tmp/build`.
    // A bare `*` (or `.*`) takes everything in that directory, so it counts as the directory
    // itself; a narrower pattern (`*.o`) only takes entries of it.
    let (literal, entries_only) = match text.find(['*', '?', '[']) {
        Some(at) => {
            let component_start = text[..at].rfind('/').map_or(0, |slash| slash + 1);
            let component = &text[component_start..];
            let whole_directory = matches!(component, "*" | ".*" | "*/" | ".*/");
            (text[..component_start].to_string(), !whole_directory)
        }
        None => (text.to_string(), false),
    };
    let base = match (Path::new(&literal).is_absolute(), judge.cwd) {
        (true, _) => Path::new("/").to_path_buf(),
        (false, Some(cwd)) => cwd.to_path_buf(),
        (false, None) => {
            return recursive
                .then(|| format!("`rm -r` deletes `{shown}` in a directory known only at run time"))
        }
    };
    let lexical = normalize(&base.join(&literal));
    if lexical == Path::new("/") && !entries_only {
        return Some(format!("`rm` wipes the filesystem root (`{shown}`)"));
    }
    if text.split('/').all(|c| c == ".." || c.is_empty()) && text.contains("..") {
        return Some(format!("`rm` deletes a parent directory (`{shown}`)"));
    }
    let follow = if literal.ends_with('/') || literal.is_empty() {
        Follow::Through
    } else {
        Follow::Name
    };
    let abs = physical(&base.join(&literal), follow);
    if !entries_only {
        let workspace = judge.scope.workspace;
        let roots = std::iter::once(workspace.root()).chain(workspace.trusted().iter().map(|p| p.as_path()));
        for root in roots {
            if root.starts_with(&abs) || root.starts_with(&lexical) {
                return Some(format!(
                    "`rm` deletes `{shown}`, which is the workspace or a trusted root or contains it"
                ));
            }
        }
        if let Some(home) = &judge.scope.home {
            if home.starts_with(&abs) || home.starts_with(&lexical) {
                return Some(format!("`rm` wipes the home directory (`{shown}`)"));
            }
        }
    }
    if entries_only {
        // The entries of `abs` lie where `abs` lies (its own state directory aside).
        let place = judge.forbidden_place(&abs.join("entry"))?;
        return Some(format!("`rm` deletes `{shown}` in `{}`, {place}", abs.display()));
    }
    let place = judge.forbidden_place(&abs)?;
    Some(format!("`rm` deletes `{}`, {place}", abs.display()))
}
