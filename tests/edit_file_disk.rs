//! edit_file, continued: what reaches the disk — line endings, BOM, encodings, the gates in
//! front of a change, and atomic writes.

use serde_json::json;

use crate::edit_file::{edit, ws_with};
use crate::harness::{Outcome, Ws};

// ---- line endings, BOM, encodings -----------------------------------------------------------

#[test]
fn crlf_file_stays_crlf() {
    let ws = ws_with("c.txt", "one\r\ntwo\r\nthree\r\n");
    let out = edit(
        &ws,
        json!({"path": "c.txt", "search": "two\n", "replace": "2\n2.5\n"}),
    )
    .ok();
    assert_eq!(out.data()["line_ending"], "crlf");
    assert_eq!(ws.read("c.txt"), b"one\r\n2\r\n2.5\r\nthree\r\n");
    // A search pasted with CRLF matches too.
    edit(
        &ws,
        json!({"path": "c.txt", "search": "2\r\n2.5", "replace": "x"}),
    )
    .ok();
    assert_eq!(ws.read("c.txt"), b"one\r\nx\r\nthree\r\n");
}

#[test]
fn mixed_endings_keep_untouched_lines() {
    let ws = ws_with("m.txt", "a\r\nb\r\nc\nd\n");
    edit(&ws, json!({"path": "m.txt", "search": "b", "replace": "B\nB2"})).ok();
    assert_eq!(ws.read("m.txt"), b"a\r\nB\r\nB2\r\nc\nd\n");
    edit(&ws, json!({"path": "m.txt", "search": "d", "replace": "D\nD2"})).ok();
    assert_eq!(ws.read("m.txt"), b"a\r\nB\r\nB2\r\nc\nD\nD2\n");
}

#[test]
fn bom_is_kept() {
    let ws = ws_with("b.txt", b"\xEF\xBB\xBFhello\r\nworld\r\n");
    let out = edit(
        &ws,
        json!({"path": "b.txt", "search": "world", "replace": "there"}),
    )
    .ok();
    assert_eq!(out.data()["encoding"], "UTF-8 with BOM");
    assert_eq!(ws.read("b.txt"), b"\xEF\xBB\xBFhello\r\nthere\r\n");
}

#[test]
fn latin1_file_round_trips() {
    let original = b"caf\xe9 cr\xe8me br\xfbl\xe9e\nna\xefve fa\xe7ade, d\xe9j\xe0 vu\n".to_vec();
    let ws = ws_with("l1.txt", &original);
    let out = edit(&ws, json!({"path": "l1.txt", "search": "café", "replace": "thé"})).ok();
    assert_eq!(out.data()["encoding"], "windows-1252");
    assert_eq!(
        ws.read("l1.txt"),
        b"th\xe9 cr\xe8me br\xfbl\xe9e\nna\xefve fa\xe7ade, d\xe9j\xe0 vu\n"
    );
    // A character Latin-1 cannot hold is refused, never substituted.
    let out = edit(&ws, json!({"path": "l1.txt", "search": "thé", "replace": "茶"})).err("invalid_arguments");
    assert!(out.message().contains("U+8336"), "{}", out.message());
    assert!(out.message().contains("nothing was written"), "{}", out.message());
    assert_eq!(
        ws.read("l1.txt"),
        b"th\xe9 cr\xe8me br\xfbl\xe9e\nna\xefve fa\xe7ade, d\xe9j\xe0 vu\n"
    );
}

#[test]
fn shift_jis_file_round_trips() {
    let (original, _, _) = encoding_rs::SHIFT_JIS.encode(
        "# 設定ファイル\nこんにちは、世界。これはテストです。\n日本語のファイルを編集します。\nname = \"山田太郎\"\n",
    );
    let ws = ws_with("s.txt", &*original);
    let out = edit(
        &ws,
        json!({"path": "s.txt", "search": "山田太郎", "replace": "鈴木花子"}),
    )
    .ok();
    assert_eq!(out.data()["encoding"], "Shift_JIS");
    let (expected, _, _) = encoding_rs::SHIFT_JIS.encode(
        "# 設定ファイル\nこんにちは、世界。これはテストです。\n日本語のファイルを編集します。\nname = \"鈴木花子\"\n",
    );
    assert_eq!(ws.read("s.txt"), &*expected);
}

