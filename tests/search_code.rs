//! search_code through the binary: ranking by description, the lexical notice, the incremental
//! index after an edit, path and glob, text files without a grammar, errors, and every surface.

use serde_json::{json, Value};

use crate::harness::Ws;
use crate::mcp_support::McpSession;

fn project() -> Ws {
    let ws = Ws::new();
    ws.write(
        "src/auth.rs",
        "use std::collections::HashMap;\n\n/// Verifies a user's identity against the stored password hash.\npub fn check_credentials(user: &str, password: &str) -> bool {\n    let stored = lookup(user);\n    stored == hash(password)\n}\n\nfn lookup(user: &str) -> String {\n    user.to_string()\n}\n\nfn hash(text: &str) -> String {\n    text.chars().rev().collect()\n}\n",
    );
    ws.write(
        "src/config.py",
        "import json\n\n\nclass Settings:\n    \"\"\"Settings read from disk.\"\"\"\n\n    def load_file(self, path):\n        \"\"\"Parse the configuration file at path.\"\"\"\n        with open(path) as handle:\n            return json.load(handle)\n",
    );
    ws.write(
        "web/retry.ts",
        "// Retries a failed request with exponential backoff.\nexport async function withBackoff(run: () => Promise<Response>, attempts = 3) {\n  for (let i = 0; i < attempts; i++) {\n    try { return await run(); } catch { await sleep(2 ** i * 100); }\n  }\n  throw new Error('gave up');\n}\n",
    );
    ws.write(
        "docs/deploy.md",
        "# Deploying\n\nBuild the release binary, then copy it to the server.\nRestart the service afterwards.\n",
    );
    for rel in ["src/auth.rs", "src/config.py", "web/retry.ts", "docs/deploy.md"] {
        age(&ws, rel);
    }
    ws
}

/// Moves a file's mtime an hour back, past the window in which the index hashes a file again
/// because a same-size rewrite could hide in one timestamp tick.
fn age(ws: &Ws, rel: &str) {
    let file = std::fs::File::options()
        .write(true)
        .open(ws.join(rel))
        .expect("open");
    file.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .expect("set mtime");
}

/// `path:start-end kind name` of each result.
fn results(out: &Value) -> Vec<String> {
    out["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            format!(
                "{}:{}-{} {} {}",
                r["path"].as_str().expect("path"),
                r["start_line"],
                r["end_line"],
                r["kind"].as_str().expect("kind"),
                r["name"].as_str().expect("name")
            )
            .trim_end()
            .to_string()
        })
        .collect()
}

fn first(ws: &Ws, query: &str) -> String {
    let out = ws.call("search_code", json!({ "query": query })).ok();
    results(out.data()).into_iter().next().unwrap_or_default()
}

#[test]
fn a_description_in_words_finds_the_definition_with_its_doc_comment() {
    let ws = project();
    assert_eq!(
        first(&ws, "verify the user identity"),
        "src/auth.rs:3-7 function check_credentials"
    );
    assert_eq!(
        first(&ws, "parsing a configuration file"),
        "src/config.py:7-10 method load_file"
    );
    assert_eq!(
        first(&ws, "retry failed requests with backoff"),
        "web/retry.ts:1-7 function withBackoff"
    );
    assert_eq!(
        first(&ws, "restart the server after deploying"),
        "docs/deploy.md:1-4 lines"
    );
    let out = ws
        .call(
            "search_code",
            json!({"query": "checkCredentials", "max_results": 1}),
        )
        .ok();
    assert_eq!(
        results(out.data()),
        ["src/auth.rs:3-7 function check_credentials"]
    );
    assert_eq!(out.data()["ranking"], "lexical");
    assert_eq!(out.data()["truncated"], false);
    let score = out.data()["results"][0]["score"].as_f64().expect("score");
    assert!(score > 0.0);
    assert_eq!(
        out.output(),
        format!(
            "1 of 1 matching regions for \"checkCredentials\" (4 files, 7 regions searched; ranked lexically (BM25 over code tokens); no embedding model is set ([search] model in .codesmith/config.toml), so words are matched, not meanings):\n\n\
             1. src/auth.rs:3-7  function check_credentials  (score {score:.2})\n     3│ /// Verifies a user's identity against the stored password hash.\n     4│ pub fn check_credentials(user: &str, password: &str) -> bool {{\n     5│     let stored = lookup(user);\n     6│     stored == hash(password)\n   read_file with path=\"src/auth.rs\" start_line=3 max_lines=5"
        )
    );
}

