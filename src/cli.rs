//! The command line: global options, one subcommand per registered tool (built from its
//! schema), and `call`, `tools`, `trust`, `approve`. Parsing ends in an [`Invocation`]; nothing
//! here runs a tool.

use std::ffi::OsString;
use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::{Map, Value};

use crate::context::Global;
use crate::error::{ErrorCode, ToolError};
use crate::tools::{self, ToolSpec, REGISTRY};

/// What the command line asks for.
pub enum Invocation {
    Tool {
        global: Global,
        spec: &'static ToolSpec,
        args: Value,
    },
    Tools {
        format: String,
    },
    Trust {
        global: Global,
        action: String,
        path: Option<PathBuf>,
    },
    Approve {
        global: Global,
        id: String,
        persist: bool,
    },
    /// `--help`, `--version`: text for a person.
    Print(String),
    /// A usage error, reported in an envelope under `tool`.
    Usage {
        global: Global,
        tool: String,
        error: ToolError,
    },
}

/// The full command tree, for help, the man page and the completions.
pub fn command() -> Command {
    let mut cmd = base_command();
    for spec in REGISTRY {
        cmd = cmd.subcommand(tool_command(spec, &(spec.schema)()));
    }
    cmd.subcommand(call_command())
        .subcommand(tools_command())
        .subcommand(trust_command())
        .subcommand(approve_command())
}

/// The command tree a call needs. A tool call (the hot path) gets the global options and that
/// one tool's subcommand, so start-up never builds the other tools' subcommands or schemas;
/// anything else (help, `tools`, an unknown name, a usage error) gets the full tree, so
/// behaviour and messages are the same as with [`command`].
fn command_for(invoked: Option<&str>, schema: Option<&Value>) -> Command {
    match (invoked.and_then(tools::find), schema) {
        (Some(spec), Some(schema)) => base_command().subcommand(tool_command(spec, schema)),
        _ if invoked == Some("call") => base_command().subcommand(call_command()),
        _ => command(),
    }
}

/// The global options that take a value (the peeks below skip it).
const GLOBALS_WITH_VALUE: [&str; 4] = ["--workspace", "--session", "--format", "--approve"];

/// The first argument past the global options: the subcommand clap will see. `None` when an
/// option other than the globals comes first (`--help`, `--version`, a typo), which the full
/// tree handles.
fn invoked_name(argv: &[OsString]) -> Option<&str> {
    let mut args = argv.iter().skip(1);
    while let Some(arg) = args.next() {
        let arg = arg.to_str()?;
        if GLOBALS_WITH_VALUE.contains(&arg) {
            args.next();
        } else if arg == "--yolo"
            || GLOBALS_WITH_VALUE
                .iter()
                .any(|flag| arg.strip_prefix(flag).is_some_and(|rest| rest.starts_with('=')))
        {
            continue;
        } else if arg.starts_with('-') {
            return None;
        } else {
            return Some(arg);
        }
    }
    None
}

/// Whether `--format text` is among the global options, so that a command line clap refuses
/// is still answered in the format asked for.
fn asks_for_text(argv: &[OsString]) -> bool {
    let mut args = argv.iter().skip(1).map(|a| a.to_str().unwrap_or_default());
    while let Some(arg) = args.next() {
        match arg {
            "--format" => return args.next() == Some("text"),
            "--format=text" => return true,
            _ if GLOBALS_WITH_VALUE.contains(&arg) => {
                args.next();
            }
            _ if !arg.starts_with('-') => return false,
            _ => {}
        }
    }
    false
}

