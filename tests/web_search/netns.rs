//! web_search against stand-in servers, one per provider, each answering in the shape the
//! provider documents. They run only inside the private network namespace made by
//! `web_search::web_search_network_tests_in_a_private_namespace`.

use serde_json::{json, Value};

use crate::harness::{Outcome, Ws};
use crate::net_support::{assert_private_namespace, audit_lines, config, html, Reply, Server};

const KEY: &str = "BSAx9f3kQ2mZ7tLwP4vR8nY1cD6hJ0sE";

fn json_reply(status: u16, body: Value) -> Reply {
    Reply::Full(
        status,
        vec![("Content-Type".into(), "application/json".into())],
        body.to_string().into_bytes(),
    )
}

/// DuckDuckGo's HTML endpoint: an ad, then two results behind its redirector.
const DDG_PAGE: &str = r#"<!DOCTYPE html><html><body><div class="serp__results"><div id="links" class="results">
<div class="result results_links results_links_deep result--ad"><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=ads.example">Sponsored</a></h2></div></div>
<div class="result results_links results_links_deep web-result "><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fdoc.rust-lang.org%2Ferror_codes%2FE0502.html&amp;rut=abc">E0502 - Error codes index</a></h2>
<div class="result__extras"><div class="result__extras__url"><a class="result__url" href="//duckduckgo.com/l/?uddg=x">doc.rust-lang.org/error_codes/E0502.html</a></div></div>
<a class="result__snippet" href="//duckduckgo.com/l/?uddg=x">A variable already borrowed as <b>immutable</b> was borrowed as mutable.</a>
<div class="clear"></div></div></div>
<div class="result results_links results_links_deep web-result "><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fstackoverflow.com%2Fq%2F1&amp;rut=def">Cannot borrow as mutable &amp; immutable</a></h2>
<a class="result__snippet" href="//duckduckgo.com/l/?uddg=x">Asked 5 years ago.</a></div></div>
</div></div></body></html>"#;

fn provider_site() -> Server {
    Server::start("127.0.0.2", |path, _| {
        if path.starts_with("/html/?q=") {
            return html(200, DDG_PAGE);
        }
        if path.starts_with("/res/v1/web/search?") {
            return json_reply(
                200,
                json!({"type": "search", "query": {"original": "tokio select"},
                    "web": {"type": "search", "results": [
                        {"title": "tokio::select - Rust", "url": "https://docs.rs/tokio/latest/tokio/macro.select.html",
                         "description": "Waits on multiple concurrent branches, returning when the <strong>first</strong> branch completes.",
                         "type": "search_result", "language": "en", "family_friendly": true},
                        {"title": "Cancellation safety", "url": "https://tokio.rs/tokio/tutorial/select",
                         "description": "How select! cancels.", "type": "search_result"}]}}),
            );
        }
        if path.starts_with("/search?") {
            return json_reply(
                200,
                json!({"query": "serde rename", "number_of_results": 0, "results": [
                    {"url": "https://serde.rs/container-attrs.html", "title": "Container attributes",
                     "content": "#[serde(rename_all = \"...\")]", "engine": "duckduckgo",
                     "parsed_url": ["https", "serde.rs", "/container-attrs.html", "", "", ""],
                     "engines": ["duckduckgo", "brave"], "positions": [1, 2], "score": 4.0, "category": "general"}],
                    "answers": [], "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": []}),
            );
        }
        if path == "/search" {
            return json_reply(
                200,
                json!({"query": "ripgrep multiline", "follow_up_questions": null, "answer": null, "images": [],
                    "results": [{"title": "ripgrep guide", "url": "https://github.com/BurntSushi/ripgrep/blob/master/GUIDE.md",
                        "content": "Use -U for multiline search.", "score": 0.91, "raw_content": null}],
                    "response_time": 1.09}),
            );
        }
        html(404, "<p>no such endpoint</p>")
    })
}

fn configured(server: &Server, provider: &str, network: &str) -> Ws {
    let ws = Ws::new();
    config(
        &ws.path(),
        &format!(
            "[network]\n{network}trusted_cidrs = [\"127.0.0.2/32\"]\n\n[web_search]\nprovider = \"{provider}\"\nendpoint = \"http://{}\"\n",
            server.addr
        ),
    );
    ws
}

