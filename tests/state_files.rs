//! State files under `.codesmith/` that do not parse: never silently dropped or overwritten.

use serde_json::json;

use crate::harness::Ws;

fn pending_id(ws: &Ws) -> String {
    let out = ws.run(&["shell", "git push --force"]).err("approval_required");
    out.error()["approval"]["id"].as_str().unwrap().to_string()
}

#[test]
fn a_trust_json_that_does_not_parse_is_reported_and_never_rewritten() {
    let ws = Ws::new();
    let outside = tempfile::tempdir().unwrap();
    let dir = outside.path().canonicalize().unwrap();
    let dir = dir.to_str().unwrap();
    let corrupt = format!("[\"{dir}\",]");
    ws.write(".codesmith/trust.json", &corrupt);
    ws.write("a.txt", "a\n");

    // Every call that reads it says so.
    let out = ws.call("read_file", json!({"path": "a.txt"})).ok();
    let notices = out.notices();
    assert!(
        notices.iter().any(|n| n.contains(".codesmith/trust.json")
            && n.contains("no trusted paths")
            && n.contains("until it is fixed")),
        "{notices:?}"
    );
    let out = ws.run(&["trust", "list"]).ok();
    assert!(out.notices().iter().any(|n| n.contains(".codesmith/trust.json")));

    // add and remove refuse, naming the file and the parse error; the bytes stay.
    for action in ["add", "remove"] {
        let out = ws.run(&["trust", action, dir]).err("io_error");
        assert!(
            out.message().contains(".codesmith/trust.json"),
            "{}",
            out.message()
        );
        assert!(out.message().contains("trailing comma"), "{}", out.message());
        assert!(out.message().contains("Fix the file"), "{}", out.message());
        assert_eq!(ws.read_string(".codesmith/trust.json"), corrupt);
    }

    // Once fixed, the roots apply again.
    ws.write(".codesmith/trust.json", format!("[\"{dir}\"]"));
    let out = ws.run(&["trust", "list"]).ok();
    assert_eq!(out.data()["trusted"], json!([dir]));
    assert!(out.notices().is_empty());
}

#[test]
fn an_approvals_json_that_does_not_parse_is_not_overwritten_by_persist() {
    let ws = Ws::new();
    let id = pending_id(&ws);
    let corrupt = "[\"ap-000000000001\",";
    ws.write(".codesmith/approvals.json", corrupt);
    let out = ws.run(&["approve", &id, "--persist"]).err("io_error");
    assert!(
        out.message().contains(".codesmith/approvals.json"),
        "{}",
        out.message()
    );
    assert!(out.message().contains("Fix the file"), "{}", out.message());
    assert!(out
        .message()
        .contains(&format!("`{} approve {id} --persist`", ws.person())));
    assert_eq!(ws.read_string(".codesmith/approvals.json"), corrupt);
    // Every call says that the persisted approvals do not apply.
    let out = ws.call("list_dir", json!({"path": "."})).ok();
    assert!(
        out.notices()
            .iter()
            .any(|n| n.contains(".codesmith/approvals.json") && n.contains("until it is fixed")),
        "{:?}",
        out.notices()
    );
}

#[test]
fn a_session_file_that_does_not_parse_is_kept_aside_and_reported_once() {
    for corrupt in [
        "{\"cwd\": \"sub\", \"approvals\": [",
        "\u{1}garbage",
        "[]",
        "{\"cwd\": 7}",
    ] {
        let ws = Ws::new();
        ws.write("a.txt", "a\n");
        ws.write(".codesmith/sessions/default.json", corrupt);
        let out = ws.call("list_dir", json!({"path": "."})).ok();
        let notices = out.notices();
        assert!(
            notices
                .iter()
                .any(|n| n.contains(".codesmith/sessions/default.json.corrupt")
                    && n.contains("cwd")
                    && n.contains("approvals")),
            "{corrupt}: {notices:?}"
        );
        assert_eq!(
            ws.read_string(".codesmith/sessions/default.json.corrupt"),
            corrupt
        );
        // The session file is sound again, so the next call has no notice.
        let session: serde_json::Value =
            serde_json::from_slice(&ws.read(".codesmith/sessions/default.json")).unwrap();
        assert_eq!(session["cwd"], ".");
        let out = ws.call("list_dir", json!({"path": "."})).ok();
        assert!(out.notices().is_empty(), "{:?}", out.notices());
        assert_eq!(
            ws.read_string(".codesmith/sessions/default.json.corrupt"),
            corrupt
        );
    }
}

#[test]
fn approving_an_id_twice_says_it_was_already_approved() {
    let ws = Ws::new();
    let id = pending_id(&ws);
    let first = ws.run(&["approve", &id]).ok();
    assert!(first.output().starts_with(&format!("Approved {id}")));
    assert_eq!(first.data()["already_approved"], false);
    let second = ws.run(&["approve", &id]).ok();
    assert!(
        second.output().starts_with(&format!("{id} was already approved")),
        "{}",
        second.output()
    );
    assert_eq!(second.data()["already_approved"], true);
}

