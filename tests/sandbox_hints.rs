//! The hint a confined command gets when the sandbox stopped a write: it names the path the
//! command could not write, the approval, and the `[shell] writable` line that would let every
//! command write there; adding that line lets the same command through.
//!
//! Every write aims at a scratch directory the test made, never at a system path.

use serde_json::json;

use crate::harness::{Outcome, Ws};

fn shell(ws: &Ws, command: &str) -> Outcome {
    ws.call("exec_shell", json!({"command": command})).ok()
}

/// Whether commands here get the filesystem layer (else the test says so and passes, unless
/// CODESMITH_REQUIRE_SANDBOX=1).
fn filesystem_confined(ws: &Ws) -> bool {
    let out = shell(ws, "true");
    let active = out.data()["sandbox"]["filesystem"]["active"] == true;
    if !active {
        assert!(
            std::env::var("CODESMITH_REQUIRE_SANDBOX").as_deref() != Ok("1"),
            "no filesystem sandbox here"
        );
        eprintln!("skipped: no filesystem sandbox on this machine");
    }
    active
}

fn scratch() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("scratch dir");
    let path = dir.path().canonicalize().expect("canonical");
    (dir, path)
}

#[test]
fn a_stopped_write_names_the_directory_and_the_config_line_that_allows_it() {
    let ws = Ws::new();
    if !filesystem_confined(&ws) {
        return;
    }
    let (_keep, out_dir) = scratch();
    for (tool_says, command) in [
        ("touch", format!("touch {}/made", out_dir.display())),
        (
            "python",
            format!("python3 -c 'open(\"{}/made\", \"w\")'", out_dir.display()),
        ),
    ] {
        let out = shell(&ws, &command);
        let text = out.output();
        assert!(text.starts_with("Sandbox: "), "{tool_says}: {text}");
        assert!(
            text.contains(&format!("from writing `{}/made`", out_dir.display())),
            "{tool_says}: {text}"
        );
        let line = format!("writable = [\"{}\"]", out_dir.display());
        assert!(
            text.contains(&format!("under [shell] in .codesmith/config.toml: `{line}`")),
            "{tool_says}: {text}"
        );
        assert_eq!(out.data()["approval"]["kind"], "destructive", "{tool_says}");
        assert!(!out_dir.join("made").exists());
    }
    // The line, as given, lets the same command through, confined.
    ws.write(
        ".codesmith/config.toml",
        format!("[shell]\nwritable = [\"{}\"]\n", out_dir.display()),
    );
    let out = shell(&ws, &format!("touch {}/made", out_dir.display()));
    assert_eq!(out.data()["exit_code"], 0, "{}", out.output());
    assert_eq!(out.data()["sandbox"]["filesystem"]["active"], true);
    assert!(out_dir.join("made").exists());
    // A second directory: the line keeps the entry already there.
    let (_keep2, other) = scratch();
    let out = shell(&ws, &format!("touch {}/x", other.display()));
    assert!(
        out.output().contains(&format!(
            "`writable = [\"{}\", \"{}\"]`",
            out_dir.display(),
            other.display()
        )),
        "{}",
        out.output()
    );
}

#[test]
fn a_write_into_a_cache_under_home_names_the_cache_and_a_cause_chain_is_read() {
    let ws = Ws::new();
    if !filesystem_confined(&ws) {
        return;
    }
    let (_keep, home) = scratch();
    let registry = home.join(".cargo/registry");
    std::fs::create_dir_all(registry.join("src")).expect("mkdir");
    // As cargo reports a crate it could not unpack: the path lines above the reason. The
    // message is printed only when the write was really refused.
    let command = "mkdir -p \"$HOME/.cargo/registry/src/x-1.0\" 2>/dev/null || printf \
                   'error: failed to unpack package `x v1.0`\\n\\nCaused by:\\n  failed to open \
                   `%s/.cargo/registry/src/x-1.0/.cargo-ok`\\n\\nCaused by:\\n  Read-only file \
                   system (os error 30)\\n' \"$HOME\" >&2";
    let text = json!({"command": command}).to_string();
    let mut cmd = ws.command(&["exec_shell", "--json", &text]);
    cmd.env("HOME", &home);
    let out = Outcome::of(cmd).ok();
    assert!(
        out.output()
            .contains(&format!("`writable = [\"{}\"]`", registry.display())),
        "{}",
        out.output()
    );
    assert!(!registry.join("src/x-1.0").exists());
}

