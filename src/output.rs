//! What a successful tool call hands back, before the envelope wraps it.

use serde_json::{Map, Value};

use crate::error::ToolError;
use crate::notice::Notice;

/// `1 file`, `2 files`: a count and its noun, with the noun's plural given (`match`, `matches`).
pub fn plural<N: std::fmt::Display + PartialEq + From<u8>>(n: N, one: &str, many: &str) -> String {
    let noun = if n == N::from(1) { one } else { many };
    format!("{n} {noun}")
}

/// Adds `notices` to a result: first among a success's notices, or as `Note:` lines at the end
/// of a failure's message (an error envelope has no notices field).
pub fn with_notices(
    result: Result<ToolOutput, ToolError>,
    notices: Vec<Notice>,
) -> Result<ToolOutput, ToolError> {
    match result {
        Ok(mut out) => {
            out.notices.splice(0..0, notices);
            Ok(out)
        }
        // Rendered here, at the edge: the error carries its notes as text.
        Err(err) => Err(err.noted(notices.iter().map(Notice::to_string))),
    }
}

/// What a successful tool call hands back: the text for the model, data for programs, and
/// notices (side observations such as "this file changed since you read it"; see
/// [`crate::notice`], which words them).
#[derive(Debug, Default)]
pub struct ToolOutput {
    pub output: String,
    pub data: Map<String, Value>,
    pub notices: Vec<Notice>,
}

impl ToolOutput {
    pub fn new(output: impl Into<String>) -> ToolOutput {
        ToolOutput {
            output: output.into(),
            data: Map::new(),
            notices: Vec::new(),
        }
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> ToolOutput {
        self.data.insert(key.to_string(), value.into());
        self
    }

    pub fn notice(mut self, notice: impl Into<Notice>) -> ToolOutput {
        self.notices.push(notice.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::plural;

    #[test]
    fn one_takes_the_singular_and_every_other_count_the_plural() {
        assert_eq!(plural(1usize, "match", "matches"), "1 match");
        assert_eq!(plural(0u64, "match", "matches"), "0 matches");
        assert_eq!(plural(2usize, "binary file", "binary files"), "2 binary files");
    }
}
