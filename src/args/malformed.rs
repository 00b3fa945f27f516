//! Why a JSON text does not parse, in the terms of the mistakes models make: Python's `True`,
//! `False` and `None`, single quotes, a trailing comma, a raw newline inside a string, a key
//! without quotes. serde_json names only the position; this names the token and the fix.

/// One mistake found in a JSON text: what it is and how to write it instead.
#[derive(Debug, PartialEq)]
pub struct Mistake {
    pub line: usize,
    pub column: usize,
    pub what: String,
}

/// The first of the known mistakes in `text`, scanning like a JSON lexer (strings with their
/// escapes skipped) so a `'` or `True` inside a string is not taken for one.
/// A control character written raw inside a string.
fn raw_control(b: u8) -> String {
    match b {
        b'\n' => "a raw line break inside a string; JSON writes it as \\n".into(),
        b'\t' => "a raw tab inside a string; JSON writes it as \\t".into(),
        _ => format!("a raw control character (U+{b:04X}) inside a string; JSON writes it as \\u{b:04x}"),
    }
}

/// What is wrong with a bare word outside a string (`rest` is the text after it), if anything.
fn bare_word(word: &str, rest: &str) -> Option<String> {
    match word {
        "True" => Some("`True` is Python; JSON writes `true`".to_string()),
        "False" => Some("`False` is Python; JSON writes `false`".to_string()),
        "None" => Some("`None` is Python; JSON writes `null`".to_string()),
        "true" | "false" | "null" => None,
        _ if rest.trim_start().starts_with(':') => Some(format!(
            "the key `{word}` has no quotes; JSON writes it as \"{word}\""
        )),
        _ => Some(format!(
            "`{word}` is not a JSON value; a string takes double quotes (\"{word}\")"
        )),
    }
}

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
            b'\'' => {
                return Some(at(
                    text,
                    i,
                    "a single quote; JSON strings and keys take double quotes (\"...\")".into(),
                ))
            }
            b',' => {
                let next = text[i + 1..].trim_start().bytes().next();
                if let Some(close @ (b'}' | b']')) = next {
                    return Some(at(
                        text,
                        i,
                        format!(
                            "a trailing comma before `{}`; JSON allows none, remove it",
                            close as char
                        ),
                    ));
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

fn at(text: &str, offset: usize, what: String) -> Mistake {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Mistake { line, column, what }
}

/// The message for a JSON text that does not parse: the mistake found (or serde's words), and
/// an example of what to send.
pub fn explain(subject: &str, text: &str, err: &serde_json::Error, example: &str) -> String {
    let cause = match find_mistake(text) {
        Some(m) => format!("{} (line {}, column {})", m.what, m.line, m.column),
        None => err.to_string(),
    };
    format!("malformed JSON {subject}: {cause}. Send one JSON object, for example {example}.")
}

#[cfg(test)]
mod tests {
    use super::find_mistake;

    fn what(text: &str) -> String {
        find_mistake(text).map(|m| m.what).unwrap_or_default()
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
