//! The languages outline and find_symbol understand: one row each in [`LANGUAGES`].
//!
//! Each row pairs a tree-sitter grammar with its own tags query (`TAGS_QUERY`, shipped with the
//! grammar crate) and a few patterns of ours placed before it. tree-sitter-tags keeps one tag
//! per name node, from the earliest pattern that matched, so a pattern here refines the
//! grammar's: a more precise kind (`struct` where the grammar says `class`), the whole
//! definition as the range (a C function's body, not only its declarator), and `impl` blocks
//! as containers. Only the definitions are taken from the tags; references are the
//! identifier uses of the parse tree (see [`super::identifiers`]). Adding a language is one row.

use std::sync::OnceLock;

use tree_sitter::Language;
use tree_sitter_tags::TagsConfiguration;

use crate::error::ToolError;
use crate::fs::workspace::WsPath;

pub struct LanguageSpec {
    /// The name shown to the model and stored in records (`rust`).
    pub name: &'static str,
    /// File-name endings, without the dot.
    pub extensions: &'static [&'static str],
    pub grammar: fn() -> Language,
    /// Patterns of ours, placed before the grammar's.
    pub extra_tags: &'static str,
    /// The grammar's own tags queries, in order.
    pub tags: fn() -> Vec<&'static str>,
}

const RUST_EXTRA: &str = r#"
(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.union
(type_item name: (type_identifier) @name) @definition.type
(trait_item name: (type_identifier) @name) @definition.trait
(function_signature_item name: (identifier) @name) @definition.method
(mod_item name: (identifier) @name body: (_)) @definition.module
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.static
(impl_item type: (type_identifier) @name) @definition.impl
(impl_item type: (generic_type type: (type_identifier) @name)) @definition.impl
(impl_item type: (scoped_type_identifier name: (type_identifier) @name)) @definition.impl
"#;

const PYTHON_EXTRA: &str = r#"
(class_definition body: (block (function_definition name: (identifier) @name) @definition.method))
(class_definition body: (block (decorated_definition definition: (function_definition name: (identifier) @name) @definition.method)))
"#;

const JAVASCRIPT_EXTRA: &str = r#"
"#;

const TYPESCRIPT_EXTRA: &str = r#"
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(interface_declaration name: (type_identifier) @name) @definition.interface
"#;

const GO_EXTRA: &str = r#"
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(const_spec name: (identifier) @name) @definition.constant
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
"#;

const JAVA_EXTRA: &str = r#"
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.record
(constructor_declaration name: (identifier) @name) @definition.constructor
"#;

const C_EXTRA: &str = r#"
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.prototype
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.union
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
"#;

const CPP_EXTRA: &str = r#"
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (identifier) @name))) @definition.method
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (qualified_identifier name: (identifier) @name)))) @definition.method
(declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.prototype
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @definition.prototype
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(namespace_definition name: (namespace_identifier) @name) @definition.namespace
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
"#;

pub static LANGUAGES: &[LanguageSpec] = &[
    LanguageSpec {
        name: "rust",
        extensions: &["rs"],
        grammar: || tree_sitter_rust::LANGUAGE.into(),
        extra_tags: RUST_EXTRA,
        tags: || vec![tree_sitter_rust::TAGS_QUERY],
    },
    LanguageSpec {
        name: "python",
        extensions: &["py", "pyi"],
        grammar: || tree_sitter_python::LANGUAGE.into(),
        extra_tags: PYTHON_EXTRA,
        tags: || vec![tree_sitter_python::TAGS_QUERY],
    },
    LanguageSpec {
        name: "javascript",
        extensions: &["js", "jsx", "mjs", "cjs"],
        grammar: || tree_sitter_javascript::LANGUAGE.into(),
        extra_tags: JAVASCRIPT_EXTRA,
        tags: || vec![tree_sitter_javascript::TAGS_QUERY],
    },
    LanguageSpec {
        name: "typescript",
        extensions: &["ts", "mts", "cts"],
        grammar: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        extra_tags: TYPESCRIPT_EXTRA,
        // TypeScript's tags query only adds to JavaScript's, as its grammar extends JavaScript's.
        tags: || {
            vec![
                tree_sitter_javascript::TAGS_QUERY,
                tree_sitter_typescript::TAGS_QUERY,
            ]
        },
    },
    LanguageSpec {
        name: "tsx",
        extensions: &["tsx"],
        grammar: || tree_sitter_typescript::LANGUAGE_TSX.into(),
        extra_tags: TYPESCRIPT_EXTRA,
        tags: || {
            vec![
                tree_sitter_javascript::TAGS_QUERY,
                tree_sitter_typescript::TAGS_QUERY,
            ]
        },
    },
    LanguageSpec {
        name: "go",
        extensions: &["go"],
        grammar: || tree_sitter_go::LANGUAGE.into(),
        extra_tags: GO_EXTRA,
        tags: || vec![tree_sitter_go::TAGS_QUERY],
    },
    LanguageSpec {
        name: "java",
        extensions: &["java"],
        grammar: || tree_sitter_java::LANGUAGE.into(),
        extra_tags: JAVA_EXTRA,
        tags: || vec![tree_sitter_java::TAGS_QUERY],
    },
    LanguageSpec {
        name: "c",
        extensions: &["c", "h"],
        grammar: || tree_sitter_c::LANGUAGE.into(),
        extra_tags: C_EXTRA,
        tags: || vec![tree_sitter_c::TAGS_QUERY],
    },
    LanguageSpec {
        name: "cpp",
        extensions: &["cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++", "ipp"],
        grammar: || tree_sitter_cpp::LANGUAGE.into(),
        extra_tags: CPP_EXTRA,
        tags: || vec![tree_sitter_cpp::TAGS_QUERY],
    },
];

/// The language of a file, by its name's ending (case-insensitive).
pub fn for_path(path: &std::path::Path) -> Option<&'static LanguageSpec> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    LANGUAGES
        .iter()
        .find(|lang| lang.extensions.contains(&ext.as_str()))
}

