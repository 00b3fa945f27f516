//! Paths refused for their form before anything is looked up: forms that mean something
//! different to a model than to POSIX, and recorded paths a checkpoint may not restore.

/// Why a path's form is refused, as the clause after "invalid path `...`:".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathForm {
    #[error("the path is empty. Pass a path such as \".\" or \"src/main.rs\".")]
    Empty,
    #[error("it contains a NUL byte, which no file name can hold. Remove it.")]
    Nul,
    #[error("a leading `~` is not expanded. Use a path relative to the workspace, or an absolute path.")]
    Tilde,
    #[error("drive letters are Windows paths. Use a POSIX path with `/`, relative to the workspace.")]
    DriveLetter,
    #[error("backslashes are not separators here (and UNC or \\\\?\\ prefixes are not supported). Use `/`.")]
    Backslash,
    #[error("it is {bytes} bytes long; the limit is {max}. Use a shorter path.")]
    TooLong { bytes: usize, max: usize },
    #[error("a component is {bytes} bytes long; the limit is {max}. Use shorter names.")]
    ComponentTooLong { bytes: usize, max: usize },
}

/// Why a path a checkpoint records is not restored, as the clause after "the checkpoint names
/// `...`,".
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointPath {
    #[error("which is not a plain relative path")]
    NotPlain,
    #[error("which is inside .codesmith/")]
    InState,
    #[error("whose directory leads outside the workspace through a symlink")]
    ThroughSymlink,
}

#[cfg(test)]
mod tests {
    use super::super::{ErrorCode, ToolError};
    use super::{CheckpointPath, PathForm};

    #[test]
    fn path_forms_read_as_they_did() {
        let error = ToolError::bad_path_form("a\\b", "a\\b", &PathForm::Backslash);
        assert_eq!(error.code(), ErrorCode::InvalidArguments);
        assert_eq!(
            error.message(),
            "invalid path `a\\b`: backslashes are not separators here (and UNC or \\\\?\\ prefixes \
             are not supported). Use `/`."
        );
        let long = PathForm::ComponentTooLong { bytes: 300, max: 255 };
        assert_eq!(
            long.to_string(),
            "a component is 300 bytes long; the limit is 255. Use shorter names."
        );
    }

    #[test]
    fn checkpoint_paths_read_as_they_did() {
        for (why, clause) in [
            (CheckpointPath::NotPlain, "which is not a plain relative path"),
            (CheckpointPath::InState, "which is inside .codesmith/"),
            (
                CheckpointPath::ThroughSymlink,
                "whose directory leads outside the workspace through a symlink",
            ),
        ] {
            let error = ToolError::checkpoint_path_outside("x/y", why);
            assert_eq!(error.code(), ErrorCode::OutsideWorkspace);
            assert_eq!(
                error.message(),
                format!(
                    "path escapes workspace: the checkpoint names `x/y`, {clause}; nothing was restored."
                )
            );
        }
    }
}
