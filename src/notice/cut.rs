//! The line that ends an output cut at the envelope's cap.

use std::fmt;

/// An output over the cap: how much was left out of how much, and where the whole text is
/// (the path as read_file takes it from the session cwd), when it could be spilled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputCut {
    pub omitted: usize,
    pub total: usize,
    pub spilled: Option<String>,
}

impl fmt::Display for OutputCut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (omitted, total) = (self.omitted, self.total);
        write!(f, "[output truncated: {omitted} of {total} characters omitted; ")?;
        match &self.spilled {
            Some(path) => write!(
                f,
                "the whole text is in {path} (read it with read_file, or narrow the call)]"
            ),
            None => f.write_str("narrow the call to see the rest]"),
        }
    }
}
