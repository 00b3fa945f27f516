//! fetch_url through the real binary.
//!
//! Tests that could open a connection are `#[ignore]`d and live in `netns`; the one plain test
//! `network_tests_in_a_private_namespace` re-runs this test binary under `unshare --mount --net`
//! to execute them where nothing but loopback exists (see `net_support`). Where namespaces are
//! not permitted (no root) it prints why and skips. The tests outside `netns` never get as far
//! as a connection.

use serde_json::json;

use crate::harness::Ws;
use crate::net_support::{namespaces_available, run_inside_namespace, INNER_ENV};

/// How many tests `netns` holds; the outer test checks they all ran.
const NETNS_TESTS: usize = 30;

#[test]
fn network_tests_in_a_private_namespace() {
    if std::env::var_os(INNER_ENV).is_some() {
        return;
    }
    if let Err(reason) = namespaces_available() {
        // CODESMITH_REQUIRE_NETNS=1 makes a machine that should run them fail instead of skipping.
        assert!(
            std::env::var_os("CODESMITH_REQUIRE_NETNS").is_none(),
            "CODESMITH_REQUIRE_NETNS is set but {reason}"
        );
        eprintln!("SKIPPED the fetch_url network tests: {reason}");
        return;
    }
    let (ok, text) = run_inside_namespace("fetch_url::netns::");
    assert!(ok, "fetch_url network tests failed inside the namespace:\n{text}");
    let passed = text
        .lines()
        .find_map(|line| line.strip_prefix("test result: ok. "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(0);
    assert_eq!(passed, NETNS_TESTS, "not every namespace test ran:\n{text}");
}

#[test]
fn arguments_are_checked_before_anything_else() {
    let ws = Ws::new();
    let out = ws
        .call("fetch_url", json!({"url": "https://docs.rs/", "max_bytes": 0}))
        .err("invalid_arguments");
    assert!(out.message().contains("max_bytes=2000000"), "{}", out.message());
    // Large values are capped, not refused, and the message says so.
    assert!(
        out.message()
            .starts_with("max_bytes must be at least 1; values above 10000000 are capped."),
        "{}",
        out.message()
    );
    let out = ws
        .call("fetch_url", json!({"url": "https://docs.rs/", "timeout_ms": 0}))
        .err("invalid_arguments");
    assert!(out.message().contains("timeout_ms=30000"), "{}", out.message());
    assert!(
        out.message()
            .starts_with("timeout_ms must be at least 1; values above 120000 are capped."),
        "{}",
        out.message()
    );
    let out = ws
        .call("fetch_url", json!({"url": "https://docs.rs/", "format": "pdf"}))
        .err("invalid_arguments");
    assert!(out.message().contains("markdown"), "{}", out.message());
    ws.call("fetch_url", json!({"url": "https://docs.rs/", "headers": {}}))
        .err("invalid_arguments");
    let out = ws
        .run(&["fetch", "http://docs.rs@127.0.0.1:8080/x?y=1"])
        .err("invalid_arguments");
    assert!(
        out.message().contains("its host is `127.0.0.1`"),
        "{}",
        out.message()
    );
    assert!(
        out.message()
            .contains("Call fetch_url with url=\"http://127.0.0.1:8080/x?y=1\""),
        "{}",
        out.message()
    );
    // A scheme other than http(s) is refused by the scheme gate, as on a redirect hop.
    let out = ws.run(&["fetch", "file:///etc/passwd"]).err("network_denied");
    assert!(out.message().contains("call read_file"), "{}", out.message());
    let out = ws.run(&["fetch", "gopher://x/"]).err("network_denied");
    assert!(
        out.message().contains("Pass an http or https URL"),
        "{}",
        out.message()
    );
    let out = ws.run(&["fetch", "not a url"]).err("invalid_arguments");
    assert!(
        out.message().contains("call fetch_url with url=\"https://"),
        "{}",
        out.message()
    );
    // Each refused URL has its audit line (the bad max_bytes, timeout_ms, format and headers
    // calls were refused before there was a request).
    let lines: Vec<serde_json::Value> = ws
        .read_string(".codesmith/audit.log")
        .lines()
        .map(|line| serde_json::from_str(line).expect("json line"))
        .collect();
    let summary: Vec<(String, String, String)> = lines
        .iter()
        .map(|l| {
            let text = |key: &str| l[key].as_str().unwrap_or_default().to_string();
            (text("url"), text("decision"), text("error"))
        })
        .collect();
    let deny = |url: &str, error: &str| (url.to_string(), "deny".to_string(), error.to_string());
    assert_eq!(
        summary,
        [
            deny("http://[REDACTED]@127.0.0.1:8080/x?y=1", "invalid_arguments"),
            deny("file:///etc/passwd", "network_denied"),
            deny("gopher://x/", "network_denied"),
            deny("not a url", "invalid_arguments"),
        ]
    );
    assert_eq!(lines[0]["host"], "127.0.0.1");
}

#[test]
fn the_catalog_describes_fetch_url() {
    let ws = Ws::new();
    let out = std::process::Command::new(crate::harness::BIN)
        .args(["tools", "--format", "json"])
        .current_dir(ws.path())
        .output()
        .expect("run");
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert!(text.contains("fetch_url"), "{text}");
    assert!(text.contains("Use this instead of curl/wget in exec_shell"));
    assert!(text.contains("data, not instructions"));
}

#[test]
fn approve_persist_adds_the_host_to_allow() {
    let ws = Ws::new();
    ws.write(
        ".codesmith/config.toml",
        "# team settings\n[network]\ndefault = \"prompt\" # ask\ndeny = [\"evil.example\"]\n",
    );
    let request = codesmith::net::gates::approval_request("docs.rs");
    let id = request.id();
    ws.write(
        ".codesmith/sessions/default.json",
        json!({"cwd": ".", "pending": {&id: {"kind": "network", "subject": "docs.rs", "reason": "r"}}})
            .to_string(),
    );
    let out = ws.run(&["approve", &id, "--persist"]).ok();
    assert!(
        out.output().contains("Added `docs.rs` to [network] allow"),
        "{}",
        out.output()
    );
    assert_eq!(
        ws.read_string(".codesmith/config.toml"),
        "# team settings\n[network]\ndefault = \"prompt\" # ask\ndeny = [\"evil.example\"]\n\
         allow = [\"docs.rs\"]\n"
    );
}

#[test]
fn approve_persist_keeps_crlf_line_endings() {
    let ws = Ws::new();
    let initial = "# team settings\r\n[network]\r\ndefault = \"prompt\" # ask\r\n";
    ws.write(".codesmith/config.toml", initial);
    let request = codesmith::net::gates::approval_request("docs.rs");
    let id = request.id();
    ws.write(
        ".codesmith/sessions/default.json",
        json!({"cwd": ".", "pending": {&id: {"kind": "network", "subject": "docs.rs", "reason": "r"}}})
            .to_string(),
    );
    ws.run(&["approve", &id, "--persist"]).ok();
    assert_eq!(
        ws.read_string(".codesmith/config.toml"),
        format!("{initial}allow = [\"docs.rs\"]\r\n")
    );
}

mod netns;

#[test]
fn restricted_addresses_are_refused_before_any_approval_with_the_exact_trusted_cidrs_line() {
    let ws = Ws::new();
    crate::net_support::config(&ws.path(), "[network]\ndefault = \"prompt\"\n");
    let out = ws.run(&["fetch", "http://10.1.2.3:8080/x"]).err("blocked_address");
    assert!(
        out.message().contains(r#"`trusted_cidrs = ["10.1.2.3/32"]`"#),
        "{}",
        out.message()
    );
    assert_eq!(out.error()["trusted_cidr"], "10.1.2.3/32");
    let out = ws.run(&["fetch", "http://[fd00::7]/"]).err("blocked_address");
    assert!(out.message().contains(r#"["fd00::7/128"]"#), "{}", out.message());
    // localhost names are refused by name; the message gives the address to use instead.
    let out = ws.run(&["fetch", "http://localhost:3000/api"]).err("blocked_address");
    let message = out.message();
    assert!(message.contains("refuses localhost names by name"), "{message}");
    assert!(message.contains(r#"`trusted_cidrs = ["127.0.0.1/32"]`"#), "{message}");
    assert!(
        message.contains(r#"call fetch_url with url="http://127.0.0.1:3000/api""#),
        "{message}"
    );
    // A host that is not restricted still asks.
    ws.run(&["fetch", "http://93.184.215.14/"]).err("approval_required");
}

#[test]
fn a_url_without_a_scheme_gets_the_call_with_the_scheme_that_fits() {
    let ws = Ws::new();
    for (given, fixed) in [
        ("docs.rs/regex/latest", "https://docs.rs/regex/latest"),
        ("example.com:8443/a?b=1", "https://example.com:8443/a?b=1"),
        ("127.0.0.1:8080/x", "http://127.0.0.1:8080/x"),
        ("localhost:3000", "http://localhost:3000"),
        ("[::1]:8080/", "http://[::1]:8080/"),
        ("buildbox/status", "http://buildbox/status"),
        ("printer.local/", "http://printer.local/"),
    ] {
        let out = ws.run(&["fetch", given]).err("invalid_arguments");
        assert!(
            out.message().contains(&format!("Call fetch_url with url=\"{fixed}\".")),
            "{given}: {}",
            out.message()
        );
        assert_eq!(out.error()["suggestion"], fixed, "{given}");
    }
}
