//! Conformance with a client nobody here wrote: the official MCP Python SDK (`mcp` on PyPI)
//! runs a session against `codesmith mcp` in each of its connect modes (see
//! tests/mcp_sdk/session.py).
//!
//! The SDK comes from a virtual environment that `.ci/run` makes (`target/mcp-venv`, or the
//! interpreter named by CODESMITH_MCP_PYTHON). Where there is none the test prints why and
//! skips; CODESMITH_REQUIRE_MCP_SDK=1, which CI sets, makes that a failure.

use std::path::PathBuf;
use std::process::Command;

use crate::harness::WithoutCodesmithEnv;
use crate::harness::{Ws, BIN};

/// The Python interpreter that has the SDK, or why there is none.
fn sdk_python() -> Result<PathBuf, String> {
    let python = match std::env::var_os("CODESMITH_MCP_PYTHON") {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/mcp-venv/bin/python"),
    };
    if !python.exists() {
        return Err(format!(
            "no Python with the MCP SDK at {} (make it with `python3 -m venv target/mcp-venv && \
             target/mcp-venv/bin/pip install mcp`, as .ci/run does)",
            python.display()
        ));
    }
    let probe = Command::new(&python).args(["-c", "import mcp"]).output();
    match probe {
        Ok(out) if out.status.success() => Ok(python),
        _ => Err(format!("{} cannot import the `mcp` package", python.display())),
    }
}

/// The interpreter with the SDK; `None` (the test skips, saying why) where there is none,
/// unless CODESMITH_REQUIRE_MCP_SDK makes that a failure.
fn sdk_or_skip(test: &str) -> Option<PathBuf> {
    match sdk_python() {
        Ok(python) => Some(python),
        Err(reason) => {
            assert!(
                std::env::var_os("CODESMITH_REQUIRE_MCP_SDK").is_none(),
                "CODESMITH_REQUIRE_MCP_SDK is set but {reason}"
            );
            eprintln!("SKIPPED the MCP Python SDK {test}: {reason}");
            None
        }
    }
}

/// Runs `tests/mcp_sdk/<script>` with the SDK's interpreter against this build, in a clean
/// environment (no workspace or session from the caller); fails the test with both streams
/// unless it succeeds, and returns its stdout.
fn run_script(python: &PathBuf, script: &str, args: &[&std::ffi::OsStr], what: &str) -> String {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp_sdk")
        .join(script);
    let out = Command::new(python)
        .arg(&script)
        .arg(BIN)
        .args(args)
        .without_codesmith_env()
        .output()
        .expect("run python");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{what}:\n{stdout}\n{stderr}");
    stdout
}

#[test]
fn the_official_python_sdk_runs_a_session_in_every_mode() {
    let Some(python) = sdk_or_skip("conformance test") else {
        return;
    };
    for mode in ["legacy", "auto", "2026-07-28"] {
        let ws = Ws::new();
        ws.write("notes.txt", "one\ntwo\n");
        let outside = tempfile::tempdir().expect("tempdir");
        for dir in ["accepted", "declined"] {
            std::fs::create_dir(outside.path().join(dir)).expect("mkdir");
        }
        let outside_dir = outside.path().canonicalize().expect("canonical");
        let root = ws.path();
        let args = [root.as_os_str(), outside_dir.as_os_str(), mode.as_ref()];
        let stdout = run_script(&python, "session.py", &args, &format!("mode {mode}"));
        assert_eq!(
            stdout.lines().filter(|l| l.starts_with("ok ")).count(),
            14,
            "{stdout}"
        );
        assert!(!outside.path().join("accepted").exists());
    }
}

#[test]
fn the_official_python_sdk_answers_ask_user_by_elicitation_in_every_mode() {
    let Some(python) = sdk_or_skip("ask_user test") else {
        return;
    };
    for mode in ["legacy", "auto", "2026-07-28"] {
        let ws = Ws::new();
        let root = ws.path();
        let args = [root.as_os_str(), mode.as_ref()];
        let stdout = run_script(&python, "ask_user.py", &args, &format!("mode {mode}"));
        assert_eq!(
            stdout.lines().filter(|l| l.starts_with("ok ")).count(),
            8,
            "{stdout}"
        );
    }
}

/// Every tool's input and output schema passes the SDK's JSON Schema validator with standard
/// `format`s only, and real results of every tool (success paths of each mode) validate against
/// the tool's outputSchema and declare every field they carry (tests/mcp_sdk/schemas.py).
#[test]
fn every_tool_result_validates_against_its_output_schema() {
    let Some(python) = sdk_or_skip("schema test") else {
        return;
    };
    let ws = Ws::new();
    let stdout = run_script(&python, "schemas.py", &[ws.path().as_os_str()], "schemas");
    assert!(
        stdout.lines().last() == Some("ok   every tool's results were checked []"),
        "{stdout}"
    );
}
