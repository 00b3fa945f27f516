//! The layers of `src/` point down (see ARCHITECTURE.md): a module names only modules of a lower
//! layer or of its own folder, no module outside `src/tools/` names a tool module (the registry
//! in `src/tools/mod.rs` is how the front ends reach the tools), and no tool names another. Read from the sources,
//! so a new `use` that reaches up fails here before review.
//!
//! Test code (`#[cfg(test)]` modules, `*_tests.rs` and `tests.rs` files) is not checked: a unit test may
//! look at a tool's description from the module it documents.

use std::collections::BTreeSet;
use std::path::Path;

// The crate's one reader of its own sources; not every function is needed here.
#[allow(dead_code, reason = "shared with the unit tests, which use the rest")]
#[path = "../src/source_tests.rs"]
mod source_tests;
use source_tests::{production_code, rust_files, src};

/// Each top-level module of the crate and its layer, lowest first. A module may name modules of
/// a lower layer; modules of one layer are independent of each other.
const LAYERS: &[(&str, u8)] = &[
    // Foundations: plain types every layer uses. Which tool a call runs, first: errors name it.
    // Errors and notices, the two kinds of message, side by side.
    ("tool_id", 0),
    ("error", 1),
    ("notice", 1),
    ("output", 2),
    ("terminal", 2),
    ("deep_stack", 2),
    // Services without state: arguments, files and paths, the kernel sandbox.
    ("args", 3),
    ("fs", 3),
    ("sandbox", 3),
    // What outlives a call, and the shell policy (what a command line does, read before it
    // runs), which stands on the paths alone.
    ("session", 4),
    ("policy", 4),
    // Services that read the session (policy, approvals, the symbol index's cache).
    ("net", 5),
    ("symbols", 5),
    // The tools and their registry.
    ("tools", 6),
    // What both front ends do with a call: resolve it, run the tool, answer with the envelope;
    // the catalogs and the commands that are not tools.
    ("dispatch", 7),
    // The front ends, side by side: neither names the other.
    ("cli", 8),
    ("mcp", 8),
];

/// Arrows that still point up, each with the reason it stays.
const EXCEPTIONS: &[(&str, &str, &str)] = &[];

/// Every `crate::a::b` the code names, as (a, b); a group `crate::a::{b, c::d}` names each.
fn crate_paths(code: &str) -> BTreeSet<(String, String)> {
    let ident = |text: &str| -> String {
        text.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        // `$crate::` in a macro, `codesmith_crate::`: not this crate's modules.
        let before = &code[..at];
        if before.ends_with('$') || before.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        let first = ident(rest);
        let after_first = &rest[first.len()..];
        let Some(inner) = after_first.strip_prefix("::") else {
            found.insert((first, String::new()));
            continue;
        };
        if let Some(group) = inner.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for item in group.split(',') {
                found.insert((first.clone(), ident(item)));
            }
        } else {
            found.insert((first, ident(inner)));
        }
    }
    found
}

/// The modules under `src/tools/` that are tools: those that declare a `SPEC`.
fn tool_modules() -> BTreeSet<String> {
    let dir = src().join("tools");
    let files = rust_files(&dir, &|_| false);
    let mut tools = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read");
        if !text.contains("pub const SPEC: ToolSpec") {
            continue;
        }
        let rel = file.strip_prefix(&dir).expect("under tools");
        let first = rel.components().next().expect("component");
        let name = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        tools.insert(name);
    }
    tools
}

fn layer_of(module: &str) -> Option<u8> {
    LAYERS
        .iter()
        .find(|(name, _)| *name == module)
        .map(|(_, layer)| *layer)
}

/// The top-level module a source file belongs to (`src/fs/walk.rs` → `fs`).
fn module_of(rel: &Path) -> String {
    let first = rel.components().next().expect("component");
    first
        .as_os_str()
        .to_string_lossy()
        .trim_end_matches(".rs")
        .to_string()
}

#[test]
fn every_module_names_only_lower_layers_and_no_tool_module_from_outside_tools() {
    let root = src();
    let tools = tool_modules();
    assert!(
        tools.contains("read_file") && tools.contains("exec_shell"),
        "{tools:?}"
    );
    let files = rust_files(&root, &|_| false);
    let mut problems = Vec::new();
    for file in files {
        let rel = file.strip_prefix(&root).expect("under src").to_path_buf();
        let name = rel.to_string_lossy().to_string();
        if name == "lib.rs" || name == "main.rs" || name.ends_with("_tests.rs") || name.ends_with("/tests.rs")
        {
            continue;
        }
        let own = module_of(&rel);
        let Some(own_layer) = layer_of(&own) else {
            problems.push(format!(
                "src/{name}: module `{own}` has no layer in tests/layers.rs"
            ));
            continue;
        };
        let text = std::fs::read_to_string(&file).expect("read");
        for (target, inner) in crate_paths(production_code(&text)) {
            if target == own {
                // Inside src/tools/, a tool names no other tool: what two tools share moves
                // below both (or into the registry's own module).
                let own_tool = rel.components().nth(1).map(|c| {
                    c.as_os_str()
                        .to_string_lossy()
                        .trim_end_matches(".rs")
                        .to_string()
                });
                if own == "tools" && tools.contains(&inner) && own_tool.is_some_and(|t| t != inner) {
                    problems.push(format!(
                        "src/{name} names another tool module, `crate::tools::{inner}`"
                    ));
                }
                continue;
            }
            let excepted = EXCEPTIONS
                .iter()
                .any(|(path, to, _)| *path == format!("src/{name}") && *to == target);
            if target == "tools" && tools.contains(&inner) {
                problems.push(format!(
                    "src/{name} names the tool module `crate::tools::{inner}`; reach tools through \
                     the registry, or move what both need below src/tools/"
                ));
                continue;
            }
            match layer_of(&target) {
                Some(layer) if layer < own_layer || excepted => {}
                Some(layer) => problems.push(format!(
                    "src/{name} (layer {own_layer}, `{own}`) names `crate::{target}` (layer \
                     {layer}); arrows point down: move the shared part below both"
                )),
                None => problems.push(format!("src/{name} names `crate::{target}`, which has no layer")),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_layer_table_lists_every_top_level_module_of_lib_rs() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("lib.rs");
    let declared: BTreeSet<&str> = lib
        .lines()
        .filter_map(|line| line.strip_prefix("pub mod "))
        .map(|rest| rest.trim_end_matches(';'))
        .collect();
    let listed: BTreeSet<&str> = LAYERS.iter().map(|(name, _)| *name).collect();
    assert_eq!(declared, listed);
}

#[test]
fn the_checker_sees_an_upward_arrow_and_a_tool_import() {
    let code = "use crate::tools::read_file::SPEC;\nuse crate::tools::{self, exec_shell::run};\nuse crate::fs::walk;\n#[cfg(test)]\nmod tests { use crate::cli::x; }";
    let paths = crate_paths(production_code(code));
    assert!(paths.contains(&("tools".to_string(), "read_file".to_string())));
    assert!(paths.contains(&("tools".to_string(), "exec_shell".to_string())));
    assert!(paths.contains(&("fs".to_string(), "walk".to_string())));
    assert!(!paths.iter().any(|(target, _)| target == "cli"));
}
