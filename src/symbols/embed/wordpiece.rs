//! The WordPiece tokenizer of a `tokenizer.json` (the Hugging Face tokenizers format), as the
//! English model2vec models and BERT use it: the vocabulary, the unknown token, the `##`
//! prefix of a word's later pieces and whether text is lowercased.
//!
//! Text is split the code-aware way first: identifiers on case changes, `_` and digits
//! (`checkCredentials` → `check`, `credentials`), punctuation dropped; a CJK character stands
//! alone, as BERT's pre-tokenizer has it. Each word is then cut greedily into the longest
//! vocabulary pieces; a word with no cut is unknown and, as model2vec does, left out. Accents
//! are kept (BERT strips them after a Unicode decomposition this reader does not carry), so an
//! accented word may fall to pieces or be unknown.

use std::collections::HashMap;

use serde::Deserialize;

/// The tokenizer.json fields read; the rest of the file is ignored.
#[derive(Deserialize)]
struct File {
    #[serde(default)]
    normalizer: Option<serde_json::Value>,
    model: Model,
}

#[derive(Deserialize)]
struct Model {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    vocab: Vocab,
    #[serde(default)]
    unk_token: Option<String>,
    #[serde(default)]
    continuing_subword_prefix: Option<String>,
    #[serde(default)]
    max_input_chars_per_word: Option<usize>,
}

/// Why a tokenizer.json cannot be used, worded to follow its name.
#[derive(Debug, thiserror::Error)]
pub(super) enum TokenizerError {
    #[error("is not a tokenizer.json ({0})")]
    NotTokenizer(serde_json::Error),
    #[error(
        "holds a {kind} tokenizer; only WordPiece tokenizers are read (the English model2vec \
         models, such as potion-base-8M, have one)"
    )]
    NotWordPiece { kind: String },
    #[error("has no WordPiece vocabulary (model.vocab is not an object)")]
    NoVocabulary,
    #[error("has an empty vocabulary")]
    EmptyVocabulary,
}

pub(super) struct WordPiece {
    vocab: HashMap<String, u32>,
    prefix: String,
    max_word_chars: usize,
    lowercase: bool,
    /// The largest id in the vocabulary.
    pub max_id: u32,
}

impl WordPiece {
    /// The tokenizer of a tokenizer.json's text, or why it cannot be used.
    pub(super) fn parse(text: &str) -> Result<WordPiece, TokenizerError> {
        let file: File = serde_json::from_str(text).map_err(TokenizerError::NotTokenizer)?;
        let kind = file.model.kind.as_deref().unwrap_or("WordPiece");
        if kind != "WordPiece" {
            return Err(TokenizerError::NotWordPiece {
                kind: kind.to_string(),
            });
        }
        let Vocab(Some(mut vocab)) = file.model.vocab else {
            return Err(TokenizerError::NoVocabulary);
        };
        if let Some(unk) = &file.model.unk_token {
            vocab.remove(unk);
        }
        let max_id = vocab
            .values()
            .copied()
            .max()
            .ok_or(TokenizerError::EmptyVocabulary)?;
        Ok(WordPiece {
            vocab,
            prefix: file
                .model
                .continuing_subword_prefix
                .unwrap_or_else(|| "##".to_string()),
            max_word_chars: file.model.max_input_chars_per_word.unwrap_or(100),
            lowercase: file.normalizer.as_ref().is_some_and(lowercases),
            max_id,
        })
    }

    /// The ids of `text`'s known pieces, in order, at most `limit` of them.
    pub(super) fn ids(&self, text: &str, limit: usize, mut each: impl FnMut(u32)) {
        let mut count = 0;
        words(text, |word| {
            if count >= limit {
                return false;
            }
            let word = if self.lowercase {
                word.to_lowercase()
            } else {
                word.to_string()
            };
            for id in self.pieces(&word) {
                if count >= limit {
                    return false;
                }
                each(id);
                count += 1;
            }
            true
        });
    }

