//! Refusals to change a file whose bytes are not (all) UTF-8, or to write a character its
//! encoding cannot hold: the file-changing tools find the bytes and the encoding; the words,
//! with the byte-exact way to mend them, are here.

use super::{ErrorCode, Field, FileRef, ToolError};

/// Why a file's text cannot be trusted to survive a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undecodable<'a> {
    /// It is not valid UTF-8, and no encoding was identified with confidence.
    Unidentified,
    /// It decodes as `encoding` (its WHATWG name), but not back to the same bytes.
    NoRoundTrip { encoding: &'a str },
}

/// A run of bytes that are not UTF-8: its 1-based line, its 0-based byte offset in the file,
/// and the bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrayRun {
    pub line: usize,
    pub offset: usize,
    pub bytes: Vec<u8>,
}

/// The stray bytes of a file that is UTF-8 but for them: the first few runs, how many there
/// are in all, and what the first run reads as in windows-1252 (the usual source of a stray
/// byte), when there is a first run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrayBytes {
    pub runs: Vec<StrayRun>,
    pub total: usize,
    pub first_meant: Option<String>,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("\\x{b:02x}")).collect()
}

impl ToolError {
    /// A file in an encoding that could not be identified, or that does not round-trip;
    /// `utf8_word` is the shell word of the converted copy.
    pub fn not_utf8(
        file: &FileRef,
        tool: crate::tool_id::ToolId,
        why: Undecodable,
        utf8_word: &str,
    ) -> ToolError {
        let (why, from) = match why {
            Undecodable::Unidentified => (
                "is not valid UTF-8, and its encoding could not be identified with confidence".to_string(),
                "LATIN1",
            ),
            Undecodable::NoRoundTrip { encoding } => (
                format!("looks like {encoding}, but does not convert to text and back byte for byte"),
                encoding,
            ),
        };
        ToolError::new(
            ErrorCode::NotUtf8,
            format!(
                "`{0}` {why}, so {tool} will not change it: writing a guess back could corrupt every \
                 non-ASCII byte. If you know its encoding, convert it to UTF-8 with exec_shell (for \
                 example `iconv -f {from} -t UTF-8 {1} > {2} && mv {2} {1}`), then call \
                 read_file with path={3} and retry.",
                file.display, file.shell_word, utf8_word, file.call_arg
            ),
        )
        .with(Field::Path, file.display)
    }

    /// A UTF-8 file but for a few invalid byte sequences: where they are, and two ways to mend
    /// them — a byte-exact `sed` (in the C locale, so the bytes themselves match) that turns the
    /// first into the character its windows-1252 reading gives, or write_file with the intended
    /// text.
    pub fn stray_bytes(file: &FileRef, tool: crate::tool_id::ToolId, stray: &StrayBytes) -> ToolError {
        let total = stray.total;
        let (count, them) = if total == 1 {
            ("one invalid byte sequence".to_string(), "it")
        } else {
            (format!("{total} invalid byte sequences"), "them")
        };
        let spots: Vec<String> = stray
            .runs
            .iter()
            .map(|run| {
                format!(
                    "line {} at byte offset {} (`{}`)",
                    run.line,
                    run.offset,
                    hex(&run.bytes)
                )
            })
            .collect();
        let mut spots = spots.join(", ");
        if total > stray.runs.len() {
            spots.push_str(&format!(", and {} more", total - stray.runs.len()));
        }
        let fix = match (stray.runs.first(), &stray.first_meant) {
            (Some(run), Some(meant)) => {
                let bytes = hex(&run.bytes);
                format!(
                    " If `{bytes}` on line {line} was meant as `{meant}`, exec_shell with `LC_ALL=C sed -i \
                     '{line}s/{bytes}/{utf8}/g' {word}` makes it UTF-8 (or `s/{bytes}//g` drops it).",
                    line = run.line,
                    utf8 = hex(meant.as_bytes()),
                    word = file.shell_word,
                )
            }
            _ => String::new(),
        };
        let invalid_bytes: Vec<serde_json::Value> = stray
            .runs
            .iter()
            .map(|run| serde_json::json!({"line": run.line, "offset": run.offset, "bytes": hex(&run.bytes)}))
            .collect();
        ToolError::new(
            ErrorCode::NotUtf8,
            format!(
                "`{0}` is UTF-8 except for {count}: {spots}. {tool} will not change it, since writing it back \
                 would replace {them} with U+FFFD; the rest of the file is fine, so do not convert it whole \
                 (iconv would garble every correct non-ASCII character). Fix {them} first.{fix} Or replace \
                 the file with write_file holding the intended text. Then call read_file with path={1} \
                 and retry.",
                file.display, file.call_arg
            ),
        )
        .with(Field::Path, file.display)
        .with(Field::InvalidBytes, invalid_bytes)
        .with(Field::InvalidCount, total)
    }

