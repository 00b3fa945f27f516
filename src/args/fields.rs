//! Unknown argument names. They stay an error (the contract says so), but the message names
//! every one of them and, where it is clear, the field each was meant to be: models carry
//! habits from other tool sets (`file_path`, `old_string`, `offset`, `cmd`), and camelCase or
//! kebab-case spellings of our own names.

use serde_json::{Map, Value};

use crate::error::{ToolError, UnknownField, UnknownFields};

/// Spellings other agent tool sets use, normalized (lowercase, no `_`/`-`/space), with the
/// fields they most likely mean here. The first target the tool has wins, so `limit` is
/// `max_lines` for read_file and `max_results` for grep_files.
const ALIASES: &[(&str, &[&str])] = &[
    ("filepath", &["path"]),
    ("filename", &["path"]),
    ("file", &["path"]),
    ("files", &["include", "path"]),
    ("targetfile", &["path"]),
    ("absolutepath", &["path"]),
    ("relativepath", &["path"]),
    ("notebookpath", &["path"]),
    ("dir", &["path"]),
    ("dirpath", &["path"]),
    ("directory", &["path"]),
    ("folder", &["path"]),
    ("searchpath", &["path"]),
    ("root", &["path"]),
    ("cwd", &["path"]),
    ("offset", &["start_line"]),
    ("line", &["start_line"]),
    ("start", &["start_line"]),
    ("startline", &["start_line"]),
    ("linestart", &["start_line"]),
    ("fromline", &["start_line"]),
    ("firstline", &["start_line"]),
    ("linenumber", &["start_line"]),
    ("limit", &["max_lines", "max_results", "max_bytes"]),
    ("lines", &["max_lines"]),
    ("numlines", &["max_lines"]),
    ("linecount", &["max_lines"]),
    ("maxline", &["max_lines"]),
    ("oldstring", &["search"]),
    ("oldstr", &["search"]),
    ("old", &["search"]),
    ("oldtext", &["search"]),
    ("find", &["search"]),
    ("searchtext", &["search"]),
    ("target", &["search"]),
    ("original", &["search"]),
    ("newstring", &["replace"]),
    ("newstr", &["replace"]),
    ("new", &["replace"]),
    ("newtext", &["replace"]),
    ("replacement", &["replace"]),
    ("replacewith", &["replace"]),
    ("all", &["replace_all"]),
    ("global", &["replace_all"]),
    ("contents", &["content"]),
    ("text", &["content"]),
    ("filetext", &["content"]),
    ("body", &["content"]),
    ("data", &["content"]),
    ("diff", &["patch"]),
    ("patchtext", &["patch"]),
    ("input", &["patch"]),
    ("cmd", &["command"]),
    ("script", &["command"]),
    ("shell", &["command"]),
    ("commandline", &["command"]),
    ("timeout", &["timeout_ms"]),
    ("timeoutmillis", &["timeout_ms"]),
    ("timeoutmilliseconds", &["timeout_ms"]),
    ("runinbackground", &["background"]),
    ("async", &["background"]),
    ("detach", &["background"]),
    ("query", &["pattern"]),
    ("regex", &["pattern"]),
    ("search", &["pattern"]),
    ("searchterm", &["pattern"]),
    ("term", &["pattern"]),
    ("name", &["pattern"]),
    ("glob", &["include", "pattern"]),
    ("includepattern", &["include"]),
    ("includes", &["include"]),
    ("filepattern", &["include", "pattern"]),
    ("excludepattern", &["exclude"]),
    ("excludes", &["exclude"]),
    ("ignore", &["exclude"]),
    ("ignorecase", &["case_insensitive"]),
    ("i", &["case_insensitive"]),
    ("literal", &["fixed_strings"]),
    ("fixedstring", &["fixed_strings"]),
    ("contextlines", &["context"]),
    ("c", &["context"]),
    ("mode", &["output_mode", "format"]),
    ("outputformat", &["output_mode", "format"]),
    ("maxcount", &["max_results"]),
    ("headlimit", &["max_results"]),
    ("numresults", &["max_results"]),
    ("maxdepth", &["depth"]),
    ("levels", &["depth"]),
    ("uri", &["url"]),
    ("link", &["url"]),
    ("href", &["url"]),
    ("maxlength", &["max_bytes"]),
    ("maxsize", &["max_bytes"]),
    ("id", &["task_id"]),
    ("taskid", &["task_id"]),
    ("shellid", &["task_id"]),
    ("bashid", &["task_id"]),
    ("jobid", &["task_id"]),
    ("preview", &["dry_run"]),
    ("dryrun", &["dry_run"]),
    ("nth", &["occurrence"]),
    ("index", &["occurrence"]),
    ("sortby", &["sort"]),
    ("order", &["sort"]),
];

