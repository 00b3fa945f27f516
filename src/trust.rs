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

/// Adds `path` (an existing directory outside the workspace at `root`; stored canonical).
/// Returns the new list.
pub fn add(state: &State, root: &Path, path: &Path) -> Result<Vec<PathBuf>, ToolError> {
    let canonical = match path.canonicalize() {
        Ok(canonical) => canonical,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err(ToolError::new(
                crate::error::ErrorCode::NotFound,
                format!(
                    "`{}` does not exist; trust add takes an existing directory, e.g. \
                     `codesmith trust add /opt/shared`",
                    path.display()
                ),
            )
            .with("path", path.to_string_lossy().into_owned()))
        }
        Err(err) => return Err(ToolError::io(&path.to_string_lossy(), "trust", &err)),
    };
    if !canonical.is_dir() {
        return Err(ToolError::invalid(format!(
            "`{}` is not a directory; trust add takes a directory, e.g. `codesmith trust add /opt/shared`",
            path.display()
        )));
    }
    if canonical.starts_with(root) {
        return Err(ToolError::invalid(format!(
            "`{}` is inside the workspace `{}`, which is reachable already; trust add is for \
             directories outside it.",
            path.display(),
            root.display()
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
