//! Trusted roots: directories outside the workspace that `codesmith trust add` allows.
//! Stored in `.codesmith/trust.json` as a sorted list of absolute, canonical paths.

use std::path::{Path, PathBuf};

use crate::error::ToolError;
use crate::state::State;

const FILE: &str = "trust.json";

/// The trusted roots recorded for the workspace whose state directory is `state_dir`.
pub fn load(state_dir: &Path) -> Vec<PathBuf> {
    std::fs::read(state_dir.join(FILE))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Vec<PathBuf>>(&bytes).ok())
        .unwrap_or_default()
}

fn save(state: &State, roots: &[PathBuf]) -> Result<(), ToolError> {
    let bytes = serde_json::to_vec_pretty(roots).unwrap_or_default();
    state
        .write_file(FILE, &bytes)
        .map_err(|err| ToolError::io(".codesmith/trust.json", "write", &err))
}

/// Adds `path` (must exist; stored canonical). Returns the new list.
pub fn add(state: &State, path: &Path) -> Result<Vec<PathBuf>, ToolError> {
    let canonical = path.canonicalize().map_err(|err| {
        ToolError::io(
            &path.to_string_lossy(),
            "trust (it must be an existing directory)",
            &err,
        )
    })?;
    if !canonical.is_dir() {
        return Err(ToolError::invalid(format!(
            "`{}` is not a directory; trust add takes a directory, e.g. `codesmith trust add /opt/shared`",
            path.display()
        )));
    }
    let mut roots = load(state.dir());
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
    let mut roots = load(state.dir());
    let before = roots.len();
    roots.retain(|r| r != &canonical && r != path);
    if roots.len() == before {
        return Err(ToolError::new(
            crate::error::ErrorCode::NotFound,
            format!(
                "`{}` is not a trusted path. `codesmith trust list` shows the trusted paths.",
                path.display()
            ),
        ));
    }
    save(state, &roots)?;
    Ok(roots)
}
