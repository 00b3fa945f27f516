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
    #[error(
        "backslashes are not separators here (and UNC or \\\\?\\ prefixes are not supported). Use `/`."
    )]
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
