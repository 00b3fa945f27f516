use super::*;

fn level_and_text(hay: &str, search: &str) -> Option<(Level, Vec<String>)> {
    find(hay, search, "X").map(|f| {
        (
            f.level,
            f.hits.iter().map(|r| hay[r.clone()].to_string()).collect(),
        )
    })
}

#[test]
fn exact_first() {
    let (level, hits) = level_and_text("a b\na b\n", "a b").unwrap();
    assert_eq!(level, Level::Exact);
    assert_eq!(hits.len(), 2);
}

#[test]
fn indentation_whole_and_partial_lines() {
    let hay = "fn f() {\n    let x = 1;\n    let y = 2;\n}\n";
    let (level, hits) = level_and_text(hay, "let x = 1;\nlet y = 2;").unwrap();
    assert_eq!(level, Level::Indentation);
    assert_eq!(hits, vec!["    let x = 1;\n    let y = 2;"]);
    let (_, hits) = level_and_text(hay, "() {\n  let x").unwrap();
    assert_eq!(hits, vec!["() {\n    let x"]);
    assert!(level_and_text(hay, "  let q").is_none());
}

#[test]
fn punctuation_substring_maps_back_to_original_bytes() {
    let hay = "漢字 “quoted” — text\n";
    let (level, hits) = level_and_text(hay, "\"quoted\" - text").unwrap();
    assert_eq!(level, Level::Punctuation);
    assert_eq!(hits, vec!["“quoted” — text"]);
}

#[test]
fn line_numbers_must_land() {
    let hay = "a\nb\nc\n";
    let (level, hits) = level_and_text(hay, "     2│ b\n     3│ c").unwrap();
    assert_eq!(level, Level::LineNumbers);
    assert_eq!(hits, vec!["b\nc"]);
    assert!(level_and_text(hay, "     1│ b\n     2│ c").is_none());
    assert!(level_and_text(hay, "2→b\n4→c").is_none());
    let prose = "x\n12:30:00 meeting\n";
    assert!(level_and_text(prose, "12:30:00 meeting!").is_none());
}

#[test]
fn line_index_numbers() {
    let index = LineIndex::new("a\nb\n");
    assert_eq!(index.count(), 2);
    assert_eq!(index.number_at(0), 1);
    assert_eq!(index.number_at(2), 2);
}
