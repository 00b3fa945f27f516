//! A response body, from bytes to the text a model reads: decoded by its charset (cut cleanly
//! when the byte cap cut it mid-character), then HTML to markdown or plain text, JSON
//! pretty-printed, anything else as it came.

use encoding_rs::{Encoding, UTF_8};

use crate::net::html::{estimated_depth, html_to_markdown, html_to_text, strip_tags, MAX_MARKDOWN_DEPTH};
use crate::notice::{NetNotice, Notice};

/// How the caller wants the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Text,
    Raw,
}

/// What the body turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Html,
    Json,
    Text,
    Binary,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Html => "html",
            Kind::Json => "json",
            Kind::Text => "text",
            Kind::Binary => "binary",
        }
    }
}

#[derive(Debug)]
pub struct Rendered {
    pub text: String,
    pub kind: Kind,
    pub charset: &'static str,
    /// How the text was produced: `markdown`, `text`, `pretty-json`, `raw`.
    pub rendering: &'static str,
    /// Why the body is not shown in the requested format, when it is not.
    pub notice: Option<Notice>,
}

/// Decodes and renders `bytes`. `complete` is false when the byte cap cut the body, in which
/// case an incomplete trailing character is dropped instead of becoming U+FFFD.
pub fn render(
    bytes: &[u8],
    mime: Option<&str>,
    charset: Option<&str>,
    complete: bool,
    format: Format,
) -> Rendered {
    let mime = mime.unwrap_or_default().to_ascii_lowercase();
    let kind = classify(&mime, bytes);
    if kind == Kind::Binary {
        return Rendered {
            text: String::new(),
            kind,
            charset: "binary",
            rendering: "none",
            notice: None,
        };
    }
    let encoding = encoding_for(bytes, charset, kind);
    // A body's escape sequences and control characters would act on a terminal showing the
    // output (`--format text`) and only cost a model tokens; removed before any rendering, so
    // none leaves an `[2J` behind in a converted page.
    let text = crate::terminal::printable(&decode(bytes, encoding, complete));
    let mut notice = None;
    let (text, rendering) = match (format, kind) {
        (Format::Raw, _) => (text, "raw"),
        (Format::Markdown | Format::Text, Kind::Html) if estimated_depth(&text) > MAX_MARKDOWN_DEPTH => {
            // html5ever's tree building slows down with the depth of open elements (quadratic
            // on a page of nothing but nested tags), and the conversions walk the tree: such a
            // page is shown with its tags stripped, in one pass.
            notice = Some(
                NetNotice::TooDeepToConvert {
                    max: MAX_MARKDOWN_DEPTH,
                }
                .into(),
            );
            (strip_tags(&text), "text")
        }
        (Format::Markdown, Kind::Html) => {
            // htmd walks the tree recursively: see `deep_stack`. Without such a thread the
            // plain text rendering (which does not recurse) is the safe answer.
            let markdown = crate::deep_stack::with_deep_stack(|| html_to_markdown(&text));
            match markdown {
                Some(Ok(markdown)) => (markdown, "markdown"),
                Some(Err(depth)) => {
                    notice = Some(
                        NetNotice::TooDeepForMarkdown {
                            depth,
                            max: MAX_MARKDOWN_DEPTH,
                        }
                        .into(),
                    );
                    (html_to_text(&text), "text")
                }
                None => (html_to_text(&text), "text"),
            }
        }
        (Format::Text, Kind::Html) => (html_to_text(&text), "text"),
        (_, Kind::Json) => match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(value) => (
                serde_json::to_string_pretty(&value).unwrap_or(text),
                "pretty-json",
            ),
            Err(_) => (text, "raw"),
        },
        _ => (text, "raw"),
    };
    Rendered {
        text,
        kind,
        charset: encoding.name(),
        rendering,
        notice,
    }
}

