//! The `unknown_tool` error, for every front end: the tools there are, the one a name from
//! another harness most likely meant, a typo's nearest command, or a foreign call translated.

use serde_json::Value;

use super::{foreign, translate};
use crate::error::{NearMiss, ToolError};
use crate::tools;

/// The `unknown_tool` error: the tools there are, and not to retry the name.
///
/// A name another harness uses (`Edit`, `Bash`, `str_replace_editor`) also gets the tool it
/// most likely meant here, in the message and as `error.suggestion`.
pub fn unknown_tool(name: &str) -> ToolError {
    let near = nearest_command(name);
    let intended = foreign::intended(name).or_else(|| near.and_then(|(_, tool)| tool.map(|t| (t, ""))));
    let near_miss = match (foreign::intended(name), near) {
        (Some((tool, what)), _) => NearMiss::Foreign { tool, what },
        (None, Some((command, tool))) => NearMiss::Typo { command, tool },
        (None, None) => NearMiss::None,
    };
    ToolError::unknown_tool(name, near_miss, tools::names(), intended.map(|(tool, _)| tool))
}

/// The `unknown_tool` error for a whole call from another harness: the call translated into
/// codesmith's tool and arguments, in the message and as `error.suggestion`, ready to send.
pub fn unknown_tool_call(name: &str, arguments: &Value, files: &dyn translate::Files) -> ToolError {
    let Some(translated) = translate::translate(name, arguments, files) else {
        return unknown_tool(name);
    };
    match translated {
        Ok(call) => ToolError::unknown_tool_translated(
            name,
            call.name,
            serde_json::json!({"name": call.name, "arguments": call.arguments}),
            &call.notes,
            tools::names(),
        ),
        Err(why) => unknown_tool(name).untranslatable(name, &why),
    }
}

/// The command or tool name `name` is a near miss of (`reed` for `read`), with the tool's
/// canonical name when it is a tool.
pub fn nearest_command(name: &str) -> Option<(&'static str, Option<&'static str>)> {
    let lower = name.to_lowercase();
    let tools = tools::REGISTRY
        .iter()
        .flat_map(|spec| [(spec.alias, Some(spec.name)), (spec.name, Some(spec.name))]);
    let commands = super::COMMANDS.into_iter().map(|c| (c, None));
    tools
        .chain(commands)
        .map(|(command, tool)| (strsim::damerau_levenshtein(&lower, command), command, tool))
        .filter(|(distance, command, _)| *distance <= (command.len() / 3).clamp(1, 2))
        .min_by_key(|(distance, _, _)| *distance)
        .map(|(_, command, tool)| (command, tool))
}
