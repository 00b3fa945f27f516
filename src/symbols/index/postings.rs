//! Postings: which content hashes mention a name, and whether they define it.
//!
//! The name table is split into [`SHARDS`] files by a hash of the lowercased name, so a query
//! reads one small file whatever the size of the tree. Names new since the last merge sit in
//! one `delta` file of the same format, read by every query; a merge folds it into the shards.
//!
//! ```text
//! codesmith-index-names 1
//! <name><TAB><hash16><TAB>D|R
//! ```

use std::collections::HashSet;

use super::super::Symbol;

pub const SHARDS: usize = 256;
const HEADER: &str = "codesmith-index-names 1\n";

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Posting {
    pub name: String,
    pub hash: u64,
    /// The content defines the name (otherwise it only refers to it).
    pub defines: bool,
}

/// The shard of a name (its lowercase form, so case-insensitive lookups read the same shard).
pub fn shard_of(name: &str) -> usize {
    let lower = name.to_lowercase();
    (xxhash_rust::xxh3::xxh3_64(lower.as_bytes()) % SHARDS as u64) as usize
}

/// One posting per name in `symbols`.
pub fn of_symbols(hash: u64, symbols: &[Symbol]) -> Vec<Posting> {
    let mut defined = HashSet::new();
    let mut mentioned = HashSet::new();
    for symbol in symbols {
        if symbol.definition {
            defined.insert(symbol.name.as_str());
        } else {
            mentioned.insert(symbol.name.as_str());
        }
    }
    let mut out: Vec<Posting> = defined
        .iter()
        .map(|name| Posting {
            name: name.to_string(),
            hash,
            defines: true,
        })
        .collect();
    out.extend(mentioned.difference(&defined).map(|name| Posting {
        name: name.to_string(),
        hash,
        defines: false,
    }));
    out
}

pub fn encode(postings: &[Posting]) -> String {
    let mut out = String::with_capacity(HEADER.len() + postings.len() * 32);
    out.push_str(HEADER);
    for p in postings {
        out.push_str(&p.name);
        out.push('\t');
        out.push_str(&format!("{:016x}", p.hash));
        out.push_str(if p.defines { "\tD\n" } else { "\tR\n" });
    }
    out
}

/// Calls `each` for every posting of a shard or delta file; false when it is not a whole file.
pub fn decode(text: &str, mut each: impl FnMut(&str, u64, bool)) -> bool {
    let Some(body) = text.strip_prefix(HEADER) else {
        return false;
    };
    if !body.is_empty() && !body.ends_with('\n') {
        return false;
    }
    for line in body.lines() {
        let Some((rest, flag)) = line.rsplit_once('\t') else {
            return false;
        };
        let Some((name, hash)) = rest.rsplit_once('\t') else {
            return false;
        };
        let Ok(hash) = u64::from_str_radix(hash, 16) else {
            return false;
        };
        let defines = match flag {
            "D" => true,
            "R" => false,
            _ => return false,
        };
        each(name, hash, defines);
    }
    true
}

/// All postings of a file, or `None` when it does not decode.
pub fn decode_all(text: &str) -> Option<Vec<Posting>> {
    let mut out = Vec::new();
    decode(text, |name, hash, defines| {
        out.push(Posting {
            name: name.to_string(),
            hash,
            defines,
        })
    })
    .then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_round_trip_and_torn_files_are_refused() {
        let postings = vec![
            Posting {
                name: "Config".into(),
                hash: 1,
                defines: true,
            },
            Posting {
                name: "helper".into(),
                hash: u64::MAX,
                defines: false,
            },
        ];
        let text = encode(&postings);
        assert_eq!(decode_all(&text), Some(postings));
        assert_eq!(decode_all(&text[..text.len() - 1]), None);
        assert_eq!(decode_all("names\n"), None);
        assert_eq!(decode_all(HEADER), Some(Vec::new()));
        assert_eq!(shard_of("Config"), shard_of("CONFIG"));
    }
}
