//! `codesmith tools`: the catalog in every format, byte-stable, covering the registry.

use serde_json::{json, Value};

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
    for format in codesmith::dispatch::catalog::FORMATS {
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
#[allow(
    clippy::too_many_lines,
    reason = "one catalog per ecosystem, each checked in place"
)]
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
    assert_eq!(openai[0]["function"]["strict"], true);
    let responses: Value = serde_json::from_str(&tools(&ws, "openai-responses")).unwrap();
    for (chat, flat) in openai
        .as_array()
        .unwrap()
        .iter()
        .zip(responses.as_array().unwrap())
    {
        assert_eq!(flat["type"], "function");
        assert_eq!(flat["name"], chat["function"]["name"]);
        assert_eq!(flat["parameters"], chat["function"]["parameters"]);
        assert_eq!(flat["strict"], true);
    }

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
    assert_eq!(annotations("write_file")["idempotentHint"], true);
    assert_eq!(annotations("fetch_url")["openWorldHint"], true);
    assert_eq!(annotations("fetch_url")["readOnlyHint"], true);
    // The task readers advance a cursor; task_cancel touches this machine only.
    assert_eq!(annotations("task_output")["idempotentHint"], false);
    assert_eq!(annotations("task_wait")["idempotentHint"], false);
    assert_eq!(annotations("task_cancel")["openWorldHint"], false);
    // A question changes nothing, but asked again a person may answer otherwise.
    assert_eq!(annotations("ask_user")["readOnlyHint"], true);
    assert_eq!(annotations("ask_user")["idempotentHint"], false);
    assert_eq!(annotations("web_search")["openWorldHint"], true);
    assert_eq!(annotations("web_search")["readOnlyHint"], true);
    assert_eq!(annotations("task_input")["destructiveHint"], true);
    assert_eq!(annotations("task_input")["openWorldHint"], true);
    for tool in mcp["tools"].as_array().unwrap() {
        assert!(
            tool["title"]
                .as_str()
                .is_some_and(|t| !t.is_empty() && t != tool["name"]),
            "{tool}"
        );
        for hint in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            assert!(tool["annotations"][hint].is_boolean(), "{}: {hint}", tool["name"]);
        }
    }

    // Every tool declares what its structuredContent holds; the required fields are declared.
    for tool in mcp["tools"].as_array().unwrap() {
        let output = &tool["outputSchema"];
        assert_eq!(output["type"], "object", "{}", tool["name"]);
        for field in output["required"].as_array().unwrap() {
            let field = field.as_str().unwrap();
            assert!(
                output["properties"][field]["type"].is_string()
                    || output["properties"][field]["type"].is_array()
            );
        }
    }
    let read = &mcp["tools"][0]["outputSchema"];
    assert_eq!(read["properties"]["end_line"]["type"], json!(["integer", "null"]));
    assert!(read["required"]
        .as_array()
        .unwrap()
        .contains(&json!("total_lines")));

    let markdown = tools(&ws, "markdown");
    assert!(markdown.contains("## read_file (`codesmith read`)"));
    assert!(markdown.contains("- `path` (string, required)"));
    assert!(markdown.contains("- `max_lines` (integer, default 200)"));
}

/// The `format` keywords of `schema` (a property named `format` is not one).
fn formats_in(schema: &Value, found: &mut Vec<String>) {
    if let Some(format) = schema["format"].as_str() {
        found.push(format.to_string());
    }
    if let Some(properties) = schema["properties"].as_object() {
        properties.values().for_each(|prop| formats_in(prop, found));
    }
    for key in ["items", "anyOf", "oneOf", "allOf", "additionalProperties", "not"] {
        match &schema[key] {
            Value::Array(branches) => branches.iter().for_each(|b| formats_in(b, found)),
            Value::Object(_) => formats_in(&schema[key], found),
            _ => {}
        }
    }
}

#[test]
fn input_schemas_use_only_json_schema_formats_and_integer_bounds() {
    let ws = Ws::new();
    let plain: Value = serde_json::from_str(&tools(&ws, "json")).unwrap();
    let mut found = Vec::new();
    for tool in plain.as_array().unwrap() {
        formats_in(&tool["input_schema"], &mut found);
    }
    assert!(
        found.is_empty(),
        "Rust's integer formats are not JSON Schema's: {found:?}"
    );
    // An unsigned count keeps its lower bound as `minimum`.
    let task_wait = plain
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "task_wait")
        .unwrap();
    assert_eq!(
        task_wait["input_schema"]["properties"]["timeout_ms"]["minimum"],
        0
    );
    assert_eq!(
        task_wait["input_schema"]["properties"]["timeout_ms"]["type"],
        "integer"
    );
}

