//! Notices of the search tools: what was not searched, an index rebuilt, a ranking that fell
//! back to words.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchNotice {
    /// grep_files could not read `count` paths.
    Unreadable { count: u64 },
    /// find_symbol found its index unreadable and rebuilt it.
    SymbolIndexRebuilt,
    /// search_code's model knows no word of the query (`query_arg`: the query as a call's
    /// argument spells it).
    NoKnownWords { query_arg: String },
    /// `[search] ranking` is not a ranking (`value`: the TOML value as written).
    UnknownRanking { value: String },
    /// `[search] model` is not a string (`value`: as written).
    ModelNotAPath { value: String },
    /// `[search] ranking` asks for a ranking that needs a model, and none is set.
    RankingNeedsModel { ranking: &'static str },
    /// search_code has no embedding model; said once per session.
    NoModel,
    /// The model `[search] model` names (`setting`) cannot be used: `file` has `problem`.
    ModelUnusable {
        setting: String,
        file: String,
        problem: String,
    },
}

impl fmt::Display for SearchNotice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchNotice::Unreadable { count } => write!(
                f,
                "{count} {} could not be read (permissions or a race with a deletion) and were not searched.",
                if *count == 1 { "path" } else { "paths" }
            ),
            SearchNotice::SymbolIndexRebuilt => {
                f.write_str("The symbol index in .codesmith/index/ was unreadable and was rebuilt.")
            }
            SearchNotice::NoKnownWords { query_arg } => write!(
                f,
                "The embedding model knows none of the words of {query_arg}, so this search ranked by words \
                 alone; to search by meaning, describe the code in plain English words."
            ),
            SearchNotice::UnknownRanking { value } => write!(
                f,
                "`.codesmith/config.toml`: [search] ranking = {value} is not a ranking; it is ignored \
                 (the rankings are \"hybrid\", \"embedding\" and \"lexical\")."
            ),
            SearchNotice::ModelNotAPath { value } => write!(
                f,
                "`.codesmith/config.toml`: [search] model = {value} is not a path; it is ignored. \
                 Write the model's directory as a string, e.g. model = \"models/potion-base-8M\"."
            ),
            SearchNotice::RankingNeedsModel { ranking } => write!(
                f,
                "`.codesmith/config.toml`: [search] ranking = \"{ranking}\" needs an embedding model; ranked \
                 by words alone. Set [search] model to a model2vec model's directory (see \
                 docs/GUIDE.md, \"Search by meaning\")."
            ),
            SearchNotice::NoModel => f.write_str(
                "search_code ranks by words alone here: no embedding model is set. To find code by meaning \
                 too, set [search] model in .codesmith/config.toml to a model2vec model's directory (see \
                 docs/GUIDE.md, \"Search by meaning\"). (Said once per session.)",
            ),
            SearchNotice::ModelUnusable {
                setting,
                file,
                problem,
            } => write!(
                f,
                "search_code ranked by words alone: the embedding model `.codesmith/config.toml` names \
                 ([search] model = \"{setting}\") cannot be used: `{file}` {problem}. Put a model2vec model's \
                 model.safetensors and tokenizer.json there, or correct or remove the setting (see \
                 docs/GUIDE.md, \"Search by meaning\")."
            ),
        }
    }
}
