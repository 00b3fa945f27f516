//! Notices: the side observations a result carries beside its output ("this file changed since
//! you read it", "the value was held inside its cap"). A notice is a value, built where the
//! thing happened from the data that describes it; its words are written here alone, one family
//! per file, and a notice becomes text only at the edge (the envelope, an error's `Note:`
//! lines, a checkpoint's record). So a notice reads the same wherever it is raised, and a
//! change of wording is a change to one file.
//!
//! The variants carry plain data: paths as results show them, counts, names, limits, and the
//! text of an error that caused them. A few carry a phrase worded elsewhere, each saying so in
//! its doc comment: a config reader's description of what it dropped
//! ([`ConfigNotice::NetworkPolicy`] and its kin).
//!
//! Two kinds of text that are not notices are worded here too, because they share words with
//! notices: the lines exec_shell puts before a command's output when the sandbox stood in its
//! way ([`SandboxHint`], which a background task's start relays as [`ShellNotice::Sandbox`]),
//! and the reason an action needs approval ([`ApprovalReason`], which names a sandbox stop in
//! the words of its line), and why a protection did not hold ([`Unprotected`]). So is the line
//! that ends an output cut at the envelope's cap ([`OutputCut`]).

use std::fmt;

mod approval;
mod args;
mod config;
mod cut;
mod file;
mod history;
mod net;
mod sandbox;
mod search;
mod session;
mod shell;

pub use approval::ApprovalReason;
pub use args::ArgsNotice;
pub use config::ConfigNotice;
pub use cut::OutputCut;
pub use file::FileNotice;
pub use history::{HistoryNotice, RecordedSide};
pub use net::{NetNotice, ReadMore};
pub use sandbox::{Planter, SandboxHint, SandboxStop, Unprotected, WritableLine};
pub use search::SearchNotice;
pub use session::SessionNotice;
pub use shell::{DriftedFile, ShellNotice};

/// A notice, by family. Every family converts into it (`From`), so a producer writes
/// `FileNotice::CrlfKept { path }.into()` or hands the family value to a function taking
/// `impl Into<Notice>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    Args(ArgsNotice),
    File(FileNotice),
    Search(SearchNotice),
    Shell(ShellNotice),
    Net(NetNotice),
    Session(SessionNotice),
    History(HistoryNotice),
    Config(ConfigNotice),
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::Args(notice) => notice.fmt(f),
            Notice::File(notice) => notice.fmt(f),
            Notice::Search(notice) => notice.fmt(f),
            Notice::Shell(notice) => notice.fmt(f),
            Notice::Net(notice) => notice.fmt(f),
            Notice::Session(notice) => notice.fmt(f),
            Notice::History(notice) => notice.fmt(f),
            Notice::Config(notice) => notice.fmt(f),
        }
    }
}

macro_rules! family {
    ($family:ident => $variant:ident) => {
        impl From<$family> for Notice {
            fn from(notice: $family) -> Notice {
                Notice::$variant(notice)
            }
        }
    };
}

family!(ArgsNotice => Args);
family!(FileNotice => File);
family!(SearchNotice => Search);
family!(ShellNotice => Shell);
family!(NetNotice => Net);
family!(SessionNotice => Session);
family!(HistoryNotice => History);
family!(ConfigNotice => Config);

/// Notices as the text a person or model reads, in order.
pub fn render_all(notices: &[Notice]) -> Vec<String> {
    notices.iter().map(Notice::to_string).collect()
}

#[cfg(test)]
#[path = "notice/tests.rs"]
mod tests;
