//! Globs for file_search's pattern and grep_files' include/exclude.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|glob: &str| {
    let _ = codesmith::fs::walk::check_glob_length(glob).and_then(|()| {
        codesmith::fs::walk::compile_glob(globset::GlobBuilder::new(glob).literal_separator(true))
    });
    let _ = codesmith::fs::walk::GlobFilter::new(&[glob.to_string()], std::path::Path::new("."));
});