/// The supported languages with their endings, for messages and descriptions.
pub fn supported_text() -> String {
    LANGUAGES
        .iter()
        .map(|lang| format!("{} (.{})", lang.name, lang.extensions.join(", .")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The error for a file in a language without a grammar.
pub fn unsupported_language(path: &WsPath, tool: crate::tool_id::ToolId) -> ToolError {
    ToolError::unsupported_language(
        &path.file_ref(),
        tool,
        &supported_text(),
        LANGUAGES.iter().map(|l| l.name).collect(),
    )
}

/// A fingerprint of the language table, its queries and the record format: records made under
/// another one may hold other symbols, so an index made with it starts over.
pub fn fingerprint() -> u64 {
    let mut text = super::record::HEADER.to_string();
    for lang in LANGUAGES {
        text.push_str(lang.name);
        text.push_str(&lang.extensions.join(","));
        text.push_str(lang.extra_tags);
        for query in (lang.tags)() {
            text.push_str(query);
        }
    }
    xxhash_rust::xxh3::xxh3_64(text.as_bytes())
}

/// Every kind a definition (from the tags queries) or a reference can have, sorted.
pub fn kinds() -> Vec<String> {
    let mut kinds: std::collections::BTreeSet<String> =
        super::identifiers::KINDS.iter().map(|k| k.to_string()).collect();
    for lang in LANGUAGES {
        for query in std::iter::once(lang.extra_tags).chain((lang.tags)()) {
            for marker in ["@definition."] {
                for (at, _) in query.match_indices(marker) {
                    let rest = &query[at + marker.len()..];
                    let end = rest
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len());
                    if end > 0 {
                        kinds.insert(rest[..end].to_string());
                    }
                }
            }
        }
    }
    kinds.into_iter().collect()
}

impl LanguageSpec {
    /// The compiled tags configuration, built once per process and language.
    pub fn config(&'static self) -> Result<&'static TagsConfiguration, super::ExtractError> {
        static CONFIGS: OnceLock<Vec<OnceLock<Result<TagsConfiguration, tree_sitter_tags::Error>>>> =
            OnceLock::new();
        let slots = CONFIGS.get_or_init(|| LANGUAGES.iter().map(|_| OnceLock::new()).collect());
        let index = LANGUAGES
            .iter()
            .position(|lang| std::ptr::eq(lang, self))
            .ok_or(super::ExtractError::NotInTable { language: self.name })?;
        slots[index]
            .get_or_init(|| {
                let mut query = self.extra_tags.to_string();
                for part in (self.tags)() {
                    query.push('\n');
                    query.push_str(part);
                }
                TagsConfiguration::new((self.grammar)(), &query, "")
            })
            .as_ref()
            .map_err(|error| super::ExtractError::Query {
                language: self.name,
                error,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tags_query_compiles() {
        for lang in LANGUAGES {
            if let Err(err) = lang.config() {
                panic!("{err}");
            }
        }
    }

    #[test]
    fn the_tool_descriptions_name_every_language() {
        for description in [
            crate::tools::outline::SPEC.description,
            crate::tools::find_symbol::SPEC.description,
        ] {
            let lower = description.to_lowercase();
            for lang in LANGUAGES {
                let name = if lang.name == "cpp" { "c++" } else { lang.name };
                assert!(lower.contains(&format!("{name} (.")), "{name} missing");
            }
        }
    }

    #[test]
    fn extensions_are_unique_and_lowercase() {
        let mut seen = std::collections::HashSet::new();
        for lang in LANGUAGES {
            for ext in lang.extensions {
                assert_eq!(*ext, ext.to_ascii_lowercase());
                assert!(seen.insert(*ext), "{ext} twice");
            }
        }
    }
}
