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
const NETNS_TESTS: usize = 16;

#[test]
fn network_tests_in_a_private_namespace() {
    if std::env::var_os(INNER_ENV).is_some() {
        return;
    }
    if let Err(reason) = namespaces_available() {
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
    let out = ws
        .call("fetch_url", json!({"url": "https://docs.rs/", "timeout_ms": 0}))
        .err("invalid_arguments");
    assert!(out.message().contains("timeout_ms=30000"), "{}", out.message());
    let out = ws
        .call("fetch_url", json!({"url": "https://docs.rs/", "format": "pdf"}))
        .err("invalid_arguments");
    assert!(out.message().contains("markdown"), "{}", out.message());
    ws.call("fetch_url", json!({"url": "https://docs.rs/", "headers": {}}))
        .err("invalid_arguments");
    let out = ws.run(&["fetch", "not a url"]).err("invalid_arguments");
    assert!(
        out.message().contains("call fetch_url with url=\"https://"),
        "{}",
        out.message()
    );
    assert!(!ws.exists(".codesmith/audit.log"));
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

/// Tests that open (or must prove they never open) connections. Run only inside the namespace.
mod netns {
    use std::time::{Duration, Instant};

    use serde_json::json;

    use crate::harness::{Outcome, Ws};
    use crate::net_support::{
        assert_private_namespace, audit_lines, config, html, redirect, Reply, Server, Trap,
    };

    const TRUSTED: &str = "[network]\ndefault = \"allow\"\ntrusted_cidrs = [\"127.0.0.2/32\"]\n";

    fn fetch(ws: &Ws, url: &str) -> Outcome {
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
                     and <em>enjoy</em>.</p><script>steal()</script><ul><li>one</li><li>two</li></ul>\
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

    #[test]
    #[ignore = "runs inside a private network namespace"]
    fn a_huge_body_costs_only_max_bytes() {
        assert_private_namespace();
        let server = site();
        let ws = Ws::new();
        config(&ws.path(), TRUSTED);
        let started = Instant::now();
        let out = ws
            .call(
                "fetch_url",
                json!({"url": server.url("/huge"), "max_bytes": 1000}),
            )
            .ok();
        assert_eq!(out.data()["truncated"], true);
        assert_eq!(out.data()["bytes"], 1000);
        assert!(out
            .output()
            .contains("[truncated: the body is longer than max_bytes=1000"));
        assert!(started.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(300));
        // The server offered 1 GiB; what it got out is socket buffers plus a chunk or two.
        let sent = server.bytes_sent.load(std::sync::atomic::Ordering::SeqCst);
        assert!(sent < 32 << 20, "the server sent {sent} bytes");
        let line = audit_lines(&ws.path()).pop().expect("audit line");
        assert_eq!(line["bytes"], 1000);
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
        assert!(
            out.message().contains("call fetch_url with url="),
            "{}",
            out.message()
        );
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
        std::thread::sleep(Duration::from_millis(200));
        assert!(loop_trap.hits().is_empty() && meta_trap.hits().is_empty());
        let lines = audit_lines(&ws.path());
        let denied: Vec<_> = lines.iter().filter(|l| l["decision"] == "deny").collect();
        assert_eq!(denied.len(), 3, "{lines:?}");
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
        assert!(
            out.message()
                .starts_with("network call to 'denied.test' blocked by network policy"),
            "{}",
            out.message()
        );
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
            out.message().contains(&format!("codesmith approve {id}")),
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

    /// URL forms that must be refused before any connection (policy: allow everything).
    const REFUSED: &[(&str, &str)] = &[
        // Loopback, in every spelling the URL parser accepts.
        ("http://127.0.0.1/", "blocked_address"),
        ("http://127.1/", "blocked_address"),
        ("http://127.0.1/", "blocked_address"),
        ("http://0x7f.1/", "blocked_address"),
        ("http://0x7f000001/", "blocked_address"),
        ("http://2130706433/", "blocked_address"),
        ("http://017700000001/", "blocked_address"),
        ("http://0177.0.0.1/", "blocked_address"),
        ("http://0x7f.0x0.0x0.0x1/", "blocked_address"),
        ("http://127.000.000.001/", "blocked_address"),
        ("http://127.0.0.1./", "blocked_address"),
        ("http://%31%32%37.0.0.1/", "blocked_address"),
        ("http://127.0.0.1:8080/", "blocked_address"),
        ("http://127.255.255.254/", "blocked_address"),
        ("https://127.0.0.1/", "blocked_address"),
        ("HTTP://127.0.0.1/", "blocked_address"),
        ("HtTpS://127.0.0.1:443/", "blocked_address"),
        ("  http://127.0.0.1/  ", "blocked_address"),
        ("\thttp://127.0.0.1/\n", "blocked_address"),
        ("http://127.0.\t0.1/", "blocked_address"),
        ("http:\\\\127.0.0.1\\", "blocked_address"),
        ("http:/127.0.0.1/", "blocked_address"),
        ("http:127.0.0.1/", "blocked_address"),
        ("http:///127.0.0.1/", "blocked_address"),
        ("http://１２７.０.０.１/", "blocked_address"),
        ("http://127。0。0。1/", "blocked_address"),
        ("http://[::1]/", "blocked_address"),
        ("http://[0:0:0:0:0:0:0:1]/", "blocked_address"),
        ("http://[::1]:8080/", "blocked_address"),
        ("http://[::ffff:127.0.0.1]/", "blocked_address"),
        ("http://[::ffff:7f00:1]/", "blocked_address"),
        ("http://[0:0:0:0:0:ffff:127.0.0.1]/", "blocked_address"),
        ("http://[::127.0.0.1]/", "blocked_address"),
        ("http://[::ffff:0:127.0.0.1]/", "blocked_address"),
        ("http://[64:ff9b::127.0.0.1]/", "blocked_address"),
        ("http://[2002:7f00:1::1]/", "blocked_address"),
        ("http://[2001:0:7f00:1::1]/", "blocked_address"),
        // "This host".
        ("http://0.0.0.0/", "blocked_address"),
        ("http://0/", "blocked_address"),
        ("http://0x0/", "blocked_address"),
        ("http://0.0.0.0:8080/", "blocked_address"),
        ("http://[::]/", "blocked_address"),
        ("http://[::]:8080/", "blocked_address"),
        // Names of this machine.
        ("http://localhost/", "blocked_address"),
        ("http://LOCALHOST/", "blocked_address"),
        ("http://localhost./", "blocked_address"),
        ("http://localhost:8080/", "blocked_address"),
        ("https://localhost/", "blocked_address"),
        ("http://app.localhost/", "blocked_address"),
        ("http://a.b.localhost./", "blocked_address"),
        ("http://%6c%6f%63%61%6c%68%6f%73%74/", "blocked_address"),
        ("http://ＬＯＣＡＬＨＯＳＴ/", "blocked_address"),
        ("http://localhost.localdomain/", "blocked_address"),
        ("http://ip6-localhost/", "blocked_address"),
        // Private networks.
        ("http://10.0.0.1/", "blocked_address"),
        ("http://10.255.255.255/", "blocked_address"),
        ("http://012.0.0.1/", "blocked_address"),
        ("http://0xa.0.0.1/", "blocked_address"),
        ("http://167772161/", "blocked_address"),
        ("http://172.16.0.1/", "blocked_address"),
        ("http://172.31.255.255/", "blocked_address"),
        ("http://192.168.0.1/", "blocked_address"),
        ("http://192.168.1.1:8080/", "blocked_address"),
        ("http://0xc0a80001/", "blocked_address"),
        ("http://3232235521/", "blocked_address"),
        ("http://0300.0250.0.1/", "blocked_address"),
        ("http://100.64.0.1/", "blocked_address"),
        ("http://100.127.255.255/", "blocked_address"),
        ("http://192.0.0.1/", "blocked_address"),
        ("http://192.0.2.1/", "blocked_address"),
        ("http://198.18.0.1/", "blocked_address"),
        ("http://198.19.255.255/", "blocked_address"),
        ("http://198.51.100.1/", "blocked_address"),
        ("http://203.0.113.1/", "blocked_address"),
        ("http://224.0.0.1/", "blocked_address"),
        ("http://239.255.255.250/", "blocked_address"),
        ("http://240.0.0.1/", "blocked_address"),
        ("http://255.255.255.255/", "blocked_address"),
        // The cloud metadata endpoint.
        ("http://169.254.169.254/", "blocked_address"),
        ("http://169.254.169.254/latest/meta-data/iam/", "blocked_address"),
        ("http://0xa9fea9fe/", "blocked_address"),
        ("http://2852039166/", "blocked_address"),
        ("http://0251.0376.0251.0376/", "blocked_address"),
        ("http://169.254.43518/", "blocked_address"),
        ("http://0xa9.0xfe.0xa9.0xfe/", "blocked_address"),
        ("http://[::ffff:169.254.169.254]/", "blocked_address"),
        ("http://[::ffff:a9fe:a9fe]/", "blocked_address"),
        ("http://[64:ff9b::a9fe:a9fe]/", "blocked_address"),
        ("http://[64:ff9b:1::a9fe:a9fe]/", "blocked_address"),
        ("http://[2002:a9fe:a9fe::]/", "blocked_address"),
        ("http://[fd00:ec2::254]/", "blocked_address"),
        // IPv6 internal ranges and mapped private IPv4.
        ("http://[fc00::1]/", "blocked_address"),
        ("http://[fd12:3456::1]/", "blocked_address"),
        ("http://[fe80::1]/", "blocked_address"),
        ("http://[fec0::1]/", "blocked_address"),
        ("http://[ff02::1]/", "blocked_address"),
        ("http://[2001:db8::1]/", "blocked_address"),
        ("http://[::ffff:10.0.0.1]/", "blocked_address"),
        ("http://[::ffff:192.168.1.1]/", "blocked_address"),
        ("http://[64:ff9b:1::a00:1]/", "blocked_address"),
        ("http://[fe80::1%25lo]/", "invalid_arguments"),
        // Userinfo tricks: the real host is after the last `@`, and credentials are refused.
        ("http://example.com@127.0.0.1/", "invalid_arguments"),
        ("http://user:pass@127.0.0.1/", "invalid_arguments"),
        ("http://127.0.0.1@evil.test/", "invalid_arguments"),
        ("http://evil.test:80@169.254.169.254/", "invalid_arguments"),
        ("http://a@b@127.0.0.1/", "invalid_arguments"),
        ("http://evil.test%40127.0.0.1/", "invalid_arguments"),
        ("http://127.0.0.1#@evil.test/", "blocked_address"),
        ("http://127.0.0.1?@evil.test/", "blocked_address"),
        ("http://evil.test#@8.8.8.8/", "blocked_address"),
        ("http://evil.test\\@8.8.8.8/", "blocked_address"),
        // Schemes other than http and https, and things that are not URLs.
        ("file:///etc/passwd", "invalid_arguments"),
        ("FILE:///etc/passwd", "invalid_arguments"),
        ("ftp://127.0.0.1/", "invalid_arguments"),
        ("gopher://127.0.0.1:70/_x", "invalid_arguments"),
        ("dict://127.0.0.1:11211/stats", "invalid_arguments"),
        ("ldap://127.0.0.1/", "invalid_arguments"),
        ("ws://127.0.0.1/", "invalid_arguments"),
        ("jar:http://127.0.0.1!/", "invalid_arguments"),
        ("javascript:alert(1)", "invalid_arguments"),
        ("data:text/plain,hello", "invalid_arguments"),
        ("view-source:http://127.0.0.1/", "invalid_arguments"),
        ("//127.0.0.1/", "invalid_arguments"),
        ("127.0.0.1", "invalid_arguments"),
        ("", "invalid_arguments"),
        ("http://", "invalid_arguments"),
        ("http://1.2.3.4.5/", "invalid_arguments"),
        ("http://[::1/", "invalid_arguments"),
        // The deny list.
        ("http://denied.test/", "network_denied"),
        ("http://DENIED.test./", "network_denied"),
        ("https://www.denied-zone.test/", "network_denied"),
    ];

    #[test]
    #[ignore = "runs inside a private network namespace"]
    fn refused_url_forms_never_connect() {
        assert_private_namespace();
        assert!(REFUSED.len() >= 100, "{}", REFUSED.len());
        let trap = Trap::on_ports(&[80, 443, 8080]);
        let ws = Ws::new();
        config(
            &ws.path(),
            "[network]\ndefault = \"allow\"\ndeny = [\"denied.test\", \".denied-zone.test\"]\n",
        );
        let wrong = std::sync::Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for chunk in REFUSED.chunks(REFUSED.len().div_ceil(4)) {
                let (ws, wrong) = (&ws, &wrong);
                scope.spawn(move || {
                    for (url, code) in chunk {
                        let out = fetch(ws, url);
                        let got = out.error()["code"].as_str().unwrap_or("ok").to_string();
                        if got != *code {
                            let line = format!("{url:?}: expected {code}, got {got}: {}", out.output());
                            wrong.lock().expect("wrong").push(line);
                            continue;
                        }
                        out.err(code);
                    }
                });
            }
        });
        let wrong = wrong.into_inner().expect("wrong");
        std::thread::sleep(Duration::from_millis(300));
        assert!(trap.hits().is_empty(), "connections were made: {:?}", trap.hits());
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        // Every refusal that got past argument checks is in the audit log.
        let refusals = REFUSED.iter().filter(|(_, c)| *c != "invalid_arguments").count();
        let lines = audit_lines(&ws.path());
        assert_eq!(lines.len(), refusals);
        assert!(lines
            .iter()
            .all(|l| l["decision"] == "deny" && l["status"].is_null()));
    }
}
