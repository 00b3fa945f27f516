//! `codesmith tools --format prompt`: a system-prompt block with the house rules of exactly the
//! enabled tools, and a plain statement of the powers the agent does not have, so the prompt
//! never promises what a call would refuse.

use crate::tools::{Capability, ToolSpec};

/// What an agent without each capability must not offer to do.
const LACKING: [(Capability, &str); 4] = [
    (Capability::ReadOnly, "read, search or list files"),
    (Capability::WritesFiles, "create, edit, patch or delete files"),
    (Capability::RunsCode, "run commands, builds or tests"),
    (Capability::Network, "fetch web pages or reach the network"),
];

pub(super) fn render(specs: &[&'static ToolSpec]) -> String {
    let names: Vec<&str> = specs.iter().map(|s| s.name).collect();
    let mut out = String::from("<tools>\n");
    if names.is_empty() {
        out.push_str("You have no tools in this workspace: answer from the conversation alone.\n");
    } else {
        out.push_str(&format!(
            "You work in a code workspace through these tools only: {}.\n",
            names.join(", ")
        ));
    }
    let lacking: Vec<&str> = LACKING
        .iter()
        .filter(|(capability, _)| !specs.iter().any(|s| s.capability == *capability))
        .map(|(_, what)| *what)
        .collect();
    if !lacking.is_empty() {
        out.push_str(&format!(
            "You cannot {} here. Do not offer to, and do not ask for tools to do it; say what a \
             person would need to do instead.\n",
            join_or(&lacking)
        ));
    }
    for spec in specs {
        out.push_str(&format!("\n## {}\n{}\n", spec.name, spec.description));
    }
    out.push_str("</tools>\n");
    out
}

/// `a`, `a or b`, `a, b or c`.
fn join_or(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::REGISTRY;

    #[test]
    fn a_read_only_prompt_names_what_it_cannot_do() {
        let read_only: Vec<&'static ToolSpec> = REGISTRY
            .iter()
            .filter(|s| s.capability == Capability::ReadOnly)
            .collect();
        let text = render(&read_only);
        assert!(text.contains("## read_file\n"));
        assert!(!text.contains("## write_file"));
        assert!(text.contains(
            "You cannot create, edit, patch or delete files, run commands, builds or tests or fetch web pages"
        ));
        let all: Vec<&'static ToolSpec> = REGISTRY.iter().collect();
        assert!(!render(&all).contains("You cannot"));
    }
}
