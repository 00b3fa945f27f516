//! What both front ends (the command line, `cli`, and the MCP server, `mcp`) do with a call,
//! side by side on it: resolve a model's call ([`resolve`], translating another harness's
//! shapes), run the tool ([`call_tool`]), answer with the envelope ([`envelope`]) whose printed
//! command lines carry the call's workspace and session ([`person`]); the catalogs
//! ([`catalog`]) and the commands that are not tools ([`commands`]: trust, approve, answer).

pub mod catalog;
pub mod commands;
pub mod envelope;
mod foreign;
pub mod person;
pub mod resolve;
mod translate;
pub mod unknown;

use serde_json::Value;

use crate::session::context::{Context, Global};
use crate::tools::ToolSpec;

/// The commands that are not tools.
pub const COMMANDS: [&str; 8] = [
    "call",
    "tools",
    "trust",
    "approve",
    "answer",
    "mcp",
    "completions",
    "man",
];

/// Runs `spec` with `args` in the session `global` names and returns the envelope with its
/// exit status. Nothing is printed.
pub fn call_tool(global: &Global, spec: &'static ToolSpec, mut args: Value) -> (Value, i32) {
    match Context::open(global, spec.id) {
        Ok(mut ctx) => {
            let result = crate::tools::profile::check_enabled(global, &ctx, spec).and_then(|()| {
                let clamped = crate::args::clamp_out_of_range(spec.caps, &mut args);
                (spec.run)(args, &mut ctx).map(|mut output| {
                    output.notices.splice(0..0, clamped);
                    output
                })
            });
            let result = ctx.with_opening_notices(result);
            let (mut envelope, status) = envelope::build(spec.name, result, Some(&ctx));
            let session = ctx.state.session_name();
            person::localize_envelope(&mut envelope, || person::prefix(ctx.given_workspace(), session));
            (envelope, status)
        }
        Err(err) => {
            let (mut envelope, status) = envelope::build(spec.name, Err(err), None);
            person::localize_envelope(&mut envelope, || person::prefix_of(global));
            (envelope, status)
        }
    }
}
