//! Tests that open (or must prove they never open) connections. They run only inside the
//! private network namespace made by `fetch_url::network_tests_in_a_private_namespace`.

mod hardening;
mod refused;
mod responses;

use std::time::{Duration, Instant};

use serde_json::json;

use crate::harness::{Outcome, Ws};
use crate::net_support::{
    assert_private_namespace, audit_lines, config, html, redirect, Reply, Server, Trap,
};

pub(super) const TRUSTED: &str = "[network]\ndefault = \"allow\"\ntrusted_cidrs = [\"127.0.0.2/32\"]\n";

pub(super) fn fetch(ws: &Ws, url: &str) -> Outcome {
    ws.call("fetch_url", json!({ "url": url }))
}

fn site() -> Server {
    Server::start("127.0.0.2", |path, addr| {
        let port = addr.port();
        match path {
            "/page" => html(
                200,
                "<html><head><title>T</title><style>body{color:red}</style></head><body>\
                 <h1>Release notes</h1><p>Read <a href=\"https://docs.rs/x\">the docs</a> \
                 and <em>enjoy</em>.</p><script>steal()</script><ul><li><a href=\"gone\">one</a></li><li>two</li></ul>\
                 <pre><code>cargo build</code></pre></body></html>",
            ),
            "/gone" => html(404, "<h1>Gone</h1><p>This page was removed.</p>"),
            "/boom" => html(500, "<p>internal trouble</p>"),
            "/json" => Reply::Full(
                200,
                vec![("Content-Type".into(), "application/json".into())],
                br#"{"name":"codesmith","tags":["a","b"]}"#.to_vec(),
            ),
            "/latin1" => Reply::Full(
                200,
                vec![("Content-Type".into(), "text/plain; charset=iso-8859-1".into())],
                b"caf\xe9 cr\xe8me".to_vec(),
            ),
            "/utf8" => Reply::Full(
                200,
                vec![("Content-Type".into(), "text/plain; charset=utf-8".into())],
                "aé€😀".repeat(100).into_bytes(),
            ),
            "/png" => Reply::Full(
                200,
                vec![("Content-Type".into(), "image/png".into())],
                b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec(),
            ),
            "/bomb" => Reply::Full(
                200,
                vec![
                    ("Content-Type".into(), "text/plain".into()),
                    ("Content-Encoding".into(), "gzip".into()),
                ],
                gzip_of_zeros(16 << 20),
            ),
            "/huge" => Reply::Endless {
                chunk: vec![b'a'; 64 * 1024],
                limit: 1 << 30,
            },
            "/slow" => Reply::Slow {
                first: b"start".to_vec(),
                every: Duration::from_millis(500),
                count: 60,
            },
            "/to-loopback" => redirect(302, &format!("http://127.0.0.1:{}/page", port + 1)),
            "/to-metadata" => redirect(302, "http://169.254.169.254:81/latest/meta-data/"),
            "/to-prompt" => redirect(302, &format!("http://prompt.test:{port}/page")),
            "/to-denied" => redirect(301, &format!("http://denied.test:{port}/page")),
            "/to-file" => redirect(302, "file:///etc/passwd"),
            "/relative" => redirect(303, "/page"),
            path if path.starts_with("/hop/") => {
                let n: u32 = path[5..].parse().unwrap_or(0);
                if n == 0 {
                    html(200, "<p>end of the chain</p>")
                } else {
                    redirect(
                        if n.is_multiple_of(2) { 302 } else { 307 },
                        &format!("/hop/{}", n - 1),
                    )
                }
            }
            _ => html(404, "<p>no such page</p>"),
        }
    })
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn html_becomes_markdown() {
    assert_private_namespace();
    let server = site();
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    let out = fetch(&ws, &server.url("/page")).ok();
    let text = out.output();
    assert!(
        text.starts_with(&format!("200 OK {} (text/html", server.url("/page"))),
        "{text}"
    );
    assert!(text.contains("# Release notes"), "{text}");
    assert!(text.contains("[the docs](https://docs.rs/x)"), "{text}");
    assert!(text.contains("one") && text.contains("two"), "{text}");
    // Relative links are made absolute against the final URL.
    assert!(
        text.contains(&format!("[one]({})", server.url("/gone"))),
        "{text}"
    );
    assert!(text.contains("```\ncargo build\n```"), "{text}");
    assert!(!text.contains("steal") && !text.contains("color:red"), "{text}");
    assert_eq!(out.data()["status"], 200);
    assert_eq!(out.data()["success"], true);
    assert_eq!(out.data()["truncated"], false);
    assert_eq!(out.data()["format"], "markdown");
    let plain = ws
        .call("fetch_url", json!({"url": server.url("/page"), "format": "text"}))
        .ok();
    assert!(
        plain.output().contains("Release notes\nRead the docs and enjoy."),
        "{}",
        plain.output()
    );
    let raw = ws
        .call("fetch_url", json!({"url": server.url("/page"), "format": "raw"}))
        .ok();
    assert!(
        raw.output().contains("<script>steal()</script>"),
        "{}",
        raw.output()
    );
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn error_statuses_are_results_with_their_body() {
    assert_private_namespace();
    let server = site();
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    let out = fetch(&ws, &server.url("/gone")).ok();
    assert_eq!(out.data()["status"], 404);
    assert_eq!(out.data()["success"], false);
    assert!(out.output().contains("404 Not Found"), "{}", out.output());
    assert!(
        out.output().contains("# Gone\n\nThis page was removed."),
        "{}",
        out.output()
    );
    let out = fetch(&ws, &server.url("/boom")).ok();
    assert_eq!(out.data()["status"], 500);
    assert_eq!(out.data()["success"], false);
    assert!(out.output().contains("internal trouble"));
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn json_and_charsets() {
    assert_private_namespace();
    let server = site();
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    let out = fetch(&ws, &server.url("/json")).ok();
    assert!(
        out.output()
            .ends_with("{\n  \"name\": \"codesmith\",\n  \"tags\": [\n    \"a\",\n    \"b\"\n  ]\n}"),
        "{}",
        out.output()
    );
    let out = fetch(&ws, &server.url("/latin1")).ok();
    assert!(out.output().ends_with("café crème"), "{}", out.output());
    assert_eq!(out.data()["charset"], "windows-1252");
    // A cap in the middle of a multi-byte character cuts before it.
    let out = ws
        .call("fetch_url", json!({"url": server.url("/utf8"), "max_bytes": 9}))
        .ok();
    assert_eq!(out.data()["truncated"], true);
    assert_eq!(out.data()["bytes"], 9);
    assert!(out.output().contains("\n\naé€\n\n[truncated"), "{}", out.output());
    assert!(!out.output().contains('\u{FFFD}'));
    assert!(out.output().contains("max_bytes=36"), "{}", out.output());
}

/// Fetches `url` with `max_bytes`, asserting the body was cut at exactly that many bytes, fast.
fn fetch_capped(ws: &Ws, url: &str, max_bytes: u64) -> Outcome {
    let started = Instant::now();
    let out = ws
        .call("fetch_url", json!({"url": url, "max_bytes": max_bytes}))
        .ok();
    assert_eq!(out.data()["truncated"], true);
    assert_eq!(out.data()["bytes"], max_bytes);
    assert!(started.elapsed() < Duration::from_secs(10));
    out
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn a_huge_body_costs_only_max_bytes() {
    assert_private_namespace();
    let server = site();
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    let out = fetch_capped(&ws, &server.url("/huge"), 1000);
    assert!(out
        .output()
        .contains("[truncated: the body is longer than max_bytes=1000"));
    std::thread::sleep(Duration::from_millis(300));
    // The server offered 1 GiB; what it got out is socket buffers plus a chunk or two.
    let sent = server.bytes_sent.load(std::sync::atomic::Ordering::SeqCst);
    assert!(sent < 32 << 20, "the server sent {sent} bytes");
    let line = audit_lines(&ws.path()).pop().expect("audit line");
    assert_eq!(line["bytes"], 1000);
}

/// `len` ASCII zeros, gzip-compressed (about 16 KB for 16 MB).
fn gzip_of_zeros(len: usize) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let chunk = vec![b'0'; 1 << 20];
    for _ in 0..len / chunk.len() {
        encoder.write_all(&chunk).expect("gzip");
    }
    encoder.finish().expect("gzip")
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn a_compressed_body_is_capped_after_decompression() {
    assert_private_namespace();
    let server = site();
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    let out = fetch_capped(&ws, &server.url("/bomb"), 5000);
    assert!(out.output().contains(&"0".repeat(5000)));
    let out = fetch(&ws, &server.url("/png")).ok();
    assert_eq!(out.data()["kind"], "binary");
    assert!(
        out.output().contains("[binary content, 16 bytes, not shown"),
        "{}",
        out.output()
    );
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn a_slow_body_times_out() {
    assert_private_namespace();
    let server = site();
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    let started = Instant::now();
    let out = ws
        .call(
            "fetch_url",
            json!({"url": server.url("/slow"), "timeout_ms": 1500}),
        )
        .err("timeout");
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    assert!(out.message().contains("timeout_ms=1500"), "{}", out.message());
    assert!(out.message().contains("timeout_ms=3000"), "{}", out.message());
    let line = audit_lines(&ws.path()).pop().expect("audit line");
    assert_eq!(line["error"], "timeout");
    assert_eq!(line["status"], 200);
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn redirect_chains_are_followed_five_hops_deep() {
    assert_private_namespace();
    let server = site();
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    let out = fetch(&ws, &server.url("/hop/5")).ok();
    assert_eq!(out.data()["redirects"].as_array().expect("redirects").len(), 5);
    assert_eq!(out.data()["final_url"], server.url("/hop/0"));
    assert!(
        out.output().contains("Redirected 5 times from"),
        "{}",
        out.output()
    );
    assert!(out.output().contains("end of the chain"));
    assert_eq!(audit_lines(&ws.path()).len(), 6);
    let out = fetch(&ws, &server.url("/hop/6")).err("io_error");
    assert!(out.message().contains("at most 5 redirects"), "{}", out.message());
    // The way out is the absolute URL of the sixth location (sent as "/hop/0").
    let sixth = server.url("/hop/0");
    assert!(
        out.message().starts_with(&format!(
            "fetching `{}` stopped at redirect hop 6 (to `{sixth}`): ",
            server.url("/hop/6")
        )),
        "{}",
        out.message()
    );
    assert!(
        out.message()
            .ends_with(&format!("call fetch_url with url=\"{sixth}\".")),
        "{}",
        out.message()
    );
    assert_eq!(out.error()["redirect_hop"], 6);
    assert_eq!(out.error()["requested_url"], server.url("/hop/6"));
    // Six hops sent, and the refused seventh request logged.
    let lines = audit_lines(&ws.path());
    assert_eq!(lines.len(), 6 + 7, "{lines:?}");
    let refused = lines.last().expect("line");
    assert_eq!(refused["url"], sixth.as_str());
    assert_eq!(refused["decision"], "deny");
    assert_eq!(refused["error"], "io_error");
    assert_eq!(refused["host"], "127.0.0.2");
    // The sixth redirect was not followed: /hop/0 was never asked for by this chain.
    let asked = server.paths.lock().expect("paths").clone();
    assert_eq!(asked.iter().filter(|p| *p == "/hop/0").count(), 1, "{asked:?}");
    let out = fetch(&ws, &server.url("/relative")).ok();
    assert_eq!(out.data()["final_url"], server.url("/page"));
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn redirects_to_restricted_addresses_are_refused() {
    assert_private_namespace();
    let server = site();
    let (loop_trap, _) = Trap::at(&format!("127.0.0.1:{}", server.addr.port() + 1));
    let (meta_trap, _) = Trap::at("169.254.169.254:81");
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    let out = fetch(&ws, &server.url("/to-loopback")).err("blocked_address");
    assert_eq!(out.error()["address"], "127.0.0.1");
    assert_eq!(out.error()["range"], "127.0.0.0/8");
    assert!(out.message().contains("trusted_cidrs"), "{}", out.message());
    let out = fetch(&ws, &server.url("/to-metadata")).err("blocked_address");
    assert_eq!(out.error()["address"], "169.254.169.254");
    assert_eq!(out.error()["range"], "169.254.0.0/16");
    let out = fetch(&ws, &server.url("/to-file")).err("network_denied");
    assert!(out.message().contains("not http or https"), "{}", out.message());
    assert!(
        out.message().starts_with(&format!(
            "fetching `{}` stopped at redirect hop 1 (to `file:///etc/passwd`): ",
            server.url("/to-file")
        )),
        "{}",
        out.message()
    );
    // The same code as a top-level URL of that scheme.
    fetch(&ws, "file:///etc/passwd").err("network_denied");
    std::thread::sleep(Duration::from_millis(200));
    assert!(loop_trap.hits().is_empty() && meta_trap.hits().is_empty());
    let lines = audit_lines(&ws.path());
    let denied: Vec<_> = lines.iter().filter(|l| l["decision"] == "deny").collect();
    assert_eq!(denied.len(), 4, "{lines:?}");
    assert_eq!(denied[0]["address"], "127.0.0.1");
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn redirects_pass_the_policy_again() {
    assert_private_namespace();
    let server = site();
    let ws = Ws::new();
    config(
        &ws.path(),
        "[network]\ndefault = \"prompt\"\nallow = [\"127.0.0.2\"]\ndeny = [\"denied.test\"]\n\
         trusted_cidrs = [\"127.0.0.2/32\"]\n",
    );
    let before = server.connections();
    let out = fetch(&ws, &server.url("/to-prompt")).err("approval_required");
    assert_eq!(out.error()["approval"]["subject"], "prompt.test");
    assert_eq!(out.error()["approval"]["kind"], "network");
    // Only the first hop connected; the prompt host was not contacted.
    assert_eq!(server.connections() - before, 1);
    let id = out.error()["approval"]["id"].as_str().expect("id").to_string();
    let out = ws
        .run(&["--approve", &id, "fetch_url", "--url", &server.url("/to-prompt")])
        .ok();
    assert_eq!(out.data()["final_url"], server.url_for("prompt.test", "/page"));
    assert_eq!(out.data()["decision"], "approved");
    let out = fetch(&ws, &server.url("/to-denied")).err("network_denied");
    let hop = server.url_for("denied.test", "/page");
    assert!(
        out.message().starts_with(&format!(
            "fetching `{}` stopped at redirect hop 1 (to `{hop}`): network call to 'denied.test' \
             blocked by network policy",
            server.url("/to-denied")
        )),
        "{}",
        out.message()
    );
    assert_eq!(out.error()["hop_url"], hop.as_str());
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn the_approval_flow() {
    assert_private_namespace();
    let server = site();
    let mut ws = Ws::new();
    let settings = "# keep me\n[network]\ndefault = \"prompt\"\ntrusted_cidrs = [\"127.0.0.2/32\"]\n";
    config(&ws.path(), settings);
    let url = server.url_for("approve.test", "/page");
    let out = fetch(&ws, &url).err("approval_required");
    assert_eq!(server.connections(), 0, "nothing may connect before the approval");
    let id = out.error()["approval"]["id"].as_str().expect("id").to_string();
    assert!(
        out.message().contains(&format!("`{} approve {id}`", ws.person())),
        "{}",
        out.message()
    );
    ws.run(&["approve", &id]).ok();
    let out = fetch(&ws, &url).ok();
    assert_eq!(out.data()["decision"], "approved");
    assert!(out.output().contains("# Release notes"));
    // Another session has not approved it.
    ws.session = Some("other".into());
    fetch(&ws, &url).err("approval_required");
    ws.run(&["approve", &id, "--persist"]).ok();
    assert_eq!(
        ws.read_string(".codesmith/config.toml"),
        format!("{settings}allow = [\"approve.test\"]\n")
    );
    ws.session = Some("third".into());
    let out = fetch(&ws, &url).ok();
    // Allowed by the policy now; connected through the trusted_cidrs exemption.
    assert_eq!(out.data()["decision"], "trusted-cidr");
    let decisions: Vec<String> = audit_lines(&ws.path())
        .iter()
        .map(|l| l["decision"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(decisions, ["deny", "approved", "deny", "trusted-cidr"]);
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn policy_precedence_and_typos() {
    assert_private_namespace();
    let server = site();
    let ws = Ws::new();
    let url = server.url_for("good.test", "/page");
    let cases: &[(&str, &str)] = &[
        (
            "default = \"allow\"\nallow = [\"good.test\"]\ndeny = [\"GOOD.test.\"]",
            "network_denied",
        ),
        ("default = \"allow\"\ndeny = [\".test\"]", "network_denied"),
        ("default = \"deny\"", "network_denied"),
        ("default = \"block\"", "network_denied"),
        ("default = \"alow\"", "approval_required"),
        ("default = true", "approval_required"),
        ("default = \"allow\"\ndeny = 5", "approval_required"),
        ("default = \"deny\"\nallow = [\"*.good.test\"]", "network_denied"),
        ("default = \"deny\"\nallow = [\"good.test\"]", "ok"),
        ("default = \"prompt\"\nallow = [\"Good.Test\"]", "ok"),
        ("default = \"allow\"\ndeny = [\".good.test\"]", "ok"),
    ];
    for (policy, expected) in cases {
        config(
            &ws.path(),
            &format!("[network]\n{policy}\ntrusted_cidrs = [\"127.0.0.2\"]\n"),
        );
        let out = fetch(&ws, &url);
        if *expected == "ok" {
            out.ok();
        } else {
            let out = out.err(expected);
            if *expected == "network_denied" {
                assert!(
                    out.message()
                        .starts_with("network call to 'good.test' blocked by network policy. "),
                    "{policy}: {}",
                    out.message()
                );
                let way_out = if policy.contains("deny = [") {
                    "by removing it from `deny`"
                } else {
                    "they can add it to `allow`"
                };
                assert!(out.message().contains(way_out), "{policy}: {}", out.message());
            }
            if *expected == "approval_required" {
                assert!(
                    out.message().contains(&format!("`{} approve ap-", ws.person())),
                    "{}",
                    out.message()
                );
            }
        }
    }
    // The typo is named in a notice once the host is allowed another way.
    config(
        &ws.path(),
        "[network]\ndefault = \"alow\"\nallow = [\"good.test\"]\ntrusted_cidrs = [\"127.0.0.2\"]\n",
    );
    let out = fetch(&ws, &url).ok();
    assert!(
        out.notices().iter().any(|n| n.contains("\"alow\"")),
        "{:?}",
        out.notices()
    );
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn one_restricted_dns_answer_refuses_the_request() {
    assert_private_namespace();
    let server = site();
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    fetch(&ws, &server.url_for("good.test", "/page")).ok();
    let before = server.connections();
    let out = fetch(&ws, &server.url_for("mixed.test", "/page")).err("blocked_address");
    assert_eq!(out.error()["address"], "10.0.0.7");
    assert!(
        out.message().contains("resolves to 2 addresses"),
        "{}",
        out.message()
    );
    let out = fetch(&ws, &server.url_for("mixed6.test", "/page")).err("blocked_address");
    assert_eq!(out.error()["range"], "169.254.0.0/16");
    assert_eq!(server.connections(), before, "a refused name must not connect");
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn an_unreachable_first_answer_falls_back_to_the_next_checked_one() {
    assert_private_namespace();
    let server = site();
    let ws = Ws::new();
    config(
        &ws.path(),
        "[network]\ndefault = \"allow\"\ntrusted_cidrs = [\"127.0.0.2\", \"127.0.0.3\"]\n",
    );
    let out = fetch(&ws, &server.url_for("fallback.test", "/page")).ok();
    assert_eq!(out.data()["address"], server.addr.to_string());
    let lines = audit_lines(&ws.path());
    let addresses: Vec<&str> = lines
        .iter()
        .map(|l| l["address"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(addresses, ["127.0.0.3", "127.0.0.2"], "{lines:?}");
    assert_eq!(lines[0]["error"], "io_error");
    assert_eq!(lines[1]["status"], 200);
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn names_resolving_to_restricted_addresses_are_refused() {
    assert_private_namespace();
    let trap = Trap::on_ports(&[8081]);
    let ws = Ws::new();
    config(&ws.path(), "[network]\ndefault = \"allow\"\n");
    for (host, range) in [
        ("loop.test", "127.0.0.0/8"),
        ("meta.test", "169.254.0.0/16"),
        ("private.test", "10.0.0.0/8"),
        ("router.test", "192.168.0.0/16"),
        ("v6loop.test", "::1/128"),
        ("mapped.test", "127.0.0.0/8"),
        ("ula.test", "fc00::/7"),
        ("cgnat.test", "100.64.0.0/10"),
    ] {
        let out = fetch(&ws, &format!("http://{host}:8081/")).err("blocked_address");
        assert_eq!(out.error()["range"], range, "{host}");
        assert!(
            out.message().contains(&format!("`{host}` resolves to")),
            "{}",
            out.message()
        );
    }
    std::thread::sleep(Duration::from_millis(200));
    assert!(trap.hits().is_empty(), "connected: {:?}", trap.hits());
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn the_audit_log_records_each_request_and_decision() {
    assert_private_namespace();
    let server = site();
    let mut ws = Ws::new();
    ws.session = Some("auditor".into());
    config(&ws.path(), TRUSTED);
    fetch(&ws, &server.url_for("good.test", "/gone")).ok();
    fetch(&ws, "http://10.9.9.9/").err("blocked_address");
    fetch(&ws, &format!("{}?api_key=hunter2", server.url("/page"))).ok();
    let lines = audit_lines(&ws.path());
    assert_eq!(lines.len(), 3, "{lines:?}");
    let first = &lines[0];
    for key in [
        "time", "session", "tool", "url", "host", "address", "decision", "status",
    ] {
        assert!(first.get(key).is_some(), "{key} missing: {first}");
    }
    assert_eq!(first["session"], "auditor");
    assert_eq!(first["tool"], "fetch_url");
    assert_eq!(first["host"], "good.test");
    assert_eq!(first["address"], "127.0.0.2");
    assert_eq!(first["decision"], "trusted-cidr");
    assert_eq!(first["status"], 404);
    assert!(first["time"].as_str().expect("time").ends_with('Z'));
    assert_eq!(lines[1]["decision"], "deny");
    assert_eq!(lines[1]["address"], "10.9.9.9");
    assert_eq!(lines[1]["error"], "blocked_address");
    assert!(lines[1]["status"].is_null());
    assert!(lines[2]["url"]
        .as_str()
        .expect("url")
        .ends_with("api_key=[REDACTED]"));
    // Parallel calls append whole lines.
    std::thread::scope(|scope| {
        for _ in 0..8 {
            scope.spawn(|| fetch(&ws, &server.url("/json")).ok());
        }
    });
    let lines = audit_lines(&ws.path());
    assert_eq!(lines.len(), 11);
    assert!(lines[3..].iter().all(|l| l["status"] == 200));
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn transport_errors_are_plain_and_scrubbed() {
    assert_private_namespace();
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    let out = fetch(&ws, "http://127.0.0.2:9/?token=s3cr3t-value").err("io_error");
    assert!(out.message().contains("refused"), "{}", out.message());
    assert!(!out.message().contains("s3cr3t"), "{}", out.message());
    assert!(out.message().contains("token=[REDACTED]"), "{}", out.message());
    let out = fetch(&ws, "http://no-such-name.test/").err("io_error");
    assert!(
        out.message().contains("could not resolve `no-such-name.test`"),
        "{}",
        out.message()
    );
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn proxies_from_the_environment_are_ignored_and_tls_failures_are_plain() {
    assert_private_namespace();
    let server = site();
    let (proxy_trap, proxy) = Trap::at("127.0.0.9:0");
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    let mut cmd = ws.command(&["fetch", &server.url("/page")]);
    for name in [
        "http_proxy",
        "HTTP_PROXY",
        "https_proxy",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "all_proxy",
    ] {
        cmd.env(name, format!("http://{proxy}"));
    }
    let out = Outcome::of(cmd).ok();
    assert!(out.output().contains("# Release notes"));
    // A plain-HTTP answer to a TLS client hello.
    let plain = std::net::TcpListener::bind("127.0.0.2:0").expect("bind");
    let https = format!("https://{}/", plain.local_addr().expect("addr"));
    std::thread::spawn(move || {
        for mut stream in plain.incoming().flatten() {
            use std::io::Write;
            let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
        }
    });
    let out = fetch(&ws, &https).err("io_error");
    assert!(out.message().contains("TLS handshake"), "{}", out.message());
    std::thread::sleep(Duration::from_millis(200));
    assert!(proxy_trap.hits().is_empty(), "the proxy was used");
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn an_ipv6_literal_connects_when_its_range_is_trusted() {
    assert_private_namespace();
    if std::net::TcpListener::bind("[::1]:0").is_err() {
        eprintln!("SKIPPED: no IPv6 loopback in this namespace");
        return;
    }
    let server = Server::start("::1", |_, _| html(200, "<h1>six</h1>"));
    let ws = Ws::new();
    config(&ws.path(), "[network]\ndefault = \"allow\"\n");
    fetch(&ws, &server.url("/")).err("blocked_address");
    assert_eq!(server.connections(), 0);
    config(
        &ws.path(),
        "[network]\ndefault = \"allow\"\ntrusted_cidrs = [\"::1/128\"]\n",
    );
    let out = fetch(&ws, &server.url("/")).ok();
    assert!(out.output().contains("# six"), "{}", out.output());
    assert_eq!(out.data()["decision"], "trusted-cidr");
}

#[test]
#[ignore = "runs inside a private network namespace"]
fn claude_code_web_fetch_is_translated_to_a_call_that_fetches() {
    assert_private_namespace();
    let server = site();
    let ws = Ws::new();
    config(&ws.path(), TRUSTED);
    let (suggestion, message) = crate::foreign_calls::translated(
        &ws,
        json!({"name": "WebFetch", "arguments": {"url": server.url("/page"), "prompt": "Summarize"}}),
        "unknown_tool",
    );
    assert!(message.contains("`prompt` has no equivalent here"), "{message}");
    let out = crate::foreign_calls::send(&ws, &suggestion).ok();
    assert!(out.output().contains("Release notes"), "{}", out.output());
}
