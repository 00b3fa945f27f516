//! exec_shell's classifier over a command line. Classification only: nothing runs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|command: &str| {
    let Ok(dir) = tempfile::tempdir() else { return };
    let Ok(root) = dir.path().canonicalize() else {
        return;
    };
    let workspace = codesmith::fs::workspace::Workspace::new(root, Vec::new());
    let scope = codesmith::tools::exec_shell::scope::Scope::new(&workspace);
    let _ = codesmith::tools::exec_shell::classify::classify(command, &scope);
});
