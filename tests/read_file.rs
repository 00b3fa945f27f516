use serde_json::json;

use crate::harness::Ws;

#[test]
fn numbers_lines_and_points_at_the_next_page() {
    let ws = Ws::new();
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    ws.write("f.txt", text);
    let out = ws
        .call("read_file", json!({"path": "f.txt", "max_lines": 3}))
        .ok();
    assert!(out.output().starts_with("     1│ line 1\n"));
    assert!(out
        .output()
        .ends_with("To continue, call read_file with path=\"f.txt\" start_line=4 max_lines=3"));
    assert_eq!(out.data()["next_start_line"], 4);
    assert_eq!(out.data()["total_lines"], 10);
}