fn classify(mime: &str, bytes: &[u8]) -> Kind {
    let essence = mime.split(';').next().unwrap_or_default().trim();
    if essence == "text/html" || essence == "application/xhtml+xml" {
        return Kind::Html;
    }
    if essence == "application/json" || essence.ends_with("+json") || essence == "text/json" {
        return Kind::Json;
    }
    if essence.starts_with("text/")
        || essence.ends_with("+xml")
        || matches!(
            essence,
            "application/xml"
                | "application/javascript"
                | "application/x-javascript"
                | "application/toml"
                | "application/yaml"
                | "application/x-yaml"
                | "application/x-sh"
                | "application/sql"
        )
    {
        return Kind::Text;
    }
    // No or an unhelpful type: sniff.
    let head = &bytes[..bytes.len().min(1024)];
    if head.contains(&0) && !looks_utf16(head) {
        return Kind::Binary;
    }
    if !essence.is_empty()
        && essence != "application/octet-stream"
        && (essence.starts_with("image/")
            || essence.starts_with("audio/")
            || essence.starts_with("video/")
            || essence.starts_with("font/")
            || essence.starts_with("application/"))
    {
        return Kind::Binary;
    }
    let lower = String::from_utf8_lossy(head).trim_start().to_ascii_lowercase();
    if lower.starts_with("<!doctype html") || lower.starts_with("<html") {
        return Kind::Html;
    }
    if lower.starts_with('{') || lower.starts_with('[') {
        return Kind::Json;
    }
    if std::str::from_utf8(bytes).is_ok() || essence.is_empty() || essence == "application/octet-stream" {
        if essence == "application/octet-stream" && std::str::from_utf8(bytes).is_err() {
            return Kind::Binary;
        }
        return Kind::Text;
    }
    Kind::Binary
}

fn looks_utf16(head: &[u8]) -> bool {
    head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF])
}

/// The body's encoding: a BOM, then the header's charset, then (HTML) a `<meta>` charset, then
/// UTF-8 when the bytes are UTF-8, then a statistical guess.
fn encoding_for(bytes: &[u8], charset: Option<&str>, kind: Kind) -> &'static Encoding {
    if let Some((encoding, _)) = Encoding::for_bom(bytes) {
        return encoding;
    }
    if let Some(encoding) = charset.and_then(|c| Encoding::for_label(c.trim().as_bytes())) {
        return encoding;
    }
    if kind == Kind::Html {
        if let Some(encoding) = meta_charset(bytes) {
            return encoding;
        }
    }
    match std::str::from_utf8(bytes) {
        Ok(_) => UTF_8,
        // A cut in the middle of the last character is still UTF-8.
        Err(err) if err.error_len().is_none() => UTF_8,
        Err(_) => {
            let mut detector = chardetng::EncodingDetector::new();
            detector.feed(bytes, true);
            detector.guess(None, true)
        }
    }
}

fn meta_charset(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(2048)]).to_ascii_lowercase();
    let at = head.find("charset=")? + "charset=".len();
    let rest = head[at..].trim_start_matches(['"', '\'', ' ']);
    let label: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
        .collect();
    Encoding::for_label(label.as_bytes())
}

