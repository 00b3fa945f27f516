//! apply_patch and symlinks: deleting or renaming a link acts on the link, never on the file it
//! points to; git's symlink and submodule modes are refused, and only the executable bit is
//! ever taken from a git mode.

use serde_json::json;

use crate::harness::{symlink, Ws};

fn patch(ws: &Ws, text: &str) -> crate::harness::Outcome {
    ws.call("apply_patch", json!({ "patch": text }))
}

fn is_symlink(ws: &Ws, rel: &str) -> bool {
    std::fs::symlink_metadata(ws.join(rel)).is_ok_and(|m| m.file_type().is_symlink())
}

/// `target.txt` holding `keep me`, and `link.txt` pointing at it, read through the link.
fn linked() -> Ws {
    let ws = Ws::new();
    ws.write("target.txt", "keep me\n");
    symlink("target.txt", ws.join("link.txt"));
    ws.read_via_tool("link.txt");
    ws
}

#[test]
fn a_unified_deletion_of_a_symlink_removes_the_link_and_keeps_its_target() {
    let ws = linked();
    let out = patch(&ws, "--- a/link.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-keep me\n").ok();
    assert!(!ws.exists("link.txt"), "the link is gone");
    assert_eq!(ws.read_string("target.txt"), "keep me\n");
    assert!(out.output().contains("D link.txt"), "{}", out.output());
    assert!(!out.output().contains("target.txt -"), "{}", out.output());
    assert_eq!(out.data()["files"][0]["path"], "link.txt");
}

#[test]
fn a_begin_patch_deletion_of_a_symlink_removes_the_link_and_keeps_its_target() {
    let ws = linked();
    patch(&ws, "*** Begin Patch\n*** Delete File: link.txt\n*** End Patch\n").ok();
    assert!(!ws.exists("link.txt"));
    assert_eq!(ws.read_string("target.txt"), "keep me\n");
}

#[test]
fn a_deletion_whose_hunks_do_not_match_the_content_behind_the_link_is_refused() {
    let ws = linked();
    patch(&ws, "--- a/link.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-other text\n")
        .err("patch_failed")
        .contains("read_file with path=\"link.txt\"");
    assert!(is_symlink(&ws, "link.txt"));
    assert_eq!(ws.read_string("target.txt"), "keep me\n");
}

#[test]
fn renaming_a_symlink_moves_the_link_and_leaves_its_target_in_place() {
    let ws = linked();
    let out = patch(
        &ws,
        "*** Begin Patch\n*** Update File: link.txt\n*** Move to: m.txt\n*** End Patch\n",
    )
    .ok();
    assert!(!ws.exists("link.txt"));
    assert!(is_symlink(&ws, "m.txt"), "m.txt is the moved link");
    assert_eq!(
        std::fs::read_link(ws.join("m.txt")).unwrap().to_str(),
        Some("target.txt")
    );
    assert_eq!(ws.read_string("target.txt"), "keep me\n");
    assert!(out.output().contains("R link.txt -> m.txt"), "{}", out.output());
}

#[test]
fn a_git_rename_of_a_symlink_moves_the_link() {
    let ws = linked();
    patch(
        &ws,
        "diff --git a/link.txt b/sub/m.txt\nsimilarity index 100%\nrename from link.txt\nrename to sub/m.txt\n",
    )
    .ok();
    assert!(!ws.exists("link.txt"));
    assert!(is_symlink(&ws, "sub/m.txt"));
    assert_eq!(ws.read_string("target.txt"), "keep me\n");
}

#[test]
fn renaming_a_symlink_while_changing_its_content_is_refused_with_the_way_out() {
    let ws = linked();
    patch(
        &ws,
        "*** Begin Patch\n*** Update File: link.txt\n*** Move to: m.txt\n@@\n-keep me\n+changed\n*** End Patch\n",
    )
    .err("patch_failed")
    .contains("is a symlink")
    .contains("Rename the link without hunks");
    assert!(is_symlink(&ws, "link.txt"));
    assert!(!ws.exists("m.txt"));
    assert_eq!(ws.read_string("target.txt"), "keep me\n");
}

