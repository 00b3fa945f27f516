//! A std-only harness: a temporary workspace, the real `codesmith` binary, and envelope checks.
//!
//! The envelope is re-declared here with `deny_unknown_fields`, so the wire contract is tested
//! independently of the code that writes it.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Deserialize;
use serde_json::Value;

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_codesmith");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Envelope {
    pub ok: bool,
    pub tool: String,
    pub output: String,
    #[serde(default)]
    pub data: Option<serde_json::Map<String, Value>>,
    #[serde(default)]
    pub notices: Option<Vec<String>>,
    #[serde(default)]
    pub error: Option<ErrorBody>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct ErrorBody {
    pub code: String,
    pub message: String,
    #[serde(flatten)]
    pub details: serde_json::Map<String, Value>,
}

/// A temporary workspace.
pub(crate) struct Ws {
    dir: tempfile::TempDir,
    pub session: Option<String>,
    /// Set by [`Ws::at`]: the workspace is this directory (the TempDir is then unused).
    root: Option<PathBuf>,
}

impl Default for Ws {
    fn default() -> Ws {
        Ws::new()
    }
}

impl Ws {
    pub(crate) fn new() -> Ws {
        Ws {
            dir: tempfile::tempdir().expect("tempdir"),
            session: None,
            root: None,
        }
    }

    /// A workspace at an existing directory the caller owns (for tests that need siblings).
    pub(crate) fn at(dir: &Path) -> Ws {
        Ws {
            root: Some(dir.canonicalize().expect("canonical")),
            ..Ws::new()
        }
    }

    /// The canonical workspace root.
    pub(crate) fn path(&self) -> PathBuf {
        if let Some(root) = &self.root {
            return root.clone();
        }
        self.dir.path().canonicalize().expect("canonical")
    }

    /// `codesmith --workspace WS [--session S]`: how the commands a result prints for a person
    /// start (the test workspaces' paths need no quoting).
    pub(crate) fn person(&self) -> String {
        let mut prefix = format!("codesmith --workspace {}", self.path().display());
        if let Some(session) = &self.session {
            prefix.push_str(&format!(" --session {session}"));
        }
        prefix
    }

    pub(crate) fn join(&self, rel: &str) -> PathBuf {
        self.path().join(rel)
    }

    pub(crate) fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> &Ws {
        let path = self.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, content).expect("write");
        self
    }

    pub(crate) fn mkdir(&self, rel: &str) -> &Ws {
        std::fs::create_dir_all(self.join(rel)).expect("mkdir");
        self
    }

    pub(crate) fn read(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    pub(crate) fn read_string(&self, rel: &str) -> String {
        String::from_utf8(self.read(rel)).expect("utf8")
    }

    /// Names of codesmith's temporary files left at the workspace root (a torn atomic write).
    pub(crate) fn temp_files(&self) -> Vec<String> {
        std::fs::read_dir(self.path())
            .expect("read the workspace")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name.contains("codesmith-tmp"))
            .collect()
    }

    /// The permission bits of a file in the workspace.
    pub(crate) fn mode(&self, rel: &str) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(self.join(rel))
            .expect("stat")
            .permissions()
            .mode()
            & 0o7777
    }

    pub(crate) fn exists(&self, rel: &str) -> bool {
        self.join(rel).symlink_metadata().is_ok()
    }

    /// Starts `codesmith ARGS` with the (debug-build) fault hook stalling its atomic write of
    /// `path` just before the rename, and returns it once its temp file is there: the writer
    /// is then stopped with the whole new content written, the target untouched.
    pub(crate) fn spawn_stalled(&self, args: &[&str], path: &str) -> std::process::Child {
        let mut cmd = self.command(args);
        cmd.env("CODESMITH_FAULT", format!("stall:{path}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let writer = cmd.spawn().expect("spawn the writer");
        let started = std::time::Instant::now();
        while self.temp_files().is_empty() {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(20),
                "the writer made no temp file"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        writer
    }

    /// A command for `codesmith --workspace WS [--session S] ARGS`, stdin from /dev/null.
    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(BIN);
        cmd.arg("--workspace").arg(self.path());
        if let Some(session) = &self.session {
            cmd.arg("--session").arg(session);
        }
        cmd.args(args).current_dir(self.path()).stdin(Stdio::null());
        cmd.without_codesmith_env();
        cmd
    }

    /// Runs `codesmith ARGS` in the workspace.
    pub(crate) fn run(&self, args: &[&str]) -> Outcome {
        Outcome::of(self.command(args))
    }

    /// Runs `codesmith TOOL --json JSON`.
    pub(crate) fn call(&self, tool: &str, json: Value) -> Outcome {
        let text = json.to_string();
        self.run(&[tool, "--json", &text])
    }

    /// Runs `codesmith ARGS` with `stdin` piped in.
    pub(crate) fn run_stdin(&self, args: &[&str], stdin: &str) -> Outcome {
        Outcome::from_output(self.raw_stdin(args, stdin))
    }

    /// Reads a file through codesmith (so the session may edit it).
    pub(crate) fn read_via_tool(&self, rel: &str) -> Outcome {
        self.call("read_file", serde_json::json!({"path": rel})).ok()
    }
}

/// One finished invocation.
#[derive(Debug)]
pub(crate) struct Outcome {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
    pub envelope: Envelope,
    pub json: Value,
}

impl Outcome {
    pub(crate) fn of(mut cmd: Command) -> Outcome {
        Outcome::from_output(cmd.output().expect("run codesmith"))
    }

    pub(crate) fn from_output(out: std::process::Output) -> Outcome {
        let stdout = String::from_utf8(out.stdout).expect("stdout is UTF-8");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            stdout.ends_with('\n'),
            "stdout must end with a newline: {stdout:?}; stderr: {stderr}"
        );
        assert_eq!(
            stdout.matches('\n').count(),
            1,
            "stdout must be one line: {stdout:?}"
        );
        let json: Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"));
        let envelope: Envelope =
            serde_json::from_value(json.clone()).unwrap_or_else(|e| panic!("bad envelope ({e}): {stdout}"));
        Outcome {
            status: out.status.code().unwrap_or(-1),
            stdout,
            stderr,
            envelope,
            json,
        }
    }

    /// Asserts success: `ok`, exit 0, `data` and `notices` present, no `error`.
    pub(crate) fn ok(self) -> Outcome {
        assert!(self.envelope.ok, "expected ok, got: {}", self.stdout);
        assert_eq!(self.status, 0, "exit status: {}", self.stdout);
        assert!(self.envelope.data.is_some(), "data missing: {}", self.stdout);
        assert!(
            self.envelope.notices.is_some(),
            "notices missing: {}",
            self.stdout
        );
        assert!(self.envelope.error.is_none());
        self
    }

    /// Asserts failure with `code`: exit status by code, `output` equals the message.
    pub(crate) fn err(self, code: &str) -> Outcome {
        assert!(!self.envelope.ok, "expected error {code}, got: {}", self.stdout);
        let error = self
            .envelope
            .error
            .as_ref()
            .unwrap_or_else(|| panic!("no error object: {}", self.stdout));
        assert_eq!(error.code, code, "error code: {}", self.stdout);
        assert_eq!(
            self.envelope.output, error.message,
            "output must equal error.message"
        );
        let expected = match code {
            "invalid_arguments" | "unknown_tool" => 2,
            "approval_required" | "answer_required" => 3,
            _ => 1,
        };
        assert_eq!(self.status, expected, "exit status for {code}: {}", self.stdout);
        self
    }

    pub(crate) fn output(&self) -> &str {
        &self.envelope.output
    }

    pub(crate) fn data(&self) -> &Value {
        &self.json["data"]
    }

    pub(crate) fn error(&self) -> &Value {
        &self.json["error"]
    }

    pub(crate) fn message(&self) -> &str {
        self.json["error"]["message"].as_str().unwrap_or_default()
    }

    pub(crate) fn notices(&self) -> Vec<String> {
        self.envelope.notices.clone().unwrap_or_default()
    }

    /// Asserts the output (or error message) contains `needle`.
    pub(crate) fn contains(self, needle: &str) -> Outcome {
        assert!(
            self.envelope.output.contains(needle),
            "expected {needle:?} in output: {}",
            self.envelope.output
        );
        self
    }
}

