//! `codesmith tools`: the catalog in every format, byte-stable, covering the registry.

use serde_json::Value;

use crate::harness::Ws;

fn tools(ws: &Ws, format: &str) -> String {
    let out = ws.raw(&["tools", "--format", format]);
    assert_eq!(out.status.code(), Some(0), "{format}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_format_is_byte_stable_and_lists_every_tool() {
    let ws = Ws::new();
    let names: Vec<&str> = codesmith::tools::REGISTRY.iter().map(|s| s.name).collect();
    for format in ["json", "openai", "anthropic", "mcp", "markdown"] {
        let first = tools(&ws, format);
        assert_eq!(first, tools(&ws, format), "{format} is not byte-stable");
        for name in &names {
            assert!(first.contains(name), "{format} lacks {name}");
        }
    }
    // Without --format: the plain JSON catalog.
    let out = ws.raw(&["tools"]);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), tools(&ws, "json"));
}

#[test]
fn each_ecosystem_gets_its_shape() {
    let ws = Ws::new();
    let plain: Value = serde_json::from_str(&tools(&ws, "json")).unwrap();
    let first = &plain[0];
    for key in ["name", "alias", "capability", "description", "input_schema"] {
        assert!(first.get(key).is_some(), "json: {key}");
    }
    assert_eq!(first["input_schema"]["type"], "object");
    assert_eq!(first["input_schema"]["additionalProperties"], false);

    let openai: Value = serde_json::from_str(&tools(&ws, "openai")).unwrap();
    assert_eq!(openai[0]["type"], "function");
    assert_eq!(openai[0]["function"]["name"], first["name"]);
    assert_eq!(openai[0]["function"]["parameters"], first["input_schema"]);

    let anthropic: Value = serde_json::from_str(&tools(&ws, "anthropic")).unwrap();
    assert_eq!(anthropic[0]["input_schema"], first["input_schema"]);
    assert_eq!(anthropic[0]["description"], first["description"]);

    let mcp: Value = serde_json::from_str(&tools(&ws, "mcp")).unwrap();
    assert_eq!(mcp["tools"][0]["inputSchema"], first["input_schema"]);
    assert_eq!(mcp["tools"][0]["annotations"]["readOnlyHint"], true);
    let annotations = |name: &str| {
        mcp["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["annotations"].clone())
            .unwrap()
    };
    // exec_shell can change files and reach the network (once allowed); write_file changes files.
    assert_eq!(annotations("exec_shell")["openWorldHint"], true);
    assert_eq!(annotations("exec_shell")["destructiveHint"], true);
    assert_eq!(annotations("write_file")["destructiveHint"], true);
    assert_eq!(annotations("write_file")["openWorldHint"], false);
    assert_eq!(annotations("fetch_url")["openWorldHint"], true);

    let markdown = tools(&ws, "markdown");
    assert!(markdown.contains("## read_file (`codesmith read`)"));
    assert!(markdown.contains("- `path` (string, required)"));
    assert!(markdown.contains("- `max_lines` (integer, default 200)"));
}

#[test]
fn an_unknown_format_is_a_usage_error() {
    let ws = Ws::new();
    let out = ws.run(&["tools", "--format", "yaml"]).err("invalid_arguments");
    assert!(out
        .message()
        .contains("Possible values: json, openai, anthropic, mcp, markdown"));
}
