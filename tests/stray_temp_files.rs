//! A write killed between creating its temp file and the rename leaves the temp file behind;
//! the next write into that directory removes it, and leaves those of live writers alone.

use std::time::Duration;

use serde_json::json;

use crate::harness::Ws;

#[test]
fn a_temp_file_left_by_a_killed_writer_is_swept_by_the_next_write() {
    let ws = Ws::new();
    let big = "x".repeat(100_000);
    let mut writer = ws.spawn_stalled(
        &[
            "write",
            "--json",
            &json!({"path": "big.txt", "content": big}).to_string(),
        ],
        "big.txt",
    );
    // The writer is stalled before its rename, with the whole content in the temp file.
    std::thread::sleep(Duration::from_millis(200));
    // SAFETY: a plain kill(2) of the child this test spawned.
    assert_eq!(
        unsafe { libc::kill(writer.id() as libc::pid_t, libc::SIGKILL) },
        0
    );
    writer.wait().expect("reap the writer");
    let strays = ws.temp_files();
    assert_eq!(strays.len(), 1, "{strays:?}");
    assert!(!ws.exists("big.txt"), "the killed write never renamed");
    // A temp file of a live writer (this test process) must survive the sweep.
    let live = format!(".codesmith-tmp-{}-live", std::process::id());
    ws.write(&live, "in progress");
    ws.call("write_file", json!({"path": "other.txt", "content": "hi\n"}))
        .ok();
    assert_eq!(ws.temp_files(), vec![live.clone()]);
    assert_eq!(ws.read_string("other.txt"), "hi\n");
}
