//! exec_shell's classifier over a command line. Classification only: nothing runs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|command: &str| {
    let Ok(dir) = tempfile::tempdir() else { return };
    let Ok(root) = dir.path().canonicalize() else {
        return;
    };
    let workspace = codesmith::fs::workspace::Workspace::new(root, Vec::new());
    let scope = codesmith::policy::scope::Scope::new(&workspace);
    let _ = codesmith::policy::classify::classify(command, &scope);
});
