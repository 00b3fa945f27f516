//! What error texts and the audit log carry: secrets redacted in every spelling, refusals
//! recorded, causes named.

use serde_json::json;

use crate::harness::Ws;
use std::time::{Duration, Instant};

use crate::net_support::{assert_private_namespace, audit_lines, config, html, redirect, Reply, Server};

use super::{fetch, TRUSTED};

/// Secret forms, each with a piece that must not survive (the second element).
const SECRETS: &[(&str, &str)] = &[
    ("h=Bearer%20abc123def", "abc123def"),
    ("h2=Bearer+abcdefghij", "abcdefghij"),
    ("authorization=Bearer%20tok4567", "tok4567"),
    ("q=x%20sk-abcdefghijkl", "abcdefghijkl"),
    ("q2=id_sk-abcdef0123456789xyz", "abcdef0123456789xyz"),
    ("s=sk_live_abcdefgh1234", "abcdefgh1234"),
    ("f=hf_abcdefghijklmnopqrstuvwxyz", "hf_abcdefghijklmnop"),
    ("n=npm_abcdefghijklmnopqrstuvwxyz0123", "npm_abcdefghijklmnop"),
    ("aws_secret_access_key=wJalrXUtnFEMI", "wJalrXUtnFEMI"),
    ("SECRET_KEY=topsecret99", "topsecret99"),
    (
        "pk=-----BEGIN%20RSA%20PRIVATE%20KEY-----MIIEowIBAAK",
        "MIIEowIBAAK",
    ),
    ("g=ghp_abcdefghij0123456789", "ghp_abcdefghij"),
    ("o=gho_abcdefghij0123456789", "gho_abcdefghij"),
    ("p=github_pat_11ABCDEFG_xyz012345", "github_pat_11"),
    ("sl=xoxb-1234-abcdefgh", "xoxb-1234"),
    ("gk=AIzaSyA-abcdefghijklmnopqrstuvwxyz123", "AIzaSyA-abcdef"),
    ("j=eyJhbGciOiJI.eyJzdWIiOiIx.c2lnbmF0dXJl", "eyJzdWIiOiIx"),
    ("Token=tokval1", "tokval1"),
    ("KEY=keyval2", "keyval2"),
    ("Signature=sigval3", "sigval3"),
    ("auth=authval4", "authval4"),
    ("PassWord=pwval5", "pwval5"),
    ("secret=secval6", "secval6"),
    ("passphrase=ppval7", "ppval7"),
    ("sessionid=sessval8", "sessval8"),
    ("session=sessval9", "sessval9"),
    ("cookie=cookval10", "cookval10"),
    (
        "sg=SG.abcdefghijklmnopqrstuv.ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefg",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    ),
    ("y=ya29.a0AfH6SMBxyz0123456789", "a0AfH6SMBxyz"),
    ("q3=%2573k-zyxwvutsrqpo9876", "zyxwvutsrqpo9876"),
];

