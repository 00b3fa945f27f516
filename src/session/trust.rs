//! Trusted roots: directories outside the workspace that `codesmith trust add` allows.
//! Stored in `.codesmith/trust.json` as a sorted list of absolute, canonical paths.

use std::path::{Path, PathBuf};

use crate::error::ToolError;
use crate::session::state::State;

const FILE: &str = "trust.json";

/// The trusted roots recorded for the workspace whose state directory is `state_dir`; none
/// when the file is missing or does not parse (see [`load_checked`] for the difference).
pub fn load(state_dir: &Path) -> Vec<PathBuf> {
    load_checked(state_dir).unwrap_or_default()
}

/// The trusted roots, or the parse error of a `trust.json` that exists but does not parse.
/// A missing or unreadable file is no roots.
pub fn load_checked(state_dir: &Path) -> Result<Vec<PathBuf>, serde_json::Error> {
    let Ok(bytes) = std::fs::read(state_dir.join(FILE)) else {
        return Ok(Vec::new());
    };
    serde_json::from_slice::<Vec<PathBuf>>(&bytes)
}

/// Loads the roots about to be rewritten: a `trust.json` that does not parse is refused rather
/// than overwritten, since rewriting it would drop the user's entries.
fn load_for_change(state: &State) -> Result<Vec<PathBuf>, ToolError> {
    load_checked(state.dir()).map_err(|parse_error| ToolError::trust_list_unparsable(&parse_error))
}

fn save(state: &State, roots: &[PathBuf]) -> Result<(), ToolError> {
    let bytes = serde_json::to_vec_pretty(roots).unwrap_or_default();
    state
        .write_file(FILE, &bytes)
        .map_err(|err| ToolError::io(".codesmith/trust.json", "write", &err))
}

/// Adds `path` (an existing directory outside the workspace at `root`; stored canonical).
/// Returns the new list.
pub fn add(state: &State, root: &Path, path: &Path) -> Result<Vec<PathBuf>, ToolError> {
    let canonical = match path.canonicalize() {
        Ok(canonical) => canonical,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err(ToolError::trust_target_missing(&path.display().to_string()))
        }
        Err(err) => return Err(ToolError::io(&path.to_string_lossy(), "trust", &err)),
    };
    if !canonical.is_dir() {
        return Err(ToolError::trust_not_a_directory(&path.display().to_string()));
    }
    let holds = if canonical.parent().is_none() {
        Some("is the filesystem root".to_string())
    } else if root.starts_with(&canonical) {
        Some(format!("contains the workspace `{}`", root.display()))
    } else if home_is_under(&canonical) {
        Some("contains the home directory".to_string())
    } else {
        None
    };
    if let Some(holds) = holds {
        return Err(ToolError::trust_too_broad(&path.display().to_string(), &holds));
    }
    if canonical.starts_with(root) {
        return Err(ToolError::trust_inside_workspace(
            &path.display().to_string(),
            &root.display().to_string(),
        ));
    }
    let mut roots = load_for_change(state)?;
    if !roots.contains(&canonical) {
        roots.push(canonical);
        roots.sort();
    }
    save(state, &roots)?;
    Ok(roots)
}

/// Removes `path` (given as added, or any spelling that canonicalizes to it). Returns the new list.
pub fn remove(state: &State, path: &Path) -> Result<Vec<PathBuf>, ToolError> {
    let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let mut roots = load_for_change(state)?;
    let before = roots.len();
    roots.retain(|r| r != &canonical && r != path);
    if roots.len() == before {
        return Err(ToolError::not_trusted(&path.display().to_string()));
    }
    save(state, &roots)?;
    Ok(roots)
}

/// Whether the home directory lies strictly under `dir` (trusting `/home` trusts every home).
fn home_is_under(dir: &Path) -> bool {
    let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) else {
        return false;
    };
    let home = PathBuf::from(home);
    let home = home.canonicalize().unwrap_or(home);
    home != dir && home.starts_with(dir)
}
