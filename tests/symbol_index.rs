//! The symbol index under .codesmith/index/: incremental by stat and content hash, edits and
//! deletions seen by the next query, records shared and dropped, rebuilt when unreadable, and
//! consistent under concurrent queries while files change.

use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use crate::harness::{Outcome, Ws};

fn find(ws: &Ws, name: &str) -> Outcome {
    ws.call("find_symbol", json!({ "name": name })).ok()
}

fn index(out: &Outcome) -> &Value {
    &out.data()["index"]
}

/// `path:line` of each definition found.
fn places(out: &Outcome) -> Vec<String> {
    out.data()["definitions"]
        .as_array()
        .expect("definitions")
        .iter()
        .map(|d| format!("{}:{}", d["path"].as_str().expect("path"), d["line"]))
        .collect()
}

/// Moves a file's mtime an hour back, past the window in which a same-size rewrite could hide.
fn age(ws: &Ws, rel: &str) {
    let file = std::fs::File::options()
        .write(true)
        .open(ws.join(rel))
        .expect("open");
    file.set_modified(SystemTime::now() - Duration::from_secs(3600))
        .expect("set mtime");
}

fn record_count(ws: &Ws) -> usize {
    let Ok(dirs) = std::fs::read_dir(ws.join(".codesmith/index/records")) else {
        return 0;
    };
    dirs.filter_map(Result::ok)
        .map(|d| std::fs::read_dir(d.path()).map(|f| f.count()).unwrap_or(0))
        .sum()
}

#[test]
fn unchanged_files_cost_nothing_and_an_edit_reparses_only_that_file() {
    let ws = Ws::new();
    for i in 0..5 {
        ws.write(&format!("src/m{i}.rs"), format!("pub fn item_{i}() {{}}\n"));
        age(&ws, &format!("src/m{i}.rs"));
    }
    let cold = find(&ws, "item_3");
    assert_eq!(places(&cold), vec!["src/m3.rs:1"]);
    assert_eq!(index(&cold)["parsed"], 5);
    assert_eq!(index(&cold)["rebuilt"], true);
    let warm = find(&ws, "item_3");
    assert_eq!(index(&warm)["hashed"], 0);
    assert_eq!(index(&warm)["parsed"], 0);
    // A same-size rewrite right away: the stat may not change within one timestamp tick,
    // but a file this recent is hashed again, so the new content is seen.
    ws.write("src/m3.rs", "pub fn item_x() {}\n");
    let edited = find(&ws, "item_x");
    assert_eq!(places(&edited), vec!["src/m3.rs:1"]);
    assert_eq!(index(&edited)["parsed"], 1);
    assert!(
        places(&find(&ws, "item_3")).is_empty(),
        "the old definition is gone"
    );
    // Touching a file without changing it hashes it again but parses nothing.
    age(&ws, "src/m3.rs");
    let touched = find(&ws, "item_x");
    assert_eq!(index(&touched)["hashed"], 1);
    assert_eq!(index(&touched)["parsed"], 0);
}

#[test]
fn a_deleted_file_leaves_the_index_and_its_record_is_dropped() {
    let ws = Ws::new();
    ws.write("a.py", "def alpha():\n    pass\n");
    ws.write("b.py", "def beta():\n    pass\n");
    assert_eq!(places(&find(&ws, "alpha")), vec!["a.py:1"]);
    assert_eq!(record_count(&ws), 2);
    std::fs::remove_file(ws.join("a.py")).expect("rm");
    let after = find(&ws, "alpha");
    assert!(places(&after).is_empty());
    assert_eq!(index(&after)["removed"], 1);
    assert_eq!(index(&after)["dropped_records"], 1);
    assert_eq!(record_count(&ws), 1);
    assert_eq!(after.data()["suggestions"], json!([]));
    assert_eq!(places(&find(&ws, "beta")), vec!["b.py:1"]);
}

#[test]
fn identical_files_share_one_record_and_each_is_listed() {
    let ws = Ws::new();
    let source = "package p\n\nfunc Shared() {}\n";
    ws.write("one/x.go", source).write("two/x.go", source);
    let out = find(&ws, "Shared");
    assert_eq!(places(&out), vec!["one/x.go:3", "two/x.go:3"]);
    assert_eq!(record_count(&ws), 1);
    std::fs::remove_file(ws.join("one/x.go")).expect("rm");
    let after = find(&ws, "Shared");
    assert_eq!(places(&after), vec!["two/x.go:3"]);
    assert_eq!(index(&after)["dropped_records"], 0, "two/x.go still points to it");
    assert_eq!(record_count(&ws), 1);
}

