//! The markdown of the behaviour notes, rendered as roff for the man page.
//!
//! The notes use a small subset, and only it is understood: paragraphs, `-` and `1.` list items
//! (nested by indentation, continued by indented lines), fenced code blocks, `**bold**` and
//! `` `code` `` spans. Code spans are set in bold, as man pages set literal text.

use roff::{bold, roman, Inline, Roff};

/// One block of the notes.
#[derive(Debug, PartialEq)]
enum Block {
    Paragraph(String),
    /// A list item: its nesting depth (0 for the outermost), its marker, its text.
    Item(usize, String, String),
    Code(Vec<String>),
}

/// Appends `markdown` to `roff`.
pub fn render(roff: &mut Roff, markdown: &str) {
    let mut depth = 0;
    for block in blocks(markdown) {
        let wanted = match &block {
            Block::Item(level, _, _) => level + 1,
            _ => 0,
        };
        while depth < wanted {
            if depth > 0 {
                roff.control("RS", []);
            }
            depth += 1;
        }
        while depth > wanted {
            depth -= 1;
            if depth > 0 {
                roff.control("RE", []);
            }
        }
        match block {
            Block::Paragraph(text) => {
                roff.control("PP", []);
                roff.text(inlines(&text));
            }
            Block::Item(_, marker, text) => {
                let marker = if marker == "-" {
                    "\\(bu".to_string()
                } else {
                    marker
                };
                roff.control("IP", [marker.as_str(), "4"]);
                roff.text(inlines(&text));
            }
            Block::Code(lines) => {
                roff.control("PP", []);
                roff.control("nf", []);
                roff.control("RS", ["4"]);
                for line in lines {
                    roff.text([roman(line)]);
                }
                roff.control("RE", []);
                roff.control("fi", []);
            }
        }
    }
    while depth > 1 {
        depth -= 1;
        roff.control("RE", []);
    }
}

/// The list marker a line starts with (after its indentation), and the text after it.
fn list_marker(line: &str) -> Option<(String, &str)> {
    if let Some(rest) = line.strip_prefix("- ") {
        return Some(("-".to_string(), rest));
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    let rest = line[digits..].strip_prefix(". ")?;
    (digits > 0).then(|| (line[..digits + 1].to_string(), rest))
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn blocks(markdown: &str) -> Vec<Block> {
    let mut out = Vec::new();
    // Indentations of the open list items, outermost first.
    let mut open: Vec<usize> = Vec::new();
    let mut after_blank = false;
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        let indent = indentation(line);
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            let code = lines.by_ref().take_while(|l| !l.trim_start().starts_with("```"));
            out.push(Block::Code(
                code.map(|l| l.get(indent..).unwrap_or(l).to_string()).collect(),
            ));
            after_blank = false;
            continue;
        }
        if trimmed.is_empty() {
            after_blank = true;
            continue;
        }
        if let Some((marker, text)) = list_marker(trimmed) {
            while open.last().is_some_and(|&i| i >= indent) {
                open.pop();
            }
            out.push(Block::Item(open.len(), marker, text.to_string()));
            open.push(indent);
            after_blank = false;
            continue;
        }
        let in_item = open.last().is_some_and(|&i| indent > i);
        let continues = match out.last() {
            Some(Block::Item(..)) => in_item,
            Some(Block::Paragraph(_)) => !after_blank,
            _ => false,
        };
        match out.last_mut() {
            Some(Block::Item(_, _, text) | Block::Paragraph(text)) if continues => {
                text.push(' ');
                text.push_str(trimmed);
            }
            _ => {
                open.clear();
                out.push(Block::Paragraph(trimmed.to_string()));
            }
        }
        after_blank = false;
    }
    out
}

/// `**bold**` and `` `code` `` spans as roff inlines.
fn inlines(text: &str) -> Vec<Inline> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let next = [rest.find("**"), rest.find('`')].into_iter().flatten().min();
        let Some(start) = next else {
            out.push(roman(rest));
            break;
        };
        let (marker, len) = if rest[start..].starts_with("**") {
            ("**", 2)
        } else {
            ("`", 1)
        };
        let Some(end) = rest[start + len..].find(marker) else {
            out.push(roman(rest));
            break;
        };
        if start > 0 {
            out.push(roman(&rest[..start]));
        }
        out.push(bold(&rest[start + len..start + len + end]));
        rest = &rest[start + len + end + len..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_nest_by_indentation_and_continue_on_indented_lines() {
        let text =
            "Intro\nstill intro.\n\n- **A** one\n  more\n  1. `x`;\n     wrapped\n  2. y\n- B\n\nAfter.\n";
        assert_eq!(
            blocks(text),
            vec![
                Block::Paragraph("Intro still intro.".into()),
                Block::Item(0, "-".into(), "**A** one more".into()),
                Block::Item(1, "1.".into(), "`x`; wrapped".into()),
                Block::Item(1, "2.".into(), "y".into()),
                Block::Item(0, "-".into(), "B".into()),
                Block::Paragraph("After.".into()),
            ]
        );
    }

    #[test]
    fn code_blocks_are_verbatim_and_spans_bold() {
        let mut roff = Roff::new();
        render(&mut roff, "Use `a-b` **now**.\n\n```sh\ncodesmith ls\n```\n");
        let page = roff.render();
        assert!(page.contains("Use \\fBa\\-b\\fR \\fBnow\\fR."), "{page}");
        assert!(page.contains(".nf\n.RS 4\ncodesmith ls\n.RE\n.fi"), "{page}");
    }
}
