//! Hints: what a caller adds to an error it passes on, as data — where the failure happened
//! (a patch line, a redirect hop), what it left behind, what to do instead. They are rendered
//! here, into the error's message, when the message is read.

/// One hint; [`super::ToolError::hint`] adds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hint {
    /// An index that cannot be updated: grep_files finds the text meanwhile. `pattern_arg` is
    /// the pattern as the call's argument spells it (quoted where needed).
    GrepInstead { pattern_arg: String },
    /// A write that failed before anything changed: nothing was created, or the original
    /// file is as it was.
    NothingWritten { created: bool },
    /// A path refused while planning a patch: the patch line that names it.
    PatchTouches { patch_line: usize },
    /// A file the patch changes does not exist.
    PatchChangesMissing { patch_line: usize },
    /// A patch stopped half-way and the changes already made were undone (`unrestored` names
    /// the files that could not be restored).
    RolledBack { done: usize, unrestored: Vec<String> },
    /// A failure at a redirect: the URL asked for, the hop's number and its URL come first.
    AtRedirectHop {
        requested: String,
        hop: usize,
        target: String,
    },
}

impl Hint {
    /// Renders the hint onto `text`, the message so far.
    pub(super) fn render(&self, text: &mut String) {
        match self {
            Hint::GrepInstead { pattern_arg } => text.push_str(&format!(
                " Until it is fixed, search the text instead: grep_files with pattern={pattern_arg}."
            )),
            Hint::NothingWritten { created: true } => text.push_str("; nothing was created."),
            Hint::NothingWritten { created: false } => text.push_str("; the original file is unchanged."),
            Hint::PatchTouches { patch_line } => text.push_str(&format!(
                " (The patch touches it at patch line {patch_line}; nothing was written.)"
            )),
            Hint::PatchChangesMissing { patch_line } => text.push_str(&format!(
                " (The patch changes it at patch line {patch_line}; nothing was written. To create a \
                 file, use `*** Add File:` or a diff from /dev/null.)"
            )),
            Hint::RolledBack { done, unrestored } => rolled_back(text, *done, unrestored),
            Hint::AtRedirectHop {
                requested,
                hop,
                target,
            } => {
                *text =
                    format!("fetching `{requested}` stopped at redirect hop {hop} (to `{target}`): {text}");
            }
        }
    }
}

fn rolled_back(text: &mut String, done: usize, unrestored: &[String]) {
    let restored = if unrestored.is_empty() {
        let (s, were) = if done == 1 { ("", "was") } else { ("s", "were") };
        format!("The {done} file change{s} already made {were} undone, so the tree is as it was.")
    } else {
        format!(
            "Restoring failed for {}; check those files.",
            unrestored.join(", ")
        )
    };
    let head = text.trim_end();
    let stop = if head.ends_with(['.', '!', '?']) { "" } else { "." };
    *text = format!("{head}{stop} {restored} Fix the cause, then retry the same call.");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(head: &str, hint: Hint) -> String {
        let mut text = head.to_string();
        hint.render(&mut text);
        text
    }

    #[test]
    fn a_rollback_ends_the_sentence_before_it_and_counts_the_changes() {
        let one = Hint::RolledBack {
            done: 1,
            unrestored: Vec::new(),
        };
        assert_eq!(
            rendered("could not write `a`\n", one),
            "could not write `a`. The 1 file change already made was undone, so the tree is as it \
             was. Fix the cause, then retry the same call."
        );
        let failed = Hint::RolledBack {
            done: 2,
            unrestored: vec!["`b`".into()],
        };
        assert!(rendered("stopped.", failed).starts_with("stopped. Restoring failed for `b`;"));
    }

    #[test]
    fn a_redirect_hop_comes_before_the_failure() {
        let hop = Hint::AtRedirectHop {
            requested: "http://a/".into(),
            hop: 2,
            target: "http://b/".into(),
        };
        assert_eq!(
            rendered("refused", hop),
            "fetching `http://a/` stopped at redirect hop 2 (to `http://b/`): refused"
        );
    }
}
