use crate::harness::Ws;

#[test]
fn dotdot_that_leaves_is_refused() {
    let ws = Ws::new();
    let out = ws.run(&["read", "../x"]).err("outside_workspace");
    assert!(out.message().starts_with("path escapes workspace"));
}
