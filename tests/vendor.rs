//! The crates patched in from `vendor/` stay patched in, and their recorded diff against the
//! published crate stays true.
//!
//! Cargo ignores a `[patch]` entry whose version no package asks for, with only a warning: the
//! build then takes the published crate and the reason for the patch is silently lost. When the
//! patch is used, `Cargo.lock` (which cargo brings up to date before it builds these tests) holds
//! a single `web_atoms` package without a `source`; when it is not, the package comes from the
//! registry and the vendored one is listed under `[[patch.unused]]`.

use std::path::Path;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap_or_else(|err| panic!("{rel}: {err}"))
}

fn vendored_version() -> String {
    let manifest: toml::Table = read("vendor/web_atoms/Cargo.toml")
        .parse()
        .expect("vendored manifest");
    manifest["package"]["version"]
        .as_str()
        .expect("vendored version")
        .to_string()
}

#[test]
fn the_vendored_web_atoms_is_the_one_the_build_uses() {
    let lock: toml::Table = read("Cargo.lock").parse().expect("Cargo.lock");
    let packages = lock["package"].as_array().expect("packages");
    let web_atoms: Vec<&toml::Table> = packages
        .iter()
        .filter_map(toml::Value::as_table)
        .filter(|p| p["name"].as_str() == Some("web_atoms"))
        .collect();
    assert_eq!(
        web_atoms.len(),
        1,
        "the build takes more than one web_atoms: {web_atoms:?}"
    );
    let package = web_atoms[0];
    assert!(
        package.get("source").is_none(),
        "web_atoms comes from {:?}, not vendor/web_atoms: the [patch] is not used \
         (see vendor/README.md)",
        package["source"]
    );
    assert_eq!(package["version"].as_str(), Some(vendored_version().as_str()));
    let dependents = packages
        .iter()
        .filter_map(|p| p.get("dependencies")?.as_array())
        .filter(|deps| deps.iter().any(|d| d.as_str() == Some("web_atoms")))
        .count();
    assert!(dependents > 0, "nothing depends on web_atoms any more");
    let unused = lock
        .get("patch")
        .and_then(|p| p.get("unused"))
        .and_then(toml::Value::as_array);
    assert!(unused.is_none_or(Vec::is_empty), "unused patches: {unused:?}");
}

/// Every hunk of `vendor/web_atoms.patch` has its new side (context and added lines) at the
/// place it names in the vendored file, and the record is of the vendored version.
#[test]
fn the_recorded_web_atoms_diff_matches_the_vendored_files() {
    let patch = read("vendor/web_atoms.patch");
    let upstream = format!("--- web_atoms-{}/", vendored_version());
    assert!(
        patch.lines().any(|line| line.starts_with(&upstream)),
        "vendor/web_atoms.patch is not a diff against web_atoms {}; refresh it (vendor/README.md)",
        vendored_version()
    );
    let mut files = 0;
    let mut hunks = 0;
    let mut file = String::new();
    let mut lines: Vec<String> = Vec::new();
    let mut at = 0;
    for line in patch.lines() {
        if let Some(rel) = line.strip_prefix("+++ web_atoms/") {
            file = format!("vendor/web_atoms/{rel}");
            lines = read(&file).lines().map(str::to_string).collect();
            files += 1;
        } else if let Some(header) = line.strip_prefix("@@ -") {
            let new = header.split(" +").nth(1).expect("hunk header");
            let start: usize = new
                .split([',', ' '])
                .next()
                .and_then(|n| n.parse().ok())
                .expect("hunk start");
            at = start.saturating_sub(1);
            hunks += 1;
        } else if let Some(text) = line.strip_prefix(['+', ' ']) {
            assert_eq!(
                lines.get(at).map(String::as_str),
                Some(text),
                "`{file}` differs from vendor/web_atoms.patch at line {}; refresh the record \
                 (vendor/README.md)",
                at + 1
            );
            at += 1;
        }
    }
    assert_eq!(
        (files, hunks > 0),
        (3, true),
        "files or hunks missing from the record"
    );
}