#[test]
fn an_edit_reindexes_only_that_file() {
    let ws = project();
    let cold = ws.call("search_code", json!({"query": "password"})).ok();
    assert_eq!(cold.data()["index"]["chunked"], 4);
    assert_eq!(cold.data()["index"]["rebuilt"], true);
    let warm = ws.call("search_code", json!({"query": "password"})).ok();
    assert_eq!(
        warm.data()["index"],
        json!({"files": 4, "hashed": 0, "chunked": 0, "removed": 0, "rebuilt": false, "embedded": 0})
    );
    assert_eq!(results(warm.data()), results(cold.data()));
    ws.write(
        "src/auth.rs",
        "/// Rotates the signing keys every night.\npub fn rotate_keys() {}\n",
    );
    let edited = ws
        .call("search_code", json!({"query": "rotate signing keys"}))
        .ok();
    assert_eq!(edited.data()["index"]["hashed"], 1);
    assert_eq!(edited.data()["index"]["chunked"], 1);
    assert_eq!(results(edited.data()), ["src/auth.rs:1-2 function rotate_keys"]);
    ws.write(
        "src/copy.rs",
        "/// Rotates the signing keys every night.\npub fn rotate_keys() {}\n",
    );
    let copied = ws
        .call("search_code", json!({"query": "rotate signing keys"}))
        .ok();
    assert_eq!(
        copied.data()["index"]["chunked"],
        0,
        "identical files share their chunks"
    );
    assert_eq!(
        results(copied.data()),
        [
            "src/auth.rs:1-2 function rotate_keys",
            "src/copy.rs:1-2 function rotate_keys"
        ]
    );
    let gone = ws.call("search_code", json!({"query": "password"})).ok();
    assert!(results(gone.data()).iter().all(|r| !r.starts_with("src/auth.rs")));
    std::fs::remove_file(ws.join("src/copy.rs")).expect("remove");
    let removed = ws
        .call("search_code", json!({"query": "rotate signing keys"}))
        .ok();
    assert_eq!(removed.data()["index"]["removed"], 1);
    assert_eq!(results(removed.data()), ["src/auth.rs:1-2 function rotate_keys"]);
}

#[test]
fn a_missing_chunk_file_is_made_again_and_a_torn_manifest_starts_over() {
    let ws = project();
    let before = results(
        ws.call("search_code", json!({"query": "password hash"}))
            .ok()
            .data(),
    );
    let chunks = ws.join(".codesmith/index/chunks");
    for dir in std::fs::read_dir(&chunks).expect("chunks") {
        std::fs::remove_dir_all(dir.expect("dir").path()).expect("remove");
    }
    let again = ws.call("search_code", json!({"query": "password hash"})).ok();
    assert_eq!(results(again.data()), before);
    std::fs::write(ws.join(".codesmith/index/search-manifest"), "garbage").expect("write");
    let rebuilt = ws.call("search_code", json!({"query": "password hash"})).ok();
    assert_eq!(rebuilt.data()["index"]["rebuilt"], true);
    assert_eq!(results(rebuilt.data()), before);
}

#[test]
fn path_and_glob_narrow_the_search() {
    let ws = project();
    let by_path = ws
        .call("search_code", json!({"query": "file", "path": "src"}))
        .ok();
    assert!(results(by_path.data()).iter().all(|r| r.starts_with("src/")));
    assert_eq!(by_path.data()["files_searched"], 2);
    let by_glob = ws
        .call(
            "search_code",
            json!({"query": "file path password", "glob": "*.py"}),
        )
        .ok();
    assert_eq!(results(by_glob.data()), ["src/config.py:7-10 method load_file"]);
    let none = ws
        .call("search_code", json!({"query": "kubernetes helm chart"}))
        .ok();
    assert_eq!(none.data()["results"], json!([]));
    assert!(none
        .output()
        .starts_with("No code region matches \"kubernetes helm chart\" under `.`"));
    assert!(none
        .output()
        .ends_with("grep_files with pattern=\"kubernetes|helm|chart\"."));
}

