//! Notices about `.codesmith/config.toml`: what of it was ignored or read narrowly.

use std::fmt;

const FILE: &str = "`.codesmith/config.toml`";

/// A problem with the workspace config, told on the calls that read the part it concerns.
/// `value` fields are the TOML value as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigNotice {
    /// A top-level key that is no section; `sections` are the section names.
    UnknownSection {
        key: String,
        sections: Vec<&'static str>,
    },
    /// A known section written as something other than a table.
    NotASection { section: &'static str },
    /// A key a section does not have; `settings` are the section's keys.
    UnknownSetting {
        section: &'static str,
        key: String,
        settings: Vec<&'static str>,
    },
    /// A key of `[tools]` other than `enabled`.
    UnknownToolsSetting { key: String },
    /// `[tools] enabled` is not a list of names; `selectors` is the phrase naming the valid ones
    /// (`tools::profile::valid_selectors`, which the tool selector's error shares).
    ToolsEnabledNotAList { selectors: String },
    /// `[tools] enabled` names `name`, neither a tool nor a capability.
    UnknownToolsName { name: String, selectors: String },
    /// The network policy, read by fetch_url and web_search, dropped or narrowed an entry.
    /// `problem` is the policy reader's phrase for it (`net::policy::Policy::problems`), which
    /// names the entry as the file spells it; it is relayed, not worded here.
    NetworkPolicy { problem: String },
    /// The same problem, as exec_shell tells it before a command that needs the network.
    NetworkPolicyForShell { problem: String },
    /// The `[shell]` settings dropped or narrowed an entry; `problem` is their reader's phrase,
    /// relayed as for the network policy.
    ShellSettings { problem: String },
}

impl fmt::Display for ConfigNotice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigNotice::UnknownSection { key, sections } => {
                let names: Vec<String> = sections.iter().map(|name| format!("[{name}]")).collect();
                write!(
                    f,
                    "{FILE}: there is no section or setting `{key}`; it is ignored \
                     (the sections are {}).",
                    names.join(", ")
                )
            }
            ConfigNotice::NotASection { section } => {
                write!(
                    f,
                    "{FILE}: `{section}` is not a [{section}] section; it is ignored."
                )
            }
            ConfigNotice::UnknownSetting {
                section,
                key,
                settings,
            } => write!(
                f,
                "{FILE}: [{section}] has no setting `{key}`; it is \
                 ignored (the settings are {}).",
                settings.join(", ")
            ),
            ConfigNotice::UnknownToolsSetting { key } => write!(
                f,
                "{FILE}: [tools] has no setting `{key}`; it is ignored (the setting is enabled)."
            ),
            ConfigNotice::ToolsEnabledNotAList { selectors } => write!(
                f,
                "{FILE}: [tools] enabled is not a list of names, so no tool is enabled. Write e.g. \
                 enabled = [\"read_only\"], naming {selectors}."
            ),
            ConfigNotice::UnknownToolsName { name, selectors } => write!(
                f,
                "{FILE}: [tools] enabled names `{name}`, which is neither a tool nor a capability; \
                 it enables nothing (the names are {selectors})."
            ),
            ConfigNotice::NetworkPolicy { problem } => write!(f, "network policy: {problem}."),
            ConfigNotice::NetworkPolicyForShell { problem } => write!(
                f,
                "The network policy was read narrowly: {problem}. Fix .codesmith/config.toml."
            ),
            ConfigNotice::ShellSettings { problem } => write!(
                f,
                "The [shell] settings were read narrowly: {problem}. Fix .codesmith/config.toml."
            ),
        }
    }
}