#[test]
fn renaming_a_symlink_onto_an_existing_file_is_refused() {
    let ws = linked();
    ws.write("m.txt", "mine\n");
    patch(
        &ws,
        "*** Begin Patch\n*** Update File: link.txt\n*** Move to: m.txt\n*** End Patch\n",
    )
    .err("patch_failed")
    .contains("already exists");
    assert!(is_symlink(&ws, "link.txt"));
    assert_eq!(ws.read_string("m.txt"), "mine\n");
}

#[test]
fn a_symlink_removed_by_a_patch_is_restored_when_a_later_write_fails() {
    let ws = linked();
    ws.write("b.txt", "b\n");
    ws.read_via_tool("b.txt");
    let out = ws
        .command(&[
            "apply_patch",
            "--json",
            &json!({"patch": "*** Begin Patch\n*** Delete File: link.txt\n*** Update File: b.txt\n@@\n-b\n+B\n*** End Patch\n"})
                .to_string(),
        ])
        .env("CODESMITH_FAULT", "rename:b.txt")
        .output()
        .unwrap();
    let out = crate::harness::Outcome::from_output(out).err("io_error");
    assert!(out.message().contains("undone"), "{}", out.message());
    assert!(is_symlink(&ws, "link.txt"), "the link was put back");
    assert_eq!(
        std::fs::read_link(ws.join("link.txt")).unwrap().to_str(),
        Some("target.txt")
    );
    assert_eq!(ws.read_string("b.txt"), "b\n");
}

#[test]
fn a_symlink_may_be_replaced_by_a_regular_file_in_one_patch() {
    let ws = linked();
    patch(
        &ws,
        "*** Begin Patch\n*** Delete File: link.txt\n*** Add File: link.txt\n+own text\n*** End Patch\n",
    )
    .ok();
    assert!(!is_symlink(&ws, "link.txt"));
    assert_eq!(ws.read_string("link.txt"), "own text\n");
    assert_eq!(ws.read_string("target.txt"), "keep me\n");
}

#[test]
fn updating_a_file_through_a_symlink_still_writes_its_target() {
    let ws = linked();
    patch(
        &ws,
        "--- a/link.txt\n+++ b/link.txt\n@@ -1 +1 @@\n-keep me\n+changed\n",
    )
    .ok();
    assert!(is_symlink(&ws, "link.txt"));
    assert_eq!(ws.read_string("target.txt"), "changed\n");
}

#[test]
fn edit_file_through_a_symlink_still_writes_its_target() {
    let ws = linked();
    ws.call(
        "edit_file",
        json!({"path": "link.txt", "search": "keep me", "replace": "edited"}),
    )
    .ok();
    assert!(is_symlink(&ws, "link.txt"));
    assert_eq!(ws.read_string("target.txt"), "edited\n");
}

#[test]
fn a_git_symlink_creation_is_refused_with_the_ln_call_to_make_instead() {
    let ws = Ws::new();
    ws.write("a.txt", "a\n");
    let out = patch(
        &ws,
        "diff --git a/link b/link\nnew file mode 120000\nindex 0000000..2e65efe\n--- /dev/null\n+++ b/link\n@@ -0,0 +1 @@\n+a.txt\n\\ No newline at end of file\n",
    )
    .err("patch_failed")
    .contains("symlink")
    .contains("`ln -sfn a.txt link`");
    assert!(out.message().contains("patch line 2"), "{}", out.message());
    assert!(!ws.exists("link"), "nothing was created");
}

#[test]
fn a_git_mode_change_to_a_symlink_is_refused_and_the_mode_kept() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Ws::new();
    ws.write("link", "a.txt\n");
    ws.read_via_tool("link");
    let before = std::fs::metadata(ws.join("link")).unwrap().permissions().mode();
    patch(
        &ws,
        "diff --git a/link b/link\nold mode 100644\nnew mode 120000\n",
    )
    .err("patch_failed")
    .contains("symlink")
    .contains("exec_shell");
    let after = std::fs::metadata(ws.join("link")).unwrap().permissions().mode();
    assert_eq!(after, before, "mode unchanged");
    assert_eq!(ws.read_string("link"), "a.txt\n");
}

