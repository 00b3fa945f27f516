//! The crate's own sources, read by the tests that hold rules no type can: where errors and
//! notices are worded, which modules name which (tests/layers.rs includes this file too).

use std::path::{Path, PathBuf};

/// `src/`.
pub(crate) fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, sorted, except those `skip` says to leave out (a directory
/// skipped is not entered).
pub(crate) fn rust_files(dir: &Path, skip: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read the sources")
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if skip(&path) {
            continue;
        }
        if path.is_dir() {
            out.extend(rust_files(&path, skip));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
    out
}

/// Every production source under `src/` outside `skip`, as (path, text without its test
/// modules); `*_tests.rs` and `tests.rs` files are tests and left out.
pub(crate) fn production_sources(skip: &dyn Fn(&Path) -> bool) -> Vec<(PathBuf, String)> {
    rust_files(&src(), skip)
        .into_iter()
        .filter(|path| {
            let name = path.to_string_lossy();
            !name.ends_with("_tests.rs") && !name.ends_with("/tests.rs")
        })
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("read a source");
            let code = production_code(&text).to_string();
            (path, code)
        })
        .collect()
}

/// The source without its test code: everything from the first `#[cfg(test)]` module on.
pub(crate) fn production_code(text: &str) -> &str {
    let mut cut = text.len();
    for marker in ["#[cfg(test)]\nmod ", "#[cfg(test)]\n#[path"] {
        if let Some(at) = text.find(marker) {
            cut = cut.min(at);
        }
    }
    &text[..cut]
}
