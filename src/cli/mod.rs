//! The command line: global options, one subcommand per registered tool (built from its
//! schema), and `call`, `tools`, `trust`, `approve`. Parsing ends in an [`Invocation`]; nothing
//! here runs a tool.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::{Map, Value};

mod arguments;
pub mod call;
pub mod envelope;
pub mod generate;
pub mod human;
pub mod reference;
mod usage;

use crate::args::{flag_kind, FlagKind};
use crate::error::ToolError;
use crate::session::context::Global;
use crate::tools::{self, ToolSpec, REGISTRY};

/// What the command line asks for.
pub enum Invocation {
    Tool {
        global: Global,
        spec: &'static ToolSpec,
        args: Value,
    },
    Tools {
        global: Global,
        format: String,
    },
    /// `mcp`: serve the tools over the Model Context Protocol on stdio.
    Mcp {
        global: Global,
        /// Whether `--session` (or `CODESMITH_SESSION`) named the session: shared on purpose.
        session_given: bool,
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
    /// `answer ID TEXT`: a person's answer to a question ask_user asked.
    Answer {
        global: Global,
        id: String,
        text: String,
    },
    /// `--help`, `--version`, `completions`, `man`: text for a person, and the exit status.
    Print(String, i32),
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
        .subcommand(answer_command())
        .subcommand(mcp_command())
        .subcommand(completions_command())
        .subcommand(man_command())
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
const GLOBALS_WITH_VALUE: [&str; 6] = [
    "--workspace",
    "--session",
    "--format",
    "--approve",
    "--answer",
    "--tools",
];

/// The first argument past the global options: the subcommand clap will see. `None` when an
/// option other than the globals comes first (`--help`, `--version`, a typo), which the full
/// tree handles.
fn invoked_name(argv: &[OsString]) -> Option<&str> {
    invoked_at(argv).and_then(|at| argv[at].to_str())
}

/// Where [`invoked_name`] is in `argv`.
fn invoked_at(argv: &[OsString]) -> Option<usize> {
    let mut args = argv.iter().enumerate().skip(1);
    while let Some((at, arg)) = args.next() {
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
            return Some(at);
        }
    }
    None
}

/// Whether a command line clap refuses is answered as text: `--format` among the global
/// options, else as [`text_format`] decides without one.
fn asks_for_text(argv: &[OsString]) -> bool {
    let mut args = argv.iter().skip(1).map(|a| a.to_str().unwrap_or_default());
    while let Some(arg) = args.next() {
        match arg {
            "--format" => return args.next() == Some("text"),
            _ if arg.starts_with("--format=") => return arg == "--format=text",
            _ if GLOBALS_WITH_VALUE.contains(&arg) => {
                args.next();
            }
            _ if !arg.starts_with('-') => break,
            _ => {}
        }
    }
    text_format(None)
}

/// Whether results print as text: `--format` when given, else `CODESMITH_FORMAT` (set and not
/// empty), else text when stdout is a terminal (a person reads it) and the JSON envelope when
/// it is not (a program does). A `CODESMITH_FORMAT` other than json or text counts as unset;
/// [`format_env_error`] reports it.
fn text_format(flag: Option<&str>) -> bool {
    use std::io::IsTerminal;
    let from_env = std::env::var("CODESMITH_FORMAT").ok();
    match flag.or(from_env.as_deref().filter(|f| matches!(*f, "json" | "text"))) {
        Some(format) => format == "text",
        None => std::io::stdout().is_terminal(),
    }
}

/// The usage error for a `CODESMITH_FORMAT` that is neither empty, json nor text.
fn format_env_error() -> Option<ToolError> {
    let value = std::env::var("CODESMITH_FORMAT").ok()?;
    (!matches!(value.as_str(), "" | "json" | "text")).then(|| ToolError::format_env(&value))
}

/// `argv` with each `--format json|text` written after the command moved before it, where the
/// global option goes: a person adds it at the end of the line. Not for a command that has a
/// `format` of its own (`fetch --format raw`, `tools --format openai`), and not past `--`.
fn hoist_format(argv: Vec<OsString>) -> Vec<OsString> {
    let Some(at) = invoked_at(&argv) else {
        return argv;
    };
    let name = argv[at].to_str().unwrap_or_default();
    let after = &argv[at + 1..];
    let end = after.iter().position(|arg| arg == "--").unwrap_or(after.len());
    let given = |arg: &OsString| {
        let arg = arg.to_str().unwrap_or_default();
        arg == "--format" || arg.starts_with("--format=")
    };
    if !after[..end].iter().any(given) {
        return argv;
    }
    let own_format = name == "tools"
        || tools::find(name).is_some_and(|spec| (spec.schema)()["properties"].get("format").is_some());
    if own_format {
        return argv;
    }
    let mut moved = Vec::new();
    let mut kept = Vec::new();
    let mut rest = after[..end].iter();
    while let Some(arg) = rest.next() {
        if given(arg) {
            moved.push(arg.clone());
            if arg == "--format" {
                moved.extend(rest.next().cloned());
            }
        } else {
            kept.push(arg.clone());
        }
    }
    let mut hoisted = argv[..at].to_vec();
    hoisted.extend(moved);
    hoisted.push(argv[at].clone());
    hoisted.extend(kept);
    hoisted.extend(after[end..].iter().cloned());
    hoisted
}

fn base_command() -> Command {
    Command::new("codesmith")
        .version(env!("CARGO_PKG_VERSION"))
        .about("File, search, shell and network tools for AI coding agents; one JSON envelope per call")
        .long_about(
            "codesmith gives AI coding agents the tools they use all day. Each tool is a subcommand \
             that takes JSON (flags, --json TEXT, or a JSON object on stdin) and prints one JSON \
             result envelope on stdout (at a terminal: its text, for a person).",
        )
        .subcommand_required(true)
        .arg_required_else_help(true)
        .allow_external_subcommands(true)
        .max_term_width(100)
        .arg(
            Arg::new("workspace")
                .long("workspace")
                .value_name("DIR")
                .env("CODESMITH_WORKSPACE")
                // Not PathBuf, which refuses an empty value: an empty CODESMITH_WORKSPACE means
                // unset (see `env_value`).
                .value_parser(clap::value_parser!(std::ffi::OsString))
                .value_hint(clap::ValueHint::AnyPath)
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
                .help(
                    "json: the envelope; text: its output and notices, for people (also after the \
                     command) [env: CODESMITH_FORMAT] [default: text at a terminal, json otherwise]",
                ),
        )
        .arg(
            Arg::new("approve")
                .long("approve")
                .value_name("ID")
                .action(ArgAction::Append)
                .help("Grant the pending approval ID for this call (repeatable)"),
        )
        .arg(
            Arg::new("answer")
                .long("answer")
                .value_name("ID")
                .action(ArgAction::Append)
                .help("Use the recorded answer to question ID (from answer_required) in this call"),
        )
        .arg(
            Arg::new("yolo")
                .long("yolo")
                .action(ArgAction::SetTrue)
                .help("Grant every approval for this call"),
        )
        .arg(
            Arg::new("tools")
                .long("tools")
                .value_name("LIST")
                .env("CODESMITH_TOOLS")
                .help(
                    "Offer only these tools: comma-separated tool names and capabilities \
                     (read_only, writes_files, runs_code, network) [default: all]",
                ),
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
        .arg(
            Arg::new("call")
                .index(1)
                .value_name("CALL")
                .conflicts_with("json")
                .help("The call as JSON (same as --json CALL)"),
        )
}

fn tools_command() -> Command {
    Command::new("tools")
        .about("Print the tool catalog: names, descriptions, input schemas")
        .arg(
            Arg::new("format")
                .long("format")
                .value_parser(crate::dispatch::catalog::FORMATS)
                .help("The catalog's shape [default: text at a terminal, json otherwise]"),
        )
}

fn completions_command() -> Command {
    Command::new("completions")
        .about("Print the completion script for a shell (as in completions/)")
        .arg(
            Arg::new("shell")
                .value_name("SHELL")
                .required(true)
                .value_parser(["bash", "zsh", "fish"]),
        )
}

fn man_command() -> Command {
    Command::new("man").about("Print the manual page codesmith(1) in roff (as man/codesmith.1)")
}

fn mcp_command() -> Command {
    Command::new("mcp")
        .about("Serve the tools over the Model Context Protocol (MCP) on stdio")
        .long_about(
            "Serves the same tools over the Model Context Protocol: JSON-RPC 2.0 on stdin and \
             stdout, one message per line, diagnostics on stderr. Speaks the initialize handshake \
             (2024-11-05 to 2025-11-25) and the stateless 2026-07-28. One connection is one \
             session (--session, default `default`); the workspace is --workspace or the current \
             directory; --tools restricts what tools/list offers. Closing stdin ends the server \
             and every foreground command it started.",
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

fn answer_command() -> Command {
    Command::new("answer")
        .about("Record a person's answer to a question ask_user asked (answer_required)")
        .arg(
            Arg::new("id")
                .value_name("ID")
                .required(true)
                .help("The question id from an answer_required error (q-...)"),
        )
        .arg(
            Arg::new("text")
                .value_name("TEXT")
                .required(true)
                .allow_hyphen_values(true)
                .help("The answer; empty takes the question's default"),
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
            // A bare switch (`--dry-run`); `--dry-run=false` still says no. The value must be
            // joined by `=`, so the word after a switch stays a positional argument.
            FlagKind::Bool => arg
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("true")
                .value_parser(["true", "false"])
                .value_name("BOOL"),
            FlagKind::List => arg.action(ArgAction::Append).value_name("VALUE"),
            // `--max-results -5` is a value (clamped later), not an unknown flag `-5`.
            FlagKind::Integer => arg.value_name("N").allow_negative_numbers(true),
            FlagKind::Number => arg.value_name(name.to_uppercase()).allow_negative_numbers(true),
            FlagKind::Str => arg.value_name(name.to_uppercase()),
        };
        let values = enum_values(prop);
        if !values.is_empty() {
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

/// The values an enum field takes: its `enum`, or the `const` of each `oneOf` branch (how
/// documented enum variants are written), for validation, help and completions.
fn enum_values(prop: &Value) -> Vec<String> {
    if let Some(values) = prop["enum"].as_array() {
        return values
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect();
    }
    prop["oneOf"]
        .as_array()
        .map(|branches| {
            branches
                .iter()
                .filter_map(|b| b["const"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// What clap's refusal of the command line becomes: help or version text to print, or a usage
/// error (a global option misplaced after the tool name says where it goes).
fn clap_failure(
    argv: &[OsString],
    invoked: Option<&str>,
    schema: Option<&Value>,
    err: &clap::Error,
    text_format: bool,
) -> Invocation {
    use clap::error::ErrorKind;
    match err.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            return Invocation::Print(err.render().to_string(), 0)
        }
        // Bare `codesmith`: the help, with clap's status for a missing command (a usage error).
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            return Invocation::Print(err.render().to_string(), 2)
        }
        _ => {}
    }
    let error = usage::misplaced_global(argv, invoked, schema)
        .unwrap_or_else(|| usage::usage_error(invoked, schema, &err.render().to_string()));
    Invocation::Usage {
        global: Global {
            session: "default".into(),
            text_format,
            ..Global::default()
        },
        tool: usage::usage_tool_name(invoked),
        error,
    }
}

/// Parses the command line.
pub fn parse(argv: Vec<OsString>) -> Invocation {
    let argv = hoist_format(argv);
    let invoked = invoked_name(&argv).map(String::from);
    let text_format = asks_for_text(&argv);
    let schema = invoked
        .as_deref()
        .and_then(tools::find)
        .map(|spec| (spec.schema)());
    let matches = match command_for(invoked.as_deref(), schema.as_ref()).try_get_matches_from(&argv) {
        Ok(matches) => matches,
        Err(err) => return clap_failure(&argv, invoked.as_deref(), schema.as_ref(), &err, text_format),
    };
    let mut global = global_of(&matches);
    if let Some(error) = format_env_error() {
        let tool = usage::usage_tool_name(matches.subcommand_name());
        return Invocation::Usage { global, tool, error };
    }
    if let Some(list) = global.tools.take() {
        match crate::tools::profile::parse_flag(&list.concat()) {
            Ok(names) => global.tools = Some(names),
            Err(error) => {
                let tool = usage::usage_tool_name(matches.subcommand_name());
                return Invocation::Usage { global, tool, error };
            }
        }
    }
    let Some((name, sub)) = matches.subcommand() else {
        return Invocation::Print(command().render_help().to_string(), 2);
    };
    match name {
        "call" => call::parse_call(global, sub),
        "mcp" => Invocation::Mcp {
            session_given: env_value::<String>(&matches, "session").is_some()
                && matches.value_source("session") != Some(clap::parser::ValueSource::DefaultValue),
            global,
        },
        "tools" => Invocation::Tools {
            format: sub
                .get_one::<String>("format")
                .cloned()
                .unwrap_or_else(|| if global.text_format { "text" } else { "json" }.to_string()),
            global,
        },
        "completions" => Invocation::Print(generate::completions(completion_shell(sub)), 0),
        "man" => Invocation::Print(generate::man_page(), 0),
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
        "answer" => Invocation::Answer {
            global,
            id: sub.get_one::<String>("id").cloned().unwrap_or_default(),
            text: sub.get_one::<String>("text").cloned().unwrap_or_default(),
        },
        _ => match tools::find(name) {
            Some(spec) => match arguments::tool_arguments(spec, schema.as_ref(), sub) {
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
                error: crate::dispatch::unknown::unknown_tool(name),
            },
        },
    }
}

/// The shell `codesmith completions SHELL` names (bash when none).
fn completion_shell(sub: &ArgMatches) -> clap_complete::Shell {
    match sub.get_one::<String>("shell").map(String::as_str) {
        Some("zsh") => clap_complete::Shell::Zsh,
        Some("fish") => clap_complete::Shell::Fish,
        _ => clap_complete::Shell::Bash,
    }
}

fn global_of(matches: &ArgMatches) -> Global {
    Global {
        workspace: env_value::<std::ffi::OsString>(matches, "workspace").map(PathBuf::from),
        session: env_value::<String>(matches, "session").unwrap_or_else(|| "default".into()),
        text_format: text_format(matches.get_one::<String>("format").map(String::as_str)),
        approve: matches
            .get_many::<String>("approve")
            .map(|v| v.cloned().collect())
            .unwrap_or_default(),
        yolo: matches.get_flag("yolo"),
        answer: matches
            .get_many::<String>("answer")
            .map(|v| v.cloned().collect())
            .unwrap_or_default(),
        prompt: true,
        tools: env_value::<String>(matches, "tools").map(|list| vec![list]),
    }
}

/// A global option's value, where an environment variable that is set but empty counts as
/// unset (shells and CI templates often export `VAR=`); an empty flag value is kept, so it is
/// reported as given.
fn env_value<T>(matches: &ArgMatches, id: &str) -> Option<T>
where
    T: Clone + Send + Sync + AsRef<std::ffi::OsStr> + 'static,
{
    let value = matches.get_one::<T>(id)?;
    let from_env = matches.value_source(id) == Some(clap::parser::ValueSource::EnvVariable);
    if from_env && value.as_ref().is_empty() {
        return None;
    }
    Some(value.clone())
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
    fn format_after_the_command_moves_before_it() {
        let strings = |args: Vec<OsString>| -> Vec<String> {
            args.iter().map(|a| a.to_string_lossy().into_owned()).collect()
        };
        assert_eq!(
            strings(hoist_format(argv(&[
                "--session",
                "read",
                "read",
                "a",
                "--format",
                "text"
            ]))),
            ["codesmith", "--session", "read", "--format", "text", "read", "a"]
        );
        assert_eq!(
            strings(hoist_format(argv(&[
                "grep",
                "x",
                "--format=json",
                "--",
                "--format",
                "text"
            ]))),
            [
                "codesmith",
                "--format=json",
                "grep",
                "x",
                "--",
                "--format",
                "text"
            ]
        );
        // A command's own --format stays.
        for own in [
            &["fetch", "u", "--format", "raw"][..],
            &["tools", "--format", "mcp"][..],
        ] {
            assert_eq!(strings(hoist_format(argv(own)))[1..], *own);
        }
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

    /// The commands a person can type besides the tools are the ones dispatch knows (for the
    /// printed command lines and the near-miss suggestions).
    #[test]
    fn every_command_that_is_not_a_tool_is_known_to_dispatch() {
        let names: Vec<String> = super::command()
            .get_subcommands()
            .map(|sub| sub.get_name().to_string())
            .filter(|name| crate::tools::find(name).is_none() && name != "help")
            .collect();
        for name in &names {
            assert!(
                crate::dispatch::COMMANDS.contains(&name.as_str()),
                "{name} {names:?}"
            );
        }
        assert_eq!(names.len(), crate::dispatch::COMMANDS.len(), "{names:?}");
    }
}
