//! Capability profiles: which tools are offered here.
//!
//! `--tools LIST` and `[tools] enabled = [...]` in `.codesmith/config.toml` each name tools
//! (canonical name or alias) and capabilities (`read_only`, `writes_files`, `runs_code`,
//! `network`). A tool is enabled when every source given selects it: the flag narrows what the
//! workspace allows and never widens it. Every surface asks here: the catalog in each format,
//! the tool subcommands, `call`, and the MCP server's `tools/list` and `tools/call`, so a model
//! is never offered a tool it may not call.
//!
//! A name that selects nothing is refused on the command line; in the config file it is
//! reported and dropped, and a `[tools] enabled` that is not a list of names enables nothing,
//! since a misread allow-list must not turn into "everything".

use crate::error::ToolError;
use crate::notice::ConfigNotice;
use crate::session::config::Config;
use crate::session::context::Global;
use crate::tools::{Capability, ToolSpec, REGISTRY};

const CAPABILITIES: [Capability; 4] = [
    Capability::ReadOnly,
    Capability::WritesFiles,
    Capability::RunsCode,
    Capability::Network,
];

/// Whether `selector` (a tool's name or alias, or a capability) selects `spec`.
fn selects(selector: &str, spec: &ToolSpec) -> bool {
    selector == spec.name || selector == spec.alias || selector == spec.capability.as_str()
}

fn is_known(selector: &str) -> bool {
    CAPABILITIES.iter().any(|c| c.as_str() == selector) || REGISTRY.iter().any(|s| selects(selector, s))
}

/// The words `--tools` and `[tools] enabled` take, for messages.
pub fn valid_selectors() -> String {
    let capabilities: Vec<&str> = CAPABILITIES.iter().map(|c| c.as_str()).collect();
    format!(
        "the capabilities {} and the tool names {}",
        capabilities.join(", "),
        crate::tools::names().join(", ")
    )
}

/// Splits a `--tools` value (commas and spaces separate names) and checks every name.
pub fn parse_flag(list: &str) -> Result<Vec<String>, ToolError> {
    let names: Vec<String> = list
        .split([',', ' '])
        .filter(|name| !name.is_empty())
        .map(String::from)
        .collect();
    if let Some(unknown) = names.iter().find(|name| !is_known(name)) {
        return Err(ToolError::bad_tool_selector(Some(unknown), &valid_selectors()));
    }
    if names.is_empty() {
        return Err(ToolError::bad_tool_selector(None, &valid_selectors()));
    }
    Ok(names)
}

/// The selectors of `[tools] enabled`: `None` when the file does not restrict the tools, an
/// empty list when `enabled` is there but not a list of strings.
fn config_selectors(config: &Config) -> Option<Vec<String>> {
    let enabled = config.section("tools")?.get("enabled")?;
    let Some(list) = enabled.as_array() else {
        return Some(Vec::new());
    };
    Some(
        list.iter()
            .filter_map(toml::Value::as_str)
            .filter(|name| is_known(name))
            .map(String::from)
            .collect(),
    )
}

/// What in a `[tools]` section is not understood, one notice each (see `Config::problems`).
pub fn config_problems(section: &toml::Value) -> Vec<ConfigNotice> {
    let Some(table) = section.as_table() else {
        return vec![ConfigNotice::NotASection { section: "tools" }];
    };
    let mut problems = Vec::new();
    for (key, value) in table {
        if key != "enabled" {
            problems.push(ConfigNotice::UnknownToolsSetting { key: key.clone() });
            continue;
        }
        let Some(list) = value.as_array().filter(|l| l.iter().all(toml::Value::is_str)) else {
            problems.push(ConfigNotice::ToolsEnabledNotAList {
                selectors: valid_selectors(),
            });
            continue;
        };
        for name in list
            .iter()
            .filter_map(toml::Value::as_str)
            .filter(|n| !is_known(n))
        {
            problems.push(ConfigNotice::UnknownToolsName {
                name: name.to_string(),
                selectors: valid_selectors(),
            });
        }
    }
    problems
}

