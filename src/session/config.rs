//! `.codesmith/config.toml`: optional workspace settings (the network policy, the shell's
//! sandbox).
//!
//! This module only loads the file. Each mechanism interprets its own section (`[network]` in
//! `net::policy`), and does so defensively: an unknown or mistyped value never widens what
//! codesmith allows.

use std::path::Path;

use crate::error::ToolError;
use crate::notice::{ConfigNotice, Notice};

/// The sections and the settings their readers take: `[network]` (`net::policy`),
/// `[shell]` (exec_shell's sandbox), `[history]` (checkpoints, `history::Settings`) and
/// `[web_search]` (its provider) and `[search]` (search_code's embedding model).
const SECTIONS: [(&str, &[&str]); 6] = [
    ("network", &["default", "allow", "deny", "trusted_cidrs"]),
    ("shell", &["sandbox", "writable"]),
    ("history", &["max_checkpoints", "max_bytes", "shell"]),
    ("web_search", &["provider", "endpoint"]),
    ("search", &["model", "ranking"]),
    // Read and checked by the tool profile, which reports its own problems.
    ("tools", &[]),
];

#[derive(Debug, Clone, Default)]
pub struct Config {
    table: toml::Table,
}

impl Config {
    /// Loads `config.toml` from the state directory; a missing file is an empty config. A file
    /// that does not parse is an error (rather than silently dropping, say, a deny list).
    pub fn load(state_dir: &Path) -> Result<Config, ToolError> {
        let path = state_dir.join("config.toml");
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(err) => return Err(ToolError::io(".codesmith/config.toml", "read", &err)),
        };
        // A broken file is a problem of the workspace's state, not of the call's arguments, so
        // it is an io_error (exit 1), not invalid_arguments (exit 2, reserved for usage).
        let table = text.parse::<toml::Table>().map_err(|err| {
            let line = err
                .span()
                .and_then(|span| text.get(..span.start))
                .map(|before| before.matches('\n').count() + 1);
            ToolError::config_unparsable(line, err.message().trim_end())
        })?;
        Ok(Config { table })
    }

    /// What in the file is not read by anything: unknown sections, unknown keys of a known
    /// section, a known section that is not a table. One sentence each, for notices; a misspelt
    /// key would otherwise be ignored without a word. (Values of known keys are checked by their
    /// reader.)
    pub fn problems(&self) -> Vec<Notice> {
        let mut problems = Vec::new();
        let sections: Vec<&'static str> = SECTIONS.iter().map(|(name, _)| *name).collect();
        for (key, value) in &self.table {
            if key == "tools" {
                continue;
            }
            let Some((section, keys)) = SECTIONS.iter().find(|(name, _)| name == key) else {
                problems.push(
                    ConfigNotice::UnknownSection {
                        key: key.clone(),
                        sections: sections.clone(),
                    }
                    .into(),
                );
                continue;
            };
            let toml::Value::Table(table) = value else {
                problems.push(ConfigNotice::NotASection { section }.into());
                continue;
            };
            for key in table.keys() {
                if !keys.contains(&key.as_str()) {
                    problems.push(
                        ConfigNotice::UnknownSetting {
                            section,
                            key: key.clone(),
                            settings: keys.to_vec(),
                        }
                        .into(),
                    );
                }
            }
        }
        problems
    }

    pub fn from_table(table: toml::Table) -> Config {
        Config { table }
    }

    /// A top-level entry as written, whatever its type (for a reader that reports a section
    /// that is not a table itself).
    pub fn entry(&self, name: &str) -> Option<&toml::Value> {
        self.table.get(name)
    }

    /// A top-level section such as `network`, if present and a table.
    pub fn section(&self, name: &str) -> Option<&toml::Table> {
        self.table.get(name).and_then(toml::Value::as_table)
    }
}
