//! The committed generated files (man page, completions, catalog snapshot) must match what the
//! registry renders now. `CODESMITH_BLESS=1` rewrites them.

use std::path::Path;

const BLESS: &str = "CODESMITH_BLESS=1 cargo test --test main generated";

#[test]
fn generated_files_are_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var("CODESMITH_BLESS").is_ok_and(|v| v == "1");
    let mut stale = Vec::new();
    for (rel, content) in codesmith::cli::generate::all() {
        let path = root.join(rel);
        let current = std::fs::read_to_string(&path).ok();
        if current.as_deref() == Some(content.as_str()) {
            continue;
        }
        if bless {
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, &content).expect("write generated file");
        } else {
            stale.push(rel);
        }
    }
    assert!(
        stale.is_empty(),
        "generated files are stale: {}. Regenerate them with `{BLESS}` and commit the result.",
        stale.join(", ")
    );
}

#[test]
fn man_page_documents_every_tool_parameter_and_error_code() {
    let man = codesmith::cli::generate::man_page();
    for spec in codesmith::tools::REGISTRY {
        assert!(
            man.contains(&format!("{} (codesmith {})", spec.name, spec.alias)),
            "{}",
            spec.name
        );
        for param in codesmith::cli::catalog::parameters(spec) {
            assert!(man.contains(&param.name), "{}: {}", spec.name, param.name);
        }
    }
    for code in codesmith::error::ErrorCode::ALL {
        assert!(man.contains(code.as_str()), "{}", code.as_str());
    }
    for section in [
        "RESULT ENVELOPE",
        "ERROR CODES",
        "EXIT STATUS",
        "FILES",
        "ENVIRONMENT",
    ] {
        assert!(
            man.contains(&format!(".SH \"{section}\"")) || man.contains(&format!(".SH {section}")),
            "{section}"
        );
    }
}

#[test]
fn completions_offer_every_tool() {
    for shell in [
        clap_complete::Shell::Bash,
        clap_complete::Shell::Zsh,
        clap_complete::Shell::Fish,
    ] {
        let script = codesmith::cli::generate::completions(shell);
        for spec in codesmith::tools::REGISTRY {
            assert!(script.contains(spec.alias), "{shell}: {}", spec.alias);
            assert!(script.contains(spec.name), "{shell}: {}", spec.name);
        }
    }
}

#[test]
fn readme_documents_every_error_code_and_tool() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).expect("README.md");
    for code in codesmith::error::ErrorCode::ALL {
        assert!(
            readme.contains(&format!("| `{}` | {} |", code.as_str(), code.exit_status())),
            "README.md's error-code table lacks `{}` (exit {})",
            code.as_str(),
            code.exit_status()
        );
    }
    let tools = readme
        .split("\n## Tools\n")
        .nth(1)
        .expect("README.md has a `## Tools` section");
    for spec in codesmith::tools::REGISTRY {
        assert!(
            tools.contains(&format!("\n### {} (`codesmith {}`)\n", spec.name, spec.alias)),
            "README.md's `## Tools` section lacks a `### {} (`codesmith {}`)` subsection; add one in catalog order",
            spec.name,
            spec.alias
        );
    }
}