#[test]
fn bad_queries_paths_and_globs_are_refused_with_the_next_call() {
    let ws = project();
    let empty = ws
        .call("search_code", json!({"query": "the of ?"}))
        .err("invalid_arguments");
    assert!(empty
        .message()
        .contains("holds no word to search for. Describe the code in words or name it, e.g. call search_code with query=\"parse the config file\""));
    let missing = ws
        .call("search_code", json!({"query": "password", "path": "nowhere"}))
        .err("not_found");
    assert!(missing.message().contains("nowhere"));
    ws.call("search_code", json!({"query": "password", "glob": "[z-a]"}))
        .err("invalid_arguments")
        .contains("glob");
    ws.call("search_code", json!({"query": "password", "path": ".codesmith"}))
        .err("invalid_arguments");
    let clamped = ws
        .call("search_code", json!({"query": "password", "max_results": 500}))
        .ok();
    assert!(!clamped.notices().is_empty());
}

#[test]
fn every_surface_runs_it() {
    let ws = project();
    let by_alias = ws
        .run(&["search", "verify user identity", "--max-results", "1"])
        .ok();
    assert_eq!(
        by_alias.output(),
        ws.run(&["search_code", "verify user identity", "--max-results", "1"])
            .ok()
            .output()
    );
    let by_call = ws
        .run_stdin(
            &["call"],
            r#"{"name": "search_code", "arguments": "{\"query\": \"backoff\"}"}"#,
        )
        .ok();
    assert_eq!(results(by_call.data()), ["web/retry.ts:1-7 function withBackoff"]);
    let catalog = ws.raw(&["--tools", "read_only", "tools", "--format", "json"]);
    assert!(String::from_utf8_lossy(&catalog.stdout).contains("\"search_code\""));
    let mut mcp = McpSession::initialized(&ws, &[], "2025-06-18", json!({}));
    let result = mcp.call("search_code", json!({"query": "backoff"}));
    assert_eq!(result["isError"], false);
    assert_eq!(result["structuredContent"]["results"][0]["name"], "withBackoff");
    mcp.close();
}

/// Words of the tiny model, by the meaning they share: each group is one direction of the
/// embedding space, so a word finds the regions that use its group's other words.
const MEANINGS: [&[&str]; 4] = [
    &[
        "verifies",
        "identity",
        "password",
        "credentials",
        "authenticate",
        "login",
    ],
    &["parse", "configuration", "settings", "load", "preferences"],
    &["retries", "backoff", "exponential", "attempts", "resilient"],
    &["deploying", "release", "server", "restart", "service", "ship"],
];

