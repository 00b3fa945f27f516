//! The fields an error carries beside `code` and `message` in the envelope's `error` object:
//! a closed set, each with its wire name and meaning, and the set each code may carry.
//! `docs/ERRORS.md` lists them from here, and a debug build refuses a field its code does not
//! declare, so the documentation cannot drift from what is sent.

use super::ErrorCode;

macro_rules! fields {
    ($($variant:ident $name:literal $doc:literal,)*) => {
        /// A field of the `error` object.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Field {
            $($variant,)*
        }

        impl Field {
            pub const ALL: &'static [Field] = &[$(Field::$variant,)*];

            /// The key in the `error` object.
            pub fn name(self) -> &'static str {
                match self {
                    $(Field::$variant => $name,)*
                }
            }

            /// What the field holds, for the error reference.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(Field::$variant => $doc,)*
                }
            }
        }
    };
}

fields! {
    Address "address" "the restricted address the host resolved to",
    Approval "approval" "{id, kind, subject, reason}: what waits for a person's approval",
    Available "available" "the tools there are",
    BestLine "best_line" "the line where the hunk's context comes closest",
    Candidates "candidates" "the two lines where a hunk's context matches equally well",
    Column "column" "the column of the syntax error",
    Command "command" "the command line that records the answer",
    Conflicts "conflicts" "the files changed since the checkpoint, which undo would overwrite",
    ContentEncoding "content_encoding" "the response's Content-Encoding that could not be decoded",
    Count "count" "how many times the search text matches",
    Cwd "cwd" "the session cwd a relative path was resolved against, when it is not the root",
    Data "data" "what the command printed before it was stopped, as a successful call's data",
    Declined "declined" "true when a person declined",
    Enabled "enabled" "the tools the profile offers",
    Encoding "encoding" "the file's encoding, which cannot hold the new text",
    EncodingGuess "encoding_guess" "the encoding the bytes look like",
    FieldName "field" "the argument that is wrong",
    Format "format" "the patch format that was detected",
    HopUrl "hop_url" "the URL of the redirect hop that failed",
    Host "host" "the host the URL names",
    Hunk "hunk" "the number of the hunk that did not apply",
    Hunks "hunks" "how many hunks the file's patch has",
    Id "id" "the checkpoint id that was asked for",
    InvalidBytes "invalid_bytes" "the first bytes that are not UTF-8, with their line and offset",
    InvalidCount "invalid_count" "how many bytes are not UTF-8",
    Kinds "kinds" "the symbol kinds there are",
    Language "language" "the language whose parser refused the change",
    Languages "languages" "the languages with symbol support",
    Line "line" "the line of the syntax error",
    Lines "lines" "the lines where the search text matches",
    Location "location" "the redirect's Location",
    Loop "loop" "true when the redirects go round in a loop",
    Match "match" "the text that matched",
    Missing "missing" "the sandbox layers this kernel lacks",
    NearLine "near_line" "the line of the closest text, where to read",
    ParserMessage "parser_message" "the parser's own words",
    PatchLine "patch_line" "the line of the patch where the failing part starts",
    Path "path" "the path the error is about, as results show it",
    Paths "paths" "every path the error is about, when there are several",
    Pattern "pattern" "the pattern that does not compile",
    Pending "pending" "the ids still waiting",
    Provider "provider" "the web search provider",
    Question "question" "{id, question, choices, default}: the question waiting for an answer",
    Range "range" "the restricted range the address is in",
    RangeLabel "range_label" "what the restricted range is for",
    Reason "reason" "why the command needs the network",
    RedirectHop "redirect_hop" "the number of the redirect hop that failed",
    Redirects "redirects" "how many redirects were followed",
    RequestedUrl "requested_url" "the URL that was asked for, before redirects",
    Restored "restored" "true when every file change already made was undone",
    Roots "roots" "the workspace root and the trusted roots",
    Scheme "scheme" "the URL's scheme, which is not http or https",
    SearchStartLine "search_start_line" "the line where the range's start matched",
    Session "session" "the session the checkpoint belongs to",
    Similar "similar" "similar paths that exist",
    Status "status" "the HTTP status, or the task's state",
    Suggestion "suggestion" "the call to make instead",
    Suggestions "suggestions" "for each unknown argument name, the field it probably meant",
    TaskId "task_id" "the background task",
    TimeoutMs "timeout_ms" "the time limit that ran out, in milliseconds",
    TrustedCidr "trusted_cidr" "the `trusted_cidrs` entry that would exempt the address",
    Undone "undone" "the checkpoints undo would restore",
    Unknown "unknown" "the argument names that are not fields of the tool",
    Url "url" "the URL that failed",
    Variable "variable" "the environment variable that holds the key",
}

