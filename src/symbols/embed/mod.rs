//! Embeddings from a static model, in process: a text is cut into the tokenizer's pieces
//! ([`wordpiece`]), each piece's row of the embedding matrix ([`safetensors`]) is added up, and
//! the sum is scaled to unit length, so two texts compare by the cosine of their vectors. This
//! is the model2vec format (`model.safetensors` with one matrix, `tokenizer.json`), which runs
//! at the speed of a table lookup on any CPU; a transformer would need a runtime.
//!
//! A model is identified by the hash of both its files ([`stamp`]), and every stored vector is
//! kept under that identity, so a changed model re-embeds everything and nothing else does.

mod safetensors;
mod stamp;
mod wordpiece;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use safetensors::Matrix;
use wordpiece::WordPiece;

/// Tokens of a text that count: a region's first 512, as model2vec's own encoder cuts. The
/// head of a definition (its doc comment, signature) says most of what it is about, and the
/// cut bounds the work per region.
const MAX_TOKENS: usize = 512;
/// Matrix rows an embedder keeps before it starts over: enough for the common words of a
/// tree, and a bound on memory per thread (8 MB at 256 dimensions) whatever the model's size.
const MAX_CACHED_ROWS: usize = 8192;
/// Changes whenever the way a text becomes a vector (or is stored) changes, so stored vectors
/// are remade.
const FORMAT: &str = "codesmith-embed 2";

const MATRIX_FILE: &str = "model.safetensors";
const TOKENIZER_FILE: &str = "tokenizer.json";

/// A static embedding model, ready to embed.
pub struct Model {
    /// Identifies the model's bytes and the embedding rules; keys the stored vectors.
    pub id: u64,
    pub dims: usize,
    matrix: Matrix,
    tokenizer: WordPiece,
}

/// Why a configured model cannot be used: the file at fault, as the setting names it, and what
/// is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelError {
    pub file: String,
    pub problem: String,
}

impl Model {
    /// Opens the model `setting` names: a directory holding [`MATRIX_FILE`] and
    /// [`TOKENIZER_FILE`], or the matrix file itself with the tokenizer beside it. `abs` is the
    /// setting resolved; `stamp_path` caches the hash of the matrix between calls.
    pub fn open(setting: &str, abs: &Path, stamp_path: &Path) -> Result<Model, ModelError> {
        if let Err(err) = std::fs::metadata(abs) {
            return Err(ModelError {
                file: setting.to_string(),
                problem: missing(&err),
            });
        }
        let (matrix_path, tokenizer_path, shown_dir) = if abs.is_dir() {
            (
                abs.join(MATRIX_FILE),
                abs.join(TOKENIZER_FILE),
                format!("{}/", setting.trim_end_matches('/')),
            )
        } else {
            let dir = abs.parent().map(Path::to_path_buf).unwrap_or_default();
            let shown = match setting.rfind('/') {
                Some(at) => setting[..=at].to_string(),
                None => String::new(),
            };
            (abs.to_path_buf(), dir.join(TOKENIZER_FILE), shown)
        };
        let shown = |path: &PathBuf| {
            if path == abs {
                setting.to_string()
            } else {
                format!(
                    "{shown_dir}{}",
                    path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()
                )
            }
        };
        let fail = |path: &PathBuf, problem: String| ModelError {
            file: shown(path),
            problem,
        };
        let tokenizer_text =
            std::fs::read_to_string(&tokenizer_path).map_err(|err| fail(&tokenizer_path, missing(&err)))?;
        let tokenizer = WordPiece::parse(&tokenizer_text)
            .map_err(|problem| fail(&tokenizer_path, problem.to_string()))?;
        let file = std::fs::File::open(&matrix_path).map_err(|err| fail(&matrix_path, missing(&err)))?;
        let meta = file.metadata().map_err(|err| fail(&matrix_path, missing(&err)))?;
        if !meta.is_file() {
            return Err(fail(&matrix_path, "is not a regular file".to_string()));
        }
        let matrix_hash = stamp::hash(&file, &meta, &matrix_path, stamp_path)
            .map_err(|err| fail(&matrix_path, format!("could not be read ({err})")))?;
        let matrix =
            Matrix::open(file, meta.len()).map_err(|problem| fail(&matrix_path, problem.to_string()))?;
        if u64::from(tokenizer.max_id) >= matrix.rows {
            return Err(fail(
                &matrix_path,
                format!(
                    "has {} rows, but {} gives ids up to {}: the two files are of different models",
                    matrix.rows,
                    shown(&tokenizer_path),
                    tokenizer.max_id
                ),
            ));
        }
        let id = xxhash_rust::xxh3::xxh3_64(
            format!(
                "{FORMAT} {MAX_TOKENS} {matrix_hash:016x} {:016x}",
                xxhash_rust::xxh3::xxh3_64(tokenizer_text.as_bytes())
            )
            .as_bytes(),
        );
        Ok(Model {
            id,
            dims: matrix.dims,
            matrix,
            tokenizer,
        })
    }

    /// An embedder with its own cache of matrix rows (one per thread).
    pub fn embedder(&self) -> Embedder<'_> {
        Embedder {
            model: self,
            rows: HashMap::new(),
            buffer: Vec::new(),
        }
    }
}

fn missing(err: &std::io::Error) -> String {
    match err.kind() {
        std::io::ErrorKind::NotFound => "does not exist".to_string(),
        std::io::ErrorKind::IsADirectory => "is a directory, not a file".to_string(),
        _ => format!("could not be read ({err})"),
    }
}

pub struct Embedder<'a> {
    model: &'a Model,
    /// Rows read so far; `None` for a row that could not be read.
    rows: HashMap<u32, Option<Box<[f32]>>>,
    buffer: Vec<u8>,
}

impl Embedder<'_> {
    /// The unit vector of `text`, or `None` when none of its words is in the vocabulary.
    pub fn embed(&mut self, text: &str) -> Option<Vec<f32>> {
        let dims = self.model.dims;
        let mut sum = vec![0f32; dims];
        let mut ids = Vec::new();
        self.model.tokenizer.ids(text, MAX_TOKENS, |id| ids.push(id));
        for id in ids {
            if self.rows.len() >= MAX_CACHED_ROWS && !self.rows.contains_key(&id) {
                self.rows.clear();
            }
            let matrix = &self.model.matrix;
            let buffer = &mut self.buffer;
            let row = self.rows.entry(id).or_insert_with(|| {
                let mut row = vec![0f32; dims];
                matrix
                    .add_row(id, &mut row, buffer)
                    .then(|| row.into_boxed_slice())
            });
            if let Some(row) = row {
                for (s, r) in sum.iter_mut().zip(row.iter()) {
                    *s += r;
                }
            }
        }
        let norm = sum.iter().map(|v| v * v).sum::<f32>().sqrt();
        if !norm.is_normal() {
            return None;
        }
        sum.iter_mut().for_each(|v| *v /= norm);
        Some(sum)
    }
}
