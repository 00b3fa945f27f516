//! codesmith: a headless toolbox of file, search, shell and network tools for AI coding agents.
//!
//! One process per call: the command line is parsed into an [`cli::Invocation`], the tool runs in
//! a [`context::Context`] (workspace boundary, session state), and [`envelope`] prints the one
//! JSON result object.
#![deny(clippy::print_stdout)]

pub mod approval;
pub mod args;
pub mod atomic;
pub mod catalog;
pub mod cli;
pub mod commands;
pub mod config;
pub mod context;
pub mod deep_stack;
pub mod diff;
pub mod envelope;
pub mod error;
pub mod file_change;
pub mod freshness;
pub mod generate;
pub mod human;
pub mod journal;
pub mod line_endings;
pub mod net;
pub mod similar_paths;
pub mod state;
pub mod syntax_gate;
pub mod terminal;
pub mod textfile;
pub mod tools;
pub mod trust;
pub mod walk;
pub mod workspace;

use std::ffi::OsString;

use cli::Invocation;
use context::Context;

/// Runs one invocation and returns the process exit status.
pub fn run(argv: Vec<OsString>) -> i32 {
    match cli::parse(argv) {
        Invocation::Tool {
            global,
            spec,
            mut args,
        } => match Context::open(&global, spec.name) {
            Ok(mut ctx) => {
                let clamped = args::clamp_out_of_range(spec.name, &mut args);
                let result = (spec.run)(args, &mut ctx).map(|mut output| {
                    output.notices.splice(0..0, clamped);
                    output
                });
                let result = ctx.with_opening_notices(result);
                envelope::emit(spec.name, result, global.text_format, Some(&ctx))
            }
            Err(err) => envelope::emit(spec.name, Err(err), global.text_format, None),
        },
        Invocation::Tools { format } => {
            envelope::write_stdout(catalog::render(&format).as_bytes());
            envelope::EXIT_OK
        }
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
