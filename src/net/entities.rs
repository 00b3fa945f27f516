//! HTML character references (`&eacute;`, `&#x41;`, `&#233;`) decoded with the complete table
//! html5ever itself uses, for the one-pass text rendering that does not go through its parser.

use markup5ever::data::NAMED_ENTITIES;

/// Longest named reference in the table (`&CounterClockwiseContourIntegral;`) plus slack.
const MAX_NAME: usize = 40;

/// `text` with every character reference it holds decoded; anything that is not one stays.
pub fn decode(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match reference(rest) {
            Some((decoded, len)) => {
                out.push_str(&decoded);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The reference at the start of `text` (which starts with `&`): what it means and its length.
fn reference(text: &str) -> Option<(String, usize)> {
    let body = &text[1..];
    if let Some(number) = body.strip_prefix('#') {
        let (digits, radix, skip) = match number.strip_prefix(['x', 'X']) {
            Some(hex) => (hex, 16, 3),
            None => (number, 10, 2),
        };
        let len = digits
            .bytes()
            .take_while(|b| (radix == 16 && b.is_ascii_hexdigit()) || b.is_ascii_digit())
            .count();
        if len == 0 {
            return None;
        }
        let value = u32::from_str_radix(&digits[..len.min(8)], radix).unwrap_or(0xFFFD);
        let c = match value {
            0 => '\u{FFFD}',
            _ => char::from_u32(value).unwrap_or('\u{FFFD}'),
        };
        let semicolon = usize::from(digits[len..].starts_with(';'));
        return Some((c.to_string(), skip + len + semicolon));
    }
    let len = body
        .bytes()
        .take(MAX_NAME)
        .take_while(u8::is_ascii_alphanumeric)
        .count();
    if len == 0 {
        return None;
    }
    let with_semicolon = body[len..].starts_with(';');
    let key = &body[..len + usize::from(with_semicolon)];
    // Legacy references (`&eacute`, `&amp`) are in the table without their `;` as well.
    let (first, second) = *NAMED_ENTITIES.get(key)?;
    let first = char::from_u32(first).filter(|&c| c != '\0')?;
    let mut decoded = first.to_string();
    decoded.extend(char::from_u32(second).filter(|&c| c != '\0'));
    Some((decoded, 1 + key.len()))
}

#[cfg(test)]
mod tests {
    use super::{decode, NAMED_ENTITIES};

    #[test]
    fn named_and_numeric_references() {
        assert_eq!(
            decode("caf&eacute; &#x41;&#66;&#X43; &amp;&lt;&gt;&quot;&#39;&nbsp;"),
            "café ABC &<>\"'\u{a0}"
        );
        assert_eq!(decode("&NotEqualTilde; &hellip;"), "\u{2242}\u{338} …");
        assert_eq!(
            decode("a & b &unknown; &#; &#xZZ; &"),
            "a & b &unknown; &#; &#xZZ; &"
        );
        assert_eq!(decode("&#0;&#x110000;"), "\u{FFFD}\u{FFFD}");
    }

    /// The table (vendor/web_atoms, stored as one string and searched by bisection) answers
    /// every name, every prefix of one with (0, 0), and nothing else; first and last included.
    #[test]
    fn the_entity_table_holds_names_and_their_prefixes() {
        assert_eq!(NAMED_ENTITIES.get("AElig"), Some(&(198, 0)));
        assert_eq!(NAMED_ENTITIES.get("AElig;"), Some(&(198, 0)));
        assert_eq!(NAMED_ENTITIES.get("zwnj;"), Some(&(0x200c, 0)));
        assert_eq!(NAMED_ENTITIES.get("NotEqualTilde;"), Some(&(0x2242, 0x338)));
        assert_eq!(NAMED_ENTITIES.get("NotEqualTil"), Some(&(0, 0)));
        assert_eq!(NAMED_ENTITIES.get(""), Some(&(0, 0)));
        assert_eq!(NAMED_ENTITIES.get("zz"), None);
        assert_eq!(NAMED_ENTITIES.get("amp;x"), None);
        assert!(NAMED_ENTITIES.len() > 2231);
    }
}