    /// New text that the file's encoding cannot hold; `culprit` is the first such character
    /// and its line in the new text, when one was found.
    pub fn unencodable(
        file: &FileRef,
        utf8_word: &str,
        encoding: &str,
        culprit: Option<(char, usize)>,
    ) -> ToolError {
        let what = match culprit {
            Some((c, line)) => format!("`{c}` (U+{:04X}) on line {line} of the new text", c as u32),
            None => "a character of the new text".to_string(),
        };
        ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "{what} cannot be written in {encoding}, the encoding of `{path}`; nothing was written. Use a \
                 character that {encoding} can hold (or an escape the file's format allows), or convert the \
                 file to UTF-8 first with exec_shell (`iconv -f {encoding} -t UTF-8 {word} > {utf8_word} && \
                 mv {utf8_word} {word}`), then call read_file with path={arg} and retry.",
                path = file.display,
                word = file.shell_word,
                arg = file.call_arg,
            ),
        )
        .with(Field::Path, file.display)
        .with(Field::Encoding, encoding)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool_id::ToolId;

    fn file() -> FileRef<'static> {
        FileRef {
            display: "a b.txt",
            call_arg: "\"a b.txt\"".to_string(),
            shell_word: "'a b.txt'".to_string(),
        }
    }

    #[test]
    fn an_undecodable_file_names_the_encoding_iconv_converts_from() {
        let unidentified = ToolError::not_utf8(
            &file(),
            ToolId::EditFile,
            Undecodable::Unidentified,
            "'a b.txt.utf8'",
        );
        assert_eq!(
            unidentified.message(),
            "`a b.txt` is not valid UTF-8, and its encoding could not be identified with confidence, so \
             edit_file will not change it: writing a guess back could corrupt every non-ASCII byte. If you \
             know its encoding, convert it to UTF-8 with exec_shell (for example `iconv -f LATIN1 -t UTF-8 \
             'a b.txt' > 'a b.txt.utf8' && mv 'a b.txt.utf8' 'a b.txt'`), then call read_file with \
             path=\"a b.txt\" and retry."
        );
        let why = Undecodable::NoRoundTrip {
            encoding: "Shift_JIS",
        };
        let no_round_trip = ToolError::not_utf8(&file(), ToolId::EditFile, why, "'a b.txt.utf8'");
        assert!(
            no_round_trip.message().starts_with(
                "`a b.txt` looks like Shift_JIS, but does not convert to text and back byte for byte, so \
                 edit_file will not change it"
            ),
            "{}",
            no_round_trip.message()
        );
        assert!(no_round_trip
            .message()
            .contains("`iconv -f Shift_JIS -t UTF-8 'a b.txt' >"));
    }

    #[test]
    fn an_unencodable_character_is_named_with_its_line_when_found() {
        let named = ToolError::unencodable(&file(), "'x.utf8'", "windows-1252", Some(('漢', 2)));
        assert!(named
            .message()
            .starts_with("`漢` (U+6F22) on line 2 of the new text cannot be written in windows-1252,"));
        let unnamed = ToolError::unencodable(&file(), "'x.utf8'", "windows-1252", None);
        assert!(unnamed.message().starts_with(
            "a character of the new text cannot be written in windows-1252, the encoding of `a b.txt`;"
        ));
    }
}