#[test]
fn ignored_files_are_not_indexed_like_grep_files() {
    let ws = Ws::new();
    ws.write(".gitignore", "generated/\n")
        .write("generated/g.rs", "fn hidden_fn() {}\n")
        .write("target/t.rs", "fn hidden_fn() {}\n")
        .write("node_modules/m.js", "function hidden_fn() {}\n")
        .write("src/s.rs", "fn shown_fn() {}\n");
    assert!(places(&find(&ws, "hidden_fn")).is_empty());
    assert_eq!(places(&find(&ws, "shown_fn")), vec!["src/s.rs:1"]);
}

#[test]
fn many_files_are_merged_into_name_shards_and_later_edits_still_show() {
    let ws = Ws::new();
    for i in 0..120 {
        ws.write(
            &format!("pkg/f{i:03}.c"),
            format!("int func_{i}(void) {{\n  return {i};\n}}\n"),
        );
    }
    let cold = find(&ws, "func_77");
    assert_eq!(places(&cold), vec!["pkg/f077.c:1"]);
    assert_eq!(index(&cold)["merged"], true);
    assert!(ws.exists(".codesmith/index/names"));
    ws.write("pkg/f077.c", "int renamed_77(void) {\n  return 0;\n}\n");
    ws.write("pkg/new.c", "\nint func_77(void) { return 1; }\n");
    let after = find(&ws, "func_77");
    assert_eq!(places(&after), vec!["pkg/new.c:2"]);
    assert_eq!(index(&after)["merged"], false);
    assert_eq!(places(&find(&ws, "renamed_77")), vec!["pkg/f077.c:1"]);
    assert_eq!(places(&find(&ws, "func_5")), vec!["pkg/f005.c:1"]);
}

#[test]
fn an_unreadable_index_is_rebuilt_transparently() {
    let ws = Ws::new();
    for i in 0..80 {
        ws.write(&format!("m{i}.rs"), format!("pub struct Item{i};\n"));
    }
    assert_eq!(places(&find(&ws, "Item9")), vec!["m9.rs:1"]);
    // A torn name shard: the query notices, starts over and answers.
    let shards = ws.join(".codesmith/index/names");
    for entry in std::fs::read_dir(&shards).expect("shards") {
        std::fs::write(entry.expect("entry").path(), "garbage").expect("tear");
    }
    let out = find(&ws, "Item9");
    assert_eq!(places(&out), vec!["m9.rs:1"]);
    assert!(
        out.notices()
            .iter()
            .any(|n| n.contains("was unreadable and was rebuilt")),
        "{:?}",
        out.notices()
    );
    // A torn manifest (and a file deleted meanwhile: its record is swept) and a torn record.
    std::fs::write(
        ws.join(".codesmith/index/manifest"),
        "codesmith-index-manifest 1 x",
    )
    .expect("tear");
    std::fs::remove_file(ws.join("m79.rs")).expect("rm");
    let rebuilt = find(&ws, "Item10");
    assert_eq!(places(&rebuilt), vec!["m10.rs:1"]);
    assert_eq!(index(&rebuilt)["rebuilt"], true);
    assert_eq!(index(&rebuilt)["parsed"], 0, "the records were reused");
    assert_eq!(index(&rebuilt)["dropped_records"], 1);
    assert_eq!(record_count(&ws), 79);
    let records = ws.join(".codesmith/index/records");
    for dir in std::fs::read_dir(&records).expect("records") {
        for file in std::fs::read_dir(dir.expect("dir").path()).expect("files") {
            std::fs::write(file.expect("file").path(), "torn").expect("tear");
        }
    }
    assert_eq!(places(&find(&ws, "Item11")), vec!["m11.rs:1"]);
}