#[test]
fn an_unknown_format_is_a_usage_error() {
    let ws = Ws::new();
    let out = ws.run(&["tools", "--format", "yaml"]).err("invalid_arguments");
    assert!(out
        .message()
        .contains("Possible values: text, json, openai, openai-responses, anthropic, mcp, markdown, prompt"));
}

/// OpenAI's strict mode, checked on a schema: every object closed with every property required,
/// optional properties (those not required in the plain catalog) nullable, only the keywords
/// strict mode takes, no `oneOf`, and every nullable property's description saying what null
/// means.
fn check_strict(tool: &str, schema: &Value, plain: &Value) {
    assert_eq!(schema["type"], "object", "{tool}");
    assert_eq!(schema["additionalProperties"], false, "{tool}");
    let properties = schema["properties"].as_object().expect("properties");
    let required: Vec<&str> = schema["required"]
        .as_array()
        .expect("required")
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    let keys: Vec<&str> = properties.keys().map(String::as_str).collect();
    assert_eq!(required, keys, "{tool}: every property is required, in order");
    let plain_required = plain["required"].as_array().unwrap();
    for (name, prop) in properties {
        check_keywords(&format!("{tool}.{name}"), prop);
        let nullable = accepts_null(prop);
        let optional = !plain_required.contains(&Value::from(name.as_str()));
        assert_eq!(
            nullable, optional,
            "{tool}.{name}: nullable exactly when optional: {prop}"
        );
        if optional {
            let description = prop["description"].as_str().unwrap_or_default();
            assert!(description.contains("Null means"), "{tool}.{name}: {description}");
        }
    }
}

fn accepts_null(prop: &Value) -> bool {
    let by_type = match &prop["type"] {
        Value::Array(types) => types.contains(&Value::from("null")),
        Value::String(t) => t == "null",
        _ => false,
    };
    let by_any = prop["anyOf"]
        .as_array()
        .is_some_and(|b| b.iter().any(accepts_null));
    let enum_ok = prop["enum"]
        .as_array()
        .is_none_or(|values| values.contains(&Value::Null));
    (by_type || by_any) && enum_ok
}

fn check_keywords(at: &str, schema: &Value) {
    const ALLOWED: [&str; 16] = [
        "type",
        "description",
        "enum",
        "anyOf",
        "items",
        "properties",
        "required",
        "additionalProperties",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "pattern",
        "minItems",
        "maxItems",
    ];
    const FORMATS: [&str; 9] = [
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
    ];
    let map = schema
        .as_object()
        .unwrap_or_else(|| panic!("{at}: not an object schema"));
    for (key, value) in map {
        match key.as_str() {
            "format" => assert!(
                FORMATS.contains(&value.as_str().unwrap_or_default()),
                "{at}: format {value}"
            ),
            key => assert!(ALLOWED.contains(&key), "{at}: strict mode rejects `{key}`"),
        }
    }
    if let Some(items) = map.get("items") {
        check_keywords(&format!("{at}[]"), items);
    }
    for branch in map.get("anyOf").and_then(Value::as_array).into_iter().flatten() {
        check_keywords(&format!("{at}|"), branch);
    }
    if map.get("type") == Some(&Value::from("object")) || map.contains_key("properties") {
        panic!("{at}: nested objects need their own closed, all-required check");
    }
}

#[test]
fn the_openai_catalogs_pass_strict_mode() {
    let ws = Ws::new();
    let plain: Value = serde_json::from_str(&tools(&ws, "json")).unwrap();
    let openai: Value = serde_json::from_str(&tools(&ws, "openai")).unwrap();
    let responses: Value = serde_json::from_str(&tools(&ws, "openai-responses")).unwrap();
    let plain = plain.as_array().unwrap();
    assert_eq!(openai.as_array().unwrap().len(), plain.len());
    for ((chat, flat), plain) in openai
        .as_array()
        .unwrap()
        .iter()
        .zip(responses.as_array().unwrap())
        .zip(plain)
    {
        let name = chat["function"]["name"].as_str().unwrap();
        check_strict(name, &chat["function"]["parameters"], &plain["input_schema"]);
        check_strict(name, &flat["parameters"], &plain["input_schema"]);
    }
    // The plain catalog would fail: it is the one with defaults and optional properties.
    let read = &plain[0]["input_schema"];
    assert!(std::panic::catch_unwind(|| check_strict("read_file", read, read)).is_err());
}

#[test]
fn a_strict_null_means_the_default() {
    let ws = Ws::new();
    ws.write("a.txt", "one\ntwo\n");
    let out = ws
        .run_stdin(
            &["call"],
            r#"{"name": "read_file", "arguments": "{\"path\": \"a.txt\", \"start_line\": null, \"max_lines\": null}"}"#,
        )
        .ok();
    assert_eq!(out.json["data"]["total_lines"], 2);
    let openai: Value = serde_json::from_str(&tools(&ws, "openai")).unwrap();
    let max_lines = &openai[0]["function"]["parameters"]["properties"]["max_lines"];
    assert!(max_lines["description"]
        .as_str()
        .unwrap()
        .ends_with("Null means the default, 200."));
}

