//! References as identifier uses: every identifier node of a file's parse tree, labelled by
//! where it stands (`call`, `import`, `type`, `field`, `other`).
//!
//! The grammars' tags queries capture a few reference shapes (a plain call, a type in one
//! position), so a rename guided by them misses qualified calls (`Compiler::compile(...)`),
//! method calls, uses in macro arguments and most type uses. Every leaf the grammar calls an
//! identifier is a use of its name, and comments and string contents never hold one, so
//! walking the tree finds each use a word search would find in code and none it would find
//! in text. The label comes from the nodes around the identifier; it describes, it does not
//! filter. Where a grammar keeps code as opaque text (a C `#define` body), the words of that
//! text are taken as uses.

use tree_sitter::{Node, Parser, Tree};

/// One use of a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Use {
    pub name: String,
    /// 1-based.
    pub line: u32,
    pub kind: &'static str,
}

/// The labels, most specific first: when one line uses a name twice, the first label wins.
pub const KINDS: [&str; 5] = ["import", "call", "type", "field", "other"];

/// Parses `source`; `None` when the grammar cannot be loaded or parsing gives up.
pub fn parse(language: &tree_sitter::Language, source: &[u8]) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(language).ok()?;
    parser.parse(source, None)
}

/// Every identifier use in `tree`, one per name, line and label, in order of position;
/// identifiers whose byte range is in `skip` (the names of definitions) are left out.
pub fn uses(tree: &Tree, source: &[u8], skip: &std::collections::HashSet<(usize, usize)>) -> Vec<Use> {
    let mut found = Vec::new();
    let mut cursor = tree.walk();
    // The depth of the import construct the walk is inside, tracked on the way down: asking
    // each identifier for its ancestors costs a walk from the root per parent in tree-sitter.
    let mut import_at: Option<u32> = None;
    loop {
        let node = cursor.node();
        let depth = cursor.depth();
        if import_at.is_some_and(|at| depth <= at) {
            import_at = None;
        }
        if import_at.is_none() && is_import(node) {
            import_at = Some(depth);
        }
        let mut descend = true;
        if node.kind() == "preproc_arg" {
            words_of(node, source, &mut found);
            descend = false;
        } else if node.child_count() == 0
            && node.is_named()
            && node.kind().ends_with("identifier")
            && !skip.contains(&(node.start_byte(), node.end_byte()))
        {
            if let Ok(name) = node.utf8_text(source) {
                // A private member (`#options`) is the name `options`, as a word search sees it.
                let name = name.strip_prefix('#').unwrap_or(name);
                found.push(Use {
                    name: name.to_string(),
                    line: line_of(node),
                    kind: if import_at.is_some() {
                        "import"
                    } else {
                        classify(node)
                    },
                });
            }
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return dedup(found);
            }
        }
    }
}

fn line_of(node: Node) -> u32 {
    u32::try_from(node.start_position().row + 1).unwrap_or(u32::MAX)
}

/// The words of code the grammar keeps as text (C's macro bodies), as uses labelled `other`.
fn words_of(node: Node, source: &[u8], found: &mut Vec<Use>) {
    let Ok(text) = node.utf8_text(source) else {
        return;
    };
    let first = node.start_position().row;
    for (row, line) in text.split('\n').enumerate() {
        for word in line.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if word.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') {
                found.push(Use {
                    name: word.to_string(),
                    line: u32::try_from(first + row + 1).unwrap_or(u32::MAX),
                    kind: "other",
                });
            }
        }
    }
}

/// One use per name and line, keeping the most specific label; sorted by line, then name.
fn dedup(mut found: Vec<Use>) -> Vec<Use> {
    let rank = |kind: &str| KINDS.iter().position(|k| *k == kind).unwrap_or(KINDS.len());
    found.sort_by(|a, b| (a.line, &a.name, rank(a.kind)).cmp(&(b.line, &b.name, rank(b.kind))));
    found.dedup_by(|b, a| a.line == b.line && a.name == b.name);
    found
}

/// Constructs whose identifiers are imports (in every grammar of the table).
const IMPORTS: &[&str] = &[
    "use_declaration",
    "extern_crate_declaration",
    "import_statement",
    "import_from_statement",
    "future_import_statement",
    "import_declaration",
    "import_spec",
    "preproc_include",
    "using_declaration",
    "import_alias",
];

/// The field that names the last part of a qualified or member expression: when the
/// identifier is that part, the whole expression stands where the identifier would.
fn tail_field(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "scoped_identifier" | "qualified_identifier" | "scoped_type_identifier" | "template_function" => {
            "name"
        }
        "field_expression" | "selector_expression" | "field_access" => "field",
        "member_expression" => "property",
        "attribute" => "attribute",
        "generic_function" => "function",
        _ => return None,
    })
}

