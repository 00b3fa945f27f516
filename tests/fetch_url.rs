//! fetch_url through the real binary.
//!
//! Tests that could open a connection are `#[ignore]`d and live in `netns`; the one plain test
//! `network_tests_in_a_private_namespace` re-runs this test binary under `unshare --mount --net`
//! to execute them where nothing but loopback exists (see `net_support`). Where namespaces are
//! not permitted (no root) it prints why and skips. The tests outside `netns` never get as far
//! as a connection.

use serde_json::json;

use crate::harness::Ws;
use crate::net_support::run_suite_in_namespace;

/// How many tests `netns` holds; the outer test checks they all ran.
const NETNS_TESTS: usize = 30;

#[test]
fn network_tests_in_a_private_namespace() {
    run_suite_in_namespace("fetch_url", "fetch_url::netns::", NETNS_TESTS);
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
    let out = ws
        .run(&["fetch", "http://10.1.2.3:8080/x"])
        .err("blocked_address");
    assert!(
        out.message().contains(r#"`trusted_cidrs = ["10.1.2.3/32"]`"#),
        "{}",
        out.message()
    );
    assert_eq!(out.error()["trusted_cidr"], "10.1.2.3/32");
    let out = ws.run(&["fetch", "http://[fd00::7]/"]).err("blocked_address");
    assert!(out.message().contains(r#"["fd00::7/128"]"#), "{}", out.message());
    // localhost names are refused by name; the message gives the address to use instead.
    let out = ws
        .run(&["fetch", "http://localhost:3000/api"])
        .err("blocked_address");
    let message = out.message();
    assert!(message.contains("refuses localhost names by name"), "{message}");
    assert!(
        message.contains(r#"`trusted_cidrs = ["127.0.0.1/32"]`"#),
        "{message}"
    );
    assert!(
        message.contains(r#"call fetch_url with url="http://127.0.0.1:3000/api""#),
        "{message}"
    );
    // A host that is not restricted still asks.
    ws.run(&["fetch", "http://93.184.215.14/"])
        .err("approval_required");
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
            out.message()
                .contains(&format!("Call fetch_url with url=\"{fixed}\".")),
            "{given}: {}",
            out.message()
        );
        assert_eq!(out.error()["suggestion"], fixed, "{given}");
    }
}

/// One address of every entry of the IANA IPv4 and IPv6 Special-Purpose Address Registries
/// that is not globally reachable, and of the ranges blocked besides, with the range named.
#[test]
fn every_special_purpose_entry_that_is_not_globally_reachable_is_refused() {
    let ws = Ws::new();
    for (address, range) in [
        ("0.0.0.0", "0.0.0.0/32"),
        ("0.1.2.3", "0.0.0.0/8"),
        ("10.9.8.7", "10.0.0.0/8"),
        ("100.64.1.1", "100.64.0.0/10"),
        ("127.0.0.2", "127.0.0.0/8"),
        ("169.254.169.254", "169.254.0.0/16"),
        ("172.16.5.4", "172.16.0.0/12"),
        ("192.0.0.1", "192.0.0.0/29"),
        ("192.0.0.8", "192.0.0.8/32"),
        ("192.0.0.170", "192.0.0.170/32"),
        ("192.0.0.171", "192.0.0.171/32"),
        ("192.0.0.100", "192.0.0.0/24"),
        ("192.0.2.1", "192.0.2.0/24"),
        ("192.168.1.1", "192.168.0.0/16"),
        ("198.18.0.1", "198.18.0.0/15"),
        ("198.51.100.1", "198.51.100.0/24"),
        ("203.0.113.1", "203.0.113.0/24"),
        ("240.0.0.1", "240.0.0.0/4"),
        ("255.255.255.255", "255.255.255.255/32"),
        ("224.0.0.1", "224.0.0.0/4"),
        ("[::1]", "::1/128"),
        ("[::]", "::/128"),
        ("[::ffff:808:808]", "::ffff:0.0.0.0/96"),
        ("[64:ff9b:1::808:808]", "64:ff9b:1::/48"),
        ("[100::1]", "100::/64"),
        ("[100:0:0:1::1]", "100:0:0:1::/64"),
        ("[2001:5::1]", "2001::/23"),
        ("[2001:2::1]", "2001:2::/48"),
        ("[2001:db8::1]", "2001:db8::/32"),
        ("[3fff::1]", "3fff::/20"),
        ("[5f00::1]", "5f00::/16"),
        ("[fd00::1]", "fc00::/7"),
        ("[fe80::1]", "fe80::/10"),
        ("[fec0::1]", "fec0::/10"),
        ("[ff02::1]", "ff00::/8"),
    ] {
        let out = ws
            .run(&["fetch", &format!("http://{address}/")])
            .err("blocked_address");
        assert_eq!(out.error()["range"], range, "{address}: {}", out.message());
    }
}
