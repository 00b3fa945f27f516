//! read_file (CONTRACT §5): paging, cuts, encodings, refusals, the streaming path.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::harness::Ws;

fn numbered(range: std::ops::RangeInclusive<u32>, width: usize) -> String {
    range.map(|i| format!("{i:0width$}\n")).collect()
}

#[test]
fn numbers_lines_and_points_at_the_next_page() {
    let ws = Ws::new();
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    ws.write("f.txt", text);
    let out = ws
        .call("read_file", json!({"path": "f.txt", "max_lines": 3}))
        .ok();
    assert_eq!(
        out.output(),
        "     1│ line 1\n     2│ line 2\n     3│ line 3\n\n\
         To continue, call read_file with path=\"f.txt\" start_line=4 max_lines=3"
    );
    assert_eq!(out.data()["start_line"], 1);
    assert_eq!(out.data()["end_line"], 3);
    assert_eq!(out.data()["next_start_line"], 4);
    assert_eq!(out.data()["total_lines"], 10);
    assert_eq!(out.data()["truncated"], true);
    let last = ws
        .call("read_file", json!({"path": "f.txt", "start_line": 9}))
        .ok();
    assert_eq!(last.output(), "     9│ line 9\n    10│ line 10");
    assert_eq!(last.data()["truncated"], false);
    assert_eq!(last.data()["next_start_line"], json!(null));
}

#[test]
fn default_page_is_200_lines_and_the_cap_is_500() {
    let ws = Ws::new();
    ws.write("f.txt", numbered(1..=800, 3));
    let out = ws.run(&["read", "f.txt"]).ok();
    assert_eq!(out.data()["end_line"], 200);
    assert!(out
        .output()
        .ends_with("To continue, call read_file with path=\"f.txt\" start_line=201 max_lines=200"));
    let out = ws
        .call("read_file", json!({"path": "f.txt", "max_lines": 900}))
        .ok();
    assert_eq!(out.data()["end_line"], 500);
    assert!(out.notices()[0].contains("max_lines=900 is over the cap"));
    assert!(out.output().ends_with("start_line=501 max_lines=500"));
}

#[test]
fn zero_start_is_refused_with_the_call_to_make_and_zero_max_is_clamped() {
    let ws = Ws::new();
    ws.write("f.txt", "x\n");
    let out = ws
        .call("read_file", json!({"path": "f.txt", "start_line": 0}))
        .err("invalid_arguments");
    assert!(out
        .message()
        .contains("Call read_file with path=\"f.txt\" start_line=1"));
    // max_lines clamps out-of-range values, as its schema says.
    let out = ws
        .call("read_file", json!({"path": "f.txt", "max_lines": 0}))
        .ok();
    assert_eq!(out.notices(), ["max_lines=0 is outside 1..=500; used 1."]);
}

#[test]
fn a_page_stops_at_16_kb_on_a_whole_line_and_continues_at_the_first_unshown_line() {
    let ws = Ws::new();
    // 300 lines of 100 characters: about 32 KB, so the byte budget ends the page first.
    let text: String = (1..=300).map(|i| format!("{i:04}{}\n", "y".repeat(96))).collect();
    ws.write("wide.txt", &text);
    let out = ws.run(&["read", "wide.txt"]).ok();
    let end = out.data()["end_line"].as_u64().unwrap();
    assert!(end < 200, "the byte budget should end the page, ended at {end}");
    let (page, continuation) = out.output().rsplit_once("\n\n").unwrap();
    assert!(page.len() <= 16 * 1024, "{} bytes", page.len());
    // Every shown line is whole.
    for (i, line) in page.lines().enumerate() {
        assert_eq!(line, format!("{:>6}│ {:04}{}", i + 1, i + 1, "y".repeat(96)));
    }
    assert_eq!(page.lines().count() as u64, end);
    assert_eq!(
        continuation,
        format!(
            "To continue, call read_file with path=\"wide.txt\" start_line={} max_lines=200",
            end + 1
        )
    );
    let next = ws
        .call("read_file", json!({"path": "wide.txt", "start_line": end + 1}))
        .ok();
    assert!(next
        .output()
        .starts_with(&format!("{:>6}│ {:04}", end + 1, end + 1)));
}