/// The enabled tools, in catalog order.
pub fn enabled(global: &Global, config: Option<&Config>) -> Vec<&'static ToolSpec> {
    let from_config = config.and_then(config_selectors);
    REGISTRY
        .iter()
        .filter(|spec| {
            let by = |list: &[String]| list.iter().any(|selector| selects(selector, spec));
            global.tools.as_deref().is_none_or(by) && from_config.as_deref().is_none_or(by)
        })
        .collect()
}

/// Whether any source restricts the tools (the common case, none, costs no config read).
fn restricted(global: &Global, config: &Config) -> bool {
    global.tools.is_some() || config.section("tools").is_some()
}

/// Ok when `spec` is enabled for this call; otherwise `tool_disabled`, naming what is.
pub fn check_enabled(
    global: &Global,
    ctx: &crate::session::context::Context,
    spec: &ToolSpec,
) -> Result<(), ToolError> {
    // A config that cannot be read is reported by the mechanisms that need it (the network
    // policy stops what needs the network); here it leaves the flag's profile alone in force.
    let config = ctx.config().ok();
    // The [tools] section is read here, so its problems are told here (once a call, as the
    // config's other problems when it loads).
    if let Some(section) = config.and_then(|config| config.entry("tools")) {
        for problem in config_problems(section) {
            ctx.state.add_notice(problem);
        }
    }
    if !config.is_some_and(|config| restricted(global, config)) && global.tools.is_none() {
        return Ok(());
    }
    let enabled = enabled(global, config);
    if enabled.iter().any(|s| s.name == spec.name) {
        return Ok(());
    }
    Err(disabled(spec.name, &enabled, global.tools.is_some()))
}

/// The `tool_disabled` error: the tool exists but this profile does not offer it.
pub fn disabled(tool: &str, enabled: &[&'static ToolSpec], by_flag: bool) -> ToolError {
    ToolError::tool_disabled(tool, enabled.iter().map(|s| s.name).collect(), by_flag)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn global(tools: Option<&[&str]>) -> Global {
        Global {
            tools: tools.map(|t| t.iter().map(|s| s.to_string()).collect()),
            ..Global::default()
        }
    }

    fn config(text: &str) -> Config {
        Config::from_table(text.parse().expect("toml"))
    }

    fn names(specs: Vec<&'static ToolSpec>) -> Vec<&'static str> {
        specs.into_iter().map(|s| s.name).collect()
    }

    #[test]
    fn capabilities_and_names_select_and_sources_intersect() {
        let read_only = names(enabled(&global(Some(&["read_only"])), None));
        assert!(read_only.contains(&"read_file") && read_only.contains(&"grep_files"));
        assert!(!read_only.contains(&"write_file") && !read_only.contains(&"exec_shell"));
        let both = enabled(
            &global(Some(&["read", "exec_shell"])),
            Some(&config("[tools]\nenabled = [\"read_only\"]")),
        );
        assert_eq!(names(both), ["read_file"]);
        assert_eq!(enabled(&global(None), None).len(), REGISTRY.len());
    }

    #[test]
    fn a_misread_config_enables_nothing_and_says_so() {
        let broken = config("[tools]\nenabled = \"read_only\"");
        assert!(enabled(&global(None), Some(&broken)).is_empty());
        let problems = |config: &Config| config_problems(config.entry("tools").expect("[tools]"));
        assert!(problems(&broken)
            .iter()
            .any(|p| p.to_string().contains("no tool is enabled")));
        let unknown = config("[tools]\nenabled = [\"read_olny\", \"read_file\"]");
        assert_eq!(names(enabled(&global(None), Some(&unknown))), ["read_file"]);
        assert!(problems(&unknown)
            .iter()
            .any(|p| p.to_string().contains("`read_olny`")));
    }

    #[test]
    fn the_flag_refuses_unknown_names() {
        assert_eq!(parse_flag("read_only, grep").unwrap(), ["read_only", "grep"]);
        let err = parse_flag("read_only,shel").unwrap_err();
        assert!(err.message().contains("`shel`") && err.message().contains("--tools read_only"));
        assert!(parse_flag(",").is_err());
    }
}
