//! apply_patch's unified diff parser (`git diff`, `diff -u`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (bool, &str)| {
    let (exists, text) = input;
    let _ = codesmith::tools::apply_patch::parse_text(text, &|_| exists);
});