fn is_field(node: Node, parent: &str, field: &str) -> bool {
    node.parent()
        .filter(|p| p.kind() == parent)
        .and_then(|p| p.child_by_field_name(field))
        == Some(node)
}

/// Inside a macro's token tree there is no call node: a name directly followed by a
/// parenthesised group is taken as called (`assert!(gi.matched(path))`).
fn called_in_tokens(node: Node) -> bool {
    node.parent().is_some_and(|p| p.kind() == "token_tree")
        && node.next_sibling().is_some_and(|next| {
            next.kind() == "token_tree" && next.child(0).is_some_and(|open| open.kind() == "(")
        })
}

fn is_import(node: Node) -> bool {
    IMPORTS.contains(&node.kind())
        || (node.kind() == "export_statement" && node.child_by_field_name("source").is_some())
}

/// The label of an identifier outside imports.
fn classify(node: Node) -> &'static str {
    let mut callee = node;
    while let Some(parent) = callee.parent() {
        match tail_field(parent.kind()) {
            Some(field) if parent.child_by_field_name(field) == Some(callee) => callee = parent,
            _ => break,
        }
    }
    let called = is_field(callee, "call_expression", "function")
        || is_field(callee, "call", "function")
        || is_field(callee, "macro_invocation", "macro")
        || is_field(node, "method_invocation", "name")
        || is_field(callee, "new_expression", "constructor")
        || is_field(callee, "object_creation_expression", "type");
    if called || called_in_tokens(node) {
        return "call";
    }
    let parent = node.parent().map(|p| p.kind()).unwrap_or("");
    match node.kind() {
        "type_identifier" | "namespace_identifier" | "package_identifier" => "type",
        "field_identifier"
        | "property_identifier"
        | "shorthand_field_identifier"
        | "private_property_identifier" => "field",
        _ if matches!(
            parent,
            "type"
                | "generic_type"
                | "type_annotation"
                | "scoped_type_identifier"
                | "extends_clause"
                | "class_heritage"
                | "superclass"
        ) =>
        {
            "type"
        }
        _ if is_field(node, "attribute", "attribute") || is_field(node, "field_access", "field") => "field",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uses_in(ext: &str, source: &str) -> Vec<(String, u32, &'static str)> {
        let lang =
            super::super::languages::for_path(std::path::Path::new(&format!("x.{ext}"))).expect("language");
        let tree = parse(&(lang.grammar)(), source.as_bytes()).expect("parse");
        uses(&tree, source.as_bytes(), &Default::default())
            .into_iter()
            .map(|u| (u.name, u.line, u.kind))
            .collect()
    }

    fn of(found: &[(String, u32, &'static str)], name: &str) -> Vec<(u32, &'static str)> {
        found.iter().filter(|u| u.0 == name).map(|u| (u.1, u.2)).collect()
    }

    #[test]
    fn rust_uses_are_labelled_and_comments_and_strings_are_not_uses() {
        let source = "use crate::compiler::Compiler;\n// Compiler in a comment\nfn f(c: Compiler) -> Compiler {\n    let x = Compiler::compile(\"Compiler\");\n    c.compile();\n    println!(\"{}\", Compiler::NAME);\n    x.field.compile\n}\n";
        let found = uses_in("rs", source);
        assert_eq!(
            of(&found, "Compiler"),
            vec![(1, "import"), (3, "type"), (4, "other"), (6, "other")]
        );
        assert_eq!(
            of(&found, "compile"),
            vec![(4, "call"), (5, "call"), (7, "field")]
        );
        assert_eq!(of(&found, "field"), vec![(7, "field")]);
    }

    #[test]
    fn python_go_and_c_uses() {
        let py = uses_in(
            "py",
            "from a import Token\nx: Token = Token()\nx.kind = 'Token'\n# Token\n",
        );
        assert_eq!(of(&py, "Token"), vec![(1, "import"), (2, "call")]);
        assert_eq!(of(&py, "kind"), vec![(3, "field")]);
        let go = uses_in(
            "go",
            "package p\nimport \"fmt\"\nfunc f(c *Cmd) { c.Run(); fmt.Println(c) }\n",
        );
        assert_eq!(of(&go, "Cmd"), vec![(3, "type")]);
        assert_eq!(of(&go, "Run"), vec![(3, "call")]);
        let c = uses_in(
            "c",
            "#define LEN(s) sdslen(s)\nint main() { return sdslen(0); }\n",
        );
        assert_eq!(of(&c, "sdslen"), vec![(1, "other"), (2, "call")]);
    }
}