fn search(ws: &Ws, args: Value, key: Option<(&str, &str)>, extra: &[&str]) -> Outcome {
    let text = args.to_string();
    let mut argv: Vec<&str> = extra.to_vec();
    argv.extend(["web_search", "--json", &text]);
    let mut cmd = ws.command(&argv);
    cmd.env_remove("BRAVE_API_KEY").env_remove("TAVILY_API_KEY");
    if let Some((var, value)) = key {
        cmd.env(var, value);
    }
    let out = Outcome::of(cmd);
    assert!(
        !out.stdout.contains(KEY) && !out.stderr.contains(KEY),
        "the key leaked: {}",
        out.stdout
    );
    let log = std::fs::read_to_string(ws.join(".codesmith/audit.log")).unwrap_or_default();
    assert!(!log.contains(KEY), "the key is in the audit log");
    out
}

fn results(out: &Outcome) -> Vec<(String, String, String)> {
    out.data()["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let field = |k: &str| r[k].as_str().unwrap().to_string();
            (field("title"), field("url"), field("snippet"))
        })
        .collect()
}

#[test]
#[ignore = "runs inside the network namespace"]
fn duckduckgo_results_come_from_its_html_page() {
    assert_private_namespace();
    let site = provider_site();
    let ws = configured(&site, "duckduckgo", "default = \"allow\"\n");
    let out = search(&ws, json!({"query": "rust E0502"}), None, &[]).ok();
    assert_eq!(
        results(&out),
        [
            (
                "E0502 - Error codes index".into(),
                "https://doc.rust-lang.org/error_codes/E0502.html".into(),
                "A variable already borrowed as immutable was borrowed as mutable.".into()
            ),
            (
                "Cannot borrow as mutable & immutable".into(),
                "https://stackoverflow.com/q/1".into(),
                "Asked 5 years ago.".into()
            ),
        ]
    );
    assert!(out.output().starts_with("2 results for \"rust E0502\" (duckduckgo):\n\n1. E0502 - Error codes index\n   https://doc.rust-lang.org/error_codes/E0502.html\n"), "{}", out.output());
    assert!(out.output().ends_with(
        "Read a result with fetch_url, e.g. {\"url\": \"https://doc.rust-lang.org/error_codes/E0502.html\"}."
    ));
    assert_eq!(site.requests()[0].path, "/html/?q=rust+E0502");
    // The request is in the audit log, as fetch_url's are.
    let lines = audit_lines(&ws.path());
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0]["url"].as_str().unwrap().contains("/html/?q=rust+E0502"));
}

#[test]
#[ignore = "runs inside the network namespace"]
fn brave_sends_the_key_from_the_environment_in_its_header() {
    assert_private_namespace();
    let site = provider_site();
    let ws = configured(&site, "brave", "default = \"allow\"\n");
    let out = search(
        &ws,
        json!({"query": "tokio select", "max_results": 25}),
        Some(("BRAVE_API_KEY", KEY)),
        &[],
    )
    .ok();
    let hits = results(&out);
    assert_eq!(hits.len(), 2);
    assert_eq!(
        hits[0].2,
        "Waits on multiple concurrent branches, returning when the first branch completes."
    );
    assert!(
        out.notices()
            .iter()
            .any(|n| n.contains("max_results=25 is outside 1..=20; used 20")),
        "{:?}",
        out.notices()
    );
    let request = &site.requests()[0];
    assert_eq!(request.path, "/res/v1/web/search?q=tokio+select&count=20");
    assert_eq!(request.header("x-subscription-token"), Some(KEY));
    assert_eq!(request.header("accept"), Some("application/json"));
}

#[test]
#[ignore = "runs inside the network namespace"]
fn searxng_asks_its_json_api() {
    assert_private_namespace();
    let site = provider_site();
    let ws = configured(&site, "searxng", "default = \"allow\"\n");
    let out = search(&ws, json!({"query": "serde rename"}), None, &[]).ok();
    assert_eq!(
        results(&out),
        [(
            "Container attributes".into(),
            "https://serde.rs/container-attrs.html".into(),
            "#[serde(rename_all = \"...\")]".into()
        )]
    );
    assert_eq!(site.requests()[0].path, "/search?q=serde+rename&format=json");
}

