//! `[shell]` in config.toml, read defensively.

use std::path::{Path, PathBuf};

use crate::sandbox::Mode;
use crate::session::config::Config;

/// `[shell]`, read defensively: an unknown mode is `required` (a typo never turns the sandbox
/// off) and a `writable` entry that is not an existing absolute directory is dropped.
#[derive(Debug, Clone)]
pub struct ShellSettings {
    pub mode: Mode,
    pub writable: Vec<PathBuf>,
    /// Variables that look like credentials but are passed to commands all the same.
    pub pass_env: Vec<String>,
    /// Sockets (or other paths) in the hidden daemons' directories that commands may reach.
    pub sockets: Vec<PathBuf>,
    pub problems: Vec<String>,
}

impl ShellSettings {
    pub fn load(config: Option<&Config>, root: &Path) -> ShellSettings {
        let mut settings = ShellSettings {
            mode: Mode::Auto,
            writable: Vec::new(),
            pass_env: Vec::new(),
            sockets: Vec::new(),
            problems: Vec::new(),
        };
        let Some(shell) = config.and_then(|c| c.section("shell")) else {
            return settings;
        };
        match shell.get("sandbox") {
            None => {}
            Some(toml::Value::String(mode)) if mode == "auto" => {}
            Some(toml::Value::String(mode)) if mode == "required" => settings.mode = Mode::Required,
            Some(toml::Value::String(mode)) if mode == "off" => settings.mode = Mode::Off,
            Some(other) => {
                settings.mode = Mode::Required;
                settings.problems.push(format!(
                    "[shell] sandbox = {other} is not \"auto\", \"required\" or \"off\"; it is read as \
                     \"required\""
                ));
            }
        }
        for entry in list(shell, "writable", "directories", &mut settings.problems) {
            match writable_entry(&entry, root) {
                Ok(dir) => settings.writable.push(dir),
                Err(problem) => settings.problems.push(problem.to_string()),
            }
        }
        for entry in list(shell, "pass_env", "variable names", &mut settings.problems) {
            match entry {
                toml::Value::String(name) => settings.pass_env.push(name),
                other => settings.problems.push(format!(
                    "[shell] pass_env entry {other} is not a string; it is ignored"
                )),
            }
        }
        for entry in list(shell, "sockets", "socket paths", &mut settings.problems) {
            match socket_entry(&entry) {
                Ok(path) => settings.sockets.push(path),
                Err(problem) => settings.problems.push(problem.to_string()),
            }
        }
        settings
    }
}

/// The entries of the list `[shell] key`; a value that is not a list is a problem, ignored.
fn list(shell: &toml::Table, key: &str, what: &str, problems: &mut Vec<String>) -> Vec<toml::Value> {
    match shell.get(key) {
        None => Vec::new(),
        Some(toml::Value::Array(entries)) => entries.clone(),
        Some(other) => {
            problems.push(format!(
                "[shell] {key} = {other} is not a list of {what}; it is ignored"
            ));
            Vec::new()
        }
    }
}

/// An entry of a `[shell]` path list (`sockets`, `writable`) that is ignored, and why.
#[derive(Debug, thiserror::Error)]
enum PathEntryProblem {
    #[error("[shell] {list} entry {entry} is not a string; it is ignored")]
    NotAString { list: &'static str, entry: toml::Value },
    #[error("[shell] {list} entry \"{text}\" is not an absolute path; it is ignored")]
    NotAbsolute { list: &'static str, text: String },
    #[error("[shell] {list} entry \"{text}\" does not exist; it is ignored")]
    Missing { list: &'static str, text: String },
    #[error("[shell] writable entry \"{text}\" is not a directory; it is ignored")]
    NotADirectory { text: String },
    #[error(
        "[shell] writable entry \"{text}\" is the filesystem root or holds the workspace; it is ignored"
    )]
    HoldsWorkspace { text: String },
}

/// The text of a `[shell] list` entry, which names an absolute path.
fn absolute_entry<'a>(list: &'static str, entry: &'a toml::Value) -> Result<&'a str, PathEntryProblem> {
    let toml::Value::String(text) = entry else {
        return Err(PathEntryProblem::NotAString {
            list,
            entry: entry.clone(),
        });
    };
    if !Path::new(text).is_absolute() {
        return Err(PathEntryProblem::NotAbsolute {
            list,
            text: text.clone(),
        });
    }
    Ok(text)
}

/// One `[shell] sockets` entry: an absolute path, resolved (a socket reached through a link,
/// such as `/var/run/docker.sock`, is granted where it really is).
fn socket_entry(entry: &toml::Value) -> Result<PathBuf, PathEntryProblem> {
    let text = absolute_entry("sockets", entry)?;
    Path::new(text)
        .canonicalize()
        .map_err(|_| PathEntryProblem::Missing {
            list: "sockets",
            text: text.to_string(),
        })
}

/// One `[shell] writable` entry: an existing absolute directory that neither is `/` nor holds
/// the workspace.
fn writable_entry(entry: &toml::Value, root: &Path) -> Result<PathBuf, PathEntryProblem> {
    let text = absolute_entry("writable", entry)?;
    let Ok(dir) = Path::new(text).canonicalize() else {
        return Err(PathEntryProblem::Missing {
            list: "writable",
            text: text.to_string(),
        });
    };
    if !dir.is_dir() {
        return Err(PathEntryProblem::NotADirectory {
            text: text.to_string(),
        });
    }
    if dir.parent().is_none() || root.starts_with(&dir) {
        return Err(PathEntryProblem::HoldsWorkspace {
            text: text.to_string(),
        });
    }
    Ok(dir)
}
