//! apply_patch against data: the conformance fixtures (`tests/fixtures/apply_patch/NNN_name/`
//! {input/, patch, expected/}, compared tree against tree byte for byte, with an `error` file
//! naming the code when the patch must fail) and a replay of this repository's own history.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use crate::harness::Ws;

// ---------------------------------------------------------------- conformance fixtures

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/apply_patch")
}

/// Every file under `dir` (relative path → bytes), skipping `.codesmith`.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if rel == ".codesmith" || rel == ".git" {
                continue;
            }
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in tree(from) {
        let target = to.join(&rel);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, bytes).unwrap();
    }
}

fn assert_same_tree(actual: &Path, expected: &BTreeMap<String, Vec<u8>>, what: &str) {
    let actual = tree(actual);
    let names = |t: &BTreeMap<String, Vec<u8>>| t.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(&actual), names(expected), "{what}: file set differs");
    for (rel, bytes) in expected {
        assert!(
            actual[rel] == *bytes,
            "{what}: `{rel}` differs:\n--- expected\n{}\n--- actual\n{}",
            String::from_utf8_lossy(bytes),
            String::from_utf8_lossy(&actual[rel])
        );
    }
}

#[test]
fn conformance_fixtures() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 12, "fixtures missing");
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let ws = Ws::new();
        copy_tree(&dir.join("input"), &ws.path());
        for rel in tree(&dir.join("input")).keys() {
            ws.read_via_tool(rel);
        }
        let text = std::fs::read_to_string(dir.join("patch")).unwrap();
        let out = ws.run_stdin(&["apply_patch"], &json!({ "patch": text }).to_string());
        match std::fs::read_to_string(dir.join("error")) {
            Ok(code) => {
                out.err(code.trim());
            }
            Err(_) => assert!(out.envelope.ok, "{name}: {}", out.stdout),
        }
        assert_same_tree(&ws.path(), &tree(&dir.join("expected")), &name);
    }
}

// ---------------------------------------------------------------- replaying real history

fn git(repo: &Path, args: &[&str]) -> Option<Vec<u8>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args([
            "-c",
            "core.quotepath=true",
            "-c",
            "diff.noprefix=false",
            "-c",
            "core.autocrlf=false",
        ])
        .args(args)
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
}

fn export(repo: &Path, commit: &str, to: &Path) {
    let archive = git(repo, &["archive", "--format=tar", commit]).expect("git archive");
    let mut child = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(to)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("tar");
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&archive).unwrap();
    assert!(child.wait().unwrap().success());
}

/// Files a diff changes in place (present before and after), and every file it touches that
/// existed before.
fn touched(diff: &str) -> (Vec<String>, Vec<String>) {
    let mut modified = Vec::new();
    let mut existing = Vec::new();
    let mut current: Option<(String, bool)> = None;
    let flush = |current: &mut Option<(String, bool)>, modified: &mut Vec<String>| {
        if let Some((path, plain)) = current.take() {
            if plain {
                modified.push(path);
            }
        }
    };
    for line in diff.lines() {
        if let Some(rest) = line.strip_prefix("diff --git a/") {
            flush(&mut current, &mut modified);
            let path = rest.split(" b/").next().unwrap().to_string();
            existing.push(path.clone());
            current = Some((path, true));
        } else if line.starts_with("new file mode") {
            existing.pop();
            if let Some(c) = current.as_mut() {
                c.1 = false;
            }
        } else if line.starts_with("deleted file mode")
            || line.starts_with("rename ")
            || line.starts_with("copy ")
        {
            if let Some(c) = current.as_mut() {
                c.1 = false;
            }
        }
    }
    flush(&mut current, &mut modified);
    (modified, existing)
}

/// Pairs (parent, child) of recent commits whose diff is plain text with simple paths.
fn replayable_commits(repo: &Path) -> Vec<(String, String, String)> {
    let Some(log) = git(
        repo,
        &["log", "--first-parent", "--format=%H %P", "-n", "40", "HEAD"],
    ) else {
        return Vec::new();
    };
    let mut pairs = Vec::new();
    for line in String::from_utf8_lossy(&log).lines() {
        let parts: Vec<&str> = line.split_whitespace().collect();
        if parts.len() < 2 {
            continue;
        }
        let (child, parent) = (parts[0].to_string(), parts[1].to_string());
        let Some(numstat) = git(repo, &["diff", "--numstat", &parent, &child]) else {
            continue;
        };
        let numstat = String::from_utf8_lossy(&numstat).into_owned();
        if numstat.trim().is_empty() || numstat.lines().any(|l| l.starts_with('-') || l.contains('"')) {
            continue;
        }
        let Some(diff) = git(
            repo,
            &[
                "diff",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                "-M",
                &parent,
                &child,
            ],
        ) else {
            continue;
        };
        pairs.push((parent, child, String::from_utf8(diff).unwrap_or_default()));
        if pairs.len() == 6 {
            break;
        }
    }
    pairs
}

fn commit_count(repo: &Path) -> usize {
    git(repo, &["rev-list", "--count", "HEAD"])
        .map(|o| String::from_utf8_lossy(&o).trim().parse().unwrap_or(0))
        .unwrap_or(0)
}

const DRIFT: &str =
    "drift line one for the replay\ndrift line two for the replay\ndrift line three for the replay\n";

#[test]
fn replays_this_repositorys_history_byte_for_byte() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    if git(repo, &["rev-parse", "HEAD"]).is_none() {
        eprintln!("not a git checkout; replay skipped");
        return;
    }
    let pairs = replayable_commits(repo);
    if commit_count(repo) >= 2 {
        assert!(
            !pairs.is_empty(),
            "history has several commits but none could be replayed"
        );
    }
    let mut replayed = 0;
    for (parent, child, diff) in &pairs {
        let (modified, existing) = touched(diff);
        let child_dir = tempfile::tempdir().unwrap();
        export(repo, child, child_dir.path());
        let child_tree = tree(child_dir.path());
        for drifted in [false, true] {
            let ws = Ws::new();
            export(repo, parent, &ws.path());
            let mut expected = child_tree.clone();
            if drifted {
                for rel in &modified {
                    let path = ws.join(rel);
                    let mut bytes = DRIFT.as_bytes().to_vec();
                    bytes.extend(std::fs::read(&path).unwrap());
                    std::fs::write(&path, bytes).unwrap();
                    let mut want = DRIFT.as_bytes().to_vec();
                    want.extend(&expected[rel]);
                    expected.insert(rel.clone(), want);
                }
            }
            for rel in &existing {
                ws.read_via_tool(rel);
            }
            let out = ws.run_stdin(&["apply_patch"], &json!({ "patch": diff }).to_string());
            assert!(
                out.envelope.ok,
                "{parent}..{child} (drifted: {drifted}): {}",
                out.envelope.output
            );
            let what = format!("{parent}..{child} drifted={drifted}");
            assert_same_tree(&ws.path(), &expected, &what);
        }
        // The same diff with one context line corrupted fails and changes nothing.
        if let Some(pos) = diff.rfind("\n ") {
            let mut broken = diff.clone();
            broken.insert_str(pos + 2, "CORRUPTED ");
            let ws = Ws::new();
            export(repo, parent, &ws.path());
            let before = tree(&ws.path());
            for rel in &existing {
                ws.read_via_tool(rel);
            }
            ws.run_stdin(&["apply_patch"], &json!({ "patch": broken }).to_string())
                .err("patch_failed");
            assert_same_tree(&ws.path(), &before, "corrupted replay");
        }
        replayed += 1;
    }
    eprintln!("replayed {replayed} commits of {} in history", commit_count(repo));
}