fn base_command() -> Command {
    Command::new("codesmith")
        .version(env!("CARGO_PKG_VERSION"))
        .about("File, search, shell and network tools for AI coding agents; one JSON envelope per call")
        .long_about(
            "codesmith gives AI coding agents the tools they use all day. Each tool is a subcommand \
             that takes JSON (flags, --json TEXT, or a JSON object on stdin) and prints one JSON \
             result envelope on stdout.",
        )
        .subcommand_required(true)
        .allow_external_subcommands(true)
        .max_term_width(100)
        .arg(
            Arg::new("workspace")
                .long("workspace")
                .value_name("DIR")
                .env("CODESMITH_WORKSPACE")
                .value_parser(clap::value_parser!(PathBuf))
                .help("The workspace root, the boundary of every path [default: the current directory]"),
        )
        .arg(
            Arg::new("session")
                .long("session")
                .value_name("NAME")
                .env("CODESMITH_SESSION")
                .default_value("default")
                .help("The session whose cwd, read fingerprints and approvals apply"),
        )
        .arg(
            Arg::new("format")
                .long("format")
                .value_name("FORMAT")
                .value_parser(["json", "text"])
                .default_value("json")
                .help("json: the envelope; text: only its output, for people"),
        )
        .arg(
            Arg::new("approve")
                .long("approve")
                .value_name("ID")
                .action(ArgAction::Append)
                .help("Grant the pending approval ID for this call (repeatable)"),
        )
        .arg(
            Arg::new("yolo")
                .long("yolo")
                .action(ArgAction::SetTrue)
                .help("Grant every approval for this call"),
        )
}

fn call_command() -> Command {
    Command::new("call")
        .about("Run a model's tool call verbatim: stdin {\"name\": TOOL, \"arguments\": {...}}")
        .long_about(
            "Reads {\"name\": \"<tool>\", \"arguments\": {...}} from stdin (or --json TEXT). \
             \"arguments\" may also be a JSON string holding the object, as OpenAI sends it.",
        )
        .arg(
            Arg::new("json")
                .long("json")
                .value_name("TEXT")
                .num_args(0..=1)
                .default_missing_value("")
                .help("The call as JSON instead of stdin (no value: read it from stdin)"),
        )
}

fn tools_command() -> Command {
    Command::new("tools")
        .about("Print the tool catalog: names, descriptions, input schemas")
        .arg(
            Arg::new("format")
                .long("format")
                .value_parser(["json", "openai", "anthropic", "mcp", "markdown"])
                .default_value("json")
                .help("The catalog's shape"),
        )
}

fn trust_command() -> Command {
    Command::new("trust")
        .about("Manage trusted paths outside the workspace")
        .arg(
            Arg::new("action")
                .value_name("ACTION")
                .required(true)
                .value_parser(["add", "remove", "list"]),
        )
        .arg(
            Arg::new("path")
                .value_name("PATH")
                .value_parser(clap::value_parser!(PathBuf))
                .help("The directory (add, remove)"),
        )
}

fn approve_command() -> Command {
    Command::new("approve")
        .about("Grant a pending approval for this session")
        .arg(
            Arg::new("id")
                .value_name("ID")
                .required(true)
                .help("The id from an approval_required error"),
        )
        .arg(
            Arg::new("persist")
                .long("persist")
                .action(ArgAction::SetTrue)
                .help("Record it for the workspace (for network: add the host to the allow list)"),
        )
}