/// Writes a static model (model2vec's format) to `dir`: a WordPiece tokenizer.json over the
/// words of [`MEANINGS`] and a safetensors matrix giving each word its group's direction,
/// turned by `twist` (another value makes another model with the same meanings).
fn tiny_model(ws: &Ws, dir: &str, twist: f32) {
    let mut vocab = serde_json::Map::new();
    let mut rows: Vec<[f32; 4]> = Vec::new();
    for special in ["[UNK]", "[CLS]", "[SEP]"] {
        vocab.insert(special.into(), json!(rows.len()));
        rows.push([0.0; 4]);
    }
    for (group, words) in MEANINGS.iter().enumerate() {
        for word in *words {
            vocab.insert((*word).into(), json!(rows.len()));
            let mut row = [twist; 4];
            row[group] = 1.0;
            rows.push(row);
        }
    }
    let tokenizer = json!({
        "normalizer": {"type": "BertNormalizer", "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "vocab": vocab}
    });
    ws.write(&format!("{dir}/tokenizer.json"), tokenizer.to_string());
    let data: Vec<u8> = rows.iter().flatten().flat_map(|v| v.to_le_bytes()).collect();
    let header =
        json!({"embeddings": {"dtype": "F32", "shape": [rows.len(), 4], "data_offsets": [0, data.len()]}})
            .to_string();
    let mut file = (header.len() as u64).to_le_bytes().to_vec();
    file.extend_from_slice(header.as_bytes());
    file.extend_from_slice(&data);
    ws.write(&format!("{dir}/model.safetensors"), file);
}

fn set_search(ws: &Ws, settings: &str) {
    ws.write(".codesmith/config.toml", format!("[search]\n{settings}\n"));
}

#[test]
fn a_model_finds_code_by_meaning_when_no_word_matches() {
    let ws = project();
    let words_only = ws
        .call("search_code", json!({"query": "authenticate login"}))
        .ok();
    assert_eq!(words_only.data()["ranking"], "lexical");
    assert_eq!(words_only.data()["results"], json!([]));
    assert!(words_only
        .output()
        .contains("no embedding model is set ([search] model in .codesmith/config.toml)"));
    assert_eq!(
        words_only.notices(),
        ["search_code ranks by words alone here: no embedding model is set. To find code by meaning too, set [search] model in .codesmith/config.toml to a model2vec model's directory (see docs/GUIDE.md, \"Search by meaning\"). (Said once per session.)"]
    );
    let again = ws
        .call("search_code", json!({"query": "authenticate login"}))
        .ok();
    assert!(again.notices().is_empty(), "said once per session");
    tiny_model(&ws, ".codesmith/models/tiny", 0.1);
    set_search(&ws, "model = \".codesmith/models/tiny\"");
    let hybrid = ws
        .call("search_code", json!({"query": "authenticate login"}))
        .ok();
    assert_eq!(hybrid.data()["ranking"], "hybrid");
    assert_eq!(
        first(&ws, "authenticate login"),
        "src/auth.rs:3-7 function check_credentials"
    );
    assert_eq!(first(&ws, "resilient"), "web/retry.ts:1-7 function withBackoff");
    assert_eq!(first(&ws, "ship it"), "docs/deploy.md:1-4 lines");
    assert_eq!(
        results(hybrid.data())[0],
        "src/auth.rs:3-7 function check_credentials"
    );
    assert!(
        hybrid.data()["results"][0]["similarity"]
            .as_f64()
            .expect("similarity")
            > 0.9
    );
    assert_eq!(hybrid.data()["model"]["path"], ".codesmith/models/tiny");
    assert_eq!(hybrid.data()["model"]["dimensions"], 4);
    assert!(hybrid
        .output()
        .contains("ranked by words and meaning: BM25 over code tokens fused with the similarity of embeddings from `.codesmith/models/tiny`"));
    // Both rankings alone: the words of a query still rank by BM25 with the model set.
    set_search(&ws, "model = \".codesmith/models/tiny\"\nranking = \"embedding\"");
    let by_meaning = ws.call("search_code", json!({"query": "preferences"})).ok();
    assert_eq!(by_meaning.data()["ranking"], "embedding");
    assert_eq!(
        results(by_meaning.data())[..2],
        [
            "src/config.py:4-6 class Settings",
            "src/config.py:7-10 method load_file"
        ]
    );
    set_search(&ws, "model = \".codesmith/models/tiny\"\nranking = \"lexical\"");
    let by_words = ws
        .call("search_code", json!({"query": "authenticate login"}))
        .ok();
    assert_eq!(by_words.data()["ranking"], "lexical");
    assert_eq!(by_words.data()["results"], json!([]));
    assert!(by_words.output().contains("as [search] ranking asks"));
    set_search(&ws, "model = \".codesmith/models/tiny\"\nranking = \"semantic\"");
    let unknown = ws
        .call("search_code", json!({"query": "authenticate login"}))
        .ok();
    assert_eq!(unknown.data()["ranking"], "hybrid");
    assert!(unknown.notices()[0].contains("[search] ranking = \"semantic\" is not a ranking"));
    // A query of words the model does not know ranks by words, and says so.
    set_search(&ws, "model = \".codesmith/models/tiny\"");
    let unknown_words = ws.call("search_code", json!({"query": "hash"})).ok();
    assert_eq!(unknown_words.data()["ranking"], "lexical");
    assert_eq!(
        results(unknown_words.data())[0],
        "src/auth.rs:13-15 function hash"
    );
    assert!(unknown_words.notices()[0].contains("knows none of the words of \"hash\""));
}

#[test]
fn an_edit_embeds_only_that_file_and_another_model_embeds_all_again() {
    let ws = project();
    tiny_model(&ws, "models/tiny", 0.1);
    set_search(&ws, "model = \"models/tiny\"");
    // The model's files are in the tree too: the tokenizer is text (one line, no region) and
    // the matrix binary, so both are walked and neither is embedded.
    let cold = ws.call("search_code", json!({"query": "login"})).ok();
    assert_eq!(cold.data()["index"]["embedded"], 4);
    let warm = ws.call("search_code", json!({"query": "login"})).ok();
    assert_eq!(warm.data()["index"]["embedded"], 0);
    assert_eq!(results(warm.data()), results(cold.data()));
    ws.write(
        "src/auth.rs",
        "/// Rotates the release keys of the server.\npub fn rotate_keys() {}\n",
    );
    let edited = ws.call("search_code", json!({"query": "ship"})).ok();
    assert_eq!(edited.data()["index"]["embedded"], 1);
    let mut found = results(edited.data());
    found.truncate(2);
    found.sort();
    assert_eq!(
        found,
        ["docs/deploy.md:1-4 lines", "src/auth.rs:1-2 function rotate_keys"]
    );
    let id = edited.data()["model"]["id"].as_str().expect("id").to_string();
    assert!(ws.exists(&format!(".codesmith/index/vectors/{id}")));
    tiny_model(&ws, "models/tiny", 0.2);
    let other = ws.call("search_code", json!({"query": "ship"})).ok();
    assert_eq!(other.data()["index"]["embedded"], 4);
    assert_ne!(other.data()["model"]["id"], json!(id));
    assert!(
        !ws.exists(&format!(".codesmith/index/vectors/{id}")),
        "the old model's vectors are removed"
    );
    // A torn vectors file: its regions rank by words this once, and the next call embeds it.
    let id = other.data()["model"]["id"].as_str().expect("id").to_string();
    let model_dir = ws.join(&format!(".codesmith/index/vectors/{id}"));
    let stored = std::fs::read_dir(&model_dir)
        .expect("vectors")
        .flat_map(|shard| std::fs::read_dir(shard.expect("shard").path()).expect("shard"))
        .map(|file| file.expect("file").path())
        .find(|path| std::fs::metadata(path).expect("stat").len() > 28)
        .expect("the vectors of a content with regions");
    std::fs::write(&stored, b"codesmith-vectors 2\n").expect("tear");
    let torn = ws.call("search_code", json!({"query": "ship"})).ok();
    assert_eq!(torn.data()["index"]["embedded"], 0);
    assert!(!stored.exists());
    let mended = ws.call("search_code", json!({"query": "ship"})).ok();
    assert_eq!(mended.data()["index"]["embedded"], 1);
}

#[test]
fn a_missing_or_broken_model_is_named_with_the_fix_and_words_still_rank() {
    let ws = project();
    let check = |settings: &str, file: &str, problem: &str| {
        set_search(&ws, settings);
        let out = ws.call("search_code", json!({"query": "password"})).ok();
        assert_eq!(out.data()["ranking"], "lexical", "{settings}");
        assert_eq!(
            results(out.data())[0],
            "src/auth.rs:3-7 function check_credentials"
        );
        let notice = &out.notices()[0];
        assert!(
            notice.contains(&format!("cannot be used: `{file}` {problem}")),
            "{notice}"
        );
        assert!(notice.contains("Put a model2vec model's model.safetensors and tokenizer.json there, or correct or remove the setting"));
        assert!(out
            .output()
            .contains("the embedding model cannot be used, see the notice"));
        assert!(out.data()["model"]["error"]
            .as_str()
            .expect("error")
            .contains(problem));
    };
    check("model = \"models/none\"", "models/none", "does not exist");
    ws.mkdir("models/empty");
    check(
        "model = \"models/empty/\"",
        "models/empty/tokenizer.json",
        "does not exist",
    );
    tiny_model(&ws, "models/tiny", 0.1);
    let matrix = ws.read("models/tiny/model.safetensors");
    ws.write("models/tiny/model.safetensors", &matrix[..matrix.len() - 10]);
    check(
        "model = \"models/tiny\"",
        "models/tiny/model.safetensors",
        "is cut short",
    );
    check(
        "model = \"models/tiny/model.safetensors\"",
        "models/tiny/model.safetensors",
        "is cut short",
    );
    ws.write("models/tiny/model.safetensors", b"\x05\0\0\0\0\0\0\0{oops");
    check(
        "model = \"models/tiny\"",
        "models/tiny/model.safetensors",
        "has a safetensors header that is not JSON",
    );
    ws.write(
        "models/tiny/tokenizer.json",
        "{\"model\": {\"type\": \"BPE\", \"vocab\": {}}}",
    );
    check(
        "model = \"models/tiny\"",
        "models/tiny/tokenizer.json",
        "holds a BPE tokenizer",
    );
    set_search(&ws, "model = 7");
    let typed = ws.call("search_code", json!({"query": "password"})).ok();
    assert_eq!(typed.data()["ranking"], "lexical");
    assert!(typed.notices()[0].contains("[search] model = 7 is not a path"));
    set_search(&ws, "modle = \"models/tiny\"\nranking = \"embedding\"");
    let misspelt = ws.call("search_code", json!({"query": "password"})).ok();
    assert_eq!(misspelt.data()["ranking"], "lexical");
    let notices = misspelt.notices().join("\n");
    assert!(
        notices.contains("[search] has no setting `modle`; it is ignored (the settings are model, ranking)")
    );
    assert!(
        notices.contains("[search] ranking = \"embedding\" needs an embedding model; ranked by words alone")
    );
}
