//! The search providers: which one `[web_search]` names, where its endpoint is, the request it
//! takes, and its answer turned into results.
//!
//! Keys come from the environment only (`BRAVE_API_KEY`, `TAVILY_API_KEY`): a config file is
//! committed, shared and read by the model's own tools, so a key in it would leak.

use std::time::Duration;

use serde_json::Value;
use url::Url;

use super::Hit;
use crate::error::{SearchSetting, ToolError, UnreadableAnswer};
use crate::net::body::Format;
use crate::net::fetch::Request;
use crate::session::config::Config;

/// A search answer is a page of results, not a download.
const MAX_BYTES: usize = 2_000_000;
const TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Provider {
    DuckDuckGo,
    Brave,
    Searxng,
    Tavily,
}

const ALL: [Provider; 4] = [
    Provider::DuckDuckGo,
    Provider::Brave,
    Provider::Searxng,
    Provider::Tavily,
];

impl Provider {
    pub(super) fn name(self) -> &'static str {
        match self {
            Provider::DuckDuckGo => "duckduckgo",
            Provider::Brave => "brave",
            Provider::Searxng => "searxng",
            Provider::Tavily => "tavily",
        }
    }

    /// The environment variable holding the provider's key, for those that need one.
    pub(super) fn key_variable(self) -> Option<&'static str> {
        match self {
            Provider::Brave => Some("BRAVE_API_KEY"),
            Provider::Tavily => Some("TAVILY_API_KEY"),
            Provider::DuckDuckGo | Provider::Searxng => None,
        }
    }

    /// The base URL when `endpoint` is not set (SearXNG has none: it is self-hosted).
    fn default_base(self) -> Option<&'static str> {
        match self {
            Provider::DuckDuckGo => Some("https://html.duckduckgo.com"),
            Provider::Brave => Some("https://api.search.brave.com"),
            Provider::Tavily => Some("https://api.tavily.com"),
            Provider::Searxng => None,
        }
    }

    /// The path of the search endpoint under the base URL.
    fn path(self) -> &'static str {
        match self {
            Provider::DuckDuckGo => "/html/",
            Provider::Brave => "/res/v1/web/search",
            Provider::Searxng | Provider::Tavily => "/search",
        }
    }
}

/// The provider and its base URL, from `[web_search]`.
pub(super) struct Settings {
    pub provider: Provider,
    pub base: String,
}

/// Reads `[web_search]`: `provider` (default duckduckgo) and `endpoint` (the base URL, which
/// overrides the provider's). A value that cannot be used is refused rather than replaced:
/// searching elsewhere than the user chose would send their queries to another host.
pub(super) fn settings(config: &Config) -> Result<Settings, ToolError> {
    let section = config.section("web_search");
    let setting = |key: &str| section.and_then(|table| table.get(key));
    let provider = match setting("provider") {
        None => Provider::DuckDuckGo,
        Some(value) => {
            let name = value.as_str().unwrap_or_default();
            ALL.into_iter().find(|p| p.name() == name).ok_or_else(|| {
                ToolError::web_search_setting(SearchSetting::UnknownProvider {
                    value: &value.to_string(),
                })
            })?
        }
    };
    let base = match setting("endpoint") {
        Some(value) => value.as_str().map(str::to_string).ok_or_else(|| {
            ToolError::web_search_setting(SearchSetting::EndpointNotString {
                value: &value.to_string(),
            })
        })?,
        None => provider.default_base().map(str::to_string).ok_or_else(|| {
            ToolError::web_search_setting(SearchSetting::NoEndpoint {
                provider: provider.name(),
            })
        })?,
    };
    Ok(Settings { provider, base })
}

/// The request for `query` asking for `count` results; `key` is the provider's key, if it
/// takes one.
pub(super) fn request(
    settings: &Settings,
    query: &str,
    count: u64,
    key: Option<&str>,
) -> Result<Request, ToolError> {
    let endpoint = format!(
        "{}{}",
        settings.base.trim_end_matches('/'),
        settings.provider.path()
    );
    let mut url = Url::parse(&endpoint).map_err(|err| {
        ToolError::web_search_setting(SearchSetting::EndpointNotAbsolute {
            endpoint: &settings.base,
            reason: &err.to_string(),
        })
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ToolError::web_search_setting(SearchSetting::EndpointNotHttp {
            endpoint: &settings.base,
        }));
    }
    let mut request = Request::get(url.clone(), MAX_BYTES, TIMEOUT, Format::Raw);
    match settings.provider {
        Provider::DuckDuckGo => {
            url.query_pairs_mut().append_pair("q", query);
            request.accept = "text/html";
        }
        Provider::Brave => {
            url.query_pairs_mut()
                .append_pair("q", query)
                .append_pair("count", &count.to_string());
            request.accept = "application/json";
            request
                .headers
                .push(("x-subscription-token", key.unwrap_or_default().to_string()));
        }
        Provider::Searxng => {
            url.query_pairs_mut()
                .append_pair("q", query)
                .append_pair("format", "json");
            request.accept = "application/json";
        }
        Provider::Tavily => {
            request.accept = "application/json";
            request
                .headers
                .push(("authorization", format!("Bearer {}", key.unwrap_or_default())));
            let body = serde_json::json!({"query": query, "max_results": count});
            request.json_body = Some(body.to_string());
        }
    }
    request.url = url;
    Ok(request)
}

/// The results in a provider's answer, in its order.
pub(super) fn parse(provider: Provider, body: &str) -> Result<Vec<Hit>, ToolError> {
    if provider == Provider::DuckDuckGo {
        return Ok(super::duckduckgo::parse(body));
    }
    let json: Value = serde_json::from_str(body).map_err(|err| {
        ToolError::web_search_unreadable(
            provider.name(),
            UnreadableAnswer::NotJson {
                reason: &err.to_string(),
            },
        )
    })?;
    // Brave: web.results[] {title, url, description}; SearXNG: results[] {title, url, content};
    // Tavily: results[] {title, url, content}.
    let (list, snippet) = match provider {
        Provider::Brave => (&json["web"]["results"], "description"),
        _ => (&json["results"], "content"),
    };
    let Some(items) = list.as_array() else {
        // Brave leaves `web` out when nothing was found.
        if provider == Provider::Brave && json.get("web").is_none() && json.is_object() {
            return Ok(Vec::new());
        }
        return Err(ToolError::web_search_unreadable(
            provider.name(),
            UnreadableAnswer::NoResultList,
        ));
    };
    Ok(items
        .iter()
        .filter_map(|item| {
            let text = |key: &str| item[key].as_str().unwrap_or_default();
            Hit::new(text("title"), text("url"), text(snippet))
        })
        .collect())
}
