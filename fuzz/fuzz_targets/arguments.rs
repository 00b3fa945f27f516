//! Arguments as a model sends them: JSON text into the arguments of a tool, and the mistakes
//! explained when it does not parse.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = codesmith::args::find_mistake(text);
    if let Ok(value) = codesmith::args::parse_json_text("edit_file", None, text) {
        let _ = codesmith::args::from_value::<codesmith::tools::edit_file::EditFileArgs>(
            "edit_file",
            value,
            codesmith::tools::edit_file::SPEC.schema,
        );
    }
});