#[test]
fn utf16_with_bom_round_trips() {
    let encode = |text: &str| {
        let mut bytes = vec![0xFF, 0xFE];
        for unit in text.encode_utf16() {
            bytes.extend_from_slice(&unit.to_le_bytes());
        }
        bytes
    };
    let ws = ws_with("w.txt", encode("héllo\r\nwörld\r\n"));
    let out = edit(
        &ws,
        json!({"path": "w.txt", "search": "wörld", "replace": "wörld 🌍\nend"}),
    )
    .ok();
    assert_eq!(out.data()["encoding"], "UTF-16LE with BOM");
    assert_eq!(ws.read("w.txt"), encode("héllo\r\nwörld 🌍\r\nend\r\n"));
}

#[test]
fn emoji_and_cjk_scan_by_whole_matches() {
    let ws = ws_with("e.txt", "😀 笑 😀😀\naaaa\n");
    let out = edit(
        &ws,
        json!({"path": "e.txt", "search": "😀", "replace": "🙂", "replace_all": true}),
    )
    .ok();
    assert_eq!(out.data()["replacements"], 3);
    // Non-overlapping, left to right: `aa` occurs twice in `aaaa`, not three times.
    let out = edit(
        &ws,
        json!({"path": "e.txt", "search": "aa", "replace": "b", "replace_all": true}),
    )
    .ok();
    assert_eq!(out.data()["replacements"], 2);
    assert_eq!(ws.read_string("e.txt"), "🙂 笑 🙂🙂\nbb\n");
    // A fuzzy level over multi-byte text never splits a character.
    edit(
        &ws,
        json!({"path": "e.txt", "search": "  🙂 笑 🙂🙂  ", "replace": "笑"}),
    )
    .ok();
    assert_eq!(ws.read_string("e.txt"), "笑\nbb\n");
}

#[test]
fn a_utf8_file_with_a_stray_byte_is_not_utf8_naming_the_byte_not_iconv() {
    // Mostly UTF-8 with one stray Latin-1 byte: no encoding reads all of it, and converting it
    // whole from LATIN1 would garble the correct `é`s.
    let bytes = b"caf\xc3\xa9\nna\xefve \xc3\xa9t\xc3\xa9\n";
    let ws = ws_with("u.txt", bytes);
    let out = edit(&ws, json!({"path": "u.txt", "search": "caf", "replace": "CAF"})).err("not_utf8");
    let message = out.message();
    assert!(!message.contains("iconv -f"), "{message}");
    assert!(
        message.starts_with(
            "`u.txt` is UTF-8 except for one invalid byte sequence: line 2 at byte offset 8 (`\\xef`)."
        ),
        "{message}"
    );
    assert!(
        message.contains("`LC_ALL=C sed -i '2s/\\xef/\\xc3\\xaf/g' u.txt`"),
        "{message}"
    );
    assert!(message.contains("write_file"), "{message}");
    assert!(
        message.contains("call read_file with path=\"u.txt\""),
        "{message}"
    );
    assert_eq!(out.error()["invalid_count"], 1);
    assert_eq!(
        out.error()["invalid_bytes"],
        json!([{"line": 2, "offset": 8, "bytes": "\\xef"}])
    );
    assert_eq!(ws.read("u.txt"), bytes);
    // apply_patch shares the refusal.
    let out = ws
        .call(
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Update File: u.txt\n@@\n-caf\u{e9}\n+CAF\n*** End Patch\n"}),
        )
        .err("not_utf8");
    assert!(
        out.message().contains("line 2 at byte offset 8"),
        "{}",
        out.message()
    );
    assert_eq!(ws.read("u.txt"), bytes);
    // Several stray bytes: the first three are named, and the count.
    let bytes =
        b"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n\xff\n\xfe\n\xfd\n\xfc\n";
    let ws = ws_with("m.txt", bytes);
    let out = edit(&ws, json!({"path": "m.txt", "search": "x", "replace": "y"})).err("not_utf8");
    assert!(
        out.message().contains("except for 4 invalid byte sequences"),
        "{}",
        out.message()
    );
    assert!(
        out.message()
            .contains("line 4 at byte offset 23 (`\\xfd`), and 1 more."),
        "{}",
        out.message()
    );
}

