use crate::harness::Ws;

#[test]
fn lists_sorted_with_directory_slashes() {
    let ws = Ws::new();
    ws.write("b.txt", "x").mkdir("a");
    let out = ws.run(&["ls"]).ok();
    assert_eq!(out.output(), "a/\nb.txt (1 B)");
}
