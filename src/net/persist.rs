//! `codesmith approve ID --persist` for a network approval: the host joins `[network] allow` in
//! `.codesmith/config.toml`. The file belongs to a person, so it is edited in place with
//! `toml_edit`: comments, order and every other setting survive the change.

use std::path::Path;

use toml_edit::{Array, DocumentMut, Item, Table, Value};

use crate::error::ToolError;
use crate::fs::atomic::{write_atomically, WriteOptions};
use crate::fs::line_endings::{to_lf, EndingProfile, LineEnding};
use crate::net::policy::canonical;
use crate::session::state::Lock;

const CONFIG: &str = ".codesmith/config.toml";

/// Adds `host` to `[network] allow` of the workspace at `root`. Returns a sentence for the output.
pub fn allow_host(root: &Path, host: &str) -> Result<String, ToolError> {
    let host = canonical(host);
    let dir = root.join(".codesmith");
    let path = dir.join("config.toml");
    let io = |action: &str, err: &std::io::Error| ToolError::io(CONFIG, action, err);
    std::fs::create_dir_all(&dir).map_err(|err| io("create the directory of", &err))?;
    // Two approvals persisted at once must not lose one another's host.
    let _lock = Lock::exclusive(&dir.join("config.lock")).map_err(|err| io("lock", &err))?;
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(err) => return Err(io("read", &err)),
    };
    let mut doc = text
        .parse::<DocumentMut>()
        .map_err(|err| ToolError::persist_config_refused(CONFIG, &host, Some(err.message())))?;
    let network = doc.entry("network").or_insert_with(|| Item::Table(Table::new()));
    let Some(network) = network.as_table_like_mut() else {
        return Err(ToolError::persist_config_refused(CONFIG, &host, None));
    };
    let allow = network
        .entry("allow")
        .or_insert(Item::Value(Value::Array(Array::new())));
    if allow.as_array().is_none() {
        // A non-list `allow` was ignored by the policy anyway; keep its one readable host.
        let mut list = Array::new();
        if let Some(old) = allow.as_str() {
            list.push(old);
        }
        *allow = Item::Value(Value::Array(list));
    }
    let Some(list) = allow.as_array_mut() else {
        return Ok(String::new());
    };
    let present = list
        .iter()
        .any(|v| v.as_str().is_some_and(|s| canonical(s) == host));
    if present {
        return Ok(format!("`{host}` was already in [network] allow of {CONFIG}."));
    }
    list.push(host.as_str());
    // toml_edit writes the lines it adds with `\n`; a CRLF file stays CRLF throughout.
    let mut updated = doc.to_string();
    if EndingProfile::of(&text).dominant() == LineEnding::Crlf {
        updated = to_lf(&updated).replace('\n', "\r\n");
    }
    write_atomically(&path, updated.as_bytes(), WriteOptions::USER_FILE).map_err(|err| io("write", &err))?;
    Ok(format!("Added `{host}` to [network] allow in {CONFIG}."))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(initial: Option<&str>, host: &str) -> (String, String) {
        let dir = tempfile::tempdir().expect("tempdir");
        if let Some(text) = initial {
            std::fs::create_dir_all(dir.path().join(".codesmith")).expect("mkdir");
            std::fs::write(dir.path().join(".codesmith/config.toml"), text).expect("write");
        }
        let sentence = allow_host(dir.path(), host).expect("allow_host");
        let text = std::fs::read_to_string(dir.path().join(".codesmith/config.toml")).expect("read");
        (sentence, text)
    }

    #[test]
    fn creates_the_file() {
        let (sentence, text) = run(None, "Docs.RS.");
        assert!(sentence.contains("Added `docs.rs`"));
        assert_eq!(text, "[network]\nallow = [\"docs.rs\"]\n");
    }

    #[test]
    fn keeps_comments_and_other_settings() {
        let initial = "# my settings\n[limits]\nx = 1 # keep\n\n[network]\ndefault = \"deny\" # strict\n\
                       allow = [\"a.com\"]\ndeny = [\"evil.com\"]\n";
        let (_, text) = run(Some(initial), "b.com");
        assert_eq!(
            text,
            "# my settings\n[limits]\nx = 1 # keep\n\n[network]\ndefault = \"deny\" # strict\n\
             allow = [\"a.com\", \"b.com\"]\ndeny = [\"evil.com\"]\n"
        );
    }

    #[test]
    fn keeps_crlf_line_endings() {
        let initial = "# team\r\n[network]\r\ndefault = \"prompt\"\r\n";
        let (_, text) = run(Some(initial), "b.com");
        assert_eq!(
            text,
            "# team\r\n[network]\r\ndefault = \"prompt\"\r\nallow = [\"b.com\"]\r\n"
        );
        let (_, text) = run(Some("[network]\r\nallow = [\"a.com\"]\r\n"), "b.com");
        assert_eq!(text, "[network]\r\nallow = [\"a.com\", \"b.com\"]\r\n");
    }

    #[test]
    fn adding_twice_is_a_no_op() {
        let initial = "[network]\nallow = [\"a.com\"]\n";
        let (sentence, text) = run(Some(initial), "A.com.");
        assert!(sentence.contains("already"));
        assert_eq!(text, initial);
    }

    #[test]
    fn a_malformed_allow_becomes_a_list() {
        let (_, text) = run(Some("[network]\nallow = 5\n"), "a.com");
        assert_eq!(text, "[network]\nallow = [\"a.com\"]\n");
        let (_, text) = run(Some("network.allow = \"x.com\"\n"), "a.com");
        assert!(text.contains("[\"x.com\", \"a.com\"]"), "{text}");
    }

    #[test]
    fn refuses_a_broken_file_untouched() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join(".codesmith")).expect("mkdir");
        std::fs::write(dir.path().join(".codesmith/config.toml"), "[network\n").expect("write");
        let err = allow_host(dir.path(), "a.com").expect_err("broken");
        assert!(err.message().contains("does not parse"));
        let text = std::fs::read_to_string(dir.path().join(".codesmith/config.toml")).expect("read");
        assert_eq!(text, "[network\n");
        let err = {
            std::fs::write(dir.path().join(".codesmith/config.toml"), "network = 3\n").expect("write");
            allow_host(dir.path(), "a.com").expect_err("not a table")
        };
        assert!(err.message().contains("not a table"));
    }
}
