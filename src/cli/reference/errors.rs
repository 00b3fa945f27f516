//! `docs/ERRORS.md`: every error code with its exit status, its meaning, the fields that come
//! with it in the envelope's `error` object, and what a caller does next.
//!
//! Every word comes from the types in `src/error/`: a new code or field cannot be added without
//! its documentation, and a field its code does not declare is refused in a debug build.

use crate::error::{ErrorCode, Field};

/// `docs/ERRORS.md`.
pub fn errors_md() -> String {
    let mut out = String::from(
        "# codesmith error codes\n\n\
         <!-- Generated from ErrorCode and Field (src/error.rs, src/error/) by \
         `CODESMITH_BLESS=1 cargo test --test main generated`; edit those, not this file. -->\n\n\
         A failed call prints `{\"ok\": false, \"tool\", \"output\", \"error\": {\"code\", \"message\", ...}}`; \
         `output` equals `error.message`, which says what went wrong and the way out. The set of \
         codes is closed and stable.\n\n\
         | exit status | meaning |\n|---|---|\n\
         | 0 | the tool succeeded (`ok: true`; a command's own non-zero exit is `data.exit_code`) |\n\
         | 1 | the tool refused or failed |\n\
         | 2 | usage: `invalid_arguments`, `unknown_tool`, malformed JSON, an unknown option |\n\
         | 3 | `approval_required`, `answer_required` |\n\n\
         | code | exit | meaning |\n|---|---|---|\n",
    );
    for code in ErrorCode::ALL {
        out.push_str(&format!(
            "| [`{name}`](#{name}) | {exit} | {meaning} |\n",
            name = code.as_str(),
            exit = code.exit_status(),
            meaning = code.meaning()
        ));
    }
    for code in ErrorCode::ALL {
        out.push_str(&format!(
            "\n## {}\n\nExit status {}. {}.\n\nFields besides `code` and `message`: {} (and those of \
             [any code](#fields)).\n\nNext: {}\n",
            code.as_str(),
            code.exit_status(),
            capitalized(code.meaning()),
            code.fields()
                .iter()
                .map(|field| format!("[`{0}`](#field-{0})", field.name()))
                .collect::<Vec<_>>()
                .join(", "),
            code.next_step()
        ));
    }
    out.push_str(
        "\n## Fields\n\nThe fields an `error` object may carry besides `code` and `message`, and the \
         codes that carry each.\n\n| field | meaning | codes |\n|---|---|---|\n",
    );
    for field in Field::ALL {
        if Field::ANY_CODE.contains(field) {
            out.push_str(&format!(
                "| <a id=\"field-{name}\"></a>`{name}` | {meaning} | any |\n",
                name = field.name(),
                meaning = field.meaning(),
            ));
            continue;
        }
        let codes: Vec<String> = ErrorCode::ALL
            .iter()
            .filter(|code| code.fields().contains(field))
            .map(|code| format!("`{}`", code.as_str()))
            .collect();
        out.push_str(&format!(
            "| <a id=\"field-{name}\"></a>`{name}` | {meaning} | {codes} |\n",
            name = field.name(),
            meaning = field.meaning(),
            codes = codes.join(", ")
        ));
    }
    out
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