pub(crate) fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) {
    std::os::unix::fs::symlink(target, link).expect("symlink");
}

impl Ws {
    /// Runs `codesmith ARGS` and returns the raw process output (for `--format text`, help).
    pub(crate) fn raw(&self, args: &[&str]) -> std::process::Output {
        self.command(args).output().expect("run codesmith")
    }

    /// Runs `codesmith ARGS` with `stdin` piped in, returning the raw process output.
    pub(crate) fn raw_stdin(&self, args: &[&str], stdin: &str) -> std::process::Output {
        let mut cmd = self.command(args);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn");
        // codesmith may refuse the call without reading stdin; a closed pipe is not a failure.
        let written = child.stdin.take().expect("stdin").write_all(stdin.as_bytes());
        if let Err(err) = written {
            assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {err}");
        }
        child.wait_with_output().expect("wait")
    }

    /// The fingerprint records of `session` (default: this Ws's session), as JSON values.
    pub(crate) fn fingerprints(&self, session: Option<&str>) -> Vec<Value> {
        let name = session
            .or(self.session.as_deref())
            .unwrap_or("default")
            .to_string();
        let dir = self.join(&format!(".codesmith/sessions/{name}.fp"));
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
            .map(|e| {
                serde_json::from_slice(&std::fs::read(e.path()).expect("read record")).expect("record JSON")
            })
            .collect()
    }
}

/// The first of `programs` that runs, for a test that compares codesmith with it. When none
/// does, says so on the terminal (past the test harness's capture, so a passing run shows it
/// too) and returns `None`; with `CODESMITH_REQUIRE_COMPARISONS=1` a missing program fails.
pub(crate) fn comparison_program(test: &str, programs: &[&'static str]) -> Option<&'static str> {
    let found = programs.iter().copied().find(|p| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if found.is_none() {
        let line = skip_line(test, programs);
        assert!(
            std::env::var_os("CODESMITH_REQUIRE_COMPARISONS").is_none(),
            "CODESMITH_REQUIRE_COMPARISONS is set but {line}"
        );
        let _ = writeln!(std::io::stderr(), "{line}");
    }
    found
}

/// What a skipped comparison prints.
pub(crate) fn skip_line(test: &str, programs: &[&str]) -> String {
    format!(
        "SKIPPED the comparison with {} in {test}: not installed (`.ci/run` installs it with apt-get)",
        programs.join(" / ")
    )
}

/// The variables through which a developer's shell would reach into a test's codesmith: the
/// workspace, session, output format and tool profile.
pub(crate) trait WithoutCodesmithEnv {
    fn without_codesmith_env(&mut self) -> &mut Self;
}

impl WithoutCodesmithEnv for Command {
    fn without_codesmith_env(&mut self) -> &mut Self {
        for name in [
            "CODESMITH_WORKSPACE",
            "CODESMITH_SESSION",
            "CODESMITH_FORMAT",
            "CODESMITH_TOOLS",
        ] {
            self.env_remove(name);
        }
        self
    }
}
