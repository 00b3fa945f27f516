//! The result envelope (CONTRACT §2): one line, the key set, byte-stable output, the cap.

use serde_json::json;

use crate::harness::Ws;

fn keys(out: &crate::harness::Outcome) -> Vec<String> {
    out.json.as_object().unwrap().keys().cloned().collect()
}

#[test]
fn success_and_failure_have_their_key_sets_in_order() {
    let ws = Ws::new();
    ws.write("a.txt", "x\n");
    let ok = ws.run(&["read", "a.txt"]).ok();
    assert_eq!(keys(&ok), ["ok", "tool", "output", "data", "notices"]);
    for key in [
        "total_lines",
        "start_line",
        "end_line",
        "truncated",
        "next_start_line",
    ] {
        assert!(ok.data().get(key).is_some(), "data.{key}");
    }
    let err = ws.run(&["read", "b.txt"]).err("not_found");
    assert_eq!(keys(&err), ["ok", "tool", "output", "error"]);
    let error: Vec<&String> = err.error().as_object().unwrap().keys().collect();
    assert_eq!(error[..2], ["code", "message"]);
    assert!(err.stderr.is_empty(), "stderr: {}", err.stderr);
}

#[test]
fn output_is_byte_stable_across_runs() {
    let ws = Ws::new();
    ws.write("a.txt", "alpha\nbeta\n").mkdir("d");
    for args in [
        vec!["read", "a.txt"],
        vec!["ls", "--depth", "2"],
        vec!["read", "missing"],
        vec!["nope"],
    ] {
        let first = ws.raw(&args);
        let second = ws.raw(&args);
        assert_eq!(first.stdout, second.stdout, "{args:?}");
        assert_eq!(first.status, second.status);
    }
}

#[test]
fn output_over_the_cap_keeps_the_head_counts_the_rest_and_spills_the_whole() {
    let ws = Ws::new();
    // 600 names of 240 characters: the listing is about 148,000 characters.
    for i in 1000..1600 {
        ws.write(&format!("d/{}", i.to_string().repeat(60)), "");
    }
    let out = ws.call("list_dir", json!({"path": "d"})).ok();
    let output = out.output();
    let chars = output.chars().count();
    assert!(chars <= 120_000, "{chars} characters");
    assert!(output.starts_with(&format!("{} (0 B)\n", "1000".repeat(60))));
    let last = output.lines().last().unwrap();
    let omitted = out.data()["output_omitted_chars"].as_u64().unwrap();
    let spill = out.data()["spill_path"].as_str().unwrap().to_string();
    assert!(
        last.starts_with(&format!("[output truncated: {omitted} of ")),
        "{last}"
    );
    assert!(last.contains(&spill), "{last}");
    assert_eq!(out.data()["output_truncated"], true);
    assert!(spill.starts_with(".codesmith/spill/"));
    // The spill file holds the whole text: the kept head plus the omitted characters.
    let whole = ws.read_string(&spill);
    let head = &output[..output.len() - last.len()];
    assert!(whole.starts_with(head));
    assert_eq!(
        whole.chars().count() as u64,
        (head.chars().count() as u64) + omitted
    );
    assert!(whole.ends_with(&format!("{} (0 B)", "1599".repeat(60))));
    // Equal outputs spill to the same file, so the envelope stays byte-stable.
    let again = ws.call("list_dir", json!({"path": "d"})).ok();
    assert_eq!(again.stdout, out.stdout);
    // The spill file can be read back with read_file.
    ws.call("read_file", json!({"path": spill})).ok();
}
