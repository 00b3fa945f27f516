//! codesmith: a headless toolbox of file, search, shell and network tools for AI coding agents.
//!
//! One process per call: the command line is parsed into an [`cli::Invocation`], the tool runs in
//! a [`context::Context`] (workspace boundary, session state), and [`envelope`] prints the one
//! JSON result object.
#![deny(clippy::print_stdout)]

pub mod approval;
pub mod args;
pub mod atomic;
pub mod cancel;
pub mod catalog;
pub mod cli;
pub mod commands;
pub mod config;
pub mod context;
pub mod deep_stack;
pub mod diff;
pub mod dispatch;
pub mod envelope;
pub mod error;
pub mod file_change;
pub mod freshness;
pub mod generate;
pub mod history;
pub mod human;
pub mod journal;
pub mod line_endings;
pub mod mcp;
pub mod net;
pub mod profile;
pub mod reference;
pub mod sandbox;
pub mod similar_paths;
pub mod state;
pub mod symbols;
pub mod syntax_gate;
pub mod terminal;
pub mod textfile;
pub mod tools;
pub mod trust;
pub mod walk;
pub mod workspace;

use std::ffi::OsString;

use cli::Invocation;

/// Runs one invocation and returns the process exit status.
pub fn run(argv: Vec<OsString>) -> i32 {
    match cli::parse(argv) {
        Invocation::Tool { global, spec, args } => {
            let (envelope, status) = dispatch::call_tool(&global, spec, args);
            envelope::print(&envelope, global.text_format);
            status
        }
        Invocation::Tools { global, format } => match catalog::enabled_tools(&global) {
            Ok(specs) => {
                envelope::write_stdout(catalog::render_for(&format, &specs).as_bytes());
                envelope::EXIT_OK
            }
            Err(err) => envelope::emit("tools", Err(err), global.text_format, None),
        },
        Invocation::Mcp { global } => mcp::serve(global),
        Invocation::Trust { global, action, path } => envelope::emit(
            "trust",
            commands::trust(&global, &action, path),
            global.text_format,
            None,
        ),
        Invocation::Approve { global, id, persist } => envelope::emit(
            "approve",
            commands::approve(&global, &id, persist),
            global.text_format,
            None,
        ),
        Invocation::Print(text) => {
            envelope::write_stdout(text.as_bytes());
            envelope::EXIT_OK
        }
        Invocation::Usage { global, tool, error } => {
            envelope::emit(&tool, Err(error), global.text_format, None)
        }
    }
}
