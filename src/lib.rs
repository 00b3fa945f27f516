//! codesmith: a headless toolbox of file, search, shell and network tools for AI coding agents.
//!
//! One process per call: the command line is parsed into an [`cli::Invocation`], the tool runs
//! through [`dispatch::call_tool`] in a [`session::context::Context`] (workspace boundary,
//! session state), and [`cli::envelope`] prints the one JSON result object.
//!
//! The modules below are grouped by layer, highest first; a module names only lower layers
//! (`tests/layers.rs` checks it). ARCHITECTURE.md has the map, the flow of a call and the
//! decisions behind them.
#![deny(clippy::print_stdout)]

// Front ends, side by side: the command line and the MCP server. They parse a call and print
// its envelope.
pub mod cli;
pub mod mcp;

// What both front ends do with a call: resolve it, run the tool, build the envelope.
pub mod dispatch;

// The tools, one module each, and the registry that lists them.
pub mod tools;

// Services the tools stand on.
pub mod args;
pub mod fs;
pub mod net;
pub mod policy;
pub mod sandbox;
pub mod session;
pub mod symbols;

// Foundations every layer may use.
pub mod deep_stack;
pub mod error;
pub mod notice;
pub mod output;
pub mod terminal;
pub mod tool_id;

#[cfg(test)]
mod source_tests;

use std::ffi::OsString;

use cli::Invocation;

/// Runs one invocation and returns the process exit status.
pub fn run(argv: Vec<OsString>) -> i32 {
    // Not a command for people: the capturing process a background task's output goes through,
    // which exec_shell starts by re-executing this binary (see its module).
    use tools::exec_shell::tasks::capture;
    if argv.get(1).is_some_and(|word| word == capture::COMMAND) {
        return capture::serve(&argv[2..]);
    }
    match cli::parse(argv) {
        Invocation::Tool { global, spec, args } => {
            let (envelope, status) = dispatch::call_tool(&global, spec, args);
            cli::envelope::print(&envelope, &global);
            status
        }
        Invocation::Tools { global, format } => match dispatch::catalog::enabled_tools(&global) {
            Ok(specs) => {
                dispatch::envelope::write_stdout(dispatch::catalog::render_for(&format, &specs).as_bytes());
                dispatch::envelope::EXIT_OK
            }
            Err(err) => cli::envelope::emit("tools", Err(err), &global),
        },
        Invocation::Mcp {
            global,
            session_given,
        } => mcp::serve(global, session_given),
        Invocation::Trust { global, action, path } => cli::envelope::emit(
            "trust",
            dispatch::commands::trust(&global, &action, path),
            &global,
        ),
        Invocation::Approve { global, id, persist } => cli::envelope::emit(
            "approve",
            dispatch::commands::approve(&global, &id, persist),
            &global,
        ),
        Invocation::Answer { global, id, text } => {
            cli::envelope::emit("answer", dispatch::commands::answer(&global, &id, &text), &global)
        }
        Invocation::Print(text, status) => {
            dispatch::envelope::write_stdout(text.as_bytes());
            status
        }
        Invocation::Usage { global, tool, error } => cli::envelope::emit(&tool, Err(error), &global),
    }
}
