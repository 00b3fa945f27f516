//! Where the paths a command names are resolved: the workspace, the session cwd and `$HOME`.
//! Shared by the classifier and its rules for writes outside the workspace.

use std::path::PathBuf;

use crate::fs::workspace::Workspace;

/// Where paths in the command are resolved.
pub struct Scope<'a> {
    pub workspace: &'a Workspace,
    pub cwd: PathBuf,
    pub home: Option<PathBuf>,
}

impl<'a> Scope<'a> {
    pub fn new(workspace: &'a Workspace) -> Scope<'a> {
        Scope {
            workspace,
            cwd: workspace.cwd().to_path_buf(),
            home: std::env::var_os("HOME").map(PathBuf::from),
        }
    }
}
