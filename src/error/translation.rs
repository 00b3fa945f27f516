//! What a translation of another harness's call left out or changed (`dispatch::translate`),
//! as the `unknown_tool` and Codex-argument refusals name it after the translated call.

/// One thing the translated call does not carry over as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TranslationNote {
    /// A field the other harness has and codesmith's tool does not.
    NoEquivalent {
        key: String,
        why: NoEquivalent,
    },
    /// A field that is not part of the other harness's tool either.
    NotAField {
        key: String,
    },
    ReadLinesCapped {
        cap: u64,
    },
    TimeoutCapped {
        cap: u64,
    },
    UnknownFileType {
        kind: String,
    },
    /// `-A` and `-B` differ; grep_files shows `lines` on both sides.
    SameContextBothSides {
        lines: u64,
    },
}

/// Why a field has no equivalent here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoEquivalent {
    PdfPages,
    CommandOnly,
    ResultOffset,
    IgnoreList,
    FetchPrompt,
    Escalation,
}

impl std::fmt::Display for NoEquivalent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NoEquivalent::PdfPages => "read_file reads text files, not PDF pages",
            NoEquivalent::CommandOnly => "exec_shell takes only the command",
            NoEquivalent::ResultOffset => "grep_files shows results from the first; narrow path or include instead",
            NoEquivalent::IgnoreList => {
                "list_dir skips what .gitignore and the always-skip list hide; use file_search for a filtered list"
            }
            NoEquivalent::FetchPrompt => "fetch_url returns the page as markdown; apply the prompt to it yourself",
            NoEquivalent::Escalation => "exec_shell asks for approval itself when a command needs it",
        })
    }
}

impl std::fmt::Display for TranslationNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TranslationNote::NoEquivalent { key, why } => {
                write!(f, "`{key}` has no equivalent here ({why}); it is left out.")
            }
            TranslationNote::NotAField { key } => write!(f, "`{key}` is not a field of that tool; it is left out."),
            TranslationNote::ReadLinesCapped { cap } => write!(
                f,
                "read_file shows at most {cap} lines per call; continue with the start_line its output names."
            ),
            TranslationNote::TimeoutCapped { cap } => write!(
                f,
                "exec_shell's longest timeout is {cap} ms; for longer work use background=true."
            ),
            TranslationNote::UnknownFileType { kind } => write!(
                f,
                "file type `{kind}` is not known here; it is left out (name the files with include globs such as \"*.{kind}\")."
            ),
            TranslationNote::SameContextBothSides { lines } => write!(
                f,
                "grep_files shows the same context before and after a match, so {lines} lines on both sides."
            ),
        }
    }
}

/// The notes as they follow the translated call in a message: each after a space.
pub(super) fn rendered(notes: &[TranslationNote]) -> String {
    notes.iter().map(|n| format!(" {n}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_note_reads_as_a_sentence_after_the_call() {
        let notes = [
            TranslationNote::NoEquivalent {
                key: "pages".into(),
                why: NoEquivalent::PdfPages,
            },
            TranslationNote::NotAField { key: "x".into() },
            TranslationNote::ReadLinesCapped { cap: 2000 },
            TranslationNote::TimeoutCapped { cap: 600_000 },
            TranslationNote::UnknownFileType { kind: "zz".into() },
            TranslationNote::SameContextBothSides { lines: 3 },
        ];
        assert_eq!(
            rendered(&notes),
            " `pages` has no equivalent here (read_file reads text files, not PDF pages); it is left out. \
             `x` is not a field of that tool; it is left out. \
             read_file shows at most 2000 lines per call; continue with the start_line its output names. \
             exec_shell's longest timeout is 600000 ms; for longer work use background=true. \
             file type `zz` is not known here; it is left out (name the files with include globs such as \"*.zz\"). \
             grep_files shows the same context before and after a match, so 3 lines on both sides."
        );
    }
}