#[test]
#[ignore = "runs inside a private network namespace"]
fn secrets_in_locations_are_redacted_in_errors_and_the_audit_log() {
    assert_private_namespace();
    let query: Vec<&str> = SECRETS.iter().map(|(pair, _)| *pair).collect();
    let location = format!("ftp://files.test/x?{}", query.join("&"));
    let server = Server::start("127.0.0.2", move |path, _| match path {
        "/leak" => redirect(302, &location),
        _ => redirect(302, "/leak"),
    });
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    let out = fetch(&ws, &server.url("/leak")).err("network_denied");
    let log = std::fs::read_to_string(ws.path().join(".codesmith/audit.log")).expect("audit.log");
    for (pair, secret) in SECRETS {
        assert!(!out.message().contains(secret), "{pair}: {}", out.message());
        assert!(!out.stdout.contains(secret), "{pair}: {}", out.stdout);
        assert!(!log.contains(secret), "{pair}: {log}");
    }
    assert!(out.message().contains("[REDACTED]"), "{}", out.message());
    // Innocent parameters and words stay.
    let out = ws
        .call(
            "fetch_url",
            json!({"url": server.url("/x?page=2&disk-partitioning=on&token=t0k")}),
        )
        .err("network_denied");
    let lines = audit_lines(&ws.path());
    let first = lines
        .iter()
        .find(|l| l["url"].as_str().is_some_and(|u| u.contains("page=2")))
        .expect("the first hop is logged");
    assert!(
        first["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("?page=2&disk-partitioning=on&token=[REDACTED]")),
        "{first}"
    );
    assert!(!out.message().contains("t0k"), "{}", out.message());
}

fn broken_site() -> Server {
    Server::start("127.0.0.2", |path, _| match path {
        "/bad-gzip" => Reply::Full(
            200,
            vec![
                ("Content-Type".into(), "text/plain".into()),
                ("Content-Encoding".into(), "gzip".into()),
            ],
            b"this is not gzip at all, not even close".to_vec(),
        ),
        "/big-headers" => Reply::Full(
            200,
            vec![("X-Filler".into(), "f".repeat(70 * 1024))],
            b"unread".to_vec(),
        ),
        "/long" => Reply::Full(
            200,
            vec![("Content-Type".into(), "text/plain".into())],
            "a".repeat(300_000).into_bytes(),
        ),
        _ => redirect(302, "/long"),
    })
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn broken_answers_are_named_for_what_they_are() {
    assert_private_namespace();
    let server = broken_site();
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    let retry_later = "the server is down or unreachable";
    let out = fetch(&ws, &server.url("/bad-gzip")).err("io_error");
    assert!(
        out.message()
            .contains("gzip-compressed (Content-Encoding) but does not decompress"),
        "{}",
        out.message()
    );
    assert!(out.message().contains("use another source"), "{}", out.message());
    assert!(!out.message().contains(retry_later), "{}", out.message());
    let out = fetch(&ws, &server.url("/big-headers")).err("io_error");
    assert!(
        out.message().contains("response headers") && out.message().contains("limit is 64 KB"),
        "{}",
        out.message()
    );
    assert!(!out.message().contains(retry_later), "{}", out.message());
    // An https URL at a plain-HTTP port.
    let https = server.url("/page").replacen("http://", "https://", 1);
    let out = fetch(&ws, &https).err("io_error");
    assert!(
        out.message().contains("may not speak HTTPS at that port"),
        "{}",
        out.message()
    );
    assert!(
        out.message()
            .contains(&format!("call fetch_url with url=\"{}\"", server.url("/page"))),
        "{}",
        out.message()
    );
    assert!(!out.message().contains(retry_later), "{}", out.message());
    // Nothing listening: that one is worth a later try.
    let out = fetch(&ws, "http://127.0.0.2:9/").err("io_error");
    assert!(out.message().contains(retry_later), "{}", out.message());
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn the_truncation_survives_the_output_cap() {
    assert_private_namespace();
    let server = broken_site();
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    let url = server.url("/long");
    let out = ws
        .call("fetch_url", json!({"url": url, "max_bytes": 200_000}))
        .ok();
    assert_eq!(out.data()["truncated"], true);
    // The output is over the envelope's cap, so its end (and the [truncated] line) is spilled.
    assert!(
        out.output().contains(".codesmith/spill/"),
        "the output was not capped"
    );
    assert!(
        !out.output().contains("[truncated: the body"),
        "the output was not capped"
    );
    let notices = out.notices();
    assert_eq!(
        notices.first().map(String::as_str),
        Some(
            format!(
                "truncated: the body is longer than max_bytes=200000; only its first 200000 bytes \
                 were read. To read more, call fetch_url with url=\"{url}\" max_bytes=800000."
            )
            .as_str()
        ),
        "{notices:?}"
    );
}

fn deep_site() -> Server {
    Server::start("127.0.0.2", |path, _| match path {
        "/deep-div" => html(200, &format!("{}x", "<div>".repeat(10_000))),
        "/deep-b" => html(200, &format!("{}x", "<b>".repeat(20_000))),
        "/deep-li" => html(200, &format!("{}x", "<ul><li>".repeat(5_000))),
        "/deep-huge" => html(200, &format!("{}x", "<div>".repeat(300_000))),
        "/deep-json" => Reply::Full(
            200,
            vec![("Content-Type".into(), "application/json".into())],
            format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes(),
        ),
        _ => html(404, "<p>no such page</p>"),
    })
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn deeply_nested_pages_fall_back_to_text() {
    assert_private_namespace();
    let server = deep_site();
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    for path in ["/deep-div", "/deep-b", "/deep-li", "/deep-huge"] {
        let started = Instant::now();
        let out = fetch(&ws, &server.url(path)).ok();
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{path}: {:?}",
            started.elapsed()
        );
        assert_eq!(out.data()["format"], "text", "{path}");
        assert!(out.output().ends_with('x'), "{path}: {}", out.output());
        assert!(
            out.output().contains("shown as plain text"),
            "{path}: {}",
            out.output()
        );
        assert!(
            out.notices()
                .iter()
                .any(|n| n.contains("levels deep") && n.contains("format=\"text\"")),
            "{path}: {:?}",
            out.notices()
        );
    }
    // serde_json stops at 128 levels: the body comes back as sent.
    let out = fetch(&ws, &server.url("/deep-json")).ok();
    assert_eq!(out.data()["format"], "raw");
    assert!(out.output().contains("\n\n[[[[[[[["), "the body is missing");
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn every_spelling_of_a_denied_address_is_denied() {
    assert_private_namespace();
    let server = Server::start("127.0.0.1", |_, _| html(200, "<p>reached</p>"));
    let port = server.addr.port();
    let ws = Ws::new();
    config(
        &ws.path(),
        "[network]\ndefault = \"allow\"\ndeny = [\"127.0.0.1\"]\ntrusted_cidrs = [\"127.0.0.0/8\"]\n",
    );
    for host in [
        "127.0.0.1",
        "[::ffff:127.0.0.1]",
        "[::ffff:7f00:1]",
        "[0:0:0:0:0:FFFF:7F00:1]",
        "2130706433",
        "0x7f.1",
        "127.1",
        "0177.0.0.1",
    ] {
        let out = fetch(&ws, &format!("http://{host}:{port}/")).err("network_denied");
        assert!(
            out.message()
                .starts_with("network call to '127.0.0.1' blocked by network policy"),
            "{host}: {}",
            out.message()
        );
        assert!(
            out.message().contains("removing it from `deny`"),
            "{}",
            out.message()
        );
    }
    assert_eq!(server.connections(), 0, "a denied address was reached");
    // Under prompt, the approval and --persist name the IPv4 address, never the mapped form.
    let settings =
        "[network]\ndefault = \"prompt\"\ndeny = [\"127.0.0.2\"]\ntrusted_cidrs = [\"127.0.0.0/8\"]\n";
    config(&ws.path(), settings);
    fetch(&ws, &format!("http://[::ffff:7f00:2]:{port}/")).err("network_denied");
    let out = fetch(&ws, &format!("http://[::ffff:7f00:3]:{port}/")).err("approval_required");
    assert_eq!(out.error()["approval"]["subject"], "127.0.0.3");
    let id = out.error()["approval"]["id"].as_str().expect("id").to_string();
    ws.run(&["approve", &id, "--persist"]).ok();
    assert_eq!(
        ws.read_string(".codesmith/config.toml"),
        format!("{settings}allow = [\"127.0.0.3\"]\n")
    );
    // The persisted entry allows every spelling of that address.
    let out = fetch(&ws, &format!("http://0x7f.0.0.3:{port}/")).err("io_error");
    assert!(out.message().contains("refused"), "{}", out.message());
    assert_eq!(server.connections(), 0);
}
