//! `[search]` in `.codesmith/config.toml`: the embedding model and how regions are ranked.
//!
//! ```toml
//! [search]
//! model = "models/potion-base-8M"   # a model2vec model: a directory with model.safetensors and
//!                                   # tokenizer.json (or the .safetensors file); relative paths
//!                                   # are from the workspace root
//! ranking = "hybrid"                # hybrid (default with a model) | embedding | lexical
//! ```
//!
//! A setting that cannot be used never stops a search: the search ranks by words alone and a
//! notice says what is wrong and how to fix it, because an agent asking where something is
//! should get an answer, and the person who set the model should learn it is not used.

use std::path::Path;

use crate::notice::{Notice, SearchNotice};
use crate::session::config::Config;
use crate::session::context::Context;
use crate::symbols::embed::{Model, ModelError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ranking {
    Lexical,
    Embedding,
    Hybrid,
}

impl Ranking {
    const ALL: [Ranking; 3] = [Ranking::Hybrid, Ranking::Embedding, Ranking::Lexical];

    pub(super) fn as_str(self) -> &'static str {
        match self {
            Ranking::Lexical => "lexical",
            Ranking::Embedding => "embedding",
            Ranking::Hybrid => "hybrid",
        }
    }
}

/// What the settings come to for one search.
pub(super) struct Resolved {
    pub ranking: Ranking,
    /// The model, when the ranking uses one.
    pub model: Option<Model>,
    /// The model setting as written, when there is one.
    pub setting: Option<String>,
    /// Why the configured model is not used.
    pub error: Option<ModelError>,
}

/// Reads `[search]` and opens the model when the ranking needs it; problems become notices.
pub(super) fn resolve(
    config: &Config,
    workspace_root: &Path,
    state_dir: &Path,
    notices: &mut Vec<Notice>,
) -> Resolved {
    let section = config.section("search");
    let setting = |key: &str| section.and_then(|table| table.get(key));
    let mut asked = None;
    if let Some(value) = setting("ranking") {
        asked = Ranking::ALL
            .into_iter()
            .find(|r| Some(r.as_str()) == value.as_str());
        if asked.is_none() {
            notices.push(
                SearchNotice::UnknownRanking {
                    value: value.to_string(),
                }
                .into(),
            );
        }
    }
    let model_setting = match setting("model") {
        None => None,
        Some(toml::Value::String(path)) if !path.is_empty() => Some(path.clone()),
        Some(value) => {
            notices.push(
                SearchNotice::ModelNotAPath {
                    value: value.to_string(),
                }
                .into(),
            );
            None
        }
    };
    let mut resolved = Resolved {
        ranking: Ranking::Lexical,
        model: None,
        setting: model_setting.clone(),
        error: None,
    };
    let Some(path) = model_setting else {
        if let Some(ranking) = asked.filter(|r| *r != Ranking::Lexical) {
            notices.push(
                SearchNotice::RankingNeedsModel {
                    ranking: ranking.as_str(),
                }
                .into(),
            );
        }
        return resolved;
    };
    if asked == Some(Ranking::Lexical) {
        return resolved;
    }
    match Model::open(
        &path,
        &workspace_root.join(&path),
        &state_dir.join("index").join("model-stamp"),
    ) {
        Ok(model) => {
            resolved.ranking = asked.unwrap_or(Ranking::Hybrid);
            resolved.model = Some(model);
        }
        Err(error) => {
            notices.push(
                SearchNotice::ModelUnusable {
                    setting: path,
                    file: error.file.clone(),
                    problem: error.problem.clone(),
                }
                .into(),
            );
            resolved.error = Some(error);
        }
    }
    resolved
}

/// The session's mark that it was told search_code ranks by words alone.
const NO_MODEL_MARK: &str = "search-no-model-notice";

/// The notice, once per session, that no model is set and how to set one: the count line of
/// every search says it ranked by words; the way to rank by meaning is said once.
pub(super) fn no_model_notice(ctx: &Context) -> Option<Notice> {
    ctx.first_time(NO_MODEL_MARK)
        .then(|| SearchNotice::NoModel.into())
}