    /// Longest-match-first pieces of one word; none when some part of it matches nothing.
    fn pieces(&self, word: &str) -> Vec<u32> {
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        if chars.len() > self.max_word_chars {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut start = 0;
        let mut key = String::new();
        while start < chars.len() {
            let mut end = chars.len();
            let mut found = None;
            while end > start {
                let from = chars[start].0;
                let to = chars.get(end).map_or(word.len(), |(at, _)| *at);
                key.clear();
                if start > 0 {
                    key.push_str(&self.prefix);
                }
                key.push_str(&word[from..to]);
                if let Some(id) = self.vocab.get(&key) {
                    found = Some(*id);
                    break;
                }
                end -= 1;
            }
            let Some(id) = found else {
                return Vec::new();
            };
            out.push(id);
            start = end;
        }
        out
    }
}

/// A WordPiece vocabulary (token → id), read straight into its map: a model's vocabulary has
/// tens of thousands of entries, and a JSON value tree of them would cost a query more time
/// than the rest of the model. Another model's vocabulary (a list) is skipped and read as none.
struct Vocab(Option<HashMap<String, u32>>);

impl<'de> Deserialize<'de> for Vocab {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vocab, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Vocab;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a vocabulary")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Vocab, A::Error> {
                let mut vocab = HashMap::with_capacity(map.size_hint().unwrap_or(32_768));
                while let Some((token, id)) = map.next_entry::<String, u32>()? {
                    vocab.insert(token, id);
                }
                Ok(Vocab(Some(vocab)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vocab, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Vocab(None))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Whether a normalizer lowercases: BERT's (by default) or a `Lowercase` step, alone or in a
/// sequence.
fn lowercases(normalizer: &serde_json::Value) -> bool {
    match normalizer["type"].as_str() {
        Some("BertNormalizer") => normalizer["lowercase"].as_bool().unwrap_or(true),
        Some("Lowercase") => true,
        Some("Sequence") => normalizer["normalizers"]
            .as_array()
            .is_some_and(|steps| steps.iter().any(lowercases)),
        _ => false,
    }
}

/// The words of `text`: runs of letters and digits split at case changes, `_` and letter-digit
/// boundaries; each CJK character alone. `each` returns false to stop.
fn words(text: &str, mut each: impl FnMut(&str) -> bool) {
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        let mut start = 0;
        let mut previous: Option<char> = None;
        let chars: Vec<(usize, char)> = run.char_indices().collect();
        for (i, &(at, c)) in chars.iter().enumerate() {
            let next_lower = chars.get(i + 1).is_some_and(|(_, n)| n.is_lowercase());
            let boundary = match previous {
                None => false,
                Some(p) => {
                    is_cjk(c)
                        || is_cjk(p)
                        || (p.is_lowercase() && c.is_uppercase())
                        || (p.is_uppercase() && c.is_uppercase() && next_lower)
                        || (p.is_alphabetic() != c.is_alphabetic())
                }
            };
            if boundary {
                if !each(&run[start..at]) {
                    return;
                }
                start = at;
            }
            previous = Some(c);
        }
        if start < run.len() && !each(&run[start..]) {
            return;
        }
    }
}

/// The CJK ideograph blocks BERT's pre-tokenizer isolates.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokenizer(vocab: &[&str], normalizer: &str) -> WordPiece {
        let entries: Vec<String> = vocab
            .iter()
            .enumerate()
            .map(|(i, t)| format!("\"{t}\": {i}"))
            .collect();
        let text = format!(
            "{{\"normalizer\": {normalizer}, \"model\": {{\"type\": \"WordPiece\", \"unk_token\": \"[UNK]\", \"vocab\": {{{}}}}}}}",
            entries.join(", ")
        );
        WordPiece::parse(&text).expect("tokenizer")
    }

    fn all(t: &WordPiece, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        t.ids(text, usize::MAX, |id| out.push(id));
        out
    }

    #[test]
    fn identifiers_split_into_words_and_words_into_the_longest_pieces() {
        let t = tokenizer(
            &["[UNK]", "check", "credentials", "parse", "##r", "http", "2", "v"],
            "{\"type\": \"BertNormalizer\"}",
        );
        assert_eq!(all(&t, "checkCredentials"), [1, 2]);
        assert_eq!(
            all(&t, "check_credentials(x)"),
            [1, 2],
            "x is unknown and left out"
        );
        assert_eq!(all(&t, "HTTPParser"), [5, 3, 4]);
        assert_eq!(all(&t, "parse_v2"), [3, 7, 6]);
        let mut first = Vec::new();
        t.ids("check credentials parse", 2, |id| first.push(id));
        assert_eq!(first, [1, 2]);
    }

    #[test]
    fn case_is_kept_without_a_lowercasing_normalizer_and_other_models_are_refused() {
        let t = tokenizer(&["[UNK]", "Check", "check"], "null");
        assert_eq!(all(&t, "Check check"), [1, 2]);
        let unigram = WordPiece::parse("{\"model\": {\"type\": \"Unigram\", \"vocab\": [[\"a\", -1.0]]}}");
        assert!(unigram
            .err()
            .is_some_and(|e| e.to_string().contains("Unigram tokenizer")));
        assert!(WordPiece::parse("{\"model\": 3}").is_err());
        assert_eq!(tokenizer(&["[UNK]", "a", "b"], "null").max_id, 2);
    }

    #[test]
    fn cjk_characters_stand_alone() {
        let mut out = Vec::new();
        words("数据base", |w| {
            out.push(w.to_string());
            true
        });
        assert_eq!(out, ["数", "据", "base"]);
    }
}
