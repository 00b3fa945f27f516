//! The committed generated files (man page, completions, catalog snapshot, docs/TOOLS.md and
//! docs/ERRORS.md) must match what the
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
        for param in codesmith::dispatch::catalog::parameters(spec) {
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
fn readme_lists_every_tool_and_exit_status() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    for spec in codesmith::tools::REGISTRY {
        assert!(
            readme.contains(&format!("\n| {} | `{}` |", spec.name, spec.alias)),
            "README.md's tool table lacks a `| {} | `{}` |` row",
            spec.name,
            spec.alias
        );
    }
    for status in ["**0**", "**1**", "**2**", "**3**"] {
        assert!(
            readme.contains(status),
            "README.md does not explain exit status {status}"
        );
    }
    assert!(
        readme.len() <= 12 * 1024,
        "README.md is {} bytes; it stays under 12 KB, with the reference in docs/",
        readme.len()
    );
}

#[test]
fn reference_documents_every_tool_and_error_code() {
    let tools = codesmith::cli::reference::tools_md();
    for spec in codesmith::tools::REGISTRY {
        assert!(tools.contains(&format!("\n## {} (`codesmith {}`)\n", spec.name, spec.alias)));
        assert!(tools.contains(spec.description.trim_end()), "{}", spec.name);
        for param in codesmith::dispatch::catalog::parameters(spec) {
            assert!(
                tools.contains(&format!("- `{}` (", param.name)),
                "{}: {}",
                spec.name,
                param.name
            );
        }
    }
    let errors = codesmith::cli::reference::errors::errors_md();
    for code in codesmith::error::ErrorCode::ALL {
        assert!(
            errors.contains(&format!(
                "\n## {}\n\nExit status {}.",
                code.as_str(),
                code.exit_status()
            )),
            "{}",
            code.as_str()
        );
    }
}
