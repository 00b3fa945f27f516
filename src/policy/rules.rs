//! The per-command rules behind the classifier: a command's words, and the commands that are
//! destructive by themselves (`eval`, `mkfs`, `git push --force`, piping into a shell …). The
//! safe list is in [`super::safe`], the network in [`super::network`], the commands that run
//! other commands in [`super::wrappers`], and where file-changing commands land in
//! [`super::writes`].

pub use super::network::{network, offline, remote_path};
pub use super::safe::is_safe;
use super::safe::{git_subcommand, has_short_flag};
pub use super::wrappers::{commands_run_by, unwrap_prefixes, Runs};

/// One word of a command as the shell will see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The text after quote removal; `None` when an expansion makes it known only at run time.
    pub text: Option<String>,
    /// The word contains `$(…)`, backticks or `<(…)`.
    pub substitutes_command: bool,
    /// The source text, for messages.
    pub raw: String,
}

impl Word {
    pub fn is(&self, text: &str) -> bool {
        self.text.as_deref() == Some(text)
    }

    pub fn is_any(&self, texts: &[&str]) -> bool {
        self.text.as_deref().is_some_and(|t| texts.contains(&t))
    }

    pub fn starts_with(&self, prefix: &str) -> bool {
        self.text.as_deref().is_some_and(|t| t.starts_with(prefix))
    }
}

/// `/usr/bin/git` → `git`.
pub fn base_name(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// Variables whose value a program runs as a command (`GIT_EXTERNAL_DIFF='…' git diff`).
pub const COMMAND_VARIABLES: &[&str] = &[
    "GIT_EXTERNAL_DIFF",
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_PAGER",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "PAGER",
    "MANPAGER",
    "EDITOR",
    "VISUAL",
    "PROMPT_COMMAND",
];

/// Variables that make a program load code (`LD_PRELOAD=x.so cat f`).
pub const CODE_LOADING_VARIABLES: &[&str] = &[
    "BASH_ENV",
    "ENV",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PERL5OPT",
    "PERL5LIB",
    "NODE_OPTIONS",
    "RUBYOPT",
];

/// Why `name args` is destructive on its own (rm targets are judged in [`rm_targets`]).
pub fn destructive(name: &str, args: &[Word]) -> Option<String> {
    match name {
        "eval" => Some("`eval` runs text built at run time".to_string()),
        "mkfs" | "mke2fs" | "mkswap" | "wipefs" => Some(format!("`{name}` formats a disk")),
        _ if name.starts_with("mkfs.") => Some(format!("`{name}` formats a disk")),
        "dd" => args.iter().find_map(|w| {
            let target = w.text.as_deref()?.strip_prefix("of=")?;
            is_device_write(target).then(|| format!("`dd` writes straight to the device `{target}`"))
        }),
        "git" => {
            let (sub, rest) = git_subcommand(args)?;
            let forced = rest.iter().any(|w| {
                w.is("--force")
                    || w.is("-f")
                    || w.starts_with("--force-with-lease")
                    || w.is("--mirror")
                    || (w.starts_with("+") && !w.is("+"))
            }) || has_short_flag(rest, 'f');
            (sub == "push" && forced).then(|| "`git push --force` rewrites the remote's history".to_string())
        }
        "codesmith" => codesmith_grant(args),
        "chroot" => {
            Some("`chroot` runs a command under another root, where its paths cannot be judged".to_string())
        }
        "crontab" if args.iter().any(|w| !w.starts_with("-") || w.is("-")) => {
            Some("`crontab FILE` installs commands that run later".to_string())
        }
        "shutdown" | "reboot" | "halt" | "poweroff" => Some(format!("`{name}` stops the machine")),
        "systemctl"
            if args
                .iter()
                .any(|w| w.is_any(&["poweroff", "reboot", "halt", "kexec"])) =>
        {
            Some("`systemctl` stops the machine".to_string())
        }
        "kill" if args.iter().any(|w| w.is("-1")) => {
            Some("`kill -1` signals every process the user owns".to_string())
        }
        "crontab" if args.iter().any(|w| w.is("-r")) => {
            Some("`crontab -r` deletes the user's crontab".to_string())
        }
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "source" | "." => args
            .iter()
            .any(|w| w.substitutes_command)
            .then(|| format!("`{name}` runs a script produced by another command")),
        _ => None,
    }
}

/// `codesmith approve`, `codesmith trust add`, `--yolo`, `--approve`: a command granting
/// itself what only the user may grant.
fn codesmith_grant(args: &[Word]) -> Option<String> {
    let mut i = 0;
    while let Some(text) = args.get(i).and_then(|w| w.text.as_deref()) {
        match text {
            "--yolo" | "--approve" => {
                return Some(format!(
                    "`codesmith {text}` grants approvals, which is the user's decision"
                ))
            }
            _ if text.starts_with("--approve=") => {
                return Some(
                    "`codesmith --approve` grants approvals, which is the user's decision".to_string(),
                )
            }
            "--workspace" | "--session" | "--format" => i += 2,
            _ if text.starts_with('-') => i += 1,
            "approve" => {
                return Some("`codesmith approve` grants approvals, which is the user's decision".to_string())
            }
            "trust" if args.get(i + 1).is_some_and(|w| w.is("add")) => {
                return Some(
                    "`codesmith trust add` widens the workspace, which is the user's decision".to_string(),
                )
            }
            _ => return None,
        }
    }
    None
}

pub const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh",
];

const INTERPRETERS: &[&str] = &["python", "python3", "perl", "ruby", "node", "php"];

/// The script of `sh -c SCRIPT` (also `-ec`, `-lc`): `None` without `-c`, `Some(None)` when the
/// script is only known at run time.
pub fn dash_c_script(args: &[Word]) -> Option<Option<String>> {
    let at = args.iter().position(|w| {
        w.text
            .as_deref()
            .is_some_and(|t| t.starts_with('-') && !t.starts_with("--") && t.contains('c'))
    })?;
    let script = args[at + 1..]
        .iter()
        .find(|w| !w.starts_with("-") || w.text.is_none())?;
    Some(script.text.clone())
}

/// A pipeline stage that runs its input as a script (`curl … | sh`, `| bash -s`, `| python -`).
pub fn reads_script_from_stdin(words: &[Word]) -> Option<String> {
    let name = words.first()?.text.as_deref().map(base_name)?;
    let args = &words[1..];
    let operands: Vec<&Word> = args.iter().filter(|w| !w.starts_with("-") || w.is("-")).collect();
    let reads_stdin = if matches!(name, "at" | "batch") {
        !args.iter().any(|w| w.is("-f") || w.is("-l") || w.is("-r"))
    } else if name == "crontab" {
        operands.first().is_some_and(|w| w.is("-")) || (operands.is_empty() && args.is_empty())
    } else if SHELLS.contains(&name) {
        args.iter().any(|w| w.is("-s")) || (operands.is_empty() && !args.iter().any(|w| w.is("-c")))
    } else if INTERPRETERS.contains(&name) {
        operands.is_empty() || operands.first().is_some_and(|w| w.is("-"))
    } else {
        false
    };
    reads_stdin.then(|| format!("pipes text into `{name}`, which runs it as a script"))
}

/// Writing to a device node other than the harmless ones.
pub fn is_device_write(target: &str) -> bool {
    target.starts_with("/dev/")
        && !matches!(
            target,
            "/dev/null" | "/dev/zero" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
        )
        && !target.starts_with("/dev/fd/")
        && !target.starts_with("/dev/shm/")
}
