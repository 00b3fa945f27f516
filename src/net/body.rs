//! A response body, from bytes to the text a model reads: decoded by its charset (cut cleanly
//! when the byte cap cut it mid-character), then HTML to markdown or plain text, JSON
//! pretty-printed, anything else as it came.

use encoding_rs::{Encoding, UTF_8};

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
    pub notice: Option<String>,
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
    let text = decode(bytes, encoding, complete);
    let mut notice = None;
    let (text, rendering) = match (format, kind) {
        (Format::Raw, _) => (text, "raw"),
        (Format::Markdown | Format::Text, Kind::Html) if estimated_depth(&text) > MAX_MARKDOWN_DEPTH => {
            // html5ever's tree building slows down with the depth of open elements (quadratic
            // on a page of nothing but nested tags), and the conversions walk the tree: such a
            // page is shown with its tags stripped, in one pass.
            notice = Some(format!(
                "the page nests its elements more than {MAX_MARKDOWN_DEPTH} levels deep, too deep \
                 to convert, so it is shown as plain text (format=\"text\") with its tags stripped."
            ));
            (strip_tags(&text), "text")
        }
        (Format::Markdown, Kind::Html) => {
            // htmd walks the tree recursively: see `deep_stack`. Without such a thread the
            // plain text rendering (which does not recurse) is the safe answer.
            let markdown = crate::deep_stack::with_deep_stack(|| html_to_markdown(&text));
            match markdown {
                Some(Ok(markdown)) => (markdown, "markdown"),
                Some(Err(depth)) => {
                    notice = Some(format!(
                        "the page nests its elements {depth} levels deep, more than the \
                         {MAX_MARKDOWN_DEPTH} the markdown conversion goes, so it is shown as \
                         plain text (format=\"text\")."
                    ));
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

/// Tags whose content is never text for a reader.
const DROPPED: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "embed", "head",
];

/// The deepest element nesting converted to markdown. htmd recurses several frames per level;
/// real pages nest a few dozen levels, so this refuses only pathological ones, and the
/// [`crate::deep_stack`] thread holds it many times over.
pub const MAX_MARKDOWN_DEPTH: usize = 1000;

/// The page as markdown, or (`Err`) the nesting depth that is too deep to convert.
fn html_to_markdown(html: &str) -> Result<String, usize> {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(DROPPED.to_vec())
        .build();
    let Ok(tree) = converter.html_to_tree(html) else {
        return Ok(html_to_text(html));
    };
    let depth = tree_depth(&tree);
    if depth > MAX_MARKDOWN_DEPTH {
        return Err(depth);
    }
    Ok(tidy(&converter.tree_to_markdown(&tree)))
}

/// Elements that do not nest by being repeated: void ones, and those whose end tag may be left
/// out (the parser closes an open `<p>` or `<li>` at the next one).
const NON_NESTING: &[&str] = &[
    "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "thead", "tbody", "tfoot", "colgroup",
    "caption", "rb", "rt", "rtc", "rp", "area", "base", "br", "col", "embed", "hr", "img", "input", "link",
    "meta", "source", "track", "wbr", "param",
];

/// Elements whose content is raw text, where a `<` is not a tag.
const RAW_TEXT: &[&str] = &[
    "script", "style", "textarea", "title", "xmp", "noscript", "template",
];

/// How deeply `html` nests its elements, estimated in one pass over its tags, before any parsing:
/// open tags minus close tags, not counting void elements, self-closed tags, elements whose
/// end tag is optional and the contents of scripts and styles.
fn estimated_depth(html: &str) -> usize {
    let bytes = html.as_bytes();
    let (mut depth, mut deepest, mut i) = (0usize, 0usize, 0usize);
    while let Some(at) = memchr::memchr(b'<', &bytes[i..]) {
        let Some(tag) = Tag::at(html, i + at) else {
            i += at + 1;
            continue;
        };
        i = tag.end;
        if tag.closing {
            if !NON_NESTING.contains(&tag.name.as_str()) {
                depth = depth.saturating_sub(1);
            }
        } else if RAW_TEXT.contains(&tag.name.as_str()) {
            i = raw_text_end(html, i, &tag.name);
        } else if !tag.self_closing && !NON_NESTING.contains(&tag.name.as_str()) {
            depth += 1;
            deepest = deepest.max(depth);
        }
    }
    deepest
}

/// One tag of the raw text: its lowercase name and the offset after its `>`.
struct Tag {
    name: String,
    closing: bool,
    self_closing: bool,
    end: usize,
}

impl Tag {
    fn at(html: &str, lt: usize) -> Option<Tag> {
        let bytes = html.as_bytes();
        let closing = bytes.get(lt + 1) == Some(&b'/');
        let name_start = lt + 1 + usize::from(closing);
        let name_len = bytes
            .get(name_start..)?
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        if name_len == 0 {
            return None;
        }
        let name_end = name_start + name_len;
        let gt = memchr::memchr(b'>', &bytes[name_end..]).map_or(bytes.len(), |at| name_end + at);
        Some(Tag {
            name: html[name_start..name_end].to_ascii_lowercase(),
            closing,
            self_closing: gt > 0 && bytes.get(gt - 1) == Some(&b'/'),
            end: (gt + 1).min(bytes.len()),
        })
    }
}

/// The offset after the `</name>` that ends raw text starting at `from` (or the end). Inside
/// raw text nothing else is a tag (`if (a<b)`).
fn raw_text_end(html: &str, from: usize, name: &str) -> usize {
    let bytes = html.as_bytes();
    let mut i = from;
    while let Some(at) = memchr::memmem::find(&bytes[i..], b"</") {
        let lt = i + at;
        let candidate = bytes.get(lt + 2..lt + 2 + name.len());
        if candidate.is_some_and(|c| c.eq_ignore_ascii_case(name.as_bytes())) {
            if let Some(tag) = Tag::at(html, lt) {
                if tag.name == name {
                    return tag.end;
                }
            }
        }
        i = lt + 2;
    }
    bytes.len()
}

/// Plain text from HTML without parsing it: tags removed (block ones leave a line break), the
/// content of scripts and styles dropped, common entities decoded. One linear pass, for pages
/// too deep for the parser.
fn strip_tags(html: &str) -> String {
    let bytes = html.as_bytes();
    let mut out = String::with_capacity(html.len() / 2);
    let mut i = 0;
    let text = |out: &mut String, piece: &str| {
        let decoded = piece
            .replace("&nbsp;", " ")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&");
        for c in decoded.chars() {
            if c.is_whitespace() {
                if !out.is_empty() && !out.ends_with([' ', '\n']) {
                    out.push(' ');
                }
            } else {
                out.push(c);
            }
        }
    };
    while let Some(at) = memchr::memchr(b'<', &bytes[i..]) {
        let lt = i + at;
        let Some(tag) = Tag::at(html, lt) else {
            text(&mut out, &html[i..=lt]);
            i = lt + 1;
            continue;
        };
        text(&mut out, &html[i..lt]);
        i = tag.end;
        if !tag.closing && (RAW_TEXT.contains(&tag.name.as_str()) || DROPPED.contains(&tag.name.as_str())) {
            i = raw_text_end(html, i, &tag.name);
        }
        if BLOCKS.contains(&tag.name.as_str()) {
            newline(&mut out);
        }
    }
    text(&mut out, &html[i..]);
    tidy(&out)
}

/// The deepest nesting of `tree`, measured without recursion.
fn tree_depth(tree: &std::rc::Rc<htmd::Node>) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(tree.clone(), 0usize)];
    while let Some((node, depth)) = pending.pop() {
        deepest = deepest.max(depth);
        for child in node.children.borrow().iter() {
            pending.push((child.clone(), depth + 1));
        }
    }
    deepest
}

/// Makes the relative link and image targets of converted markdown absolute against `base`
/// (the final URL), so a model can pass them straight to the next fetch_url call. In-page
/// anchors (`#x`) stay as they are.
pub fn absolute_links(markdown: &str, base: &url::Url) -> String {
    static LINK: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let Some(link) = LINK
        .get_or_init(|| regex::Regex::new(r#"\]\(([^)\s]+)((?:\s+"[^"]*")?)\)"#).ok())
        .as_ref()
    else {
        return markdown.to_string();
    };
    link.replace_all(markdown, |caps: &regex::Captures| {
        let target = &caps[1];
        let relative = !target.starts_with('#')
            && matches!(
                url::Url::parse(target),
                Err(url::ParseError::RelativeUrlWithoutBase)
            );
        match base.join(target) {
            Ok(absolute) if relative => format!("]({absolute}{})", &caps[2]),
            _ => caps[0].to_string(),
        }
    })
    .into_owned()
}

fn html_to_text(html: &str) -> String {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(DROPPED.to_vec())
        .build();
    let Ok(tree) = converter.html_to_tree(html) else {
        return html.to_string();
    };
    let mut out = String::new();
    text_of(&tree, &mut out);
    tidy(&out)
}

/// Block-level elements start on a new line in the text rendering.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "br",
    "li",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "tr",
    "table",
    "pre",
    "blockquote",
    "section",
    "article",
    "header",
    "footer",
    "nav",
    "main",
    "aside",
    "dt",
    "dd",
    "hr",
    "figure",
    "figcaption",
    "form",
];

/// Appends the text of `tree`, walking it with an explicit stack (a page may nest
/// arbitrarily deep, and this is the rendering that must never fail).
fn text_of(tree: &std::rc::Rc<htmd::Node>, out: &mut String) {
    use markup5ever_rcdom::NodeData;
    enum Step {
        Enter(std::rc::Rc<htmd::Node>),
        /// After a block element's children.
        Leave,
    }
    let mut steps = vec![Step::Enter(tree.clone())];
    while let Some(step) = steps.pop() {
        let node = match step {
            Step::Enter(node) => node,
            Step::Leave => {
                newline(out);
                continue;
            }
        };
        match &node.data {
            NodeData::Text { contents } => {
                let text = contents.borrow();
                let mut last_space = out.ends_with([' ', '\n']) || out.is_empty();
                for c in text.chars() {
                    if c.is_whitespace() {
                        if !last_space {
                            out.push(' ');
                            last_space = true;
                        }
                    } else {
                        out.push(c);
                        last_space = false;
                    }
                }
            }
            NodeData::Element { name, .. } => {
                let tag: &str = &name.local;
                if DROPPED.contains(&tag) {
                    continue;
                }
                let block = BLOCKS.contains(&tag);
                if block {
                    newline(out);
                    steps.push(Step::Leave);
                }
                if tag == "li" {
                    out.push_str("- ");
                }
                for child in node.children.borrow().iter().rev() {
                    steps.push(Step::Enter(child.clone()));
                }
            }
            NodeData::Document => {
                for child in node.children.borrow().iter().rev() {
                    steps.push(Step::Enter(child.clone()));
                }
            }
            _ => {}
        }
    }
}

fn newline(out: &mut String) {
    while out.ends_with(' ') {
        out.pop();
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
}

/// Trailing spaces off every line and no runs of more than one blank line.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank_run += 1;
            if blank_run > 1 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim_matches('\n').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(out.notice.expect("notice").contains("levels deep"));
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
            assert!(out.notice.expect("notice").contains("with its tags stripped"));
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
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