fn decode(bytes: &[u8], encoding: &'static Encoding, complete: bool) -> String {
    let mut decoder = encoding.new_decoder_with_bom_removal();
    let capacity = decoder
        .max_utf8_buffer_length(bytes.len())
        .unwrap_or(bytes.len() * 3);
    let mut out = String::with_capacity(capacity);
    // With `last = false` the decoder keeps an incomplete trailing sequence to itself, which is
    // exactly the cut-on-a-character-boundary we want for a capped body.
    let _ = decoder.decode_to_string(bytes, &mut out, complete);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::html::absolute_links;

    fn md(html: &str) -> String {
        render(html.as_bytes(), Some("text/html"), None, true, Format::Markdown).text
    }

    #[test]
    fn html_becomes_markdown_without_scripts() {
        let out = md(
            "<html><head><title>T</title><style>p{color:red}</style></head><body>\
             <h1>Title</h1><p>Some <em>em</em> and <strong>bold</strong> and \
             <a href=\"https://x.com/\">a link</a>.</p><script>alert('x')</script>\
             <ul><li>one</li><li>two</li></ul><pre><code>let x = 1;</code></pre></body></html>",
        );
        assert!(out.contains("# Title"), "{out}");
        assert!(out.contains("[a link](https://x.com/)"), "{out}");
        assert!(
            out.contains("*   one") || out.contains("* one") || out.contains("- one"),
            "{out}"
        );
        assert!(out.contains("```\nlet x = 1;\n```"), "{out}");
        assert!(out.contains("_em_") || out.contains("*em*"), "{out}");
        assert!(!out.contains("alert"), "{out}");
        assert!(!out.contains("color:red"), "{out}");
    }

    #[test]
    fn html_as_text() {
        let out = render(
            b"<p>Hello <b>world</b></p><script>x()</script><ul><li>a</li><li>b</li></ul>",
            Some("text/html"),
            None,
            true,
            Format::Text,
        )
        .text;
        assert_eq!(out, "Hello world\n- a\n- b");
    }

    #[test]
    fn json_is_pretty_printed_in_order() {
        let out = render(
            br#"{"b":1,"a":[1,2]}"#,
            Some("application/json"),
            None,
            true,
            Format::Markdown,
        );
        assert_eq!(out.text, "{\n  \"b\": 1,\n  \"a\": [\n    1,\n    2\n  ]\n}");
        assert_eq!(out.rendering, "pretty-json");
        let raw = render(br#"{"b":1}"#, Some("application/json"), None, true, Format::Raw);
        assert_eq!(raw.text, r#"{"b":1}"#);
    }

    #[test]
    fn charsets() {
        let latin1 = b"caf\xe9";
        assert_eq!(
            render(latin1, Some("text/plain"), Some("iso-8859-1"), true, Format::Raw).text,
            "café"
        );
        let meta = b"<meta charset=\"windows-1251\"><p>\xcf\xf0\xe8\xe2\xe5\xf2</p>";
        assert_eq!(
            render(meta, Some("text/html"), None, true, Format::Text).text,
            "Привет"
        );
    }

    #[test]
    fn a_cut_character_is_dropped() {
        let bytes = "aé".as_bytes();
        let cut = &bytes[..2];
        assert_eq!(
            render(cut, Some("text/plain"), None, false, Format::Raw).text,
            "a"
        );
        assert_eq!(
            render(cut, Some("text/plain"), Some("utf-8"), false, Format::Raw).text,
            "a"
        );
    }

    #[test]
    fn relative_links_become_absolute() {
        let base = url::Url::parse("https://docs.rs/regex/latest/regex/index.html").expect("url");
        let md = "[a](/x) [b](struct.Regex.html \"t\") [c](#top) [d](https://e.com/) ![i](../img.png) [m](mailto:a@b.c)";
        assert_eq!(
            absolute_links(md, &base),
            "[a](https://docs.rs/x) [b](https://docs.rs/regex/latest/regex/struct.Regex.html \"t\") \
             [c](#top) [d](https://e.com/) ![i](https://docs.rs/regex/latest/img.png) [m](mailto:a@b.c)"
        );
    }

    #[test]
    fn deep_pages_fall_back_to_text() {
        let deep = format!("{}x", "<div>".repeat(10_000));
        let out = render(deep.as_bytes(), Some("text/html"), None, true, Format::Markdown);
        assert_eq!((out.text.as_str(), out.rendering), ("x", "text"));
        assert!(out.notice.expect("notice").to_string().contains("levels deep"));
        let shallow = format!("{}x", "<div>".repeat(50));
        let out = render(
            shallow.as_bytes(),
            Some("text/html"),
            None,
            true,
            Format::Markdown,
        );
        assert_eq!(
            (out.text.as_str(), out.rendering, out.notice),
            ("x", "markdown", None)
        );
    }

    #[test]
    fn pages_too_deep_to_parse_are_stripped_in_one_pass() {
        let started = std::time::Instant::now();
        let page = format!(
            "<p>a &amp; b</p><script>if (a<b) x()</script>{}x",
            "<div>".repeat(300_000)
        );
        for format in [Format::Markdown, Format::Text] {
            let out = render(page.as_bytes(), Some("text/html"), None, true, format);
            assert_eq!((out.text.as_str(), out.rendering), ("a & b\nx", "text"));
            assert!(out
                .notice
                .expect("notice")
                .to_string()
                .contains("with its tags stripped"));
        }
        // A generous bound: a quadratic walk of this page takes minutes, a loaded machine seconds.
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
        assert_eq!(estimated_depth("<ul><li>a<li>b</ul><br><img/><p>c"), 1);
        assert_eq!(estimated_depth(&"<b>".repeat(2000)), 2000);
        assert_eq!(estimated_depth("<script>a<b<c<d</script><div>"), 1);
    }

    #[test]
    fn binary_is_not_decoded() {
        let out = render(
            b"\x89PNG\r\n\x1a\n\0\0",
            Some("image/png"),
            None,
            true,
            Format::Markdown,
        );
        assert_eq!(out.kind, Kind::Binary);
        assert!(out.text.is_empty());
    }
}