/// Passes `map` on when every field is one the schema knows; otherwise the error names each
/// unknown field, what it probably meant, the valid fields and the corrected call.
pub(super) fn check_unknown(
    tool: &str,
    map: Map<String, Value>,
    schema: &Value,
) -> Result<Map<String, Value>, ToolError> {
    let valid = super::field_names(schema);
    let unknown: Vec<&String> = map.keys().filter(|key| !valid.contains(&key.as_str())).collect();
    if unknown.is_empty() {
        return Ok(map);
    }
    // A suggestion must name a field not already given, and no two unknowns the same one.
    let mut claimed: Vec<&str> = map.keys().map(String::as_str).collect();
    let mut fields = Vec::new();
    for key in &unknown {
        let meant = suggest(key, &valid).filter(|target| !claimed.contains(target));
        claimed.extend(meant);
        fields.push(UnknownField {
            name: key.to_string(),
            meant: meant.map(String::from),
        });
    }
    let mut corrected: Map<String, Value> = map
        .iter()
        .filter_map(|(key, value)| match fields.iter().find(|f| &f.name == key) {
            Some(UnknownField { meant: None, .. }) => None,
            Some(UnknownField { meant: Some(to), .. }) => Some((to.clone(), value.clone())),
            None => Some((key.clone(), value.clone())),
        })
        .collect();
    // The corrected call should work as written, so wrong types in it are fixed (and named) too.
    let wrong_types = super::coerce::fix(&mut corrected, schema);
    let example = super::example_call(&super::in_schema_order(corrected, schema));
    Err(ToolError::unknown_fields(&UnknownFields {
        tool: tool.to_string(),
        fields,
        valid: valid.iter().map(|v| v.to_string()).collect(),
        wrong_types,
        example,
    }))
}

/// The field `key` most likely meant: the same name in another case or separator style, a
/// spelling from another tool set, or a near miss by one or two letters.
fn suggest<'a>(key: &str, valid: &[&'a str]) -> Option<&'a str> {
    let wanted = normalize(key);
    if let Some(field) = valid.iter().find(|field| normalize(field) == wanted) {
        return Some(field);
    }
    let alias_target = ALIASES
        .iter()
        .find(|(alias, _)| *alias == wanted)
        .and_then(|(_, targets)| targets.iter().find_map(|t| valid.iter().find(|v| *v == t)));
    if let Some(field) = alias_target {
        return Some(field);
    }
    if wanted.len() < 4 {
        return None;
    }
    let scored: Vec<(usize, &str)> = valid
        .iter()
        .map(|field| (strsim::levenshtein(&wanted, &normalize(field)), *field))
        .filter(|(distance, _)| *distance <= 2)
        .collect();
    let best = scored.iter().map(|(distance, _)| *distance).min()?;
    let mut closest = scored.iter().filter(|(distance, _)| *distance == best);
    match (closest.next(), closest.next()) {
        (Some((_, field)), None) => Some(field),
        _ => None,
    }
}

/// Lowercase without `_`, `-`, `.` or spaces: `startLine`, `start-line` and `start_line` agree.
fn normalize(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | '.' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_follow_the_tool_fields() {
        let read = ["path", "start_line", "max_lines"];
        assert_eq!(suggest("file_path", &read), Some("path"));
        assert_eq!(suggest("offset", &read), Some("start_line"));
        assert_eq!(suggest("limit", &read), Some("max_lines"));
        assert_eq!(suggest("startLine", &read), Some("start_line"));
        assert_eq!(suggest("max-lines", &read), Some("max_lines"));
        assert_eq!(suggest("paht", &read), Some("path"));
        assert_eq!(suggest("bogus", &read), None);
        let grep = ["pattern", "path", "include", "max_results"];
        assert_eq!(suggest("limit", &grep), Some("max_results"));
        assert_eq!(suggest("glob", &grep), Some("include"));
        assert_eq!(suggest("glob", &["pattern", "path"]), Some("pattern"));
        assert_eq!(
            suggest("old_string", &["path", "search", "replace"]),
            Some("search")
        );
    }

    #[test]
    fn every_alias_is_normalized_and_names_a_real_field() {
        let fields: Vec<String> = crate::tools::REGISTRY
            .iter()
            .flat_map(|spec| {
                super::super::field_names(&(spec.schema)())
                    .into_iter()
                    .map(String::from)
                    .collect::<Vec<_>>()
            })
            .collect();
        for (alias, targets) in ALIASES {
            assert_eq!(*alias, normalize(alias), "{alias}");
            for target in *targets {
                assert!(fields.iter().any(|f| f == target), "{alias} -> {target}");
            }
        }
    }
}
