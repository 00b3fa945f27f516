//! The MCP client configurations of the README and the guide: each block parses in its own syntax, names
//! `codesmith` with arguments ending in `mcp`, and those arguments start a server that answers
//! the handshake.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::harness::WithoutCodesmithEnv;
use crate::harness::{Ws, BIN};

/// The fenced blocks of the client set-up sections of the README and the guide: (language, text).
fn setup_blocks() -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    for rel in ["README.md", "docs/GUIDE.md"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
        let text = std::fs::read_to_string(path).expect(rel);
        let section = text
            .split("\n### Set-up for MCP clients\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{rel} has a `### Set-up for MCP clients` section"));
        let section = section.split("\n## ").next().unwrap_or(section);
        let mut lines = section.lines();
        while let Some(line) = lines.next() {
            if let Some(language) = line.strip_prefix("```").filter(|l| !l.is_empty()) {
                let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
                blocks.push((language.to_string(), body.join("\n")));
            }
        }
    }
    blocks
}

/// The server entry of a JSON configuration, under whichever key the client uses.
fn json_entry(config: &Value) -> &Value {
    ["mcpServers", "servers", "context_servers"]
        .iter()
        .find_map(|key| config.get(key))
        .and_then(|servers| servers.get("codesmith"))
        .unwrap_or_else(|| panic!("no codesmith server in {config}"))
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .expect("args")
        .iter()
        .map(|a| a.as_str().expect("string arg").to_string())
        .collect()
}

/// `command` and `args` of each block.
fn commands() -> Vec<(String, Vec<String>)> {
    let mut found = Vec::new();
    for (language, text) in setup_blocks() {
        let (command, args) = match language.as_str() {
            "json" => {
                let config: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
                let entry = json_entry(&config);
                (
                    entry["command"].as_str().unwrap().to_string(),
                    strings(&entry["args"]),
                )
            }
            "toml" => {
                let config: toml::Table = text.parse().unwrap_or_else(|e| panic!("{e}: {text}"));
                let entry = &config["mcp_servers"]["codesmith"];
                let args = entry["args"].as_array().unwrap().iter();
                let args = args.map(|a| a.as_str().unwrap().to_string()).collect();
                (entry["command"].as_str().unwrap().to_string(), args)
            }
            "yaml" => {
                let language = codesmith::fs::syntax_gate::Language::of("config.yaml").expect("yaml");
                assert!(
                    codesmith::fs::syntax_gate::parse(language, &text).is_ok(),
                    "{text}"
                );
                let cmd = text
                    .lines()
                    .find_map(|l| l.trim().strip_prefix("cmd: "))
                    .expect("cmd");
                let args = text
                    .lines()
                    .find_map(|l| l.trim().strip_prefix("args: "))
                    .expect("args");
                let args: Value = serde_json::from_str(args).expect("flow list of strings");
                (cmd.to_string(), strings(&args))
            }
            "sh" => {
                let (head, command) = text.split_once(" -- ").expect("claude mcp add NAME -- COMMAND");
                assert_eq!(head, "claude mcp add codesmith");
                let mut words = command.split_whitespace().map(String::from);
                (words.next().unwrap(), words.collect())
            }
            other => panic!("unexpected block language {other}"),
        };
        found.push((command, args));
    }
    found
}

#[test]
fn every_client_configuration_parses_and_starts_a_server() {
    let configs = commands();
    assert_eq!(
        configs.len(),
        7,
        "Claude Code, Codex, Cursor, VS Code, Zed, Goose, Gemini CLI"
    );
    let ws = Ws::new();
    let root = ws.path().to_string_lossy().into_owned();
    for (command, args) in configs {
        assert_eq!(command, "codesmith");
        assert_eq!(args.last().map(String::as_str), Some("mcp"), "{args:?}");
        let args: Vec<String> = args
            .iter()
            .map(|a| {
                a.replace("/path/to/project", &root)
                    .replace("${workspaceFolder}", &root)
            })
            .collect();
        let mut child = Command::new(BIN)
            .args(&args)
            .without_codesmith_env()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the server");
        let mut stdin = child.stdin.take().unwrap();
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
        writeln!(stdin, "{init}").unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        drop(stdin);
        let status = child.wait().unwrap();
        let response: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert_eq!(response["result"]["serverInfo"]["name"], "codesmith", "{args:?}");
        assert!(status.success());
    }
}
