use std::process::Command;
use std::time::{Duration, SystemTime};

use serde_json::json;

use crate::grep_files::fixture;
use crate::harness::{Outcome, Ws};

fn paths(out: &Outcome) -> Vec<String> {
    out.data()["paths"]
        .as_array()
        .expect("paths")
        .iter()
        .map(|v| v.as_str().expect("str").to_string())
        .collect()
}

fn fixture_ws() -> (Ws, tempfile::TempDir) {
    let ws = Ws::new();
    let outside = tempfile::tempdir().expect("tempdir");
    fixture(&ws, &outside);
    (ws, outside)
}

/// Everything `fd` (with codesmith's skip rules) lists for `args`, if fd is installed.
fn fd(ws: &Ws, args: &[&str]) -> Option<Vec<String>> {
    let program = crate::harness::comparison_program("file_search", &["fdfind", "fd"])?;
    // fd reads .gitignore only inside a git repository; give the fixture one.
    std::fs::create_dir_all(ws.join(".git")).ok()?;
    let mut cmd = Command::new(program);
    cmd.arg("--hidden");
    for skip in [
        ".git/",
        "node_modules/",
        "target/",
        "dist/",
        "build/",
        "__pycache__/",
        ".venv/",
        "venv/",
        ".codesmith/",
        "*.min.js",
        "*.min.css",
    ] {
        cmd.args(["-E", skip]);
    }
    let out = cmd.args(args).current_dir(ws.path()).output().ok()?;
    let mut list: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim_end_matches('/').to_string())
        .collect();
    list.sort_by(|a, b| a.split('/').cmp(b.split('/')));
    Some(list)
}

#[test]
fn names_match_at_any_depth_sorted_with_directory_slashes() {
    let (ws, _outside) = fixture_ws();
    ws.mkdir("src/nested.rs");
    let out = ws.call("file_search", json!({"pattern": "*.rs"})).ok();
    assert_eq!(
        paths(&out),
        vec!["lib-link.rs", "src/lib.rs", "src/main.rs", "src/nested.rs/"]
    );
    assert_eq!(
        out.output(),
        "lib-link.rs\nsrc/lib.rs\nsrc/main.rs\nsrc/nested.rs/\n\n4 matches"
    );
    assert_eq!(out.data()["total_matches"], 4);
    if let Some(list) = fd(&ws, &["-g", "*.rs"]) {
        let ours: Vec<String> = paths(&out)
            .iter()
            .map(|p| p.trim_end_matches('/').to_string())
            .collect();
        assert_eq!(ours, list, "fd disagrees");
    }
}

#[test]
fn everything_under_path_for_empty_dot_and_dot_slash() {
    let (ws, _outside) = fixture_ws();
    let all = ws
        .call("file_search", json!({"pattern": "", "max_results": 200}))
        .ok();
    let listed = paths(&all);
    for expected in [
        ".hidden/",
        ".hidden/conf.txt",
        "build",
        "bin.dat",
        "large.txt",
        "out",
        "src/",
        "web/",
    ] {
        assert!(
            listed.contains(&expected.to_string()),
            "{expected} missing: {listed:?}"
        );
    }
    for skipped in [
        "ignored.txt",
        "gen/",
        "node_modules/",
        "target/",
        "web/app.min.js",
        "dotignored.txt",
    ] {
        assert!(
            !listed.contains(&skipped.to_string()),
            "{skipped} listed: {listed:?}"
        );
    }
    for same in [".", "./"] {
        let out = ws
            .call("file_search", json!({"pattern": same, "max_results": 200}))
            .ok();
        assert_eq!(paths(&out), listed, "pattern {same:?}");
    }
    let under = ws
        .call("file_search", json!({"pattern": ".", "path": "src"}))
        .ok();
    assert_eq!(paths(&under), vec!["src/lib.rs", "src/main.rs"]);
    if let Some(list) = fd(&ws, &[]) {
        let ours: Vec<String> = listed
            .iter()
            .map(|p| p.trim_end_matches('/').to_string())
            .collect();
        assert_eq!(ours, list, "fd disagrees");
    }
}

#[test]
fn patterns_with_a_slash_match_paths() {
    let ws = Ws::new();
    ws.write("src/a.rs", "")
        .write("src/deep/b.rs", "")
        .write("tests/c.rs", "");
    let one_level = ws.call("file_search", json!({"pattern": "src/*.rs"})).ok();
    assert_eq!(paths(&one_level), vec!["src/a.rs"]);
    let deep = ws.call("file_search", json!({"pattern": "src/**/*.rs"})).ok();
    assert_eq!(paths(&deep), vec!["src/a.rs", "src/deep/b.rs"]);
    let any = ws.call("file_search", json!({"pattern": "**/*.rs"})).ok();
    assert_eq!(paths(&any), vec!["src/a.rs", "src/deep/b.rs", "tests/c.rs"]);
    let from_root = ws
        .call("file_search", json!({"pattern": "src/deep/*.rs", "path": "src"}))
        .ok();
    assert_eq!(paths(&from_root), vec!["src/deep/b.rs"]);
    let dirs = ws.call("file_search", json!({"pattern": "*/"})).ok();
    assert_eq!(paths(&dirs), vec!["src/", "src/deep/", "tests/"]);
    let alternatives = ws.run(&["find", "{a,c}.rs"]).ok();
    assert_eq!(paths(&alternatives), vec!["src/a.rs", "tests/c.rs"]);
}

