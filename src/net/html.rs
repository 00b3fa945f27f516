//! HTML bodies as markdown or plain text, and what keeps that safe on hostile pages: the
//! nesting is estimated from the tags before parsing and measured on the tree before the
//! recursive markdown conversion; a page too deep for either is stripped of its tags in one
//! pass instead.

/// Tags whose content is never text for a reader.
const DROPPED: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "embed", "head",
];

/// The deepest element nesting converted to markdown. htmd recurses several frames per level;
/// real pages nest a few dozen levels, so this refuses only pathological ones, and the
/// [`crate::deep_stack`] thread holds it many times over.
pub const MAX_MARKDOWN_DEPTH: usize = 1000;

/// The page as markdown, or (`Err`) the nesting depth that is too deep to convert.
pub fn html_to_markdown(html: &str) -> Result<String, usize> {
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
pub fn estimated_depth(html: &str) -> usize {
    let bytes = html.as_bytes();
    let (mut depth, mut deepest, mut i) = (0usize, 0usize, 0usize);
    while let Some(at) = memchr::memchr(b'<', &bytes[i..]) {
        if let Some(end) = markup_end(html, i + at) {
            i = end;
            continue;
        }
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
        let gt = tag_end(bytes, name_end);
        Some(Tag {
            name: html[name_start..name_end].to_ascii_lowercase(),
            closing,
            self_closing: gt > 0 && bytes.get(gt - 1) == Some(&b'/'),
            end: (gt + 1).min(bytes.len()),
        })
    }
}

/// The offset of the `>` that ends a tag whose name ends at `from`: a `>` inside a quoted
/// attribute value (`<div a=">">`) does not count. An unterminated quote runs to the end of the
/// page, as it does for a browser, which also keeps the scan linear.
fn tag_end(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    let mut after_equals = false;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'>' => return i,
            b'"' | b'\'' if after_equals => {
                match memchr::memchr(b, &bytes[i + 1..]) {
                    Some(at) => i += at + 1,
                    None => return bytes.len(),
                }
                after_equals = false;
            }
            b'=' => after_equals = true,
            _ if b.is_ascii_whitespace() => {}
            _ => after_equals = false,
        }
        i += 1;
    }
    bytes.len()
}

/// Markup that is not an element at `lt`: the offset after a comment (`<!-- … -->`, whose
/// content is never tags), a doctype, CDATA section or processing instruction.
fn markup_end(html: &str, lt: usize) -> Option<usize> {
    let bytes = html.as_bytes();
    let rest = &bytes[lt + 1..];
    if let Some(comment) = rest.strip_prefix(b"!--") {
        // `<!-->` and `<!--->` are empty comments.
        let skip = if comment.starts_with(b">") {
            1
        } else if comment.starts_with(b"->") {
            2
        } else {
            memchr::memmem::find(comment, b"-->").map_or(comment.len(), |at| at + 3)
        };
        return Some((lt + 4 + skip).min(bytes.len()));
    }
    if rest.starts_with(b"!") || rest.starts_with(b"?") {
        return Some(memchr::memchr(b'>', rest).map_or(bytes.len(), |at| lt + 1 + at + 1));
    }
    None
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
/// content of scripts and styles and comments dropped, character references decoded. One linear pass, for pages
/// too deep for the parser.
pub fn strip_tags(html: &str) -> String {
    let bytes = html.as_bytes();
    let mut out = String::with_capacity(html.len() / 2);
    let mut i = 0;
    let text = |out: &mut String, piece: &str| {
        let decoded = crate::net::entities::decode(piece);
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
        if let Some(end) = markup_end(html, lt) {
            text(&mut out, &html[i..lt]);
            i = end;
            continue;
        }
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

pub fn html_to_text(html: &str) -> String {
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
