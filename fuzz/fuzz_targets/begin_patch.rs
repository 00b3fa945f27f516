//! apply_patch's `*** Begin Patch` parser: every input starts with the marker, so the fuzzer
//! spends its time inside that format.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|body: &str| {
    let text = format!("*** Begin Patch\n{body}");
    let _ = codesmith::tools::apply_patch::parse_text(&text, &|_| true);
});
