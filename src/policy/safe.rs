//! The safe (read-only) list, after Codex's: commands that only read, and for the ones that can
//! also write or run other programs, the flags that make them do so (`find -exec`, `rg --pre`,
//! `git -c`, `sed` with anything but `-n Np`).

use super::rules::{dash_c_script, Word, SHELLS};

/// Commands that only read, whatever their arguments (output redirections are judged apart).
const SAFE: &[&str] = &[
    "cat",
    "cd",
    "echo",
    "false",
    "grep",
    "egrep",
    "fgrep",
    "head",
    "ls",
    "nl",
    "pwd",
    "tail",
    "true",
    "wc",
    "which",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "stat",
    "file",
    "du",
    "df",
    "tree",
    "cut",
    "tr",
    "uniq",
    "rev",
    "tac",
    "seq",
    "expr",
    "test",
    "[",
    "printf",
    "diff",
    "cmp",
    "comm",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "od",
    "hexdump",
    "strings",
    "column",
    "fold",
    "paste",
    "printenv",
    "uname",
    "whoami",
    "id",
    "type",
    "jq",
    "env",
    "nproc",
    "locale",
    "groups",
    "arch",
    "tty",
    "sleep",
    "time",
    "command",
];

/// True when `name args` only reads.
pub fn is_safe(name: &str, args: &[Word]) -> bool {
    let any = |flags: &[&str]| {
        args.iter().any(|w| match w.text.as_deref() {
            Some(t) => flags
                .iter()
                .any(|f| t == *f || (f.starts_with("--") && t.starts_with(&format!("{f}=")))),
            None => false,
        })
    };
    match name {
        "find" => !any(&[
            "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf",
        ]),
        "rg" => !any(&["--pre", "--hostname-bin", "--search-zip", "-z"]) && !has_short_flag(args, 'z'),
        "fd" | "fdfind" => !any(&["-x", "--exec", "-X", "--exec-batch"]),
        "sort" => !any(&["-o", "--output"]),
        "date" => !any(&["-s", "--set"]),
        "git" => git_is_safe(args),
        "sed" => sed_is_safe(args),
        // Judged by its script (see the classifier); a script file or stdin could be anything.
        _ if SHELLS.contains(&name) => matches!(dash_c_script(args), Some(Some(_))),
        _ => SAFE.contains(&name),
    }
}

pub fn has_short_flag(args: &[Word], flag: char) -> bool {
    args.iter().any(|w| {
        w.text
            .as_deref()
            .is_some_and(|t| t.starts_with('-') && !t.starts_with("--") && t[1..].contains(flag))
    })
}

/// `git status|log|diff|show` without `-c`, `--output` or `--ext-diff`.
fn git_is_safe(args: &[Word]) -> bool {
    let Some((sub, rest)) = git_subcommand(args) else {
        return false;
    };
    if args.iter().any(|w| w.is("-c") || w.starts_with("--config-env")) {
        return false;
    }
    matches!(sub.as_str(), "status" | "log" | "diff" | "show")
        && !rest
            .iter()
            .any(|w| w.starts_with("--output") || w.is("--ext-diff") || w.is("-c"))
}

/// The git subcommand after the global options (`git -C dir --no-pager log`).
pub fn git_subcommand(args: &[Word]) -> Option<(String, &[Word])> {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.text.as_deref()?;
        if matches!(
            text,
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path"
        ) {
            i += 2;
        } else if text.starts_with('-') {
            i += 1;
        } else {
            return Some((text.to_string(), &args[i + 1..]));
        }
    }
    None
}

/// `sed -n 5p` / `sed -n 1,20p FILE`: printing lines only.
fn sed_is_safe(args: &[Word]) -> bool {
    let texts: Option<Vec<&str>> = args.iter().map(|w| w.text.as_deref()).collect();
    let Some(texts) = texts else {
        return false;
    };
    let is_print = |s: &str| {
        let body = s.strip_suffix('p').unwrap_or("");
        !body.is_empty()
            && body.split(',').count() <= 2
            && body
                .split(',')
                .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit() || c == '$'))
    };
    matches!(texts.as_slice(), ["-n", script, ..] if is_print(script)
        && texts[2..].iter().all(|f| !f.starts_with('-')))
}
