//! web_search through the real binary: each provider against a stand-in server on loopback,
//! answering in the provider's documented response shape.
//!
//! As for fetch_url, the tests that open connections are `#[ignore]`d and live in `netns`; the
//! plain test `web_search_network_tests_in_a_private_namespace` runs them inside a network
//! namespace where nothing but loopback exists (see `net_support`). The other tests here never
//! get as far as a connection.

mod netns;

use serde_json::json;

use crate::harness::Ws;
use crate::net_support::{config, run_suite_in_namespace};

/// How many tests `netns` holds; the outer test checks they all ran.
const NETNS_TESTS: usize = 8;

#[test]
fn web_search_network_tests_in_a_private_namespace() {
    run_suite_in_namespace("web_search", "web_search::netns::", NETNS_TESTS);
}

#[test]
fn an_empty_query_is_refused_before_any_request() {
    let ws = Ws::new();
    for query in ["", "   "] {
        let out = ws
            .call("web_search", json!({"query": query}))
            .err("invalid_arguments");
        assert!(out.message().contains("query is empty"), "{}", out.message());
        assert!(out.message().contains(r#"{"query": "#), "{}", out.message());
    }
    assert!(
        !ws.exists(".codesmith/audit.log"),
        "nothing may be sent or logged"
    );
}

#[test]
fn a_provider_without_its_key_is_refused_naming_the_variable() {
    let ws = Ws::new();
    for (provider, var) in [("brave", "BRAVE_API_KEY"), ("tavily", "TAVILY_API_KEY")] {
        config(&ws.path(), &format!("[web_search]\nprovider = \"{provider}\"\n"));
        let mut cmd = ws.command(&["web_search", "rust borrow checker"]);
        cmd.env_remove(var);
        let out = crate::harness::Outcome::of(cmd).err("io_error");
        assert!(
            out.message().contains(var) && out.message().contains("export"),
            "{}",
            out.message()
        );
        assert_eq!(out.error()["variable"], var);
    }
    assert!(!ws.exists(".codesmith/audit.log"));
}

#[test]
fn settings_that_cannot_be_used_are_refused_not_replaced() {
    let ws = Ws::new();
    for (text, said) in [
        ("[web_search]\nprovider = \"bing\"\n", "not a provider"),
        ("[web_search]\nprovider = \"searxng\"\n", "needs endpoint"),
        (
            "[web_search]\nendpoint = \"ftp://example.org\"\n",
            "not an http or https URL",
        ),
        ("[web_search]\nendpoint = 7\n", "not a URL string"),
    ] {
        config(&ws.path(), text);
        let out = ws.run(&["web_search", "x"]).err("io_error");
        assert!(out.message().contains(said), "{text}: {}", out.message());
        assert!(out.message().contains("[web_search]"), "{}", out.message());
    }
    assert!(!ws.exists(".codesmith/audit.log"));
}

#[test]
fn the_catalog_describes_web_search() {
    let ws = Ws::new();
    let tools: serde_json::Value = serde_json::from_slice(&ws.raw(&["tools"]).stdout).unwrap();
    let spec = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "web_search")
        .expect("web_search in the catalog");
    let description = spec["description"].as_str().unwrap();
    assert!(description.contains("fetch_url") && description.contains("at most 20"));
    assert_eq!(spec["input_schema"]["required"], json!(["query"]), "{spec}");
}
