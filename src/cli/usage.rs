//! Command lines clap refuses, as `invalid_arguments` messages that name the way out.

use std::ffi::OsString;

use serde_json::Value;

use super::{command_for, GLOBALS_WITH_VALUE};
use crate::error::ToolError;
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
    let flags: Vec<String> = moved
        .iter()
        .filter(|arg| arg.starts_with("--"))
        .map(|arg| format!("`{}`", arg.split('=').next().unwrap_or_default()))
        .collect();
    let named = match flags.as_slice() {
        [] => return None,
        [one] => format!("global option {one} goes"),
        [init @ .., last] => format!("global options {} and {last} go", init.join(", ")),
    };
    let corrected: Vec<&str> = std::iter::once("codesmith")
        .chain(args[1..at].iter().copied())
        .chain(moved.iter().copied())
        .chain(std::iter::once(invoked))
        .chain(kept.iter().copied())
        .collect();
    let what = if tools::find(invoked).is_some() {
        "tool"
    } else {
        "command"
    };
    let corrected: Vec<String> = corrected
        .iter()
        .map(|a| crate::fs::workspace::shell_word(a))
        .collect();
    Some(ToolError::global_option_after_name(
        &named,
        what,
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

/// clap's refusal as an `invalid_arguments` message: its first line and its tips (without the
/// usage footer and styling), then where the usage is; for a tool, every flag it takes.
pub(super) fn usage_error(invoked: Option<&str>, schema: Option<&Value>, rendered: &str) -> ToolError {
    let mut lines = rendered.lines();
    let first = lines
        .next()
        .unwrap_or_default()
        .trim_start_matches("error: ")
        .trim();
    let mut message = first.trim_end_matches(['.', ':']).to_string();
    // clap lists missing arguments on the indented lines after the first.
    let missing: Vec<&str> = lines
        .clone()
        .take_while(|line| line.starts_with("  "))
        .map(str::trim)
        .collect();
    if !missing.is_empty() {
        message.push_str(&format!(": {}", missing.join(", ")));
    }
    message.push('.');
    for line in lines.map(str::trim) {
        if let Some(usage) = line.strip_prefix("Usage: ") {
            if !missing.is_empty() {
                message.push_str(&format!(" Usage: {usage}."));
            }
        } else if let Some(tip) = line.strip_prefix("tip: ") {
            message.push_str(&format!(" Tip: {}.", tip.trim_end_matches('.')));
        } else if let Some(values) = line.strip_prefix("[possible values: ") {
            message.push_str(&format!(" Possible values: {}.", values.trim_end_matches(']')));
        }
    }
    match (invoked.and_then(tools::find), schema) {
        (Some(spec), Some(schema)) => {
            let flags: Vec<String> = schema["properties"]
                .as_object()
                .map(|props| {
                    props
                        .keys()
                        .map(|k| format!("--{}", k.replace('_', "-")))
                        .collect()
                })
                .unwrap_or_default();
            message.push_str(&format!(
                " {} takes {}, or all arguments as one JSON object with --json; see `codesmith {} --help`.",
                spec.name,
                flags.join(", "),
                spec.alias
            ));
        }
        _ => match invoked {
            Some("approve") => message.push_str(
                " Pass the id from the approval_required error (error.approval.id), e.g. \
                 `codesmith approve ap-0123456789ab`; see `codesmith approve --help`.",
            ),
            Some("trust") => message.push_str(
                " Say what to do: `codesmith trust list`, or `codesmith trust add DIR` / \
                 `codesmith trust remove DIR`; see `codesmith trust --help`.",
            ),
            Some(command @ ("call" | "tools")) => {
                message.push_str(&format!(" Run `codesmith {command} --help` for the usage."))
            }
            _ => message.push_str(" Run `codesmith --help` (or `codesmith <command> --help`) for the usage."),
        },
    }
    ToolError::invalid(message)
}