#[test]
fn a_git_submodule_change_is_refused() {
    let ws = Ws::new();
    patch(
        &ws,
        "diff --git a/vendor/lib b/vendor/lib\nnew file mode 160000\nindex 0000000..abc1234\n--- /dev/null\n+++ b/vendor/lib\n@@ -0,0 +1 @@\n+Subproject commit abc1234\n",
    )
    .err("patch_failed")
    .contains("submodule")
    .contains("git submodule");
    assert!(!ws.exists("vendor"));
}

#[test]
fn a_git_change_to_an_existing_symlink_is_refused() {
    let ws = linked();
    patch(
        &ws,
        "diff --git a/link.txt b/link.txt\nindex 1111111..2222222 120000\n--- a/link.txt\n+++ b/link.txt\n@@ -1 +1 @@\n-target.txt\n\\ No newline at end of file\n+other.txt\n\\ No newline at end of file\n",
    )
    .err("patch_failed")
    .contains("symlink");
    assert!(is_symlink(&ws, "link.txt"));
    assert_eq!(ws.read_string("target.txt"), "keep me\n");
}

#[test]
fn only_the_executable_bit_is_taken_from_a_git_mode() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Ws::new();
    ws.write("run.sh", "echo hi\n").write("tool.sh", "echo t\n");
    std::fs::set_permissions(ws.join("run.sh"), std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::set_permissions(ws.join("tool.sh"), std::fs::Permissions::from_mode(0o750)).unwrap();
    ws.read_via_tool("run.sh");
    ws.read_via_tool("tool.sh");
    patch(
        &ws,
        "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100777\n\
         diff --git a/tool.sh b/tool.sh\nold mode 100755\nnew mode 100600\n",
    )
    .ok();
    let mode = |p: &str| std::fs::metadata(ws.join(p)).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode("run.sh"), 0o700, "x added where r is; group/other untouched");
    assert_eq!(mode("tool.sh"), 0o640, "x removed; nothing else changed");
}

#[test]
fn deleting_a_symlink_that_leads_out_of_the_workspace_is_refused() {
    let ws = Ws::new();
    symlink("/zz/nope/outside.txt", ws.join("out.txt"));
    patch(&ws, "*** Begin Patch\n*** Delete File: out.txt\n*** End Patch\n")
        .err("outside_workspace")
        .contains("path escapes workspace");
    assert!(is_symlink(&ws, "out.txt"));
}

#[test]
fn a_git_deletion_of_a_symlink_removes_the_link_after_checking_its_text() {
    let ws = linked();
    let out = patch(
        &ws,
        "diff --git a/link.txt b/link.txt\ndeleted file mode 120000\nindex 1111111..0000000\n--- a/link.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-target.txt\n\\ No newline at end of file\n",
    )
    .ok();
    assert!(!ws.exists("link.txt"));
    assert_eq!(ws.read_string("target.txt"), "keep me\n");
    assert!(out.output().contains("D link.txt"), "{}", out.output());
}

#[test]
fn a_git_deletion_of_a_symlink_with_another_text_is_refused() {
    let ws = linked();
    patch(
        &ws,
        "diff --git a/link.txt b/link.txt\ndeleted file mode 120000\n--- a/link.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-elsewhere.txt\n\\ No newline at end of file\n",
    )
    .err("patch_failed")
    .contains("but it points to `target.txt`");
    assert!(is_symlink(&ws, "link.txt"));
}

#[test]
fn a_git_symlink_deletion_of_a_regular_file_is_refused() {
    let ws = Ws::new();
    ws.write("plain.txt", "target.txt");
    ws.read_via_tool("plain.txt");
    patch(
        &ws,
        "diff --git a/plain.txt b/plain.txt\ndeleted file mode 120000\n--- a/plain.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-target.txt\n\\ No newline at end of file\n",
    )
    .err("patch_failed")
    .contains("is not a symlink here");
    assert_eq!(ws.read_string("plain.txt"), "target.txt");
}
