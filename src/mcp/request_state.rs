//! `requestState` for 2026-07-28's multi round-trip approvals.
//!
//! The client hands the state back on its retry, so it is attacker-controlled input. It names
//! the approval the server asked about and carries an HMAC-SHA256 tag, under a key made fresh
//! for each server process, over that id, the tool and its exact arguments. An answer is taken
//! only when the tag verifies for the retried call and the approval that call needs now is the
//! one asked about; anything else is asked again. So a state cannot be forged, replayed in
//! another server process, or moved to another call or to another command.

use ring::hmac;
use serde_json::Value;

pub(super) struct StateKey(hmac::Key);

impl StateKey {
    pub(super) fn generate() -> Option<StateKey> {
        let rng = ring::rand::SystemRandom::new();
        hmac::Key::generate(hmac::HMAC_SHA256, &rng).ok().map(StateKey)
    }

    /// The state for asking about `approval_id` on a call of `tool` with `arguments`.
    pub(super) fn seal(&self, approval_id: &str, tool: &str, arguments: &Value) -> String {
        let tag = hmac::sign(&self.0, &message(approval_id, tool, arguments));
        format!("v1.{approval_id}.{}", hex(tag.as_ref()))
    }

    /// Whether `state` was sealed by this process for `approval_id` on this very call.
    pub(super) fn verify(&self, state: &str, approval_id: &str, tool: &str, arguments: &Value) -> bool {
        let Some(rest) = state.strip_prefix("v1.") else {
            return false;
        };
        let Some((id, tag)) = rest.split_once('.') else {
            return false;
        };
        let Some(tag) = unhex(tag) else {
            return false;
        };
        id == approval_id && hmac::verify(&self.0, &message(approval_id, tool, arguments), &tag).is_ok()
    }
}

fn message(approval_id: &str, tool: &str, arguments: &Value) -> Vec<u8> {
    let arguments = serde_json::to_string(arguments).unwrap_or_default();
    format!("{approval_id}\0{tool}\0{arguments}").into_bytes()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_state_verifies_only_for_its_call_and_process() {
        let key = StateKey::generate().unwrap();
        let args = json!({"command": "rm -rf /tmp/x"});
        let state = key.seal("ap-1", "exec_shell", &args);
        assert!(key.verify(&state, "ap-1", "exec_shell", &args));
        assert!(!key.verify(&state, "ap-2", "exec_shell", &args));
        assert!(!key.verify(&state, "ap-1", "exec_shell", &json!({"command": "rm -rf /"})));
        assert!(!key.verify(&state.replace("v1.ap-1", "v1.ap-2"), "ap-2", "exec_shell", &args));
        assert!(!key.verify("v1.ap-1.zz", "ap-1", "exec_shell", &args));
        let other = StateKey::generate().unwrap();
        assert!(!other.verify(&state, "ap-1", "exec_shell", &args));
    }
}