#[test]
fn concurrent_queries_while_files_change_all_answer_and_agree_at_the_end() {
    let ws = Ws::new();
    for i in 0..40 {
        ws.write(&format!("src/f{i}.py"), format!("def stable_{i}():\n    pass\n"));
    }
    let root = ws.path();
    let writer = std::thread::spawn(move || {
        for round in 0..30 {
            let i = round % 40;
            // Written as editors write: a temp file renamed over the old one.
            let temp = root.join(format!("src/.f{i}.tmp"));
            std::fs::write(
                &temp,
                format!("def stable_{i}():\n    pass\n\ndef extra_{round}():\n    pass\n"),
            )
            .expect("write");
            std::fs::rename(&temp, root.join(format!("src/f{i}.py"))).expect("rename");
            if round % 7 == 0 {
                let _ = std::fs::remove_file(root.join(format!("src/gone{round}.py")));
                std::fs::write(
                    root.join(format!("src/gone{}.py", round + 7)),
                    "def gone():\n    pass\n",
                )
                .expect("write");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    });
    let queries: Vec<_> = (0..6)
        .map(|q| {
            let cmd = ws.command(&["find_symbol", &format!("stable_{}", q * 5)]);
            std::thread::spawn(move || {
                let mut cmd = cmd;
                (0..5)
                    .map(|_| Outcome::of(cmd_clone(&mut cmd)))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for (q, handle) in queries.into_iter().enumerate() {
        for out in handle.join().expect("query thread") {
            let out = out.ok();
            assert_eq!(places(&out), vec![format!("src/f{}.py:1", q * 5)]);
        }
    }
    writer.join().expect("writer");
    for round in 0..30 {
        let i = round % 40;
        let found = places(&find(&ws, &format!("extra_{round}")));
        let last_round_for_file = (0..30).filter(|r| r % 40 == i).max() == Some(round);
        assert_eq!(found.len(), usize::from(last_round_for_file), "extra_{round}");
    }
    assert_eq!(places(&find(&ws, "gone")), vec!["src/gone35.py:1"]);
    assert!(ws.temp_files().is_empty());
}

/// A fresh command with the same program, arguments, directory and environment.
fn cmd_clone(cmd: &mut std::process::Command) -> std::process::Command {
    let mut fresh = std::process::Command::new(cmd.get_program());
    fresh.args(cmd.get_args());
    if let Some(dir) = cmd.get_current_dir() {
        fresh.current_dir(dir);
    }
    for (key, value) in cmd.get_envs() {
        match value {
            Some(value) => fresh.env(key, value),
            None => fresh.env_remove(key),
        };
    }
    fresh.stdin(std::process::Stdio::null());
    fresh
}

#[test]
fn an_index_that_cannot_be_written_is_an_io_error_naming_grep_files() {
    let ws = Ws::new();
    ws.write("a.rs", "fn alpha() {}\n");
    ws.write(".codesmith/index", "a file where the index directory belongs\n");
    let out = ws.call("find_symbol", json!({"name": "alpha"})).err("io_error");
    assert!(
        out.message().contains("`.codesmith/index` is a file"),
        "{}",
        out.message()
    );
    assert!(
        out.message()
            .contains("grep_files with pattern=\"\\\\balpha\\\\b\""),
        "{}",
        out.message()
    );
    assert_eq!(
        ws.read_string(".codesmith/index"),
        "a file where the index directory belongs\n"
    );
}

#[test]
fn a_cold_build_merging_in_batches_finds_the_same_as_one_merge() {
    let ws = Ws::new();
    for i in 0..150 {
        ws.write(
            &format!("lib/m{i:03}.rs"),
            format!("pub fn batch_{i}() {{ shared_call(); }}\npub struct Batch{i};\n"),
        );
    }
    let mut cmd = ws.command(&["find_symbol", "batch_42"]);
    cmd.env("CODESMITH_INDEX_BATCH", "25");
    let cold = Outcome::of(cmd).ok();
    assert_eq!(places(&cold), vec!["lib/m042.rs:1"]);
    assert_eq!(index(&cold)["merged"], true);
    assert_eq!(index(&cold)["parsed"], 150);
    for i in [0, 77, 149] {
        assert_eq!(
            places(&find(&ws, &format!("Batch{i}"))),
            vec![format!("lib/m{i:03}.rs:2")]
        );
    }
    let refs = ws
        .call(
            "find_symbol",
            json!({"name": "shared_call", "include_references": true, "max_results": 500}),
        )
        .ok();
    assert_eq!(refs.data()["total_references"], 150);
    assert_eq!(
        refs.data()["references"][0]["text"],
        "pub fn batch_0() { shared_call(); }"
    );
}
