//! The stored form of one file's symbols: a small text file, one symbol per line.
//!
//! ```text
//! codesmith-symbols 2 rust
//! D<TAB>kind<TAB>line<TAB>start<TAB>end<TAB>depth<TAB>name<TAB>container<TAB>scope<TAB>text
//! R<TAB>kind<TAB>line<TAB>start<TAB>end<TAB>name<TAB>
//! ```
//! Fields never hold tabs or line breaks ([`super::Symbol`]'s text is cleaned). A record that
//! does not parse is treated as missing, so the file is tagged again.

use super::Symbol;

pub const HEADER: &str = "codesmith-symbols 2";

pub fn encode(language: &str, symbols: &[Symbol]) -> String {
    let mut out = format!("{HEADER} {language}\n");
    for s in symbols {
        if s.definition {
            out.push_str(&format!(
                "D\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                s.kind, s.line, s.start_line, s.end_line, s.depth, s.name, s.container, s.scope, s.text
            ));
        } else {
            // A reference's line is not kept: references outnumber definitions many times over,
            // and the few a query shows are read from the file (see find_symbol).
            out.push_str(&format!(
                "R\t{}\t{}\t{}\t{}\t{}\t\n",
                s.kind, s.line, s.start_line, s.end_line, s.name
            ));
        }
    }
    out
}

/// The language and symbols of a record, or `None` when it is not a whole record.
pub fn decode(text: &str) -> Option<(String, Vec<Symbol>)> {
    let mut lines = text.lines();
    let language = lines.next()?.strip_prefix(HEADER)?.strip_prefix(' ')?.to_string();
    if !text.ends_with('\n') {
        return None;
    }
    let mut symbols = Vec::new();
    for line in lines {
        symbols.push(decode_line(line)?);
    }
    Some((language, symbols))
}

fn decode_line(line: &str) -> Option<Symbol> {
    let fields: Vec<&str> = line.split('\t').collect();
    let number = |i: usize| fields.get(i)?.parse::<u32>().ok();
    match (fields.first()?, fields.len()) {
        (&"D", 10) => Some(Symbol {
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
        }),
        (&"R", 7) => Some(Symbol {
            kind: fields[1].to_string(),
            line: number(2)?,
            start_line: number(3)?,
            end_line: number(4)?,
            name: fields[5].to_string(),
            text: fields[6].to_string(),
            depth: 0,
            container: String::new(),
            scope: String::new(),
            definition: false,
        }),
        _ => None,
    }
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
        let text = encode("rust", &symbols);
        let mut expected = symbols.clone();
        expected[1].text = String::new();
        assert_eq!(decode(&text), Some(("rust".to_string(), expected)));
        assert_eq!(decode(&text[..text.len() - 3]), None);
        assert_eq!(decode("garbage\n"), None);
        assert_eq!(decode(""), None);
    }
}
