//! web_search's refusals and failures: its `[web_search]` settings, a missing key, and a
//! provider's answer that is an error or not a result list. The transport failures are
//! fetch_url's (`net`), since the request goes through the same gates.

use super::{ErrorCode, Field, ToolError};

/// What is wrong with a `[web_search]` setting. Values are as config.toml spells them (a
/// TOML value: a string in quotes); `reason` is the URL parser's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchSetting<'a> {
    UnknownProvider {
        value: &'a str,
    },
    EndpointNotString {
        value: &'a str,
    },
    /// The provider has no public endpoint, and none is set.
    NoEndpoint {
        provider: &'a str,
    },
    EndpointNotAbsolute {
        endpoint: &'a str,
        reason: &'a str,
    },
    EndpointNotHttp {
        endpoint: &'a str,
    },
}

/// Why a provider's 2xx answer cannot be read; `reason` is the JSON parser's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnreadableAnswer<'a> {
    NotJson { reason: &'a str },
    NoResultList,
}

impl ToolError {
    /// A `[web_search]` setting that cannot be used; nothing was sent.
    pub fn web_search_setting(setting: SearchSetting) -> ToolError {
        let what = match setting {
            SearchSetting::UnknownProvider { value } => {
                format!("provider = {value} is not a provider codesmith knows")
            }
            SearchSetting::EndpointNotString { value } => format!("endpoint = {value} is not a URL string"),
            SearchSetting::NoEndpoint { provider } => {
                format!("provider = \"{provider}\" needs endpoint = \"https://your-instance\"")
            }
            SearchSetting::EndpointNotAbsolute { endpoint, reason } => {
                format!("endpoint `{endpoint}` is not an absolute URL ({reason})")
            }
            SearchSetting::EndpointNotHttp { endpoint } => {
                format!("endpoint `{endpoint}` is not an http or https URL")
            }
        };
        ToolError::new(
            ErrorCode::IoError,
            format!(
                "web_search cannot run: {what}. Nothing was sent. Ask the user to fix `[web_search]` in \
                 .codesmith/config.toml (provider = \"duckduckgo\" | \"brave\" | \"searxng\" | \"tavily\"; \
                 endpoint = \"https://...\"), or to remove the section to use DuckDuckGo."
            ),
        )
        .with(Field::Path, ".codesmith/config.toml")
    }

    /// The provider needs a key from the environment variable `var`, which is not set.
    pub fn web_search_key_missing(provider: &str, var: &str) -> ToolError {
        ToolError::new(
            ErrorCode::IoError,
            format!(
                "web_search's provider `{provider}` needs an API key in the environment variable {var}, \
                 which is not set for codesmith. Nothing was sent. Ask the user to export {var} where \
                 codesmith runs (keys are never read from config.toml), or to set provider = \
                 \"duckduckgo\" in [web_search], which needs none."
            ),
        )
        .with(Field::Provider, provider)
        .with(Field::Variable, var)
    }

    /// The provider answered with an error status; `excerpt` is the start of its body.
    pub fn web_search_failed(
        provider: &str,
        status: u16,
        reason: &str,
        excerpt: &str,
        var: Option<&str>,
    ) -> ToolError {
        let way_out = match (status, var) {
            (401 | 403, Some(var)) => format!(
                "The provider refused the key: ask the user to check {var} (its value is never shown)."
            ),
            (401 | 403, None) => {
                "The provider refused the request; it may block automated searches. Ask the user to \
                 configure another provider in [web_search]."
                    .to_string()
            }
            (429, _) => "The provider is rate-limiting; wait a minute before searching again.".to_string(),
            _ => {
                "Try again later; for a page whose address you know, call fetch_url with its url.".to_string()
            }
        };
        let excerpt = if excerpt.trim().is_empty() {
            String::new()
        } else {
            format!(" It said: {}", excerpt.trim())
        };
        ToolError::new(
            ErrorCode::IoError,
            format!("web_search via `{provider}` failed: the provider answered {status} {reason}.{excerpt} {way_out}"),
        )
        .with(Field::Provider, provider)
        .with(Field::Status, status)
    }

    /// The provider answered 2xx with something that is not its result format.
    pub fn web_search_unreadable(provider: &str, answer: UnreadableAnswer) -> ToolError {
        let what = match answer {
            UnreadableAnswer::NotJson { reason } => format!("the body is not JSON: {reason}"),
            UnreadableAnswer::NoResultList => "no result list in the JSON".to_string(),
        };
        ToolError::new(
            ErrorCode::IoError,
            format!(
                "web_search via `{provider}` got an answer it cannot read ({what}). Retrying will most \
                 likely give the same; check the endpoint in [web_search], or call fetch_url on a page \
                 whose address you know."
            ),
        )
        .with(Field::Provider, provider)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreadable_answers_say_what_was_wrong_with_the_body() {
        let not_json =
            ToolError::web_search_unreadable("brave", UnreadableAnswer::NotJson { reason: "EOF at 1" });
        assert_eq!(
            not_json.message(),
            "web_search via `brave` got an answer it cannot read (the body is not JSON: EOF at 1). Retrying \
             will most likely give the same; check the endpoint in [web_search], or call fetch_url on a page \
             whose address you know."
        );
        let no_list = ToolError::web_search_unreadable("tavily", UnreadableAnswer::NoResultList);
        assert!(no_list
            .message()
            .contains("cannot read (no result list in the JSON)."));
    }
}
