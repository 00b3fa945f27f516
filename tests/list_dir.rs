//! list_dir (CONTRACT §5): sorted entries, markers, sizes, depth, the cap.

use serde_json::json;

use crate::harness::{symlink, Ws};

#[test]
fn lists_sorted_with_directory_slashes_and_sizes() {
    let ws = Ws::new();
    ws.write("b.txt", "x")
        .mkdir("a")
        .write("C.md", vec![b'c'; 1536])
        .write("big.bin", vec![0u8; 3 * 1024 * 1024]);
    let out = ws.run(&["ls"]).ok();
    assert_eq!(out.output(), "C.md (1.5 KiB)\na/\nb.txt (1 B)\nbig.bin (3.0 MiB)");
    assert_eq!(out.data()["entries"], 4);
    assert_eq!(out.data()["truncated"], false);
    assert_eq!(out.data()["path"], ".");
}

#[test]
fn symlinks_show_their_target_and_whether_it_is_a_directory() {
    let ws = Ws::new();
    ws.write("file.txt", "x").mkdir("dir");
    symlink("file.txt", ws.join("to-file"));
    symlink("dir", ws.join("to-dir"));
    symlink("nowhere", ws.join("dangling"));
    let out = ws.run(&["ls"]).ok();
    assert_eq!(
        out.output(),
        "dangling -> nowhere\ndir/\nfile.txt (1 B)\nto-dir -> dir/\nto-file -> file.txt"
    );
}

#[test]
fn the_state_directory_is_skipped() {
    let ws = Ws::new();
    ws.write("a.txt", "x");
    ws.run(&["read", "a.txt"]).ok();
    assert!(ws.exists(".codesmith"));
    let out = ws.call("list_dir", json!({"path": ".", "depth": 3})).ok();
    assert_eq!(out.output(), "a.txt (1 B)");
}

#[test]
fn depth_lists_a_tree_indented() {
    let ws = Ws::new();
    ws.write("src/main.rs", "fn main() {}\n")
        .write("src/tools/mod.rs", "")
        .write("README.md", "r");
    let out = ws.call("list_dir", json!({"depth": 2})).ok();
    assert_eq!(out.output(), "README.md (1 B)\nsrc/\n  main.rs (13 B)\n  tools/");
    let out = ws.call("list_dir", json!({"depth": 3})).ok();
    assert!(out.output().ends_with("  tools/\n    mod.rs (0 B)"));
    let out = ws.call("list_dir", json!({"path": "src"})).ok();
    assert_eq!(out.output(), "main.rs (13 B)\ntools/");
}

#[test]
fn depth_out_of_range_is_refused_with_the_call() {
    let ws = Ws::new();
    // The suggested call uses the nearest legal depth.
    for (depth, nearest) in [(0, 1), (11, 10), (500, 10)] {
        let out = ws
            .call("list_dir", json!({"depth": depth}))
            .err("invalid_arguments");
        assert!(
            out.message()
                .contains(&format!("Call list_dir with path=\".\" depth={nearest}.")),
            "{}",
            out.message()
        );
    }
}

#[test]
fn an_empty_directory_says_so() {
    let ws = Ws::new();
    ws.mkdir("empty");
    let out = ws.run(&["ls", "empty"]).ok();
    assert_eq!(out.output(), "`empty` is empty.");
}

#[test]
fn a_file_or_a_missing_path_gets_the_way_out() {
    let ws = Ws::new();
    ws.write("notes.txt", "x");
    let out = ws.run(&["ls", "notes.txt"]).err("invalid_arguments");
    assert!(out
        .message()
        .contains("Call read_file with path=\"notes.txt\" to read it."));
    let out = ws.run(&["ls", "note"]).err("not_found");
    assert!(out.message().contains("`notes.txt`"), "{}", out.message());
}

#[test]
fn large_listings_are_cut_with_a_count() {
    let ws = Ws::new();
    for i in 0..1205 {
        ws.write(&format!("many/{i:04}"), "");
    }
    let out = ws.run(&["ls", "many"]).ok();
    let lines: Vec<&str> = out.output().lines().collect();
    assert_eq!(lines.len(), 1001);
    assert_eq!(lines[999], "0999 (0 B)");
    assert_eq!(
        lines[1000],
        "[1000 of 1205 entries shown; list a subdirectory or use file_search to narrow]"
    );
    assert_eq!(out.data()["entries"], 1205);
    assert_eq!(out.data()["shown"], 1000);
    assert_eq!(out.data()["truncated"], true);
}

#[test]
fn trees_list_but_do_not_expand_always_skipped_directories() {
    let ws = Ws::new();
    ws.write("node_modules/pkg/index.js", "x")
        .write(".gitignore", "gen/\n")
        .write("gen/out.rs", "")
        .write("src/a.rs", "");
    let out = ws.call("list_dir", json!({"depth": 3})).ok();
    assert_eq!(
        out.output(),
        ".gitignore (5 B)\ngen/\n  out.rs (0 B)\nnode_modules/ (not expanded: always skipped)\nsrc/\n  a.rs (0 B)"
    );
    let flat = ws.run(&["ls"]).ok();
    assert_eq!(flat.output(), ".gitignore (5 B)\ngen/\nnode_modules/\nsrc/");
}

#[test]
fn the_state_directory_is_refused_not_called_empty_by_list_and_search_tools() {
    let ws = crate::harness::Ws::new();
    ws.write("f.txt", "needle\n");
    ws.run(&["read", "f.txt"]).ok();
    assert!(ws.exists(".codesmith/sessions"));
    for args in [
        vec!["ls", ".codesmith"],
        vec!["ls", ".codesmith/sessions"],
        vec!["grep", ".", "--path", ".codesmith"],
        vec!["grep", "f.txt", "--path", ".codesmith/sessions"],
        vec!["find", "", "--path", ".codesmith"],
        vec!["find", "*", "--path", "./.codesmith/sessions"],
    ] {
        let out = ws.run(&args).err("invalid_arguments");
        let message = out.message();
        assert!(message.contains("codesmith's own state"), "{args:?}: {message}");
        assert!(
            message.contains("can be read with read_file"),
            "{args:?}: {message}"
        );
        assert!(!message.contains("is empty"), "{message}");
    }
    let abs = ws.join(".codesmith").to_string_lossy().into_owned();
    ws.run(&["ls", &abs]).err("invalid_arguments");
    // The next call the message names works.
    let out = ws.run(&["ls", ".codesmith"]).err("invalid_arguments");
    assert!(out.message().ends_with("e.g. path=\".\"."), "{}", out.message());
    ws.run(&["ls", "."]).ok();
}

#[test]
fn fifos_and_sockets_show_their_kind_and_control_characters_are_escaped() {
    let ws = crate::harness::Ws::new();
    ws.write("n\ny", "1").write("tab\there", "22");
    let status = std::process::Command::new("mkfifo")
        .arg(ws.join("fifo"))
        .status()
        .unwrap();
    assert!(status.success());
    let _listener = std::os::unix::net::UnixListener::bind(ws.join("sock")).unwrap();
    crate::harness::symlink("n\ny", ws.join("link"));
    let out = ws.run(&["ls"]).ok();
    assert_eq!(
        out.output(),
        "fifo [fifo]\nlink -> n\\ny\nn\\ny (1 B)\nsock [socket]\ntab\\there (2 B)"
    );
    assert_eq!(out.data()["entries"], 5);
}