#[test]
fn guessed_encoding_takes_no_new_characters() {
    // Three high bytes: some single-byte encoding, but which one is a guess.
    let bytes = b"x = \xff\xff\xff\n";
    let ws = ws_with("g.txt", bytes);
    let out = edit(
        &ws,
        json!({"path": "g.txt", "search": "x = ", "replace": "\u{e9} = "}),
    )
    .err("not_utf8");
    assert!(out.message().contains("U+00E9"), "{}", out.message());
    assert!(out.message().contains("nothing was written"), "{}", out.message());
    assert_eq!(ws.read("g.txt"), bytes);
    // ASCII is the same bytes in every candidate, so that edit is safe and keeps the rest.
    edit(&ws, json!({"path": "g.txt", "search": "x = ", "replace": "y = "})).ok();
    assert_eq!(ws.read("g.txt"), b"y = \xff\xff\xff\n");
}

// ---- gates ------------------------------------------------------------------------------------

#[test]
fn unread_file_is_not_read_with_the_read_call() {
    let ws = Ws::new();
    ws.write("a.txt", "x\n");
    let out = edit(&ws, json!({"path": "a.txt", "search": "x", "replace": "y"})).err("not_read");
    assert!(
        out.message().contains("Call read_file with path=\"a.txt\""),
        "{}",
        out.message()
    );
    assert_eq!(ws.read("a.txt"), b"x\n");
}

#[test]
fn freshness_is_per_session() {
    let mut ws = ws_with("a.txt", "x\n");
    ws.session = Some("other".into());
    edit(&ws, json!({"path": "a.txt", "search": "x", "replace": "y"})).err("not_read");
}

