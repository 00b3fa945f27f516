//! JSON texts that do not parse: the arguments of a tool, or a call given to `codesmith call`.
//! The message names the mistake a model made (Python's `True`, a single quote, a trailing
//! comma) where one is recognized, else the parser's own words.

use super::ToolError;

/// One mistake found in a JSON text, and where (1-based line and column, in characters).
#[derive(Debug, PartialEq, Eq)]
pub struct Mistake {
    pub line: usize,
    pub column: usize,
    pub what: JsonMistake,
}

/// A mistake models make in JSON, as a clause that names the token and the fix.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum JsonMistake {
    #[error("a raw line break inside a string; JSON writes it as \\n")]
    RawLineBreak,
    #[error("a raw tab inside a string; JSON writes it as \\t")]
    RawTab,
    /// Another control character (below U+0020), by its byte.
    #[error("a raw control character (U+{0:04X}) inside a string; JSON writes it as \\u{0:04x}")]
    RawControl(u8),
    #[error("`True` is Python; JSON writes `true`")]
    PythonTrue,
    #[error("`False` is Python; JSON writes `false`")]
    PythonFalse,
    #[error("`None` is Python; JSON writes `null`")]
    PythonNone,
    #[error("the key `{0}` has no quotes; JSON writes it as \"{0}\"")]
    UnquotedKey(String),
    #[error("`{0}` is not a JSON value; a string takes double quotes (\"{0}\")")]
    BareWord(String),
    #[error("a single quote; JSON strings and keys take double quotes (\"...\")")]
    SingleQuote,
    /// A comma right before the bracket (`}` or `]`) that closes.
    #[error("a trailing comma before `{0}`; JSON allows none, remove it")]
    TrailingComma(char),
}

/// What a JSON text that does not parse was meant to be.
#[derive(Debug, Clone, Copy)]
pub enum JsonSubject<'a> {
    /// The arguments of the tool (or the unknown name) called.
    Arguments { tool: &'a str },
    /// The call given to `codesmith call`.
    Call,
}

impl ToolError {
    /// A JSON text that does not parse: the `mistake` found in it, or else `parser`'s message
    /// (serde_json's own words, passed through as they are); `example` is a JSON object to
    /// send instead.
    pub fn malformed_json(
        subject: JsonSubject,
        mistake: Option<&Mistake>,
        parser: &serde_json::Error,
        example: &str,
    ) -> ToolError {
        let subject = match subject {
            JsonSubject::Arguments { tool } => format!("arguments for {tool}"),
            JsonSubject::Call => "for call".to_string(),
        };
        let cause = match mistake {
            Some(m) => format!("{} (line {}, column {})", m.what, m.line, m.column),
            None => parser.to_string(),
        };
        ToolError::invalid(format!(
            "malformed JSON {subject}: {cause}. Send one JSON object, for example {example}."
        ))
    }
}