#[test]
fn counts_every_match_then_truncates() {
    let ws = Ws::new();
    for i in 0..250 {
        ws.write(&format!("d/f{i:03}.txt"), "");
    }
    let out = ws.call("file_search", json!({"pattern": "*.txt"})).ok();
    assert_eq!(out.data()["total_matches"], 250);
    assert_eq!(out.data()["shown"], 20);
    assert_eq!(out.data()["truncated"], true);
    assert_eq!(paths(&out)[0], "d/f000.txt");
    assert_eq!(paths(&out)[19], "d/f019.txt");
    assert!(out
        .output()
        .contains("250 matches; showing the first 20 (sorted by path). To see the rest, narrow pattern or path, or raise max_results (at most 200)."));
    let max = ws
        .call("file_search", json!({"pattern": "*.txt", "max_results": 1000}))
        .ok();
    assert_eq!(max.data()["shown"], 200);
    assert_eq!(
        max.notices(),
        vec!["max_results=1000 is outside 1..=200; used 200.".to_string()]
    );
    let min = ws
        .call("file_search", json!({"pattern": "*.txt", "max_results": 0}))
        .ok();
    assert_eq!(min.data()["shown"], 1);
    let again = ws.call("file_search", json!({"pattern": "*.txt"})).ok();
    assert_eq!(again.stdout, out.stdout);
}

#[test]
fn sort_by_mtime_puts_the_newest_first() {
    let ws = Ws::new();
    let now = SystemTime::now();
    for (name, age) in [("old.log", 300), ("new.log", 10), ("mid.log", 100)] {
        ws.write(name, "x");
        let file = std::fs::File::options()
            .write(true)
            .open(ws.join(name))
            .expect("open");
        file.set_modified(now - Duration::from_secs(age)).expect("mtime");
    }
    let out = ws
        .call("file_search", json!({"pattern": "*.log", "sort": "mtime"}))
        .ok();
    assert_eq!(paths(&out), vec!["new.log", "mid.log", "old.log"]);
    assert_eq!(out.data()["sort"], "mtime");
    let by_path = ws.call("file_search", json!({"pattern": "*.log"})).ok();
    assert_eq!(paths(&by_path), vec!["mid.log", "new.log", "old.log"]);
}

#[test]
fn no_match_suggests_similar_names_and_hidden_matches() {
    let (ws, _outside) = fixture_ws();
    let out = ws.call("file_search", json!({"pattern": "mian.rs"})).ok();
    assert_eq!(out.data()["total_matches"], 0);
    assert!(
        out.output().contains("Similar names: src/main.rs"),
        "{}",
        out.output()
    );
    let case = ws.call("file_search", json!({"pattern": "MAIN.RS"})).ok();
    assert_eq!(case.data()["suggestions"][0], "src/main.rs");
    let partial = ws.call("file_search", json!({"pattern": "conf"})).ok();
    assert!(partial
        .output()
        .contains("for names containing \"conf\", call file_search with pattern=\"*conf*\""));
    let ignored = ws.call("file_search", json!({"pattern": "ignored.txt"})).ok();
    assert!(ignored
        .output()
        .contains("1 match is hidden by .gitignore/.ignore rules. To list it, call file_search with pattern=\"ignored.txt\" include_ignored=true."));
    let shown = ws
        .call(
            "file_search",
            json!({"pattern": "ignored.txt", "include_ignored": true}),
        )
        .ok();
    assert_eq!(paths(&shown), vec!["ignored.txt"]);
    let skipped = ws.call("file_search", json!({"pattern": "node_modules"})).ok();
    assert!(skipped.output().contains("always-skip list"));
    let still = ws
        .call(
            "file_search",
            json!({"pattern": "node_modules", "include_ignored": true}),
        )
        .ok();
    assert_eq!(still.data()["total_matches"], 0);
}

#[test]
fn errors_name_the_next_call() {
    let ws = Ws::new();
    ws.write("a.txt", "x");
    let out = ws
        .call("file_search", json!({"pattern": "*.rs", "path": "a.txt"}))
        .err("invalid_arguments");
    assert!(
        out.message().contains("read_file with path=\"a.txt\""),
        "{}",
        out.message()
    );
    ws.call("file_search", json!({"pattern": "*.rs", "path": "nope"}))
        .err("not_found");
    let out = ws
        .call("file_search", json!({"pattern": "[z-a"}))
        .err("invalid_arguments");
    assert!(out.message().contains("pattern=\"**/*.rs\""), "{}", out.message());
    let out = ws
        .call("file_search", json!({"pattern": "*", "path": ".."}))
        .err("outside_workspace");
    assert!(out.message().starts_with("path escapes workspace"));
    let out = ws
        .call("file_search", json!({"pattern": "*", "sort": "size"}))
        .err("invalid_arguments");
    assert!(out.message().contains("sort"), "{}", out.message());
}