impl Field {
    /// The fields that say where an error of any code happened, added by the caller that
    /// passes it on: a patch's rollback, a redirect hop.
    pub const ANY_CODE: &'static [Field] = &[
        Field::Restored,
        Field::RequestedUrl,
        Field::RedirectHop,
        Field::HopUrl,
    ];
}

impl ErrorCode {
    /// Whether an error of this code may carry `field`.
    pub fn carries(self, field: Field) -> bool {
        self.fields().contains(&field) || Field::ANY_CODE.contains(&field)
    }

    /// The fields an error of this code may carry besides `code` and `message`, apart from
    /// [`Field::ANY_CODE`].
    pub fn fields(self) -> &'static [Field] {
        use Field::*;
        match self {
            ErrorCode::InvalidArguments => &[
                FieldName,
                Unknown,
                Suggestions,
                Path,
                Pattern,
                Suggestion,
                Count,
                Lines,
                Kinds,
                Languages,
                Encoding,
                TaskId,
                Status,
            ],
            ErrorCode::UnknownTool => &[Available, Suggestion],
            ErrorCode::NotFound => &[Path, Similar, Cwd, Pending, TaskId, Id, Session],
            ErrorCode::IsDirectory | ErrorCode::BinaryFile | ErrorCode::NotARegularFile => &[Path],
            ErrorCode::TooLarge => &[Path],
            ErrorCode::OutsideWorkspace => &[Path, Roots],
            ErrorCode::NotUtf8 => &[Path, InvalidBytes, InvalidCount, EncodingGuess],
            ErrorCode::NotRead => &[Path, Paths],
            ErrorCode::Stale => &[Path, Paths, Conflicts, Undone],
            ErrorCode::NoMatch => &[Path, NearLine, SearchStartLine],
            ErrorCode::MultipleMatches => &[Path, Count, Lines, Match],
            ErrorCode::SyntaxGate => &[Path, Language, Line, Column, ParserMessage],
            ErrorCode::PatchFailed => &[Path, Hunk, Hunks, PatchLine, Format, Candidates, BestLine],
            ErrorCode::ApprovalRequired => &[Approval, Declined],
            ErrorCode::AnswerRequired => &[Question, Command, Declined],
            ErrorCode::NetworkDenied => &[Host, Scheme, Location, Reason],
            ErrorCode::BlockedAddress => &[Host, Address, Range, RangeLabel, TrustedCidr],
            ErrorCode::Timeout => &[TimeoutMs, Data],
            ErrorCode::IoError => &[
                Path,
                Url,
                Host,
                ContentEncoding,
                Location,
                Loop,
                Redirects,
                Provider,
                Variable,
                Status,
            ],
            ErrorCode::SandboxUnavailable => &[Missing],
            ErrorCode::ToolDisabled => &[Enabled],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_snake_case_and_every_field_belongs_to_a_code() {
        let mut names: Vec<&str> = Field::ALL.iter().map(|f| f.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Field::ALL.len(), "two fields share a name");
        for field in Field::ALL {
            assert!(field.name().bytes().all(|b| b.is_ascii_lowercase() || b == b'_'));
            assert!(!field.meaning().ends_with('.'), "{}", field.name());
            let used = Field::ANY_CODE.contains(field)
                || ErrorCode::ALL.iter().any(|code| code.fields().contains(field));
            assert!(used, "`{}` is declared but no code carries it", field.name());
        }
    }
}
