//! Ranking by meaning, and its fusion with the lexical ranking.
//!
//! Similarity is the cosine of the query's embedding and a region's. BM25 scores and cosines
//! are on scales that do not compare, so the hybrid ranking fuses ranks, not scores
//! (weighted reciprocal-rank fusion): a region earns `K / (K + rank)` from the BM25 list and
//! [`SEMANTIC_WEIGHT`] times that from the similarity list, so a region both lists rank well
//! beats the first of either, and a region only the model finds still enters the results.

use std::collections::HashMap;

use super::chunks::Chunk;
use super::rank::{sort, Scored};

// Tuned on bench/search_eval.py (just, ripgrep, click, cobra: 400 queries) with a static model
// distilled from all-MiniLM-L6-v2: the textbook K = 60 with equal weights lost 16 points of
// function-level recall@10 to BM25 alone (0.56 against 0.72), since that model ranks code well
// below BM25 on its own (0.38); K = 5 with the similarity list at 0.35 keeps BM25's recall
// (0.72, MRR 0.43) while a region no word of the query reaches can still be found.
/// Reciprocal-rank fusion's constant: the smaller, the more the first ranks of a list count.
const K: f64 = 5.0;
/// What a rank in the similarity list counts against the same rank in the BM25 list.
const SEMANTIC_WEIGHT: f64 = 0.35;
/// The fused score of a region first in both lists, which scales scores to at most 1.
const BOTH_FIRST: f64 = (1.0 + SEMANTIC_WEIGHT) * K / (K + 1.0);

/// How many of the regions nearest the query the similarity list holds: past that, a rank adds
/// less than a hundredth to a fused score, and a longer list only costs time.
const NEAREST: usize = 200;

/// The [`NEAREST`] regions of `files` by their similarity to the query (best first), keeping
/// those more similar than unrelated text (a positive cosine). `similarity_of(file, chunk)`
/// gives a region's cosine with the query, if it has a vector.
pub fn by_similarity(
    files: &[(String, Vec<Chunk>)],
    similarity_of: impl Fn(usize, usize) -> Option<f32>,
) -> Vec<Scored> {
    let mut nearest: Vec<(f32, usize, usize)> = Vec::new();
    for (f, (_, chunks)) in files.iter().enumerate() {
        for c in 0..chunks.len() {
            if let Some(similarity) = similarity_of(f, c).filter(|s| *s > 0.0) {
                nearest.push((similarity, f, c));
            }
        }
    }
    let by_similarity = |a: &(f32, usize, usize), b: &(f32, usize, usize)| {
        b.0.total_cmp(&a.0).then((a.1, a.2).cmp(&(b.1, b.2)))
    };
    if nearest.len() > NEAREST {
        nearest.select_nth_unstable_by(NEAREST, by_similarity);
        nearest.truncate(NEAREST);
    }
    let mut scored: Vec<Scored> = nearest
        .into_iter()
        .map(|(similarity, f, c)| Scored {
            path: files[f].0.clone(),
            index: c,
            chunk: files[f].1[c].clone(),
            score: f64::from(similarity),
            similarity: Some(f64::from(similarity)),
        })
        .collect();
    sort(&mut scored);
    scored
}

/// The regions of both rankings, by their weighted reciprocal ranks (a region first in both
/// scores 1). A region's similarity is kept for the record.
pub fn fuse(lexical: Vec<Scored>, semantic: Vec<Scored>) -> Vec<Scored> {
    let mut fused: HashMap<(String, usize), Scored> = HashMap::new();
    for (list, is_semantic) in [(lexical, false), (semantic, true)] {
        for (rank, hit) in list.into_iter().enumerate() {
            let weight = if is_semantic { SEMANTIC_WEIGHT } else { 1.0 };
            let share = weight * K / (K + rank as f64 + 1.0) / BOTH_FIRST;
            let similarity = hit.similarity;
            let entry = fused
                .entry((hit.path.clone(), hit.index))
                .or_insert(Scored { score: 0.0, ..hit });
            entry.score += share;
            if is_semantic {
                entry.similarity = similarity;
            }
        }
    }
    let mut out: Vec<Scored> = fused.into_values().collect();
    sort(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(path: &str, score: f64) -> Scored {
        Scored {
            path: path.to_string(),
            index: 0,
            chunk: Chunk {
                start_line: 1,
                end_line: 1,
                kind: "function".into(),
                name: path.into(),
                container: String::new(),
                length: 1,
                terms: Vec::new(),
            },
            score,
            similarity: None,
        }
    }

    #[test]
    fn a_region_both_lists_rank_beats_the_first_of_one() {
        let lexical = vec![hit("a", 9.0), hit("b", 5.0), hit("c", 1.0)];
        let semantic = vec![hit("d", 0.9), hit("b", 0.8), hit("e", 0.1)];
        let fused = fuse(lexical, semantic);
        let order: Vec<&str> = fused.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(order, ["b", "a", "c", "d", "e"]);
        assert!((fused[1].score - 1.0 / (1.0 + SEMANTIC_WEIGHT)).abs() < 1e-9);
        let both_first = fuse(vec![hit("a", 1.0)], vec![hit("a", 0.5)]);
        assert!((both_first[0].score - 1.0).abs() < 1e-9);
    }

    #[test]
    fn similarity_ranks_the_nearest_vector_first_and_drops_the_unrelated() {
        let files = vec![
            ("x.rs".to_string(), vec![hit("x", 0.0).chunk, hit("y", 0.0).chunk]),
            ("z.rs".to_string(), vec![hit("z", 0.0).chunk]),
        ];
        let vectors: [&[f32]; 3] = [&[1.0, 0.0], &[0.6, 0.8], &[-1.0, 0.0]];
        let query = [0.0f32, 1.0];
        let scored = by_similarity(&files, |f, c| {
            Some(vectors[f * 2 + c].iter().zip(&query).map(|(a, b)| a * b).sum())
        });
        assert_eq!(scored.len(), 1);
        assert_eq!((scored[0].path.as_str(), scored[0].index), ("x.rs", 1));
        assert_eq!(scored[0].similarity, Some(f64::from(0.8f32)));
    }
}