#[test]
fn same_size_rewrite_with_old_mtime_is_stale() {
    let ws = ws_with("a.txt", "hello\n");
    let path = ws.join("a.txt");
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::fs::write(&path, "HELLO\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), mtime);
    let out = edit(&ws, json!({"path": "a.txt", "search": "HELLO", "replace": "bye"})).err("stale");
    assert!(
        out.message().contains("Call read_file with path=\"a.txt\""),
        "{}",
        out.message()
    );
    assert_eq!(ws.read("a.txt"), b"HELLO\n");
}

#[test]
fn a_rewrite_with_identical_bytes_is_not_stale() {
    let ws = ws_with("a.txt", "hello\n");
    let path = ws.join("a.txt");
    let later = std::fs::metadata(&path).unwrap().modified().unwrap() + std::time::Duration::from_secs(5);
    std::fs::write(&path, "hello\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(later)
        .unwrap();
    edit(&ws, json!({"path": "a.txt", "search": "hello", "replace": "bye"})).ok();
    assert_eq!(ws.read("a.txt"), b"bye\n");
    // A different content of the same size is still stale, whatever the mtime says.
    std::fs::write(&path, "BYE\n").unwrap();
    edit(&ws, json!({"path": "a.txt", "search": "BYE", "replace": "x"})).err("stale");
}

#[test]
fn syntax_gate_refuses_breaking_a_json_file() {
    let ws = ws_with("c.json", "{\n  \"a\": 1,\n  \"b\": 2\n}\n");
    let out = edit(
        &ws,
        json!({"path": "c.json", "search": "\"b\": 2", "replace": "\"b\": "}),
    )
    .err("syntax_gate");
    assert!(out.message().contains("NOT modified"), "{}", out.message());
    assert!(out.message().contains("line 4"), "{}", out.message());
    assert_eq!(out.error()["line"], 4);
    assert_eq!(ws.read("c.json"), b"{\n  \"a\": 1,\n  \"b\": 2\n}\n");
    // A file that was already broken may be edited in any state.
    let ws = ws_with("broken.json", "{\"a\": \n");
    edit(
        &ws,
        json!({"path": "broken.json", "search": "\"a\": ", "replace": "\"a\": ["}),
    )
    .ok();
    assert_eq!(ws.read("broken.json"), b"{\"a\": [\n");
}

#[test]
fn syntax_gate_covers_toml_and_rust_and_exempts_cargo_lock() {
    let ws = ws_with("Cargo.toml", "[package]\nname = \"x\"\n");
    let out = edit(
        &ws,
        json!({"path": "Cargo.toml", "search": "\"x\"", "replace": "\"x"}),
    )
    .err("syntax_gate");
    assert!(out.message().contains("TOML"), "{}", out.message());
    let ws = ws_with("m.rs", "fn main() {}\n");
    let out = edit(&ws, json!({"path": "m.rs", "search": "{}", "replace": "{"})).err("syntax_gate");
    assert!(out.message().contains("Rust"), "{}", out.message());
    let ws = ws_with("Cargo.lock", "version = 3\n");
    edit(
        &ws,
        json!({"path": "Cargo.lock", "search": "= 3", "replace": "= ["}),
    )
    .ok();
}

#[test]
fn syntax_gate_covers_python_and_yaml_changes() {
    let ws = ws_with("app.py", "def f(x):\n    return x\n\nprint(f(1))\n");
    let out = edit(
        &ws,
        json!({"path": "app.py", "search": "return x", "replace": "return (x"}),
    )
    .err("syntax_gate");
    assert!(out.message().contains("Python"), "{}", out.message());
    assert_eq!(out.error()["line"], 2);
    assert_eq!(ws.read("app.py"), b"def f(x):\n    return x\n\nprint(f(1))\n");
    let ws = ws_with("ci.yml", "on: push\njobs:\n  build:\n    runs-on: ubuntu\n");
    let out = edit(
        &ws,
        json!({"path": "ci.yml", "search": "ubuntu", "replace": "[ubuntu"}),
    )
    .err("syntax_gate");
    assert!(out.message().contains("YAML"), "{}", out.message());
    assert_eq!(out.error()["line"], 4);
    // New templated YAML is not gated.
    ws.call(
        "write_file",
        json!({"path": "chart.yaml", "content": "name: {{ .Values.name }\n"}),
    )
    .ok();
}

#[test]
fn non_files_are_refused() {
    let ws = Ws::new();
    ws.mkdir("d");
    ws.write("bin.dat", b"\x00\x01\x02binary");
    edit(&ws, json!({"path": "d", "search": "x", "replace": "y"})).err("is_directory");
    edit(&ws, json!({"path": "missing.txt", "search": "x", "replace": "y"})).err("not_found");
    let out = edit(&ws, json!({"path": "bin.dat", "search": "x", "replace": "y"})).err("binary_file");
    assert!(out.message().contains("write_file"), "{}", out.message());
    edit(
        &ws,
        json!({"path": ".codesmith/sessions/default.json", "search": "x", "replace": "y"}),
    )
    .err("outside_workspace");
}

#[test]
fn failed_rename_leaves_the_original_intact() {
    let ws = ws_with("a.txt", "original\n");
    let mut cmd = ws.command(&[
        "edit_file",
        "--json",
        &json!({"path": "a.txt", "search": "original", "replace": "changed"}).to_string(),
    ]);
    cmd.env("CODESMITH_FAULT", "rename");
    let out = Outcome::of(cmd).err("io_error");
    assert!(
        out.message().contains("original file is unchanged"),
        "{}",
        out.message()
    );
    assert_eq!(ws.read("a.txt"), b"original\n");
    assert!(ws.temp_files().is_empty(), "temp files left behind");
}

#[test]
fn mode_is_kept() {
    use std::os::unix::fs::PermissionsExt;
    let ws = ws_with("run.sh", "#!/bin/sh\necho hi\n");
    std::fs::set_permissions(ws.join("run.sh"), std::fs::Permissions::from_mode(0o750)).unwrap();
    ws.read_via_tool("run.sh");
    edit(&ws, json!({"path": "run.sh", "search": "hi", "replace": "ho"})).ok();
    let mode = std::fs::metadata(ws.join("run.sh")).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o750);
}
