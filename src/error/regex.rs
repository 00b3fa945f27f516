//! grep_files' refusal of a pattern the regex engine does not compile: the engine's own
//! message, then the way out that fits what it refused.

use super::{Field, ToolError};

/// A pattern the regex engine refused: its message, and what the refusal is about.
pub struct RegexRefusal<'a> {
    /// The engine's message, as it words it.
    pub engine: &'a str,
    /// The pattern uses look-around or a backreference, which the engine lacks.
    pub lookaround: bool,
    /// The pattern matches a line break, which only multiline mode allows.
    pub line_break: bool,
}

impl ToolError {
    /// `pattern` does not compile; `call` is the rest of the grep_files call as the next call
    /// spells it (`pattern="…" path="…"`).
    pub fn bad_regex(pattern: &str, refusal: &RegexRefusal, call: &str) -> ToolError {
        let mut hints = Vec::new();
        if refusal.lookaround {
            hints.push(
                "look-around and backreferences are not supported by this engine; match the text around \
                 it instead, or search more broadly and filter the results"
                    .to_string(),
            );
        }
        hints.push(if refusal.line_break {
            format!(
                "a line break can only match with multiline=true: call grep_files with {call} multiline=true"
            )
        } else {
            format!("to search for the text literally, call grep_files with {call} fixed_strings=true")
        });
        ToolError::invalid(format!(
            "invalid regex {}: {}\nRust regex syntax applies. Hint: {}.",
            serde_json::to_string(pattern).unwrap_or_default(),
            refusal.engine,
            hints.join("; ")
        ))
        .with(Field::Pattern, pattern)
    }
}
