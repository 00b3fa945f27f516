//! One tool call, from the resolved global options and arguments to the envelope. The command
//! line prints what this returns; the MCP server wraps it in a `tools/call` result.

use serde_json::Value;

use crate::cli::person;
use crate::session::context::{Context, Global};
use crate::tools::ToolSpec;

/// Runs `spec` with `args` in the session `global` names and returns the envelope with its
/// exit status. Nothing is printed.
pub fn call_tool(global: &Global, spec: &'static ToolSpec, mut args: Value) -> (Value, i32) {
    match Context::open(global, spec.name) {
        Ok(mut ctx) => {
            let result = crate::tools::profile::check_enabled(global, &ctx, spec).and_then(|()| {
                let clamped = crate::args::clamp_out_of_range(spec.caps, &mut args);
                (spec.run)(args, &mut ctx).map(|mut output| {
                    output.notices.splice(0..0, clamped);
                    output
                })
            });
            let result = ctx.with_opening_notices(result);
            let (mut envelope, status) = crate::cli::envelope::build(spec.name, result, Some(&ctx));
            let session = ctx.state.session_name();
            person::localize_envelope(&mut envelope, || person::prefix(ctx.given_workspace(), session));
            (envelope, status)
        }
        Err(err) => {
            let (mut envelope, status) = crate::cli::envelope::build(spec.name, Err(err), None);
            person::localize_envelope(&mut envelope, || person::prefix_of(global));
            (envelope, status)
        }
    }
}
