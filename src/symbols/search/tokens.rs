//! Code-aware tokens for lexical search: identifiers split on case changes and `_`, lowercased,
//! with plural and verb endings taken off, so `checkCredentials`, `check_credentials` and "check
//! the credential" share `check` and `credential`. A compound identifier also stands as itself,
//! so a query that names it exactly ranks it above its parts.

/// Words a query in prose carries that say nothing about code.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "for", "from", "how", "if", "in", "into",
    "is", "it", "its", "of", "on", "or", "that", "the", "their", "then", "this", "to", "was", "what", "when",
    "where", "which", "who", "with",
];

/// The tokens of `text`, in order, repeats kept (a count is a term frequency).
pub fn tokens(text: &str, mut each: impl FnMut(String)) {
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        let parts = parts(word);
        if parts.len() > 1 {
            let whole: String = word.trim_matches('_').to_lowercase();
            if whole.chars().count() > 2 {
                each(whole);
            }
        }
        for part in parts {
            if part.chars().count() >= 2 && !part.chars().all(|c| c.is_ascii_digit()) {
                each(stem(&part.to_lowercase()));
            }
        }
    }
}

/// The words of a query as written (not split or folded), without stopwords, each once: what
/// a text search for it would look for.
pub fn query_words(query: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in query.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        if word.chars().count() >= 2
            && !STOPWORDS.contains(&word.to_lowercase().as_str())
            && !words.iter().any(|w| w == word)
        {
            words.push(word.to_string());
        }
    }
    words
}

/// The tokens of a query: as [`tokens`], without stopwords, each once.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut terms = Vec::new();
    tokens(query, |t| {
        if !STOPWORDS.contains(&t.as_str()) && !terms.contains(&t) {
            terms.push(t);
        }
    });
    terms
}

/// `parseHTTPResponse_v2` → `parse`, `HTTP`, `Response`, `v2`.
fn parts(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    for piece in word.split('_').filter(|p| !p.is_empty()) {
        let chars: Vec<char> = piece.chars().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (prev, cur) = (chars[i - 1], chars[i]);
            let next_lower = chars.get(i + 1).is_some_and(|c| c.is_lowercase());
            let boundary = (prev.is_lowercase() && cur.is_uppercase())
                || (prev.is_uppercase() && cur.is_uppercase() && next_lower)
                || (prev.is_alphabetic() && cur.is_ascii_digit() && i - start > 1);
            if boundary {
                out.push(chars[start..i].iter().collect());
                start = i;
            }
        }
        out.push(chars[start..].iter().collect());
    }
    out
}

/// A light suffix stripper: plurals, then one of `ing`, `ed`, `er`, `e`, keeping at least
/// four letters, so `parse`, `parser`, `parsing`, `parsed` and `parses` meet at `pars`.
pub fn stem(word: &str) -> String {
    let mut w = word.to_string();
    let len = w.chars().count();
    if !w.is_ascii() {
        return w;
    }
    if len > 4 && w.ends_with("ies") {
        w.truncate(len - 3);
        w.push('y');
    } else if len > 4 && w.ends_with("sses") {
        w.truncate(len - 2);
    } else if len > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        w.truncate(len - 1);
    }
    for suffix in ["ing", "ed", "er", "e"] {
        if w.ends_with(suffix) && w.len() - suffix.len() >= 4 {
            w.truncate(w.len() - suffix.len());
            break;
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        tokens(text, |t| out.push(t));
        out
    }

    #[test]
    fn identifiers_split_on_case_and_underscores() {
        assert_eq!(
            all("checkCredentials"),
            ["checkcredentials", "check", "credential"]
        );
        assert_eq!(
            all("check_credentials(x)"),
            ["check_credentials", "check", "credential"]
        );
        assert_eq!(all("HTTPError 42"), ["httperror", "http", "error"]);
        assert_eq!(all("parse_v2"), ["parse_v2", "pars", "v2"]);
    }

    #[test]
    fn word_forms_meet_and_queries_drop_stopwords() {
        for word in ["parse", "parser", "parsing", "parsed", "parses"] {
            assert_eq!(stem(word), "pars", "{word}");
        }
        assert_eq!(stem("verifies"), "verify");
        assert_eq!(stem("file"), "file");
        assert_eq!(
            query_terms("verify the user's identity, the user"),
            ["verify", "user", "identity"]
        );
    }
}
