//! grep_files' pattern, as a regex and as fixed strings, line by line and multiline.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (bool, bool, &str)| {
    let (fixed, multiline, pattern) = input;
    let _ = codesmith::tools::grep_files::compile_pattern(pattern, fixed, multiline);
});
