//! `.codesmith/config.toml`: optional workspace settings (the network policy, limits).
//!
//! This module only loads the file. Each mechanism interprets its own section (`[network]` in
//! `net::policy`), and does so defensively: an unknown or mistyped value never widens what
//! codesmith allows.

use std::path::Path;

use crate::error::{ErrorCode, ToolError};

/// The settings `net::policy` reads from `[network]`.
const NETWORK_KEYS: [&str; 4] = ["default", "allow", "deny", "trusted_cidrs"];

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
                .map(|before| format!(" at line {}", before.matches('\n').count() + 1))
                .unwrap_or_default();
            ToolError::new(
                ErrorCode::IoError,
                format!(
                    "`.codesmith/config.toml` does not parse{line}: {}. Nothing was done. Ask the \
                     user to fix the file (see `man codesmith`, CONFIGURATION), then call again.",
                    err.message().trim_end()
                ),
            )
            .with("path", ".codesmith/config.toml")
        })?;
        Ok(Config { table })
    }

    /// What in the file is not read by anything: unknown sections, unknown `[network]` keys, a
    /// `network` that is not a section. One sentence each, for notices; a misspelt key would
    /// otherwise be ignored without a word. (Values of known keys are checked by their reader.)
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (key, value) in &self.table {
            match (key.as_str(), value) {
                ("network", toml::Value::Table(network)) => {
                    for key in network.keys() {
                        if !NETWORK_KEYS.contains(&key.as_str()) {
                            problems.push(format!(
                                "`.codesmith/config.toml`: [network] has no setting `{key}`; it is \
                                 ignored (the settings are {}).",
                                NETWORK_KEYS.join(", ")
                            ));
                        }
                    }
                }
                ("network", _) => problems.push(
                    "`.codesmith/config.toml`: `network` is not a [network] section; it is ignored."
                        .to_string(),
                ),
                ("tools", _) => problems.extend(crate::profile::config_problems(value)),
                (key, _) => problems.push(format!(
                    "`.codesmith/config.toml`: there is no section or setting `{key}`; it is ignored \
                     (the sections are [network] and [tools])."
                )),
            }
        }
        problems
    }

    pub fn from_table(table: toml::Table) -> Config {
        Config { table }
    }

    /// A top-level section such as `network`, if present and a table.
    pub fn section(&self, name: &str) -> Option<&toml::Table> {
        self.table.get(name).and_then(toml::Value::as_table)
    }
}
