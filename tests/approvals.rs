//! Approvals through the binary: `approval_required` (exit 3), `codesmith approve`, `--approve`,
//! `--yolo`. The action used is `git push --force` in a directory that is no repository, so
//! even once approved it fails locally and touches no network.

use serde_json::json;

use crate::harness::Ws;

fn ask(ws: &Ws, extra: &[&str]) -> crate::harness::Outcome {
    let mut args: Vec<&str> = extra.to_vec();
    args.extend(["shell", "git push --force"]);
    ws.run(&args)
}

#[test]
fn an_action_needing_a_yes_exits_3_with_a_stable_id_and_the_way_out() {
    let ws = Ws::new();
    let out = ask(&ws, &[]).err("approval_required");
    assert_eq!(out.status, 3);
    let approval = out.error()["approval"].as_object().unwrap().clone();
    let keys: Vec<&str> = approval.keys().map(String::as_str).collect();
    assert_eq!(keys, ["id", "kind", "subject", "reason"]);
    let id = approval["id"].as_str().unwrap().to_string();
    assert!(out.message().contains(&format!("`{} approve {id}`", ws.person())));
    assert!(out.message().contains(&format!("--approve {id}")));
    assert!(out.message().contains("Nothing was done"));
    // The same action asks with the same id.
    let again = ask(&ws, &[]).err("approval_required");
    assert_eq!(again.error()["approval"]["id"], json!(id));
}

#[test]
fn approving_grants_exactly_that_action() {
    let ws = Ws::new();
    let first = ask(&ws, &[]).err("approval_required");
    let id = first.error()["approval"]["id"].as_str().unwrap().to_string();
    let out = ws.run(&["approve", &id]).ok();
    assert_eq!(out.data()["id"], json!(id));
    assert_eq!(out.data()["persisted"], false);
    // Granted: the call gets past that approval (to the next one it needs, if any).
    let next = ask(&ws, &[]);
    if !next.envelope.ok {
        let next = next.err("approval_required");
        assert_ne!(next.error()["approval"]["id"], json!(id));
    }
    // Another session has not approved it.
    let mut other = Ws::at(&ws.path());
    other.session = Some("other".into());
    let out = ask(&other, &[]).err("approval_required");
    assert_eq!(out.error()["approval"]["id"], json!(id));
}

#[test]
fn approve_flag_and_yolo_grant_for_one_call() {
    let ws = Ws::new();
    let first = ask(&ws, &[]).err("approval_required");
    let id = first.error()["approval"]["id"].as_str().unwrap().to_string();
    let next = ask(&ws, &["--approve", &id]);
    if !next.envelope.ok {
        assert_ne!(next.err("approval_required").error()["approval"]["id"], json!(id));
    }
    // Only for that call.
    ask(&ws, &[]).err("approval_required");
    let out = ask(&ws, &["--yolo"]).ok();
    assert_ne!(out.data()["exit_code"], 0, "git push outside a repository fails");
}

#[test]
fn approving_an_unknown_id_lists_the_pending_ones() {
    let ws = Ws::new();
    let first = ask(&ws, &[]).err("approval_required");
    let id = first.error()["approval"]["id"].as_str().unwrap().to_string();
    let out = ws.run(&["approve", "ap-000000000000"]).err("not_found");
    assert!(out.message().contains(&id), "{}", out.message());
}

#[test]
fn a_granted_id_is_no_longer_listed_as_pending() {
    let ws = Ws::new();
    let first = ask(&ws, &[]).err("approval_required");
    let id = first.error()["approval"]["id"].as_str().unwrap().to_string();
    let out = ws.run(&["approve", "ap-000000000000"]).err("not_found");
    assert!(
        out.message().ends_with(&format!(
            "Waiting now: {id}; approve it with `{} approve {id}`.",
            ws.person()
        )),
        "{}",
        out.message()
    );
    assert_eq!(out.error()["pending"], json!([id]));
    ws.run(&["approve", &id]).ok();
    let out = ws.run(&["approve", "ap-000000000000"]).err("not_found");
    assert!(!out.message().contains(&id), "{}", out.message());
    assert!(
        out.message().contains(
            "Nothing is waiting for approval now: repeat the call that returned \
             approval_required and approve the id in its error.approval.id."
        ),
        "{}",
        out.message()
    );
    assert_eq!(out.error()["pending"], json!([]));
    // The grant itself still holds, and approving it again (say with --persist) still works.
    ws.run(&["approve", &id]).ok();
}
