//! Why a JSON text does not parse, in the terms of the mistakes models make: Python's `True`,
//! `False` and `None`, single quotes, a trailing comma, a raw newline inside a string, a key
//! without quotes. serde_json names only the position; this finds the token (worded, with the
//! fix, in `src/error/json_text.rs`).

use crate::error::{JsonMistake, JsonSubject, Mistake, ToolError};

/// A control character written raw inside a string.
fn raw_control(b: u8) -> JsonMistake {
    match b {
        b'\n' => JsonMistake::RawLineBreak,
        b'\t' => JsonMistake::RawTab,
        _ => JsonMistake::RawControl(b),
    }
}

/// What is wrong with a bare word outside a string (`rest` is the text after it), if anything.
fn bare_word(word: &str, rest: &str) -> Option<JsonMistake> {
    match word {
        "True" => Some(JsonMistake::PythonTrue),
        "False" => Some(JsonMistake::PythonFalse),
        "None" => Some(JsonMistake::PythonNone),
        "true" | "false" | "null" => None,
        _ if rest.trim_start().starts_with(':') => Some(JsonMistake::UnquotedKey(word.to_string())),
        _ => Some(JsonMistake::BareWord(word.to_string())),
    }
}

/// The first of the known mistakes in `text`, scanning like a JSON lexer (strings with their
/// escapes skipped) so a `'` or `True` inside a string is not taken for one.
pub fn find_mistake(text: &str) -> Option<Mistake> {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                0..=0x1f => return Some(at(text, i, raw_control(b))),
                _ => {}
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'\'' => return Some(at(text, i, JsonMistake::SingleQuote)),
            b',' => {
                let next = text[i + 1..].trim_start().bytes().next();
                if let Some(close @ (b'}' | b']')) = next {
                    return Some(at(text, i, JsonMistake::TrailingComma(close as char)));
                }
            }
            b if b.is_ascii_alphabetic() || b == b'_' => {
                let word_end = text[i..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .map_or(text.len(), |n| i + n);
                if let Some(fix) = bare_word(&text[i..word_end], &text[word_end..]) {
                    return Some(at(text, i, fix));
                }
                i = word_end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn at(text: &str, offset: usize, what: JsonMistake) -> Mistake {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Mistake { line, column, what }
}

/// The error for a JSON text that does not parse: the mistake found in it (or serde's words),
/// and an example of what to send.
pub fn malformed_json(subject: JsonSubject, text: &str, err: &serde_json::Error, example: &str) -> ToolError {
    ToolError::malformed_json(subject, find_mistake(text).as_ref(), err, example)
}

#[cfg(test)]
mod tests {
    use super::find_mistake;

    fn what(text: &str) -> String {
        find_mistake(text).map(|m| m.what.to_string()).unwrap_or_default()
    }

    #[test]
    fn names_the_usual_mistakes() {
        assert!(what(r#"{"a": True}"#).starts_with("`True` is Python"));
        assert!(what(r#"{"a": None}"#).contains("`null`"));
        assert!(what(r#"{'a': 1}"#).starts_with("a single quote"));
        assert!(what(r#"{"a": [1, 2,], }"#).contains("before `]`"));
        assert!(what("{\"a\": \"x\ny\"}").starts_with("a raw line break"));
        assert!(what(r#"{path: "x"}"#).contains("the key `path` has no quotes"));
        assert_eq!(find_mistake(r#"{"a": "it's True, None"}"#), None);
        assert_eq!(find_mistake(r#"{"a": true, "b": [null]}"#), None);
        let m = find_mistake("{\n  \"a\": False\n}").expect("found");
        assert_eq!((m.line, m.column), (2, 8));
    }
}
