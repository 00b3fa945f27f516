//! `codesmith mcp` through the binary: the handshake, 2026-07-28's stateless requests, the
//! catalog, tool calls and their isError results, malformed input, profiles.

use serde_json::{json, Value};

use crate::harness::Ws;
use crate::mcp_support::{modern_meta, texts, McpSession, MODERN};

#[test]
fn the_handshake_negotiates_the_version() {
    let ws = Ws::new();
    for (asked, answered) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
    ] {
        let mut session = McpSession::start(&ws, &[]);
        let response = session.request(
            "initialize",
            json!({"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        );
        let result = &response["result"];
        assert_eq!(result["protocolVersion"], answered, "{response}");
        assert_eq!(result["serverInfo"]["name"], "codesmith");
        assert!(result["capabilities"]["tools"].is_object());
        assert!(
            result.get("resultType").is_none(),
            "handshake results have no resultType"
        );
        let ping = session.request("ping", json!({}));
        assert_eq!(ping["result"], json!({}));
    }
}

#[test]
fn tools_list_is_the_catalog_in_both_eras() {
    let ws = Ws::new();
    let catalog: Value = serde_json::from_slice(&ws.raw(&["tools", "--format", "mcp"]).stdout).unwrap();
    let mut session = McpSession::initialized(&ws, &[], "2025-06-18", json!({}));
    let legacy = session.request("tools/list", json!({}));
    assert_eq!(legacy["result"], catalog, "tools/list is `tools --format mcp`");
    for tool in legacy["result"]["tools"].as_array().unwrap() {
        assert!(tool["title"].is_string() && tool["annotations"]["title"] == tool["title"]);
    }

    let modern = session.request("tools/list", json!({"_meta": modern_meta(json!({}))}));
    let result = &modern["result"];
    assert_eq!(result["tools"], catalog["tools"]);
    assert_eq!(result["resultType"], "complete");
    assert!(result["ttlMs"].as_u64().is_some() && result["cacheScope"] == "private");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "codesmith"
    );
    let again = session.request("tools/list", json!({"_meta": modern_meta(json!({}))}));
    assert_eq!(again["result"], modern["result"], "the order is deterministic");
}

#[test]
fn server_discover_advertises_versions_and_an_unknown_version_is_refused() {
    let ws = Ws::new();
    let mut session = McpSession::start(&ws, &[]);
    let discover = session.request("server/discover", json!({"_meta": modern_meta(json!({}))}));
    let result = &discover["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["supportedVersions"],
        json!(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", MODERN])
    );
    assert!(result["capabilities"]["tools"].is_object());
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "codesmith"
    );

    let mut meta = modern_meta(json!({}));
    meta["io.modelcontextprotocol/protocolVersion"] = json!("2030-01-01");
    let refused = session.request(
        "tools/call",
        json!({"_meta": meta, "name": "read_file", "arguments": {"path": "a"}}),
    );
    assert_eq!(refused["error"]["code"], -32022, "{refused}");
    assert_eq!(refused["error"]["data"]["requested"], "2030-01-01");
    assert!(refused["error"]["data"]["supported"]
        .as_array()
        .unwrap()
        .contains(&json!(MODERN)));

    // 2026-07-28 has no ping and no initialize.
    let ping = session.request("ping", json!({"_meta": modern_meta(json!({}))}));
    assert_eq!(ping["error"]["code"], -32601);
    let init = session.request("initialize", json!({"_meta": modern_meta(json!({}))}));
    assert_eq!(init["error"]["code"], -32601);
}

#[test]
fn calls_share_freshness_and_cwd_across_the_session_and_with_the_cli() {
    let ws = Ws::new();
    ws.write("sub/a.txt", "alpha\nbeta\n");
    let mut session = McpSession::initialized(&ws, &["--session", "agent"], "2025-11-25", json!({}));
    let read = session.call("read_file", json!({"path": "sub/a.txt"}));
    assert_eq!(read["isError"], false);
    assert_eq!(texts(&read), ["     1│ alpha\n     2│ beta"]);
    assert_eq!(read["structuredContent"]["total_lines"], 2);

    let edit = session.call(
        "edit_file",
        json!({"path": "sub/a.txt", "search": "alpha", "replace": "ALPHA"}),
    );
    assert_eq!(edit["isError"], false, "{edit}");
    assert_eq!(ws.read_string("sub/a.txt"), "ALPHA\nbeta\n");

    // The session is on disk: the CLI in the same session may edit without another read.
    let mut cli = Ws::at(&ws.path());
    cli.session = Some("agent".into());
    cli.call(
        "edit_file",
        json!({"path": "sub/a.txt", "search": "beta", "replace": "BETA"}),
    )
    .ok();
    // ...and the server sees the CLI's write as its own: no stale refusal.
    let edit = session.call(
        "edit_file",
        json!({"path": "sub/a.txt", "search": "ALPHA", "replace": "a"}),
    );
    assert_eq!(edit["isError"], false, "{edit}");

    let cd = session.call("exec_shell", json!({"command": "cd sub"}));
    assert_eq!(cd["isError"], false, "{cd}");
    let relative = session.call("read_file", json!({"path": "a.txt"}));
    assert_eq!(texts(&relative), ["     1│ a\n     2│ BETA"]);
}

#[test]
fn tool_failures_are_is_error_results_the_model_can_read() {
    let ws = Ws::new();
    let mut session = McpSession::initialized(&ws, &[], "2025-06-18", json!({}));
    let missing = session.call("read_file", json!({}));
    assert_eq!(missing["isError"], true);
    assert_eq!(missing["structuredContent"]["code"], "invalid_arguments");
    assert!(texts(&missing)[0].contains("missing field `path`"));

    let unknown = session.call("Bash", json!({"command": "ls"}));
    assert_eq!(unknown["isError"], true);
    assert_eq!(unknown["structuredContent"]["code"], "unknown_tool");
    assert_eq!(unknown["structuredContent"]["suggestion"]["name"], "exec_shell");

    let not_found = session.call("read_file", json!({"path": "nope.txt"}));
    assert_eq!(not_found["structuredContent"]["code"], "not_found");
    assert_eq!(
        texts(&not_found),
        [not_found["structuredContent"]["message"].as_str().unwrap()]
    );

    let wrong_type = session.call("read_file", json!("a.txt"));
    assert_eq!(wrong_type["structuredContent"]["code"], "invalid_arguments");

    // The alias works as on the command line; notices follow the output, one block each.
    ws.write("n.txt", "x\n");
    let clamped = session.call("read", json!({"path": "n.txt", "max_lines": 9999}));
    let blocks = texts(&clamped);
    assert_eq!(blocks.len(), 2, "{clamped}");
    assert!(blocks[1].starts_with("Notice: max_lines=9999"), "{}", blocks[1]);

    let no_name = session.request("tools/call", json!({"arguments": {}}));
    assert_eq!(no_name["error"]["code"], -32602);
}

#[test]
fn malformed_lines_get_errors_and_the_server_goes_on() {
    let ws = Ws::new();
    let mut session = McpSession::start(&ws, &[]);
    session.send_line("this is not json");
    let parse = session.recv();
    assert_eq!(parse["error"]["code"], -32700);
    assert_eq!(parse["id"], Value::Null);
    session.send_line("[{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}]");
    assert_eq!(session.recv()["error"]["code"], -32600);
    session.send_line("{\"jsonrpc\": \"1.0\", \"id\": 7, \"method\": \"ping\"}");
    let wrong = session.recv();
    assert_eq!(
        (wrong["error"]["code"].clone(), wrong["id"].clone()),
        (json!(-32600), json!(7))
    );
    session.send_line("");
    session.send_line("{\"jsonrpc\": \"2.0\", \"method\": \"notifications/whatever\"}");
    let unknown = session.request("resources/list", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    let list = session.request("tools/list", json!({}));
    assert!(list["result"]["tools"].is_array());
    let (status, _) = session.close();
    assert!(status.success());
}

#[test]
fn a_profile_restricts_the_list_and_the_calls() {
    let ws = Ws::new();
    ws.write("a.txt", "a\n");
    let mut session = McpSession::initialized(&ws, &["--tools", "read_only"], "2025-11-25", json!({}));
    let list = session.request("tools/list", json!({}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"read_file") && names.contains(&"grep_files"));
    assert!(!names.contains(&"write_file") && !names.contains(&"exec_shell"));
    let write = session.call("write_file", json!({"path": "b.txt", "content": "b"}));
    assert_eq!(write["isError"], true);
    assert_eq!(write["structuredContent"]["code"], "tool_disabled");
    let message = texts(&write)[0].clone();
    assert!(message.contains("write_file exists but is disabled"), "{message}");
    assert!(
        message.contains("Enabled here: read_file, grep_files"),
        "{message}"
    );
    assert!(!ws.exists("b.txt"));

    // The workspace's [tools] enabled narrows it further, read anew for each list.
    ws.write(".codesmith/config.toml", "[tools]\nenabled = [\"read_file\"]\n");
    let list = session.request("tools/list", json!({}));
    assert_eq!(list["result"]["tools"].as_array().unwrap().len(), 1);
    let grep = session.call("grep_files", json!({"pattern": "a"}));
    assert_eq!(grep["structuredContent"]["code"], "tool_disabled");
}