/// A crate with no dependencies in this machine's cargo cache, with the index it came from:
/// (the registry's directory name, the `.crate` file, its name, its version).
fn cached_crate() -> Option<(String, std::path::PathBuf, String, String)> {
    let home = std::path::PathBuf::from(std::env::var_os("CARGO_HOME").or_else(|| {
        std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo").into_os_string())
    })?);
    for registry in std::fs::read_dir(home.join("registry/cache")).ok()?.flatten() {
        let name = registry.file_name().to_string_lossy().into_owned();
        if !home.join("registry/index").join(&name).is_dir() {
            continue;
        }
        for wanted in ["itoa-", "cfg-if-"] {
            let found = std::fs::read_dir(registry.path()).ok()?.flatten().find(|f| {
                let file = f.file_name().to_string_lossy().into_owned();
                file.starts_with(wanted) && file.ends_with(".crate")
            });
            if let Some(file) = found {
                let stem = file
                    .file_name()
                    .to_string_lossy()
                    .trim_end_matches(".crate")
                    .to_string();
                let version = stem[wanted.len()..].to_string();
                return Some((
                    name,
                    file.path(),
                    wanted.trim_end_matches('-').to_string(),
                    version,
                ));
            }
        }
    }
    None
}

#[test]
fn a_cargo_build_that_must_unpack_a_crate_names_the_registry_and_its_line_lets_it_through() {
    let ws = Ws::new();
    if !filesystem_confined(&ws) {
        return;
    }
    let Some((registry, crate_file, name, version)) = cached_crate() else {
        eprintln!("skipped: no dependency-free crate (itoa, cfg-if) in this machine's cargo cache");
        return;
    };
    // A CARGO_HOME of the test's own, holding the index and the one .crate file: cargo must
    // unpack it into CARGO_HOME/registry/src, outside everything a command may write.
    let (_keep, cargo_home) = scratch();
    let source_home = crate_file
        .ancestors()
        .nth(4)
        .expect("the cargo home")
        .to_path_buf();
    std::fs::create_dir_all(cargo_home.join("registry/cache").join(&registry)).expect("mkdir");
    std::fs::create_dir_all(cargo_home.join("registry/index")).expect("mkdir");
    std::fs::copy(
        &crate_file,
        cargo_home
            .join("registry/cache")
            .join(&registry)
            .join(crate_file.file_name().expect("name")),
    )
    .expect("copy the crate");
    let copied = std::process::Command::new("cp")
        .arg("-r")
        .arg(source_home.join("registry/index").join(&registry))
        .arg(cargo_home.join("registry/index"))
        .status()
        .expect("cp");
    assert!(copied.success());
    ws.write(
        "Cargo.toml",
        format!(
            "[package]\nname = \"probe\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dependencies]\n{name} = \"={version}\"\n"
        ),
    );
    ws.write("src/main.rs", "fn main() {}\n");
    let build = || {
        let text = json!({"command": "cargo build --offline", "timeout_ms": 300000}).to_string();
        let mut cmd = ws.command(&["exec_shell", "--json", &text]);
        cmd.env("CARGO_HOME", &cargo_home).env_remove("CARGO_TARGET_DIR");
        Outcome::of(cmd).ok()
    };
    let out = build();
    let registry_dir = cargo_home.join("registry");
    let line = format!("writable = [\"{}\"]", registry_dir.display());
    assert!(out.output().contains(&format!("`{line}`")), "{}", out.output());
    assert_ne!(out.data()["exit_code"], 0);
    ws.write(".codesmith/config.toml", format!("[shell]\n{line}\n"));
    let out = build();
    assert_eq!(out.data()["exit_code"], 0, "{}", out.output());
    assert_eq!(out.data()["sandbox"]["filesystem"]["active"], true);
}
