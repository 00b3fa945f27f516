//! The workspace guard: a path as a model writes it, resolved for reading and for writing.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|path: &str| {
    let Ok(dir) = tempfile::tempdir() else { return };
    let Ok(root) = dir.path().canonicalize() else {
        return;
    };
    let workspace = codesmith::fs::workspace::Workspace::new(root, Vec::new());
    let _ = workspace.resolve(path);
    let _ = workspace.resolve_for_write(path);
});