#[test]
#[ignore = "runs inside the network namespace"]
fn tavily_posts_the_query_with_a_bearer_key() {
    assert_private_namespace();
    let site = provider_site();
    let ws = configured(&site, "tavily", "default = \"allow\"\n");
    let out = search(
        &ws,
        json!({"query": "ripgrep multiline", "max_results": 3}),
        Some(("TAVILY_API_KEY", KEY)),
        &[],
    )
    .ok();
    assert_eq!(
        results(&out)[0].1,
        "https://github.com/BurntSushi/ripgrep/blob/master/GUIDE.md"
    );
    let request = &site.requests()[0];
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", "/search")
    );
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let body: Value = serde_json::from_str(&request.body).unwrap();
    assert_eq!(body, json!({"query": "ripgrep multiline", "max_results": 3}));
}

#[test]
#[ignore = "runs inside the network namespace"]
fn the_network_policy_and_approvals_apply_to_the_provider_host() {
    assert_private_namespace();
    let site = provider_site();
    let denied = configured(&site, "duckduckgo", "default = \"deny\"\n");
    search(&denied, json!({"query": "x"}), None, &[]).err("network_denied");
    let ws = configured(&site, "duckduckgo", "default = \"prompt\"\n");
    let asked = search(&ws, json!({"query": "x"}), None, &[]).err("approval_required");
    assert_eq!(site.connections(), 0, "nothing is sent before the approval");
    let approval = asked.error()["approval"].clone();
    assert_eq!(approval["kind"], "network");
    assert_eq!(approval["subject"], "127.0.0.2");
    let id = approval["id"].as_str().unwrap();
    search(&ws, json!({"query": "x"}), None, &["--approve", id]).ok();
    assert_eq!(site.connections(), 1);
}

#[test]
#[ignore = "runs inside the network namespace"]
fn an_endpoint_on_a_restricted_address_is_refused_before_connecting() {
    assert_private_namespace();
    let site = Server::start("127.0.0.3", |_, _| html(200, DDG_PAGE));
    let ws = Ws::new();
    config(
        &ws.path(),
        &format!(
            "[network]\ndefault = \"allow\"\n\n[web_search]\nendpoint = \"http://{}\"\n",
            site.addr
        ),
    );
    let out = search(&ws, json!({"query": "x"}), None, &[]).err("blocked_address");
    assert!(out.message().contains("trusted_cidrs"), "{}", out.message());
    assert_eq!(site.connections(), 0);
}

#[test]
#[ignore = "runs inside the network namespace"]
fn provider_errors_are_scrubbed_and_never_echo_the_key() {
    assert_private_namespace();
    let site = Server::start("127.0.0.2", |_, _| {
        json_reply(
            401,
            json!({"type": "ErrorResponse", "error": {"code": "SUBSCRIPTION_TOKEN_INVALID", "status": 401,
                "detail": format!("The provided subscription token {KEY} is invalid. Authorization: Bearer abc.def-ghi \u{1b}[31mred\u{1b}[0m <b>bold</b>")}}),
        )
    });
    let ws = configured(&site, "brave", "default = \"allow\"\n");
    let out = search(&ws, json!({"query": "x"}), Some(("BRAVE_API_KEY", KEY)), &[]).err("io_error");
    let message = out.message();
    assert!(message.contains("answered 401 Unauthorized"), "{message}");
    assert!(message.contains("SUBSCRIPTION_TOKEN_INVALID"), "{message}");
    assert!(message.contains("check BRAVE_API_KEY"), "{message}");
    assert!(
        message.contains("[REDACTED]") && !message.contains("abc.def-ghi"),
        "{message}"
    );
    assert!(
        !message.contains('\u{1b}') && !message.contains("<b>"),
        "{message}"
    );
    assert_eq!(out.error()["status"], 401);
}

#[test]
#[ignore = "runs inside the network namespace"]
fn an_answer_that_is_not_the_result_format_says_so() {
    assert_private_namespace();
    let site = Server::start("127.0.0.2", |_, _| json_reply(200, json!({"unexpected": true})));
    let ws = configured(&site, "searxng", "default = \"allow\"\n");
    let out = search(&ws, json!({"query": "x"}), None, &[]).err("io_error");
    assert!(
        out.message().contains("cannot read (no result list in the JSON)"),
        "{}",
        out.message()
    );
    // No results at all is not an error.
    let empty = Server::start("127.0.0.2", |_, _| {
        html(200, "<html><body>No results.</body></html>")
    });
    let ws = configured(&empty, "duckduckgo", "default = \"allow\"\n");
    let out = search(&ws, json!({"query": "zzqx"}), None, &[]).ok();
    assert!(
        out.output().starts_with("No results for \"zzqx\" (duckduckgo)."),
        "{}",
        out.output()
    );
    assert_eq!(out.data()["results"], json!([]));
}