#[test]
fn trusting_the_root_or_a_directory_holding_the_workspace_is_refused() {
    let parent = tempfile::tempdir().unwrap();
    std::fs::create_dir(parent.path().join("ws")).unwrap();
    let ws = Ws::at(&parent.path().join("ws"));
    let holder = parent.path().canonicalize().unwrap();
    for dir in ["/", holder.to_str().unwrap()] {
        let out = ws.run(&["trust", "add", dir]).err("invalid_arguments");
        assert!(out.message().contains("narrower directory"), "{}", out.message());
        assert!(out.message().contains("workspace"), "{}", out.message());
    }
    assert!(!ws.exists(".codesmith/trust.json"));

    // A directory holding the home directory (like `/home`) is refused too.
    let other = tempfile::tempdir().unwrap();
    let homes = other.path().canonicalize().unwrap();
    std::fs::create_dir(homes.join("me")).unwrap();
    let mut cmd = ws.command(&["trust", "add", homes.to_str().unwrap()]);
    cmd.env("HOME", homes.join("me"));
    let out = crate::harness::Outcome::of(cmd).err("invalid_arguments");
    assert!(
        out.message().contains("contains the home directory"),
        "{}",
        out.message()
    );
    assert!(out.message().contains("narrower directory"), "{}", out.message());
    assert!(!ws.exists(".codesmith/trust.json"));
}

#[test]
fn empty_session_and_workspace_variables_count_as_unset() {
    let ws = Ws::new();
    ws.write("a.txt", "a\n");
    let mut cmd = std::process::Command::new(crate::harness::BIN);
    cmd.args(["read", "a.txt"])
        .current_dir(ws.path())
        .stdin(std::process::Stdio::null())
        .env("CODESMITH_SESSION", "")
        .env("CODESMITH_WORKSPACE", "");
    let out = crate::harness::Outcome::of(cmd).ok();
    assert!(out.output().contains('a'));
    // The default session recorded the read.
    assert!(ws.exists(".codesmith/sessions/default.fp"));
}

#[test]
fn a_config_that_does_not_parse_is_an_io_error_naming_the_file_and_line() {
    let ws = Ws::new();
    ws.write(
        ".codesmith/config.toml",
        "[network]\ndefault = \"ask\"\nallow = [\n",
    );
    let out = ws
        .call("fetch_url", json!({"url": "http://127.0.0.1:9/"}))
        .err("io_error");
    let message = out.message();
    assert!(
        message.contains("`.codesmith/config.toml` does not parse at line"),
        "{message}"
    );
    assert!(message.contains("fix the file"), "{message}");
    assert_eq!(out.error()["path"], ".codesmith/config.toml");
}

#[test]
fn a_file_where_a_state_directory_belongs_is_named_with_the_way_out() {
    let ws = Ws::new();
    ws.write("a.txt", "hi\n");
    ws.write(".codesmith", "");
    let out = ws
        .call("write_file", json!({"path": "b.txt", "content": "x\n"}))
        .err("io_error");
    assert!(
        out.message().starts_with("`.codesmith` is a file"),
        "{}",
        out.message()
    );
    assert!(
        out.message().contains("remove or rename `.codesmith`"),
        "{}",
        out.message()
    );
    assert!(!ws.exists("b.txt"));

    let ws = Ws::new();
    ws.write("a.txt", "hi\n");
    ws.write(".codesmith/sessions/default.fp", "");
    let out = ws.call("read_file", json!({"path": "a.txt"})).ok();
    let notices = out.notices();
    assert!(
        notices
            .iter()
            .any(|n| n.contains("remove or rename `.codesmith/sessions/default.fp`")),
        "{notices:?}"
    );
    // The edit names the broken path instead of asking for yet another read.
    let out = ws
        .call(
            "edit_file",
            json!({"path": "a.txt", "search": "hi", "replace": "ho"}),
        )
        .err("io_error");
    assert!(
        out.message()
            .contains("remove or rename `.codesmith/sessions/default.fp`"),
        "{}",
        out.message()
    );
    assert_eq!(ws.read_string("a.txt"), "hi\n");
}

#[test]
fn unknown_config_sections_and_network_keys_are_reported_when_the_policy_is_read() {
    let ws = Ws::new();
    ws.write(
        ".codesmith/config.toml",
        "[network]\ndefault = \"deny\"\nalow = [\"docs.rs\"]\n\n[netwrk]\nallow = []\n",
    );
    let out = ws
        .call("fetch_url", json!({"url": "http://127.0.0.1:9/"}))
        .err("network_denied");
    let message = out.message();
    assert!(
        message.contains("[network] has no setting `alow`; it is ignored"),
        "{message}"
    );
    assert!(
        message.contains("no section or setting `netwrk`; it is ignored"),
        "{message}"
    );
    assert_eq!(
        message.matches("Note: `.codesmith/config.toml`").count(),
        2,
        "{message}"
    );
}
