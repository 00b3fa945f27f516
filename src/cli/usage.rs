//! Command lines clap refuses, as `invalid_arguments` messages that name the way out.

use std::ffi::OsString;

use serde_json::Value;

use super::{command_for, GLOBALS_WITH_VALUE};
use crate::error::{ClapLine, ClapRefusal, ToolError, UsageOf};
use crate::tools;

/// A global option written after the command name (`codesmith read f --workspace /tmp`), which
/// clap only knows as an unexpected argument: the message names the rule and the corrected
/// command line, every misplaced global option moved before the command.
pub(super) fn misplaced_global(
    argv: &[OsString],
    invoked: Option<&str>,
    schema: Option<&Value>,
) -> Option<ToolError> {
    let invoked = invoked?;
    let args: Vec<&str> = argv.iter().map(|a| a.to_str()).collect::<Option<_>>()?;
    let at = args.iter().skip(1).position(|a| *a == invoked)? + 1;
    // Options of the command itself (`fetch --format`, `tools --format`) stay where they are.
    let mut cmd = command_for(Some(invoked), schema);
    cmd.build();
    let own: Vec<String> = cmd
        .find_subcommand(invoked)
        .map(|sub| {
            sub.get_arguments()
                .filter_map(|arg| arg.get_long().map(|long| format!("--{long}")))
                .collect()
        })
        .unwrap_or_default();
    let mut moved: Vec<&str> = Vec::new();
    let mut kept: Vec<&str> = Vec::new();
    let mut rest = args[at + 1..].iter();
    while let Some(&arg) = rest.next() {
        if arg == "--" {
            kept.push(arg);
            kept.extend(rest.by_ref());
            break;
        }
        let flag = arg.split_once('=').map_or(arg, |(flag, _)| flag);
        let global = flag == "--yolo" || GLOBALS_WITH_VALUE.contains(&flag);
        if !global || own.iter().any(|o| o == flag) {
            kept.push(arg);
            continue;
        }
        moved.push(arg);
        if GLOBALS_WITH_VALUE.contains(&arg) {
            moved.extend(rest.next());
        }
    }
    let flags: Vec<&str> = moved
        .iter()
        .filter(|arg| arg.starts_with("--"))
        .map(|arg| arg.split('=').next().unwrap_or_default())
        .collect();
    if flags.is_empty() {
        return None;
    }
    let corrected: Vec<&str> = std::iter::once("codesmith")
        .chain(args[1..at].iter().copied())
        .chain(moved.iter().copied())
        .chain(std::iter::once(invoked))
        .chain(kept.iter().copied())
        .collect();
    let corrected: Vec<String> = corrected
        .iter()
        .map(|a| crate::fs::workspace::shell_word(a))
        .collect();
    Some(ToolError::global_option_after_name(
        &flags,
        tools::find(invoked).is_some(),
        invoked,
        &corrected.join(" "),
    ))
}

/// The envelope's `tool` for a command line clap refused: the canonical tool name when a tool
/// was named, else the command (`trust`, `call`, ...), else `codesmith`.
pub(super) fn usage_tool_name(invoked: Option<&str>) -> String {
    match invoked {
        Some(name) => tools::find(name).map_or(name, |spec| spec.name).to_string(),
        None => "codesmith".to_string(),
    }
}

/// clap's refusal as an `invalid_arguments` error: its first line, the arguments it names as
/// missing and its tips, taken from its rendered text (the usage footer and styling left
/// behind), and whose usage to point to.
pub(super) fn usage_error(invoked: Option<&str>, schema: Option<&Value>, rendered: &str) -> ToolError {
    let mut lines = rendered.lines();
    let first = lines
        .next()
        .unwrap_or_default()
        .trim_start_matches("error: ")
        .trim()
        .to_string();
    // clap lists missing arguments on the indented lines after the first.
    let missing: Vec<String> = lines
        .clone()
        .take_while(|line| line.starts_with("  "))
        .map(|line| line.trim().to_string())
        .collect();
    let lines = lines
        .map(str::trim)
        .filter_map(|line| {
            if let Some(usage) = line.strip_prefix("Usage: ") {
                Some(ClapLine::Usage(usage.to_string()))
            } else if let Some(tip) = line.strip_prefix("tip: ") {
                Some(ClapLine::Tip(tip.to_string()))
            } else {
                line.strip_prefix("[possible values: ")
                    .map(|values| ClapLine::PossibleValues(values.trim_end_matches(']').to_string()))
            }
        })
        .collect();
    let of = match (invoked.and_then(tools::find), schema) {
        (Some(spec), Some(schema)) => UsageOf::Tool {
            name: spec.name.to_string(),
            flags: schema["properties"]
                .as_object()
                .map(|props| {
                    props
                        .keys()
                        .map(|k| format!("--{}", k.replace('_', "-")))
                        .collect()
                })
                .unwrap_or_default(),
            alias: spec.alias.to_string(),
        },
        _ => match invoked {
            Some("approve") => UsageOf::Approve,
            Some("trust") => UsageOf::Trust,
            Some(command @ ("call" | "tools")) => UsageOf::Command(command.to_string()),
            _ => UsageOf::Other,
        },
    };
    ToolError::usage(&ClapRefusal {
        first,
        missing,
        lines,
        of,
    })
}
