//! Files and paths: the workspace boundary, atomic writes, text decoding, line endings, the one
//! walker, diffs and the syntax gate.

pub mod atomic;
pub mod beneath;
pub mod diff;
pub mod line_endings;
pub mod open;
pub mod read_whole;
pub mod similar_paths;
pub mod syntax_gate;
pub mod textfile;
pub mod walk;
pub mod workspace;
