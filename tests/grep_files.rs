use std::collections::BTreeMap;
use std::process::Command;

use serde_json::{json, Value};

use crate::harness::{symlink, Ws};

/// The skip rules as ripgrep flags (see src/fs/walk.rs).
pub(crate) const RG_FLAGS: &[&str] = &[
    "--hidden",
    "--no-require-git",
    "--max-filesize",
    "10M",
    "-g",
    "!.git/",
    "-g",
    "!node_modules/",
    "-g",
    "!target/",
    "-g",
    "!dist/",
    "-g",
    "!build/",
    "-g",
    "!__pycache__/",
    "-g",
    "!.venv/",
    "-g",
    "!venv/",
    "-g",
    "!.codesmith/",
    "-g",
    "!*.min.js",
    "-g",
    "!*.min.css",
];

/// A tree with one of everything the walker must handle. `needle` occurs in every file; the
/// comment says whether the search counts it.
pub(crate) fn fixture(ws: &Ws, outside: &tempfile::TempDir) {
    ws.write("src/main.rs", "fn main() {\n    let needle = 1;\n}\n"); // 1
    ws.write("src/lib.rs", "// needle here\npub fn needle() {}\n"); // 2
    ws.write(".hidden/conf.txt", "needle hidden\n"); // 1: hidden files are searched
    ws.write(".gitignore", "ignored.txt\ngen/\n");
    ws.write("ignored.txt", "needle ignored\n"); // gitignored (no .git needed)
    ws.write("gen/out.rs", "needle gen\n"); // gitignored directory
    ws.write(".ignore", "dotignored.txt\n");
    ws.write("dotignored.txt", "needle dot\n"); // .ignore
    ws.write("node_modules/pkg/index.js", "needle nm\n"); // always skipped
    ws.write("target/debug/x.rs", "needle target\n"); // always skipped
    ws.write("web/app.min.js", "needle min\n"); // always skipped
    ws.write("web/app.min.css", "needle min\n"); // always skipped
    ws.write(".git/HEAD", "needle git\n"); // always skipped
    for dir in [
        "dist",
        "sub/build",
        "__pycache__",
        ".venv",
        "venv",
        "py/__pycache__",
    ] {
        ws.write(&format!("{dir}/x.txt"), "needle skipped\n"); // always skipped
    }
    ws.write("build", "needle build file\n"); // 1: `build` is skipped as a directory only
    ws.write("bin.dat", b"needle\0binary\n"); // binary
    let mut late = b"needle before the NUL\n".to_vec();
    late.extend(std::iter::repeat_n(b'x', 200_000));
    late.extend(b"\n\0needle\n");
    ws.write("late.bin", late); // binary found after a match: not counted, like rg -c
    ws.write("latin1.txt", b"caf\xe9 needle\n"); // 1: not UTF-8, still searched
    let mut utf16 = vec![0xFF, 0xFE];
    for unit in "needle utf16\n".encode_utf16() {
        utf16.extend(unit.to_le_bytes());
    }
    ws.write("utf16.txt", utf16); // 1: BOM-sniffed and transcoded, as ripgrep does
    let mut large = b"needle large\n".to_vec();
    large.resize(10 * 1024 * 1024 + 1, b'a');
    ws.write("large.txt", large); // over 10 MB
    std::fs::write(outside.path().join("secret.txt"), "needle outside\n").expect("write outside");
    symlink(outside.path(), ws.join("out")); // not followed
    symlink(ws.join("src/lib.rs"), ws.join("lib-link.rs")); // not followed
}

fn fixture_ws() -> (Ws, tempfile::TempDir) {
    let ws = Ws::new();
    let outside = tempfile::tempdir().expect("tempdir");
    fixture(&ws, &outside);
    (ws, outside)
}

const EXPECTED_COUNTS: &[(&str, u64)] = &[
    (".hidden/conf.txt", 1),
    ("build", 1),
    ("latin1.txt", 1),
    ("src/lib.rs", 2),
    ("src/main.rs", 1),
    ("utf16.txt", 1),
];

