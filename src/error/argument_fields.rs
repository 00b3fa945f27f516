//! Arguments whose fields do not fit the tool's schema: names it does not know, values of the
//! wrong type. The caller gathers the facts (the fields, what each meant, the example call with
//! everything fixed); the sentences are written here.

use serde_json::{Map, Value};

use super::{Field, ToolError};

/// What a field takes, for a value of the wrong type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// One of the listed values, each quoted as JSON.
    OneOf(Vec<String>),
    /// A whole number in the schema's range (either bound may be open).
    WholeNumber {
        min: Option<i64>,
        max: Option<i64>,
    },
    Bool,
    Str,
    StrOrList,
    Number,
}

impl std::fmt::Display for Expected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expected::OneOf(listed) => write!(f, "one of {}", listed.join(", ")),
            Expected::WholeNumber { min, max } => match (min, max) {
                (Some(min), Some(max)) => write!(f, "a whole number from {min} to {max}"),
                (Some(min), None) => write!(f, "a whole number from {min}"),
                (None, Some(max)) => write!(f, "a whole number up to {max}"),
                (None, None) => f.write_str("a whole number"),
            },
            Expected::Bool => f.write_str("true or false"),
            Expected::Str => f.write_str("a string"),
            Expected::StrOrList => f.write_str("a string or a list of strings"),
            Expected::Number => f.write_str("a number"),
        }
    }
}

/// A field whose value has the wrong type: "`start_line` must be a whole number from 1 (got
/// \"abc\")".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{field}` must be {expected} (got {got})")]
pub struct WrongType {
    pub field: String,
    pub expected: Expected,
    /// The value as the caller wrote it, as JSON (a string shows its quotes).
    pub got: String,
}

/// A call that works, written as a message shows it: `{"path": "f", "start_line": 2}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExampleCall {
    pub call: String,
    /// Whether long strings were cut in `call`, which the message then says.
    pub shortened: bool,
}

impl ExampleCall {
    fn shortened(&self) -> &'static str {
        if self.shortened {
            " (long values shortened)"
        } else {
            ""
        }
    }
}

/// A field name the tool does not know, and the field it most likely meant (`None` when no
/// field is clear, or that field is given already or meant by another unknown one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownField {
    pub name: String,
    pub meant: Option<String>,
}

/// Arguments with names the tool does not know.
#[derive(Debug, Clone)]
pub struct UnknownFields {
    pub tool: String,
    /// In the order they were given; never empty.
    pub fields: Vec<UnknownField>,
    /// The tool's fields, in schema order.
    pub valid: Vec<String>,
    /// Values of the wrong type among the rest, fixed in the example call.
    pub wrong_types: Vec<WrongType>,
    /// The call with every unknown field renamed or dropped and every wrong value fixed.
    pub example: ExampleCall,
}

/// The problems as one clause: "`a` must be ...; `b` must be ...".
fn sentences(problems: &[WrongType]) -> String {
    problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// `a`, `a and b`, `a, b and c`.
fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// How the corrected call differs: fields renamed, dropped, and with values fixed.
fn how_corrected(report: &UnknownFields) -> Vec<String> {
    let mut how = Vec::new();
    let renamed: Vec<String> = report
        .fields
        .iter()
        .filter_map(|f| {
            f.meant
                .as_ref()
                .map(|to| format!("`{}` renamed to `{to}`", f.name))
        })
        .collect();
    if !renamed.is_empty() {
        how.push(format!("with {}", join_and(&renamed)));
    }
    let without: Vec<String> = report
        .fields
        .iter()
        .filter(|f| f.meant.is_none())
        .map(|f| format!("`{}`", f.name))
        .collect();
    if !without.is_empty() {
        how.push(format!("without {}", join_and(&without)));
    }
    let fixed: Vec<String> = report
        .wrong_types
        .iter()
        .map(|p| format!("`{}`", p.field))
        .collect();
    if !fixed.is_empty() {
        how.push(format!("with {} fixed", join_and(&fixed)));
    }
    how
}

impl ToolError {
    /// Field names the tool does not know: each named with the field it probably meant, the
    /// valid fields, and the corrected call.
    pub fn unknown_fields(report: &UnknownFields) -> ToolError {
        let named: Vec<String> = report
            .fields
            .iter()
            .map(|f| match &f.meant {
                Some(target) => format!("`{}` (did you mean `{target}`?)", f.name),
                None => format!("`{}`", f.name),
            })
            .collect();
        let also = if report.wrong_types.is_empty() {
            String::new()
        } else {
            format!(" Also, {}.", sentences(&report.wrong_types))
        };
        let message = format!(
            "unknown field{} {} for {}; valid fields: {}.{also} Call again {}: {}{}.",
            if report.fields.len() == 1 { "" } else { "s" },
            join_and(&named),
            report.tool,
            report.valid.join(", "),
            how_corrected(report).join(", "),
            report.example.call,
            report.example.shortened()
        );
        let suggestions: Map<String, Value> = report
            .fields
            .iter()
            .filter_map(|f| {
                f.meant
                    .as_ref()
                    .map(|to| (f.name.clone(), Value::from(to.as_str())))
            })
            .collect();
        let first = report.fields.first().map_or("", |f| f.name.as_str());
        ToolError::invalid(message)
            .with(Field::FieldName, first)
            .with(
                Field::Unknown,
                report
                    .fields
                    .iter()
                    .map(|f| Value::from(f.name.as_str()))
                    .collect::<Vec<_>>(),
            )
            .with(Field::Suggestions, suggestions)
    }

    /// Values of the wrong type (`problems`, never empty), with a call that fixes them all.
    pub fn wrong_types(problems: &[WrongType], example: &ExampleCall) -> ToolError {
        let first = problems.first().map_or("", |p| p.field.as_str());
        ToolError::invalid(format!(
            "{}. Example: {}{}",
            sentences(problems),
            example.call,
            example.shortened()
        ))
        .with(Field::FieldName, first)
    }

    /// The arguments object turned out not to be one after all.
    pub fn arguments_must_be_object(tool: &str) -> ToolError {
        ToolError::invalid(format!("the arguments for {tool} must be a JSON object"))
    }
}
