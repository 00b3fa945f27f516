//! The stored form of one file's symbols: a small text file, one definition per line and one
//! line per name and label of its uses.
//!
//! ```text
//! codesmith-symbols 3 rust
//! E
//! D<TAB>kind<TAB>line<TAB>start<TAB>end<TAB>depth<TAB>name<TAB>container<TAB>scope<TAB>text
//! U<TAB>kind<TAB>name<TAB>line,line,...
//! ```
//! `E` is present when the parse met syntax errors. Fields never hold tabs or line breaks
//! ([`super::Symbol`]'s text is cleaned, identifiers hold none). A record that does not parse
//! is treated as missing, so the file is tagged again.

use std::collections::BTreeMap;

use super::{Extracted, Symbol};

pub const HEADER: &str = "codesmith-symbols 3";

/// A decoded record.
#[derive(Debug, PartialEq, Eq)]
pub struct Record {
    pub language: String,
    pub symbols: Vec<Symbol>,
    pub syntax_errors: bool,
}

pub fn encode(language: &str, extracted: &Extracted) -> String {
    let mut out = format!("{HEADER} {language}\n");
    if extracted.syntax_errors {
        out.push_str("E\n");
    }
    // References are many (every identifier of the file): grouped by kind and name, lines listed.
    let mut uses: BTreeMap<(&str, &str), Vec<String>> = BTreeMap::new();
    for s in &extracted.symbols {
        if s.definition {
            out.push_str(&format!(
                "D\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                s.kind, s.line, s.start_line, s.end_line, s.depth, s.name, s.container, s.scope, s.text
            ));
        } else {
            uses.entry((&s.kind, &s.name))
                .or_default()
                .push(s.line.to_string());
        }
    }
    for ((kind, name), lines) in uses {
        out.push_str(&format!("U\t{kind}\t{name}\t{}\n", lines.join(",")));
    }
    out
}

/// The record in `text`, or `None` when it is not a whole record.
pub fn decode(text: &str) -> Option<Record> {
    let mut lines = text.lines();
    let language = lines.next()?.strip_prefix(HEADER)?.strip_prefix(' ')?.to_string();
    if !text.ends_with('\n') {
        return None;
    }
    let mut record = Record {
        language,
        symbols: Vec::new(),
        syntax_errors: false,
    };
    let mut references = Vec::new();
    for line in lines {
        if line == "E" {
            record.syntax_errors = true;
        } else if let Some(rest) = line.strip_prefix("U\t") {
            decode_uses(rest, &mut references)?;
        } else {
            record.symbols.push(decode_definition(line)?);
        }
    }
    references.sort_by(|a: &Symbol, b: &Symbol| (a.line, &a.name).cmp(&(b.line, &b.name)));
    record.symbols.extend(references);
    Some(record)
}

fn decode_definition(line: &str) -> Option<Symbol> {
    let fields: Vec<&str> = line.split('\t').collect();
    let number = |i: usize| fields.get(i)?.parse::<u32>().ok();
    if fields.len() != 10 || fields[0] != "D" {
        return None;
    }
    Some(Symbol {
        kind: fields[1].to_string(),
        line: number(2)?,
        start_line: number(3)?,
        end_line: number(4)?,
        depth: number(5)?,
        name: fields[6].to_string(),
        container: fields[7].to_string(),
        scope: fields[8].to_string(),
        text: fields[9].to_string(),
        definition: true,
    })
}

fn decode_uses(rest: &str, out: &mut Vec<Symbol>) -> Option<()> {
    let mut fields = rest.split('\t');
    let (kind, name, lines) = (fields.next()?, fields.next()?, fields.next()?);
    if fields.next().is_some() || name.is_empty() {
        return None;
    }
    for line in lines.split(',') {
        let line = line.parse::<u32>().ok()?;
        out.push(Symbol {
            name: name.to_string(),
            kind: kind.to_string(),
            definition: false,
            line,
            start_line: line,
            end_line: line,
            depth: 0,
            container: String::new(),
            scope: String::new(),
            text: String::new(),
        });
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_torn_ones_are_refused() {
        let symbols = vec![
            Symbol {
                name: "new".into(),
                kind: "method".into(),
                definition: true,
                line: 8,
                start_line: 8,
                end_line: 11,
                depth: 1,
                container: "impl Config".into(),
                scope: "Config".into(),
                text: "pub fn new() -> Self {".into(),
            },
            Symbol {
                name: "helper".into(),
                kind: "call".into(),
                definition: false,
                line: 9,
                start_line: 9,
                end_line: 9,
                depth: 0,
                container: String::new(),
                scope: String::new(),
                text: "helper();".into(),
            },
        ];
        let extracted = Extracted {
            symbols: symbols.clone(),
            syntax_errors: true,
        };
        let text = encode("rust", &extracted);
        let mut expected = symbols.clone();
        expected[1].text = String::new();
        assert_eq!(
            decode(&text),
            Some(Record {
                language: "rust".to_string(),
                symbols: expected,
                syntax_errors: true
            })
        );
        assert_eq!(decode(&text[..text.len() - 3]), None);
        assert_eq!(decode("garbage\n"), None);
        assert_eq!(decode(""), None);
    }
}