#[test]
fn profiles_shape_every_catalog_and_the_prompt_says_what_is_missing() {
    let ws = Ws::new();
    let run = |args: &[&str]| String::from_utf8(ws.raw(args).stdout).unwrap();
    let read_only: Value = serde_json::from_str(&run(&["--tools", "read_only", "tools"])).unwrap();
    let names: Vec<&str> = read_only
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "read_file",
            "grep_files",
            "file_search",
            "find_symbol",
            "outline",
            "search_code",
            "list_dir",
            "task_output",
            "task_wait",
            "history",
            "ask_user"
        ]
    );
    let openai: Value = serde_json::from_str(&run(&[
        "--tools",
        "read_file,grep",
        "tools",
        "--format",
        "openai",
    ]))
    .unwrap();
    assert_eq!(openai.as_array().unwrap().len(), 2);
    let prompt = run(&["--tools", "read_only", "tools", "--format", "prompt"]);
    assert!(prompt.starts_with("<tools>\nYou work in a code workspace through these tools only: read_file,"));
    assert!(prompt.contains(
        "You cannot create, edit, patch or delete files, run commands, builds or tests or fetch web pages"
    ));
    assert!(prompt.contains("\n## grep_files\n") && !prompt.contains("## exec_shell"));

    ws.write(".codesmith/config.toml", "[tools]\nenabled = [\"list_dir\"]\n");
    let narrowed: Value = serde_json::from_str(&run(&["tools"])).unwrap();
    assert_eq!(narrowed.as_array().unwrap().len(), 1);
    let none: Value = serde_json::from_str(&run(&["--tools", "read_file", "tools"])).unwrap();
    assert_eq!(
        none,
        serde_json::json!([]),
        "the flag narrows the workspace's list, never widens it"
    );
}

#[test]
fn a_disabled_tool_is_refused_on_every_command_line_surface() {
    let ws = Ws::new();
    let out = ws
        .run(&[
            "--tools",
            "read_only",
            "write",
            "--path",
            "a.txt",
            "--content",
            "x",
        ])
        .err("tool_disabled");
    assert_eq!(out.status, 1);
    assert!(
        out.message().contains("write_file exists but is disabled"),
        "{}",
        out.message()
    );
    assert!(
        out.message().contains("Enabled here: read_file, grep_files"),
        "{}",
        out.message()
    );
    assert!(!ws.exists("a.txt"));
    let call = ws
        .run_stdin(
            &["--tools", "read_only", "call"],
            r#"{"name": "exec_shell", "arguments": {"command": "touch b"}}"#,
        )
        .err("tool_disabled");
    assert!(call.message().contains("exec_shell exists but is disabled"));
    assert!(!ws.exists("b"));
    let typo = ws
        .run(&["--tools", "read_olny", "read", "a.txt"])
        .err("invalid_arguments");
    assert!(
        typo.message()
            .contains("`read_olny` is neither a tool nor a capability"),
        "{}",
        typo.message()
    );
    ws.write(".codesmith/config.toml", "[tools]\nenabled = \"read_only\"\n");
    let broken = ws.run(&["ls"]).err("tool_disabled");
    assert!(
        broken.message().contains("No tool is enabled here."),
        "{}",
        broken.message()
    );
    assert!(
        broken
            .message()
            .contains("[tools] enabled is not a list of names"),
        "{}",
        broken.message()
    );
}

#[test]
fn the_question_search_and_input_tools_are_in_every_catalog_and_in_their_capability() {
    let ws = Ws::new();
    for format in codesmith::dispatch::catalog::FORMATS {
        let text = tools(&ws, format);
        for name in ["ask_user", "web_search", "task_input"] {
            assert!(text.contains(name), "{format} lacks {name}");
        }
    }
    let mcp: Value = serde_json::from_str(&tools(&ws, "mcp")).unwrap();
    let titles: Vec<(&str, &str)> = mcp["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), t["title"].as_str().unwrap()))
        .filter(|(name, _)| ["ask_user", "web_search", "task_input"].contains(name))
        .collect();
    assert_eq!(
        titles,
        [
            ("task_input", "Send input to background task"),
            ("web_search", "Search the web"),
            ("ask_user", "Ask the user")
        ]
    );
    let offered = |capability: &str| -> Vec<String> {
        let out = ws.raw(&["--tools", capability, "tools"]);
        let list: Value = serde_json::from_slice(&out.stdout).unwrap();
        list.as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(offered("read_only").contains(&"ask_user".to_string()));
    assert_eq!(offered("network"), ["fetch_url", "web_search"]);
    assert!(offered("runs_code").contains(&"task_input".to_string()));
    assert!(!offered("read_only").contains(&"task_input".to_string()));
}
