//! Credentials stay with the harness: the variables of codesmith's environment whose names
//! look like secrets are held back from every command unless `[shell] pass_env` names them.
//!
//! A command runs code the model chose, possibly code a file or a web page suggested; a key in
//! its environment is one `env` away from the output the model reads, and one `curl` away from
//! anywhere the network allows. The match is on the name only (values are never looked at, nor
//! shown): the upper-cased name contains one of [`MARKERS`] or ends with one of [`SUFFIXES`].

/// Name fragments that mark a credential.
pub const MARKERS: [&str; 8] = [
    "KEY",
    "SECRET",
    "TOKEN",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "COOKIE",
];

/// Name endings that mark a credential (`GITHUB_PAT`, npm's `NPM_CONFIG__AUTH`).
pub const SUFFIXES: [&str; 2] = ["_PAT", "_AUTH"];

/// Whether a variable named `name` looks like a credential.
///
/// Every command pays this for every variable, so it compares bytes in place (no upper-cased
/// copy, no substring searcher to set up for each marker).
pub fn looks_secret(name: &str) -> bool {
    let name = name.as_bytes();
    let at = |i: usize, word: &str| {
        name.len() >= i + word.len() && name[i..i + word.len()].eq_ignore_ascii_case(word.as_bytes())
    };
    (0..name.len()).any(|i| MARKERS.iter().any(|marker| at(i, marker)))
        || SUFFIXES
            .iter()
            .any(|end| name.len() >= end.len() && at(name.len() - end.len(), end))
}

/// The names in codesmith's environment that a command does not get, sorted: those that look
/// like credentials and that `pass_env` does not name.
pub fn held_back(pass_env: &[String]) -> Vec<String> {
    let mut names: Vec<String> = std::env::vars_os()
        .filter_map(|(name, _)| name.into_string().ok())
        .filter(|name| looks_secret(name) && !pass_env.iter().any(|p| p == name))
        .collect();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_names_are_recognised_and_ordinary_ones_are_not() {
        for name in [
            "OPENAI_API_KEY",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
            "GITHUB_TOKEN",
            "PGPASSWORD",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "GITHUB_PAT",
            "NPM_CONFIG__AUTH",
            "my_api_key",
        ] {
            assert!(looks_secret(name), "{name}");
        }
        for name in [
            "PATH",
            "HOME",
            "GIT_AUTHOR_NAME",
            "SSH_AUTH_SOCK",
            "LANG",
            "CARGO_HOME",
            "PATH_EXTRA",
        ] {
            assert!(!looks_secret(name), "{name}");
        }
    }
}