/// The subcommand of one tool: its short name, the canonical name as an alias, a flag per
/// schema property and the positional main argument.
fn tool_command(spec: &'static ToolSpec, schema: &Value) -> Command {
    let first_line = spec.description.lines().next().unwrap_or_default().to_string();
    let mut cmd = Command::new(spec.alias);
    // The task tools have no short name: their alias is their name.
    if spec.alias != spec.name {
        cmd = cmd.visible_alias(spec.name);
    }
    let mut cmd = cmd.about(first_line).long_about(spec.description).arg(
        Arg::new("json")
            .long("json")
            .value_name("TEXT")
            .num_args(0..=1)
            .default_missing_value("")
            .help("All arguments as one JSON object (no value: read it from stdin)"),
    );
    let empty = Map::new();
    let properties = schema["properties"].as_object().unwrap_or(&empty);
    for (name, prop) in properties {
        let help = prop["description"].as_str().unwrap_or_default();
        let mut arg = Arg::new(name.clone())
            .long(name.replace('_', "-"))
            .help(help.lines().next().unwrap_or_default().to_string())
            .long_help(help.to_string());
        arg = match flag_kind(prop) {
            FlagKind::Bool => arg
                .num_args(0..=1)
                .default_missing_value("true")
                .value_name("BOOL"),
            FlagKind::List => arg.action(ArgAction::Append).value_name("VALUE"),
            FlagKind::Integer => arg.value_name("N"),
            FlagKind::Number | FlagKind::Str => arg.value_name(name.to_uppercase()),
        };
        if let Some(values) = prop["enum"].as_array() {
            let values: Vec<String> = values
                .iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect();
            arg = arg.value_parser(clap::builder::PossibleValuesParser::new(values));
        }
        cmd = cmd.arg(arg);
        if spec.positional == Some(name.as_str()) {
            cmd = cmd.arg(
                Arg::new("__positional")
                    .index(1)
                    .value_name(name.to_uppercase())
                    .conflicts_with(name.clone())
                    .help(format!("Same as --{}", name.replace('_', "-"))),
            );
        }
    }
    cmd
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum FlagKind {
    Bool,
    Integer,
    Number,
    Str,
    List,
}

pub(crate) fn flag_kind(prop: &Value) -> FlagKind {
    let type_of = |schema: &Value| -> Option<String> {
        match &schema["type"] {
            Value::String(t) => Some(t.clone()),
            Value::Array(types) => types
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
                .map(String::from),
            _ => None,
        }
    };
    let kind = type_of(prop).or_else(|| {
        ["anyOf", "oneOf"]
            .iter()
            .filter_map(|key| prop[key].as_array())
            .flatten()
            .find_map(type_of)
            .filter(|t| t != "null")
    });
    match kind.as_deref() {
        Some("boolean") => FlagKind::Bool,
        Some("integer") => FlagKind::Integer,
        Some("number") => FlagKind::Number,
        Some("array") => FlagKind::List,
        _ => FlagKind::Str,
    }
}

/// Parses the command line.
pub fn parse(argv: Vec<OsString>) -> Invocation {
    let invoked = invoked_name(&argv).map(String::from);
    let text_format = asks_for_text(&argv);
    let schema = invoked
        .as_deref()
        .and_then(tools::find)
        .map(|spec| (spec.schema)());
    let matches = match command_for(invoked.as_deref(), schema.as_ref()).try_get_matches_from(&argv) {
        Ok(matches) => matches,
        Err(err) => {
            use clap::error::ErrorKind;
            if matches!(
                err.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                return Invocation::Print(err.render().to_string());
            }
            let error = misplaced_global(&argv, invoked.as_deref(), schema.as_ref()).unwrap_or_else(|| {
                usage_error(invoked.as_deref(), schema.as_ref(), &err.render().to_string())
            });
            return Invocation::Usage {
                global: Global {
                    session: "default".into(),
                    text_format,
                    ..Global::default()
                },
                tool: usage_tool_name(invoked.as_deref()),
                error,
            };
        }
    };
    let global = global_of(&matches);
    let Some((name, sub)) = matches.subcommand() else {
        return Invocation::Print(command().render_help().to_string());
    };
    match name {
        "call" => parse_call(global, sub),
        "tools" => Invocation::Tools {
            format: sub
                .get_one::<String>("format")
                .cloned()
                .unwrap_or_else(|| "json".into()),
        },
        "trust" => Invocation::Trust {
            global,
            action: sub.get_one::<String>("action").cloned().unwrap_or_default(),
            path: sub.get_one::<PathBuf>("path").cloned(),
        },
        "approve" => Invocation::Approve {
            global,
            id: sub.get_one::<String>("id").cloned().unwrap_or_default(),
            persist: sub.get_flag("persist"),
        },
        _ => match tools::find(name) {
            Some(spec) => match tool_arguments(spec, schema.as_ref(), sub) {
                Ok(args) => Invocation::Tool { global, spec, args },
                Err(error) => Invocation::Usage {
                    global,
                    tool: spec.name.to_string(),
                    error,
                },
            },
            None => Invocation::Usage {
                global,
                tool: name.to_string(),
                error: unknown_tool(name),
            },
        },
    }
}

fn global_of(matches: &ArgMatches) -> Global {
    Global {
        workspace: matches.get_one::<PathBuf>("workspace").cloned(),
        session: matches
            .get_one::<String>("session")
            .cloned()
            .unwrap_or_else(|| "default".into()),
        text_format: matches.get_one::<String>("format").is_some_and(|f| f == "text"),
        approve: matches
            .get_many::<String>("approve")
            .map(|v| v.cloned().collect())
            .unwrap_or_default(),
        yolo: matches.get_flag("yolo"),
    }
}

/// The `unknown_tool` error: the tools there are, and not to retry the name.
pub fn unknown_tool(name: &str) -> ToolError {
    ToolError::new(
        ErrorCode::UnknownTool,
        format!(
            "unknown tool `{name}`. Do not retry `{name}`; it does not exist. Available tools: {}.",
            tools::names().join(", ")
        ),
    )
    .with("available", tools::names())
}

/// One JSON object of arguments from exactly one source: flags and positional, `--json TEXT`,
/// or stdin (`--json` without a value, or no arguments at all and stdin not a terminal).
fn tool_arguments(spec: &ToolSpec, schema: Option<&Value>, sub: &ArgMatches) -> Result<Value, ToolError> {
    let generated;
    let schema = match schema {
        Some(schema) => schema,
        None => {
            generated = (spec.schema)();
            &generated
        }
    };
    let empty = Map::new();
    let properties = schema["properties"].as_object().unwrap_or(&empty);
    let mut object = Map::new();
    for (name, prop) in properties {
        let kind = flag_kind(prop);
        let values: Vec<String> = sub
            .get_many::<String>(name)
            .map(|v| v.cloned().collect())
            .unwrap_or_default();
        if values.is_empty() {
            continue;
        }
        let value = match kind {
            FlagKind::List => Value::Array(values.into_iter().map(Value::String).collect()),
            _ => typed_flag_value(kind, values.into_iter().next_back().unwrap_or_default()),
        };
        object.insert(name.clone(), value);
    }
    if let (Some(positional), Some(value)) = (spec.positional, sub.get_one::<String>("__positional")) {
        let kind = properties.get(positional).map_or(FlagKind::Str, flag_kind);
        object.insert(positional.to_string(), typed_flag_value(kind, value.clone()));
    }
    let json = sub.get_one::<String>("json");
    match json {
        Some(_) if !object.is_empty() => Err(ToolError::invalid(format!(
            "arguments come from exactly one source, but {} got both --json and flags ({}). \
             Put every argument in the JSON object, or use only flags.",
            spec.name,
            object
                .keys()
                .map(|k| format!("--{}", k.replace('_', "-")))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
        Some(text) if !text.is_empty() => crate::args::parse_json_text(spec.name, text),
        Some(_) => read_stdin_json(spec.name),
        None if object.is_empty() && !std::io::stdin().is_terminal() => read_stdin_json(spec.name),
        None => Ok(Value::Object(object)),
    }
}

/// A flag's text as the JSON value its schema type calls for. Text that does not parse stays
/// a string, so the one serde pass reports the wrong type, naming the field.
fn typed_flag_value(kind: FlagKind, text: String) -> Value {
    match kind {
        FlagKind::Bool => match text.as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => Value::String(text),
        },
        FlagKind::Integer => text
            .parse::<i64>()
            .map(Value::from)
            .or_else(|_| text.parse::<u64>().map(Value::from))
            .unwrap_or(Value::String(text)),
        FlagKind::Number => text
            .parse::<f64>()
            .ok()
            .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number))
            .unwrap_or(Value::String(text)),
        FlagKind::Str | FlagKind::List => Value::String(text),
    }
}

fn read_stdin_text(what: &str) -> Result<String, ToolError> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|err| ToolError::invalid(format!("could not read {what} from stdin: {err}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| ToolError::invalid(format!("{what} on stdin is not valid UTF-8; send UTF-8 JSON")))?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

fn read_stdin_json(tool: &str) -> Result<Value, ToolError> {
    let text = read_stdin_text("the JSON arguments")?;
    crate::args::parse_json_text(tool, &text)
}

/// `call`: a model's tool call verbatim, in any of the shapes in [`CALL_SHAPES`].
fn parse_call(global: Global, sub: &ArgMatches) -> Invocation {
    let usage = |global: Global, tool: &str, error: ToolError| Invocation::Usage {
        global,
        tool: tool.to_string(),
        error,
    };
    let text = match sub.get_one::<String>("json") {
        Some(text) if !text.is_empty() => text.clone(),
        _ => match read_stdin_text("the call") {
            Ok(text) => text,
            Err(err) => return usage(global, "call", err),
        },
    };
    let call: Value = match serde_json::from_str(crate::args::strip_bom(&text).trim()) {
        Ok(value) => value,
        Err(err) => {
            return usage(
                global,
                "call",
                ToolError::invalid(format!(
                    "malformed JSON for call: {err}. Send {{\"name\": \"read_file\", \"arguments\": {{\"path\": \"README.md\"}}}}."
                )),
            )
        }
    };
    let (name, arguments) = match unwrap_call(call) {
        Ok(call) => call,
        Err(refusal) => {
            let (tool, error) = *refusal;
            return usage(global, &tool, error);
        }
    };
    let Some(spec) = tools::find(&name) else {
        return usage(global, &name, unknown_tool(&name));
    };
    let arguments = match arguments {
        Value::String(text) => match crate::args::parse_json_text(spec.name, &text) {
            Ok(value) => value,
            Err(err) => return usage(global, spec.name, err),
        },
        other => other,
    };
    Invocation::Tool {
        global,
        spec,
        args: arguments,
    }
}

/// The shapes `call` accepts, for its messages.
const CALL_SHAPES: &str = "Accepted shapes: {\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}} \
     (MCP; \"arguments\" may be a JSON string), {\"type\": \"tool_use\", \"id\": \"t1\", \"name\": \"read_file\", \
     \"input\": {\"path\": \"a.txt\"}} (Anthropic) and {\"id\": \"c1\", \"type\": \"function\", \"function\": \
     {\"name\": \"read_file\", \"arguments\": \"{\\\"path\\\": \\\"a.txt\\\"}\"}} (OpenAI); \"id\", \"type\" and \
     \"call_id\" are ignored.";

/// The envelope fields of a tool call that say nothing about what to run: the call's id (MCP,
/// Anthropic `tool_use`, OpenAI chat and Responses) and its type tag.
const IGNORED_CALL_FIELDS: [&str; 3] = ["id", "type", "call_id"];

/// The tool name and arguments of a call: `{"name", "arguments"|"input"}` (MCP, Anthropic
/// `tool_use`, OpenAI Responses `function_call`) or `{"function": {"name", "arguments"}}`
/// (OpenAI chat `tool_calls`). On error, the envelope's tool name and the error.
fn unwrap_call(call: Value) -> Result<(String, Value), Box<(String, ToolError)>> {
    let refuse = |tool: &str, message: String| Box::new((tool.to_string(), ToolError::invalid(message)));
    let Value::Object(mut call) = call else {
        return Err(refuse(
            "call",
            format!("call expects a JSON object. {CALL_SHAPES}"),
        ));
    };
    for field in IGNORED_CALL_FIELDS {
        call.shift_remove(field);
    }
    if let Some(function) = call.shift_remove("function") {
        let Value::Object(function) = function else {
            return Err(refuse(
                "call",
                format!(
                    "\"function\" must be an object {{\"name\": ..., \"arguments\": ...}}. {CALL_SHAPES}"
                ),
            ));
        };
        if let Some(extra) = call.keys().next() {
            return Err(refuse(
                "call",
                format!("unknown field `{extra}` in the call. {CALL_SHAPES}"),
            ));
        }
        call = function;
    }
    let Some(Value::String(name)) = call.shift_remove("name") else {
        return Err(refuse(
            "call",
            format!("call needs a string field \"name\" naming the tool. {CALL_SHAPES}"),
        ));
    };
    let arguments = match (call.shift_remove("arguments"), call.shift_remove("input")) {
        (Some(_), Some(_)) => {
            return Err(refuse(
                &name,
                format!("the call has both \"arguments\" and \"input\"; send one of them. {CALL_SHAPES}"),
            ))
        }
        (arguments, input) => arguments.or(input).unwrap_or(Value::Null),
    };
    if !call.is_empty() {
        let extra: Vec<String> = call.keys().map(|k| format!("`{k}`")).collect();
        return Err(refuse(
            &name,
            format!(
                "unknown field{} {} in the call. {CALL_SHAPES}",
                if extra.len() == 1 { "" } else { "s" },
                extra.join(", ")
            ),
        ));
    }
    Ok((name, arguments))
}

/// A global option written after the command name (`codesmith read f --workspace /tmp`), which
/// clap only knows as an unexpected argument: the message names the rule and the corrected
/// command line, every misplaced global option moved before the command.
fn misplaced_global(argv: &[OsString], invoked: Option<&str>, schema: Option<&Value>) -> Option<ToolError> {
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
    Some(ToolError::invalid(format!(
        "{named} before the {what} name `{invoked}`, not after it. Call again as: {}",
        corrected
            .iter()
            .map(|a| shell_quote(a))
            .collect::<Vec<_>>()
            .join(" ")
    )))
}

/// `arg` as a POSIX shell word.
fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./=:@%+,".contains(c));
    if plain {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

/// The envelope's `tool` for a command line clap refused: the canonical tool name when a tool
/// was named, else the command (`trust`, `call`, ...), else `codesmith`.
fn usage_tool_name(invoked: Option<&str>) -> String {
    match invoked {
        Some(name) => tools::find(name).map_or(name, |spec| spec.name).to_string(),
        None => "codesmith".to_string(),
    }
}

/// clap's refusal as an `invalid_arguments` message: its first line and its tips (without the
/// usage footer and styling), then where the usage is; for a tool, every flag it takes.
fn usage_error(invoked: Option<&str>, schema: Option<&Value>, rendered: &str) -> ToolError {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(args: &[&str]) -> Vec<OsString> {
        std::iter::once("codesmith")
            .chain(args.iter().copied())
            .map(OsString::from)
            .collect()
    }

    #[test]
    fn invoked_name_skips_global_options() {
        assert_eq!(invoked_name(&argv(&["read", "a"])), Some("read"));
        assert_eq!(
            invoked_name(&argv(&["--workspace", "/w", "--session=s", "--yolo", "ls"])),
            Some("ls")
        );
        assert_eq!(
            invoked_name(&argv(&["--approve", "x", "--format", "text", "call"])),
            Some("call")
        );
        assert_eq!(invoked_name(&argv(&["--help"])), None);
        assert_eq!(invoked_name(&argv(&[])), None);
    }

    #[test]
    fn one_tool_tree_renders_the_same_help_as_the_full_tree() {
        for spec in REGISTRY {
            let schema = (spec.schema)();
            let mut small = command_for(Some(spec.alias), Some(&schema));
            let mut full = command();
            small.build();
            full.build();
            let help = |cmd: &mut Command| {
                cmd.find_subcommand_mut(spec.alias)
                    .map(|sub| sub.render_long_help().to_string())
                    .unwrap_or_default()
            };
            assert_eq!(help(&mut small), help(&mut full), "{}", spec.name);
            assert!(!help(&mut full).is_empty());
        }
    }
}