#[test]
fn very_long_lines_are_cut_with_a_marker() {
    let ws = Ws::new();
    ws.write("long.txt", format!("{}\nshort\n", "x".repeat(5000)));
    let out = ws.run(&["read", "long.txt"]).ok();
    let first = out.output().lines().next().unwrap();
    assert_eq!(
        first,
        format!("     1│ {}… [line cut: 3000 more characters]", "x".repeat(2000))
    );
    assert!(out.output().ends_with("     2│ short"));
    assert_eq!(out.data()["cut_lines"], 1);
}

#[test]
fn cut_lines_counts_only_the_cut_lines_the_page_shows() {
    let ws = Ws::new();
    // Each cut line renders to about 2 KB, so the 16 KB budget stops the page at 8 lines; the
    // ninth, cut but sent back, must not be counted.
    ws.write("wide.txt", format!("{}\n", "z".repeat(3000)).repeat(20));
    let out = ws.run(&["read", "wide.txt"]).ok();
    let markers = out.output().matches("[line cut: 1000 more characters]").count();
    assert_eq!(markers, 8);
    assert_eq!(out.data()["end_line"], 8);
    assert_eq!(out.data()["cut_lines"], 8);
    assert_eq!(out.data()["next_start_line"], 9);
}

#[test]
fn start_line_past_the_end_is_no_content_with_the_line_count() {
    let ws = Ws::new();
    ws.write("f.txt", "a\nb\nc");
    let out = ws
        .call("read_file", json!({"path": "f.txt", "start_line": 10}))
        .ok();
    assert_eq!(
        out.output(),
        "[NO CONTENT] start_line=10 is past the end of the file, which has 3 lines. \
         Call read_file with path=\"f.txt\" start_line=1 to read from the start."
    );
    assert_eq!(out.data()["total_lines"], 3);
    assert_eq!(out.data()["end_line"], json!(null));
}

#[test]
fn an_empty_file_is_no_content() {
    let ws = Ws::new();
    ws.write("empty.txt", "");
    let out = ws.run(&["read", "empty.txt"]).ok();
    assert_eq!(out.output(), "[NO CONTENT] The file is empty (0 lines).");
    assert_eq!(out.data()["total_lines"], 0);
    assert_eq!(ws.fingerprints(None).len(), 1);
}