fn counts_of(out: &crate::harness::Outcome) -> BTreeMap<String, u64> {
    out.data()["counts"]
        .as_array()
        .expect("counts")
        .iter()
        .map(|c| {
            (
                c["path"].as_str().expect("path").to_string(),
                c["count"].as_u64().expect("n"),
            )
        })
        .collect()
}

/// `rg ARGS .` in the workspace, if ripgrep is installed.
fn rg(ws: &Ws, args: &[&str]) -> Option<String> {
    let program = crate::harness::comparison_program("grep_files", &["rg"])?;
    let out = Command::new(program)
        .args(RG_FLAGS)
        .args(args)
        .arg(".")
        .current_dir(ws.path())
        .output()
        .ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn counts_agree_with_rg_c_on_a_tree_of_edge_cases() {
    let (ws, _outside) = fixture_ws();
    let out = ws
        .call("grep_files", json!({"pattern": "needle", "output_mode": "count"}))
        .ok();
    let expected: BTreeMap<String, u64> = EXPECTED_COUNTS.iter().map(|(p, n)| (p.to_string(), *n)).collect();
    assert_eq!(counts_of(&out), expected);
    assert_eq!(out.data()["total_matches"], 7);
    assert_eq!(out.data()["total_files"], 6);
    assert_eq!(out.data()["skipped_binary"], 2);
    assert_eq!(out.data()["skipped_large"], 1);
    assert!(out
        .output()
        .starts_with(".hidden/conf.txt:1\nbuild:1\nlatin1.txt:1\nsrc/lib.rs:2\n"));
    assert!(out.output().contains("7 matches in 6 files"));
    if let Some(text) = rg(&ws, &["-c", "needle"]) {
        let rg_counts: BTreeMap<String, u64> = text
            .lines()
            .filter_map(|l| l.rsplit_once(':'))
            .map(|(p, n)| (p.trim_start_matches("./").to_string(), n.parse().expect("count")))
            .collect();
        assert_eq!(counts_of(&out), rg_counts, "rg -c disagrees");
    }
}

#[test]
fn files_mode_agrees_with_rg_l() {
    let (ws, _outside) = fixture_ws();
    std::fs::remove_file(ws.join("late.bin")).expect("rm"); // rg -l stops before its NUL
    let out = ws
        .call("grep_files", json!({"pattern": "needle", "output_mode": "files"}))
        .ok();
    let files: Vec<&str> = out.data()["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|v| v.as_str().expect("str"))
        .collect();
    let expected: Vec<&str> = EXPECTED_COUNTS.iter().map(|(p, _)| *p).collect();
    assert_eq!(files, expected);
    assert_eq!(out.data()["total_matches"], 7);
    if let Some(text) = rg(&ws, &["-l", "needle"]) {
        let mut rg_files: Vec<String> = text
            .lines()
            .map(|l| l.trim_start_matches("./").to_string())
            .collect();
        rg_files.sort();
        assert_eq!(files, rg_files, "rg -l disagrees");
    }
}

#[test]
fn include_ignored_searches_what_ignore_rules_hide_but_not_the_skip_list() {
    let (ws, _outside) = fixture_ws();
    let out = ws
        .call(
            "grep_files",
            json!({"pattern": "needle", "output_mode": "files", "include_ignored": true}),
        )
        .ok();
    let files = out.data()["files"].to_string();
    for path in ["ignored.txt", "gen/out.rs", "dotignored.txt", "src/lib.rs"] {
        assert!(files.contains(path), "{path} missing: {files}");
    }
    for path in [
        "node_modules",
        "target/",
        "app.min.js",
        "app.min.css",
        ".git/",
        "dist/",
        "build/",
        "__pycache__",
        "venv/",
        "secret.txt",
        "lib-link.rs",
    ] {
        assert!(!files.contains(path), "{path} searched: {files}");
    }
}

#[test]
fn content_is_sorted_by_path_then_line_with_a_summary() {
    let (ws, _outside) = fixture_ws();
    let out = ws.call("grep_files", json!({"pattern": "needle"})).ok();
    assert_eq!(
        out.output(),
        ".hidden/conf.txt:1:needle hidden\nbuild:1:needle build file\nlatin1.txt:1:caf\u{FFFD} needle\n\
         src/lib.rs:1:// needle here\nsrc/lib.rs:2:pub fn needle() {}\nsrc/main.rs:2:    let needle = 1;\n\
         utf16.txt:1:needle utf16\n\n7 matches in 6 files (2 binary files skipped, 1 file over 10 MB skipped)"
    );
    assert_eq!(out.data()["truncated"], false);
    assert_eq!(
        out.data()["matches"][3],
        json!({"path": "src/lib.rs", "line": 1, "text": "// needle here"})
    );
}

#[test]
fn counts_everything_then_truncates_with_an_exact_line() {
    let ws = Ws::new();
    for i in 0..150 {
        ws.write(&format!("d{}/f{i:03}.txt", i % 7), "hit one\nmiss\nhit two\n");
    }
    let out = ws
        .call("grep_files", json!({"pattern": "hit", "max_results": 7}))
        .ok();
    assert_eq!(out.data()["total_matches"], 300);
    assert_eq!(out.data()["total_files"], 150);
    assert_eq!(out.data()["shown"], 7);
    assert_eq!(out.data()["truncated"], true);
    assert!(out
        .output()
        .contains("300 matches in 150 files; showing the first 7. To see the rest"));
    let lines: Vec<&str> = out.output().lines().take(7).collect();
    assert_eq!(lines[0], "d0/f000.txt:1:hit one");
    assert_eq!(lines[1], "d0/f000.txt:3:hit two");
    assert_eq!(lines[2], "d0/f007.txt:1:hit one");
    assert_eq!(lines[6], "d0/f021.txt:1:hit one");

    let files = ws
        .call(
            "grep_files",
            json!({"pattern": "hit", "max_results": 5, "output_mode": "files"}),
        )
        .ok();
    assert_eq!(files.data()["total_matches"], 300);
    assert!(files
        .output()
        .contains("300 matches in 150 files; showing the first 5 files"));
    let counts = ws
        .call(
            "grep_files",
            json!({"pattern": "hit", "max_results": 3, "output_mode": "count"}),
        )
        .ok();
    assert!(counts
        .output()
        .starts_with("d0/f000.txt:2\nd0/f007.txt:2\nd0/f014.txt:2\n\n300 matches"));
}

#[test]
fn equal_calls_give_equal_output() {
    let ws = Ws::new();
    for i in 0..300 {
        ws.write(&format!("a/b{}/c{i}.rs", i % 13), format!("x\nfoo {i}\ny\nfoo\n"));
    }
    let args = json!({"pattern": "foo", "max_results": 50, "context": 1});
    let first = ws.call("grep_files", args.clone()).ok();
    for _ in 0..3 {
        let again = ws.call("grep_files", args.clone()).ok();
        assert_eq!(first.stdout, again.stdout);
    }
    assert_eq!(first.data()["total_matches"], 600);
}

#[test]
fn include_and_exclude_take_one_glob_or_a_list() {
    let (ws, _outside) = fixture_ws();
    let files = |args: Value| -> String { ws.call("grep_files", args).ok().data()["files"].to_string() };
    assert_eq!(
        files(json!({"pattern": "needle", "output_mode": "files", "include": "*.rs"})),
        r#"["src/lib.rs","src/main.rs"]"#
    );
    assert_eq!(
        files(json!({"pattern": "needle", "output_mode": "files", "include": ["*.txt", "build"]})),
        r#"[".hidden/conf.txt","build","latin1.txt","utf16.txt"]"#
    );
    assert_eq!(
        files(json!({"pattern": "needle", "output_mode": "files", "include": "src"})),
        r#"["src/lib.rs","src/main.rs"]"#
    );
    assert_eq!(
        files(
            json!({"pattern": "needle", "output_mode": "files", "include": "src/**/*.rs", "exclude": "main.rs"})
        ),
        r#"["src/lib.rs"]"#
    );
    assert_eq!(
        files(json!({"pattern": "needle", "output_mode": "files", "exclude": ["src", "*.txt"]})),
        r#"["build"]"#
    );
    let out = ws
        .run(&[
            "grep",
            "needle",
            "--include",
            "*.rs",
            "--include",
            "build",
            "--output-mode",
            "files",
        ])
        .ok();
    assert_eq!(
        out.data()["files"].to_string(),
        r#"["build","src/lib.rs","src/main.rs"]"#
    );
    let out = ws
        .call("grep_files", json!({"pattern": "x", "include": "[oops"}))
        .err("invalid_arguments");
    assert!(out.message().contains("include"), "{}", out.message());
    assert!(out.message().contains("\"*.rs\""), "{}", out.message());
}

#[test]
fn case_insensitive_fixed_strings_and_multiline() {
    let ws = Ws::new();
    ws.write("a.txt", "Needle\nneedle\nNEEDLE(1)\nstart\nmiddle\nend\n");
    let ci = ws
        .call(
            "grep_files",
            json!({"pattern": "needle", "case_insensitive": true}),
        )
        .ok();
    assert_eq!(ci.data()["total_matches"], 3);
    let cs = ws.call("grep_files", json!({"pattern": "needle"})).ok();
    assert_eq!(cs.data()["total_matches"], 1);
    let fixed = ws
        .call(
            "grep_files",
            json!({"pattern": "NEEDLE(1)", "fixed_strings": true}),
        )
        .ok();
    assert_eq!(fixed.output(), "a.txt:3:NEEDLE(1)\n\n1 match in 1 file");
    let multi = ws
        .call(
            "grep_files",
            json!({"pattern": "start\\n.*\\nend", "multiline": true}),
        )
        .ok();
    assert_eq!(multi.data()["total_matches"], 1);
    assert!(multi
        .output()
        .starts_with("a.txt:4:start\na.txt:5:middle\na.txt:6:end\n"));
    let dotall = ws
        .call(
            "grep_files",
            json!({"pattern": "start.middle", "multiline": true}),
        )
        .ok();
    assert_eq!(dotall.data()["total_matches"], 1);
    let no_multi = ws
        .call("grep_files", json!({"pattern": "start\\nmiddle"}))
        .err("invalid_arguments");
    assert!(
        no_multi.message().contains("multiline=true"),
        "{}",
        no_multi.message()
    );
}

#[test]
fn context_lines_and_group_separators() {
    let ws = Ws::new();
    let text: String = (1..=20)
        .map(|i| {
            if i == 5 || i == 15 {
                "hit\n".to_string()
            } else {
                format!("l{i}\n")
            }
        })
        .collect();
    ws.write("a.txt", &text);
    ws.write("b.txt", "hit\n");
    let out = ws
        .call("grep_files", json!({"pattern": "hit", "context": 1}))
        .ok();
    assert_eq!(
        out.output(),
        "a.txt-4-l4\na.txt:5:hit\na.txt-6-l6\n--\na.txt-14-l14\na.txt:15:hit\na.txt-16-l16\n--\nb.txt:1:hit\n\n\
         3 matches in 2 files"
    );
    let cut = ws
        .call(
            "grep_files",
            json!({"pattern": "hit", "context": 1, "max_results": 1}),
        )
        .ok();
    assert!(cut
        .output()
        .starts_with("a.txt-4-l4\na.txt:5:hit\na.txt-6-l6\n\n3 matches in 2 files; showing the first 1."));
    let out = ws
        .call("grep_files", json!({"pattern": "hit", "context": 51}))
        .err("invalid_arguments");
    assert!(out.message().contains("context=5"));
}

#[test]
fn long_lines_are_cut_around_the_match() {
    let ws = Ws::new();
    ws.write(
        "min.txt",
        format!("{}NEEDLE{}\n", "a".repeat(5000), "b".repeat(5000)),
    );
    let out = ws.call("grep_files", json!({"pattern": "NEEDLE"})).ok();
    let line = out.output().lines().next().expect("line");
    assert!(line.contains("NEEDLE"));
    assert!(line.len() < 700, "{}", line.len());
    assert!(line.contains("[line cut: 10006 bytes, showing"), "{line}");
}

#[test]
fn no_match_says_what_ignore_rules_hid_and_names_include_ignored() {
    let (ws, _outside) = fixture_ws();
    let out = ws.call("grep_files", json!({"pattern": "needle ignored"})).ok();
    assert_eq!(out.data()["total_matches"], 0);
    assert_eq!(out.data()["ignored_files"], 3);
    assert!(out
        .output()
        .starts_with("No matches for \"needle ignored\" in `.`"));
    assert!(out
        .output()
        .contains("3 files hidden by .gitignore/.ignore rules were not searched. To search them too, call grep_files with pattern=\"needle ignored\" include_ignored=true."));
    let found = ws
        .call(
            "grep_files",
            json!({"pattern": "needle ignored", "include_ignored": true}),
        )
        .ok();
    assert!(found
        .output()
        .starts_with("ignored.txt:1:needle ignored\n\n1 match in 1 file"));
}

#[test]
fn invalid_regex_gives_the_engine_message_and_the_literal_call() {
    let ws = Ws::new();
    ws.write("a.txt", "f(x)\n");
    let out = ws
        .call("grep_files", json!({"pattern": "f(x"}))
        .err("invalid_arguments");
    assert!(out.message().contains("unclosed group"), "{}", out.message());
    assert!(out
        .message()
        .contains("call grep_files with pattern=\"f(x\" fixed_strings=true"));
    let out = ws
        .call("grep_files", json!({"pattern": "(?<=a)b"}))
        .err("invalid_arguments");
    assert!(out.message().contains("look-around"), "{}", out.message());
    let out = ws
        .call("grep_files", json!({"pattern": ""}))
        .err("invalid_arguments");
    assert!(out.message().contains("file_search"));
}

#[test]
fn an_invalid_regex_is_shown_as_written_with_the_caret_under_the_mistake() {
    let ws = Ws::new();
    ws.write("a.rs", "fn main() {}\n");
    let out = ws
        .call("grep_files", json!({"pattern": "fn main("}))
        .err("invalid_arguments");
    let message = out.message();
    assert!(!message.contains("(?:"), "{message}");
    // The caret sits under the unclosed `(` (column 8 of the pattern).
    assert!(
        message.contains("\n    fn main(\n           ^\nerror: unclosed group"),
        "{message}"
    );
    assert!(
        message.contains("pattern=\"fn main(\" fixed_strings=true"),
        "{message}"
    );
    let out = ws
        .call(
            "grep_files",
            json!({"pattern": "a{2,1}", "case_insensitive": true}),
        )
        .err("invalid_arguments");
    assert!(
        out.message().contains("\n    a{2,1}\n     ^^^^^\n"),
        "{}",
        out.message()
    );
}

#[test]
fn path_may_be_a_file_a_directory_and_must_stay_inside() {
    let (ws, _outside) = fixture_ws();
    let one = ws
        .call("grep_files", json!({"pattern": "needle", "path": "src/lib.rs"}))
        .ok();
    assert_eq!(one.data()["total_matches"], 2);
    assert!(one.output().starts_with("src/lib.rs:1:// needle here\n"));
    let dir = ws.run(&["grep", "needle", "--path", "src"]).ok();
    assert_eq!(dir.data()["total_files"], 2);
    let ignored_dir = ws
        .call("grep_files", json!({"pattern": "needle", "path": "gen"}))
        .ok();
    assert_eq!(ignored_dir.data()["total_matches"], 1);
    ws.call("grep_files", json!({"pattern": "needle", "path": "nope"}))
        .err("not_found");
    let fifo = ws.join("fifo");
    let status = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(status.success());
    let out = ws
        .call("grep_files", json!({"pattern": "needle", "path": "fifo"}))
        .err("not_a_regular_file");
    assert!(out.message().contains("path=\".\""), "{}", out.message());
    let walked = ws
        .call("grep_files", json!({"pattern": "needle", "output_mode": "count"}))
        .ok();
    assert_eq!(
        walked.data()["total_matches"],
        7,
        "a FIFO in the tree is passed over"
    );
    let out = ws
        .call("grep_files", json!({"pattern": "needle", "path": "out"}))
        .err("outside_workspace");
    assert!(out.message().starts_with("path escapes workspace"));
}

#[test]
fn max_results_is_clamped_with_a_notice() {
    let ws = Ws::new();
    ws.write("a.txt", "x\n");
    let out = ws
        .call("grep_files", json!({"pattern": "x", "max_results": 0}))
        .ok();
    assert_eq!(out.data()["max_results"], 1);
    assert_eq!(
        out.notices(),
        vec!["max_results=0 is outside 1..=1000; used 1.".to_string()]
    );
    let out = ws
        .call("grep_files", json!({"pattern": "x", "max_results": 5000}))
        .ok();
    assert_eq!(out.data()["max_results"], 1000);
}

#[test]
fn codesmith_state_is_never_searched() {
    let ws = Ws::new();
    ws.write("a.txt", "needle\n");
    ws.read_via_tool("a.txt");
    ws.write(".codesmith/notes.txt", "needle\n");
    let out = ws
        .call("grep_files", json!({"pattern": "needle", "output_mode": "files"}))
        .ok();
    assert_eq!(out.data()["files"], json!(["a.txt"]));
}

#[test]
fn a_line_end_anchor_matches_before_crlf_too() {
    let ws = Ws::new();
    ws.write("win.txt", "a NEEDLE\r\nb\r\n");
    ws.write("unix.txt", "c NEEDLE\n");
    let out = ws
        .call(
            "grep_files",
            json!({"pattern": "NEEDLE$", "output_mode": "count"}),
        )
        .ok();
    assert_eq!(out.data()["total_matches"], 2, "{}", out.output());
}

#[test]
fn when_only_binary_or_huge_files_were_found_no_pattern_hint_is_given() {
    let ws = Ws::new();
    ws.write("bin.dat", b"TODO bin\0z\n");
    let out = ws
        .call("grep_files", json!({"pattern": "TODO", "path": "bin.dat"}))
        .ok();
    let text = out.output();
    assert!(text.contains("1 binary file skipped"), "{text}");
    assert!(text.contains("the pattern was not tried"), "{text}");
    assert!(
        text.contains("exec_shell with `grep -a -n PATTERN FILE`"),
        "{text}"
    );
    assert!(!text.contains("case_insensitive=true"), "{text}");
}

#[test]
fn a_file_given_as_path_is_searched_whatever_its_size() {
    let ws = Ws::new();
    let mut text = "an ordinary log line of about sixty bytes, nothing to see\n".repeat(200_000);
    text.push_str("the NEEDLE at the very end\n");
    assert!(text.len() > 10 << 20);
    ws.write("logs/big.log", &text);
    let out = ws
        .call("grep_files", json!({"pattern": "NEEDLE", "path": "logs/big.log"}))
        .ok();
    assert_eq!(out.data()["total_matches"], 1, "{}", out.stdout);
    assert!(
        out.output().contains("big.log:200001:the NEEDLE at the very end"),
        "{}",
        out.output()
    );
    // Met while walking a directory, it is still skipped as over 10 MB.
    let out = ws
        .call("grep_files", json!({"pattern": "NEEDLE", "path": "logs"}))
        .ok();
    assert_eq!(out.data()["total_matches"], 0, "{}", out.stdout);
    // multiline=true would hold it whole in memory past the cap only for files over 64 MB.
    let out = ws
        .call(
            "grep_files",
            json!({"pattern": "very end\\n", "path": "logs/big.log", "multiline": true}),
        )
        .ok();
    assert_eq!(out.data()["total_matches"], 1, "{}", out.stdout);
}
