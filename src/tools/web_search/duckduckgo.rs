//! DuckDuckGo's HTML endpoint (`html.duckduckgo.com/html/?q=`): results out of the page.
//!
//! Each result is a `div` whose class list holds `result`; in it, the title is the link of
//! class `result__a` and the snippet the element of class `result__snippet`. Ads carry
//! `result--ad` and are skipped. Links go through DuckDuckGo's redirector
//! (`//duckduckgo.com/l/?uddg=<the URL>&rut=...`), so the target is taken from `uddg`.

use std::sync::OnceLock;

use regex::Regex;

use super::Hit;

fn pattern(cell: &'static OnceLock<Option<Regex>>, text: &str) -> Option<&'static Regex> {
    cell.get_or_init(|| Regex::new(text).ok()).as_ref()
}

/// The start of each result block.
fn block_start() -> Option<&'static Regex> {
    static CELL: OnceLock<Option<Regex>> = OnceLock::new();
    pattern(&CELL, r#"<div[^>]*\sclass="(?P<class>result(?:\s[^"]*)?)""#)
}

/// The title link: its opening tag's attributes and its content.
fn title_link() -> Option<&'static Regex> {
    static CELL: OnceLock<Option<Regex>> = OnceLock::new();
    pattern(
        &CELL,
        r#"(?s)<a(?P<attrs>[^>]*\sclass="[^"]*\bresult__a\b[^"]*"[^>]*)>(?P<text>.*?)</a>"#,
    )
}

fn snippet() -> Option<&'static Regex> {
    static CELL: OnceLock<Option<Regex>> = OnceLock::new();
    pattern(
        &CELL,
        r#"(?s)<(?P<tag>a|div|td|span)[^>]*\sclass="[^"]*\bresult__snippet\b[^"]*"[^>]*>(?P<text>.*?)</(?:a|div|td|span)>"#,
    )
}

fn href() -> Option<&'static Regex> {
    static CELL: OnceLock<Option<Regex>> = OnceLock::new();
    pattern(&CELL, r#"\shref="(?P<href>[^"]*)""#)
}

/// The results of a DuckDuckGo HTML page, in page order.
pub(super) fn parse(page: &str) -> Vec<Hit> {
    let (Some(start), Some(title), Some(snippet), Some(href)) =
        (block_start(), title_link(), snippet(), href())
    else {
        return Vec::new();
    };
    let starts: Vec<(usize, bool)> = start
        .captures_iter(page)
        .filter_map(|caps| {
            let class = caps.name("class")?.as_str();
            let is_result = class.split_whitespace().any(|c| c == "result");
            let is_ad = class.split_whitespace().any(|c| c == "result--ad");
            is_result.then(|| (caps.get(0).map_or(0, |m| m.start()), is_ad))
        })
        .collect();
    let mut hits = Vec::new();
    for (at, &(begin, is_ad)) in starts.iter().enumerate() {
        if is_ad {
            continue;
        }
        let end = starts.get(at + 1).map_or(page.len(), |next| next.0);
        let block = &page[begin..end];
        let Some(link) = title.captures(block) else {
            continue;
        };
        let target = href
            .captures(&link["attrs"])
            .map(|caps| target_url(&crate::net::entities::decode(&caps["href"])))
            .unwrap_or_default();
        let text = snippet
            .captures(block)
            .map(|caps| caps["text"].to_string())
            .unwrap_or_default();
        hits.extend(Hit::new(&link["text"], &target, &text));
    }
    hits
}

/// The URL a result links to: the `uddg` parameter of DuckDuckGo's redirector, else the link.
fn target_url(link: &str) -> String {
    let absolute = if link.starts_with("//") {
        format!("https:{link}")
    } else {
        link.to_string()
    };
    let Ok(url) = url::Url::parse(&absolute) else {
        return link.to_string();
    };
    if url.path().starts_with("/l/") {
        if let Some((_, target)) = url.query_pairs().find(|(key, _)| key == "uddg") {
            return target.into_owned();
        }
    }
    absolute
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirector_links_become_their_targets() {
        assert_eq!(
            target_url("//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.rust-lang.org%2F&rut=abc"),
            "https://www.rust-lang.org/"
        );
        assert_eq!(target_url("https://example.org/a"), "https://example.org/a");
    }

    #[test]
    fn results_come_out_in_order_without_ads() {
        let page = r#"<div class="result results_links result--ad"><h2 class="result__title"><a class="result__a" href="https://ads.example/">Ad</a></h2></div>
<div class="result results_links results_links_deep web-result "><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.rust-lang.org%2F&amp;rut=x">Rust <b>Programming</b> Language</a></h2>
<a class="result__snippet" href="//duckduckgo.com/l/?uddg=x">A language empowering everyone &amp; more.</a></div></div>
<div class="result results_links"><h2><a class="result__a" href="https://doc.rust-lang.org/book/">The Book</a></h2></div>"#;
        let hits = parse(page);
        assert_eq!(hits.len(), 2, "{hits:?}");
        assert_eq!(hits[0].title, "Rust Programming Language");
        assert_eq!(hits[0].url, "https://www.rust-lang.org/");
        assert_eq!(hits[0].snippet, "A language empowering everyone & more.");
        assert_eq!(hits[1].url, "https://doc.rust-lang.org/book/");
        assert_eq!(hits[1].snippet, "");
    }
}
