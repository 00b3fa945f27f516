//! The wire shapes of the Model Context Protocol that the server speaks: versions, the
//! per-request `_meta` of 2026-07-28, JSON-RPC responses and errors.

use serde_json::{json, Map, Value};

/// The versions reached through the `initialize` handshake, oldest first.
pub(super) const HANDSHAKE_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The stateless version: no handshake, the version and capabilities in every request's `_meta`.
pub(super) const MODERN_VERSION: &str = "2026-07-28";

pub(super) const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
pub(super) const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

pub(super) const PARSE_ERROR: i64 = -32700;
pub(super) const INVALID_REQUEST: i64 = -32600;
pub(super) const METHOD_NOT_FOUND: i64 = -32601;
pub(super) const INVALID_PARAMS: i64 = -32602;
pub(super) const INTERNAL_ERROR: i64 = -32603;
/// A request the server will not run (the client left first); the number LSP uses.
pub(super) const REQUEST_CANCELLED: i64 = -32800;
pub(super) const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// Every version served, oldest first.
pub(super) fn supported_versions() -> Vec<&'static str> {
    HANDSHAKE_VERSIONS
        .iter()
        .copied()
        .chain([MODERN_VERSION])
        .collect()
}

pub(super) fn server_info() -> Value {
    json!({"name": "codesmith", "title": "codesmith", "version": env!("CARGO_PKG_VERSION")})
}

/// What the server tells a model about itself (`instructions`).
pub(super) const INSTRUCTIONS: &str = "codesmith's tools work in one workspace, with paths relative to it. \
Read a file with read_file before editing it with edit_file, write_file or apply_patch: an edit of \
a file not read, or changed since it was read, is refused with the read_file call to make. Prefer \
read_file, grep_files, file_search and list_dir over cat, grep, find and ls in exec_shell. Every \
result's text says what to do next when a call fails.";

/// A JSON-RPC error to answer a request with.
#[derive(Debug)]
pub(super) struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub(super) fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub(super) fn invalid_params(message: impl Into<String>) -> RpcError {
        RpcError::new(INVALID_PARAMS, message)
    }
}

pub(super) fn result_response(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

pub(super) fn error_response(id: &Value, error: RpcError) -> Value {
    let mut body = Map::new();
    body.insert("code".into(), Value::from(error.code));
    body.insert("message".into(), Value::String(error.message));
    if let Some(data) = error.data {
        body.insert("data".into(), data);
    }
    json!({"jsonrpc": "2.0", "id": id, "error": Value::Object(body)})
}

pub(super) fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// Which protocol a request speaks, and what its client can do.
#[derive(Debug, Clone)]
pub(super) struct Era {
    /// 2026-07-28: results carry `resultType` and the server's identity in `_meta`.
    pub modern: bool,
    /// The client can ask its user (`elicitation` among its capabilities, form mode).
    pub can_elicit: bool,
    /// The client elicits in `url` mode only, so it cannot show an approval form.
    pub url_only: bool,
    /// The version in force (the negotiated one, or the request's own).
    pub version: String,
}

impl Era {
    /// Completes a result for this era: 2026-07-28 results say they are complete and who
    /// answered; the handshake versions have neither field.
    pub(super) fn finish(&self, mut result: Value) -> Value {
        if self.modern {
            if let Value::Object(map) = &mut result {
                map.entry("resultType").or_insert_with(|| Value::from("complete"));
                map.insert("_meta".into(), json!({SERVER_INFO_KEY: server_info()}));
            }
        }
        result
    }
}

/// Whether declared client capabilities include form elicitation: `elicitation: {}` (form
/// implied) or `elicitation: {form: {...}}`; `{url: {...}}` alone is not a form.
pub(super) fn can_elicit_form(capabilities: &Value) -> bool {
    match capabilities.get("elicitation") {
        Some(Value::Object(modes)) => modes.is_empty() || modes.contains_key("form"),
        _ => false,
    }
}

/// Whether the client declared elicitation in `url` mode alone (no form).
pub(super) fn elicits_url_only(capabilities: &Value) -> bool {
    match capabilities.get("elicitation") {
        Some(Value::Object(modes)) => modes.contains_key("url") && !modes.contains_key("form"),
        _ => false,
    }
}

/// The per-request version of a 2026-07-28 request: `Ok(None)` for a request without one (a
/// handshake-era request), an error naming the supported versions for one not spoken here.
pub(super) fn request_version(params: &Value) -> Result<Option<String>, RpcError> {
    let Some(version) = params.get("_meta").and_then(|meta| meta.get(VERSION_KEY)) else {
        return Ok(None);
    };
    match version.as_str() {
        Some(MODERN_VERSION) => Ok(Some(MODERN_VERSION.to_string())),
        _ => Err(RpcError {
            code: UNSUPPORTED_PROTOCOL_VERSION,
            message: format!(
                "Unsupported protocol version {version}: per-request versions are {MODERN_VERSION}; \
                 the versions {} use the initialize handshake",
                HANDSHAKE_VERSIONS.join(", ")
            ),
            data: Some(json!({"supported": supported_versions(), "requested": version})),
        }),
    }
}

/// The version the server answers an `initialize` with: the client's when spoken here, else
/// the newest handshake version (the client then decides whether to go on).
pub(super) fn negotiate(requested: Option<&str>) -> &'static str {
    HANDSHAKE_VERSIONS
        .iter()
        .copied()
        .find(|v| Some(*v) == requested)
        .unwrap_or(HANDSHAKE_VERSIONS[HANDSHAKE_VERSIONS.len() - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_negotiate_and_unsupported_ones_are_named() {
        assert_eq!(negotiate(Some("2025-03-26")), "2025-03-26");
        assert_eq!(negotiate(Some("2099-01-01")), "2025-11-25");
        assert_eq!(negotiate(None), "2025-11-25");
        let err = request_version(&json!({"_meta": {VERSION_KEY: "2030-01-01"}})).unwrap_err();
        assert_eq!(err.code, UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(err.data.unwrap()["requested"], "2030-01-01");
        assert_eq!(request_version(&json!({})).unwrap(), None);
    }

    #[test]
    fn elicitation_needs_form_mode() {
        assert!(can_elicit_form(&json!({"elicitation": {}})));
        assert!(can_elicit_form(&json!({"elicitation": {"form": {}, "url": {}}})));
        assert!(!can_elicit_form(&json!({"elicitation": {"url": {}}})));
        assert!(!can_elicit_form(&json!({"roots": {}})));
    }
}
