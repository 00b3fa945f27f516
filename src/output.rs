//! What a successful tool call hands back, before the envelope wraps it.

use serde_json::{Map, Value};

use crate::error::ToolError;

/// Adds `notices` to a result: first among a success's notices, or as `Note:` lines at the end
/// of a failure's message (an error envelope has no notices field).
pub fn with_notices(
    result: Result<ToolOutput, ToolError>,
    notices: Vec<String>,
) -> Result<ToolOutput, ToolError> {
    match result {
        Ok(mut out) => {
            out.notices.splice(0..0, notices);
            Ok(out)
        }
        Err(mut err) => {
            for notice in notices {
                err.message.push_str("\nNote: ");
                err.message.push_str(&notice);
            }
            Err(err)
        }
    }
}

/// What a successful tool call hands back: the text for the model, data for programs, and
/// notices (side observations such as "this file changed since you read it").
#[derive(Debug, Default)]
pub struct ToolOutput {
    pub output: String,
    pub data: Map<String, Value>,
    pub notices: Vec<String>,
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

    pub fn notice(mut self, notice: impl Into<String>) -> ToolOutput {
        self.notices.push(notice.into());
        self
    }
}