#[test]
fn binary_files_are_refused() {
    let ws = Ws::new();
    ws.write("img.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    let out = ws.run(&["read", "img.png"]).err("binary_file");
    assert!(out.message().contains("exec_shell"), "{}", out.message());
    assert_eq!(out.error()["path"], "img.png");
}

#[test]
fn a_fifo_is_refused_without_blocking() {
    let ws = Ws::new();
    let fifo = ws.join("pipe");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a path we own.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0);
    let mut child = ws
        .command(&["read", "pipe"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(10) {
            child.kill().unwrap();
            panic!("read_file blocked on a FIFO");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = crate::harness::Outcome::from_output(child.wait_with_output().unwrap());
    let out = out.err("not_a_regular_file");
    assert!(out.message().contains("FIFO"));
    assert!(out.message().contains("exec_shell"));
}

#[test]
fn a_device_is_refused() {
    let ws = Ws::new();
    ws.run(&["trust", "add", "/dev"]).ok();
    let out = ws.run(&["read", "/dev/null"]).err("not_a_regular_file");
    assert!(out.message().contains("a device"), "{}", out.message());
}

#[test]
fn a_directory_gets_the_list_dir_call() {
    let ws = Ws::new();
    ws.mkdir("src/sub");
    let out = ws.run(&["read", "src/sub/"]).err("is_directory");
    assert!(out
        .message()
        .contains("Call list_dir with path=\"src/sub\" to see what it holds."));
}

#[test]
fn a_missing_path_gets_up_to_three_similar_paths() {
    let ws = Ws::new();
    for name in [
        "config.toml",
        "config.yaml",
        "config.json",
        "configs.toml",
        "conf.toml",
    ] {
        ws.write(&format!("etc/{name}"), "x");
    }
    let out = ws.run(&["read", "etc/config.tml"]).err("not_found");
    let similar = out.error()["similar"].as_array().unwrap().clone();
    assert!(!similar.is_empty() && similar.len() <= 3, "{similar:?}");
    assert_eq!(similar[0], "etc/config.toml");
    assert!(out
        .message()
        .contains("Similar paths that exist: `etc/config.toml`"));
    let out = ws.run(&["read", "zzzzzz/qqqq.rs"]).err("not_found");
    assert!(out.message().contains("list_dir"), "{}", out.message());
}

#[test]
fn invalid_utf8_is_shown_lossily_with_a_notice() {
    let ws = Ws::new();
    let mut bytes = "naïve line\n".as_bytes().to_vec();
    bytes.extend_from_slice(b"bad \xff byte\n");
    ws.write("mixed.txt", bytes);
    let out = ws.run(&["read", "mixed.txt"]).ok();
    assert_eq!(out.output(), "     1│ naïve line\n     2│ bad \u{FFFD} byte");
    assert!(
        out.notices()[0].contains("not valid UTF-8"),
        "{:?}",
        out.notices()
    );
    assert!(out.notices()[0].contains("U+FFFD"));
    assert_eq!(out.data()["encoding"], "unknown (shown lossily)");
}

#[test]
fn latin1_is_decoded_and_named() {
    let ws = Ws::new();
    let text = "café crème brûlée, naïve façade, déjà vu, garçon, señor, über\n";
    let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(text);
    ws.write("latin.txt", bytes.as_ref());
    let out = ws.run(&["read", "latin.txt"]).ok();
    assert_eq!(out.output(), format!("     1│ {}", text.trim_end()));
    assert_eq!(out.data()["encoding"], "windows-1252");
    assert!(out.notices()[0].contains("windows-1252"), "{:?}", out.notices());
}

#[test]
fn utf16_with_a_bom_is_decoded() {
    let ws = Ws::new();
    let mut bytes = vec![0xFF, 0xFE];
    for unit in "hello\nworld\n".encode_utf16() {
        bytes.extend_from_slice(&unit.to_le_bytes());
    }
    ws.write("u16.txt", bytes);
    let out = ws.run(&["read", "u16.txt"]).ok();
    assert_eq!(out.output(), "     1│ hello\n     2│ world");
    assert_eq!(out.data()["encoding"], "UTF-16LE");
}

#[test]
fn crlf_lines_are_shown_without_carriage_returns() {
    let ws = Ws::new();
    ws.write("dos.txt", "one\r\ntwo\r\n");
    let out = ws.run(&["read", "dos.txt"]).ok();
    assert_eq!(out.output(), "     1│ one\n     2│ two");
    assert_eq!(out.data()["total_lines"], 2);
}

#[test]
fn a_file_over_16_mb_streams_with_correct_totals_and_fingerprint() {
    let ws = Ws::new();
    let line = |i: u32| format!("log line {i:07} {}\n", "z".repeat(40));
    let mut text = String::with_capacity(18 * 1024 * 1024);
    let mut total = 0;
    while text.len() <= 17 * 1024 * 1024 {
        total += 1;
        text.push_str(&line(total));
    }
    text.push_str("last line without newline");
    total += 1;
    ws.write("big.log", &text);

    let out = ws
        .call(
            "read_file",
            json!({"path": "big.log", "start_line": 200_000, "max_lines": 2}),
        )
        .ok();
    assert_eq!(
        out.output(),
        format!(
            "200000│ {}200001│ {}\nTo continue, call read_file with path=\"big.log\" start_line=200002 max_lines=2",
            line(200_000),
            line(200_001)
        )
    );
    assert_eq!(out.data()["total_lines"], total);
    let out = ws
        .call("read_file", json!({"path": "big.log", "start_line": total}))
        .ok();
    assert_eq!(out.output(), format!("{total:>6}│ last line without newline"));
    assert_eq!(out.data()["truncated"], false);
    let out = ws
        .call("read_file", json!({"path": "big.log", "start_line": total + 1}))
        .ok();
    assert!(out.output().starts_with("[NO CONTENT]"));
    assert_eq!(out.data()["total_lines"], total);
    // The streamed fingerprint is the whole file's.
    let record = &ws.fingerprints(None)[0];
    let expected = codesmith::session::freshness::Fingerprint::of_file(&ws.join("big.log")).unwrap();
    assert_eq!(record["hash"].as_str(), expected.hash.as_deref());
    assert_eq!(record["len"], text.len());
}

#[test]
fn a_streamed_file_with_invalid_utf8_gets_the_notice() {
    let ws = Ws::new();
    let mut bytes = Vec::with_capacity(17 * 1024 * 1024);
    bytes.extend_from_slice(b"bad \xff here\n");
    while bytes.len() <= 16 * 1024 * 1024 {
        bytes.extend_from_slice(b"plain ascii filler line\n");
    }
    ws.write("big-bad.log", bytes);
    let out = ws
        .call("read_file", json!({"path": "big-bad.log", "max_lines": 1}))
        .ok();
    assert!(out.output().starts_with("     1│ bad \u{FFFD} here"));
    assert!(
        out.notices()[0].contains("not valid UTF-8"),
        "{:?}",
        out.notices()
    );
}

#[test]
fn a_path_through_a_file_is_not_found() {
    let ws = Ws::new();
    ws.write("notes.txt", "x\n");
    let out = ws.run(&["read", "notes.txt/inner"]).err("not_found");
    assert!(
        out.message().contains("`notes.txt/inner` does not exist"),
        "{}",
        out.message()
    );
    ws.run(&["ls", "notes.txt/inner"]).err("not_found");
}

#[test]
fn a_fifo_refusal_names_the_path_as_given_and_the_tool_that_asked() {
    let ws = Ws::new();
    let status = std::process::Command::new("mkfifo")
        .arg(ws.join("pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    crate::harness::symlink("pipe", ws.join("alias"));
    let out = ws.run(&["read", "alias"]).err("not_a_regular_file");
    assert!(
        out.message().starts_with(
            "`alias` (which resolves to `pipe`) is a FIFO (named pipe); only regular files can be read."
        ),
        "{}",
        out.message()
    );
    let out = ws.run(&["read", "pipe"]).err("not_a_regular_file");
    assert!(out.message().starts_with("`pipe` is a FIFO"), "{}", out.message());
    let out = ws
        .run(&["write", "pipe", "--content", "x"])
        .err("not_a_regular_file");
    assert!(
        out.message().contains("only regular files can be written"),
        "{}",
        out.message()
    );
    let out = ws
        .run(&["edit", "pipe", "--search", "a", "--replace", "b"])
        .err("not_a_regular_file");
    assert!(
        out.message().contains("only regular files can be edited"),
        "{}",
        out.message()
    );
}

#[test]
fn a_device_reached_through_a_symlink_is_named_as_given() {
    let ws = Ws::new();
    ws.run(&["trust", "add", "/dev"]).ok();
    // The harness runs codesmith with stdin from /dev/null.
    let out = ws.run(&["read", "/dev/stdin"]).err("not_a_regular_file");
    assert!(
        out.message()
            .starts_with("`/dev/stdin` (which resolves to `/dev/null`) is a device"),
        "{}",
        out.message()
    );
}
