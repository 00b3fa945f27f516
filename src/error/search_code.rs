//! search_code's refusals.

use super::{Field, FileRef, ToolError};

impl ToolError {
    /// search_code with a query that holds no word to search for.
    pub fn empty_search_query(query_arg: &str) -> ToolError {
        ToolError::invalid(format!(
            "query {query_arg} holds no word to search for. Describe the code in words or name it, \
             e.g. call search_code with query=\"parse the config file\"; to match exact text use \
             grep_files."
        ))
        .with(Field::FieldName, "query")
    }

    /// search_code pointed outside the workspace (a trusted root).
    pub fn search_outside_workspace(file: &FileRef, pattern_arg: &str) -> ToolError {
        ToolError::invalid(format!(
            "`{}` is outside the workspace; search_code indexes the workspace only. Search there \
             with grep_files, e.g. pattern={pattern_arg} path={}.",
            file.display, file.call_arg
        ))
    }
}
