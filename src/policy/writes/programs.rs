//! Where particular programs write, beyond the file utilities: git and cargo acting on other
//! directories, downloads saved to a path, archives and compressors, and codesmith itself run
//! on another workspace.

use super::{literal, Follow, Judge, Operands};
use crate::policy::rules::{remote_path, Word};

/// git subcommands that only read, wherever they run.
const GIT_READS: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "grep",
    "ls-files",
    "ls-tree",
    "rev-parse",
    "rev-list",
    "describe",
    "shortlog",
    "cat-file",
    "help",
    "version",
    "config",
    "remote",
];

/// For programs that write where an option says: the verb, the options naming what is written,
/// and their other options that take a value (so those values are not taken for operands).
fn writing_options(name: &str) -> (&'static str, &'static [&'static str], &'static [&'static str]) {
    match name {
        "curl" => (
            "writes",
            &[
                "-o",
                "--output",
                "--output-dir",
                "-D",
                "--dump-header",
                "-c",
                "--cookie-jar",
            ],
            &[
                "-d",
                "--data",
                "-H",
                "--header",
                "-u",
                "--user",
                "-X",
                "--request",
                "-e",
                "-A",
                "-b",
                "-K",
                "-T",
                "-F",
                "-m",
                "-w",
                "-x",
                "-r",
                "-E",
                "-Y",
                "-y",
                "-z",
                "-C",
            ],
        ),
        "wget" | "wget2" => (
            "writes",
            &[
                "-O",
                "--output-document",
                "-P",
                "--directory-prefix",
                "-o",
                "--output-file",
                "-a",
                "--append-output",
            ],
            &[],
        ),
        "pip" | "pip3" => (
            "installs into",
            &["-t", "--target", "--prefix", "--root"],
            &["-r", "-c", "-e", "-i", "--index-url"],
        ),
        "csplit" => ("writes", &["-f", "--prefix"], &["-b", "-n"]),
        "tree" => (
            "writes",
            &["-o"],
            &["-L", "-P", "-I", "--charset", "--filelimit", "--timefmt"],
        ),
        _ => ("writes", &[], &[]),
    }
}

impl Judge<'_> {
    /// What `name` writes through its output options (see [`writing_options`]).
    fn written_by_options(&self, name: &str, args: &[Word]) -> Vec<String> {
        let (verb, writes, others) = writing_options(name);
        let takes_value: Vec<&str> = writes.iter().chain(others).copied().collect();
        let parsed = Operands::parse(args, &takes_value);
        self.judge(name, verb, &parsed.value_of(writes), Follow::Through, false)
    }

    pub(super) fn program_writes(&self, name: &str, args: &[Word]) -> Vec<String> {
        match name {
            "git" => self.git(args),
            "cargo" => self.cargo(args),
            "codesmith" => self.codesmith_writes(args),
            "rsync" => self.rsync(args),
            "curl" | "wget" | "wget2" | "pip" | "pip3" | "csplit" | "tree" => {
                self.written_by_options(name, args)
            }
            "scp" => self.scp(args),
            "gzip" | "gunzip" | "bzip2" | "bunzip2" | "xz" | "unxz" | "zstd" | "unzstd" | "lz4"
            | "compress" | "uncompress" => self.compressor(name, args),
            "split" => self.split(args),
            "patch" => self.patch(args),
            "chattr" => self.chattr(args),
            "uniq" => self.uniq(args),
            _ => Vec::new(),
        }
    }

    /// `codesmith --workspace DIR`: a codesmith call works on its workspace.
    fn codesmith_writes(&self, args: &[Word]) -> Vec<String> {
        let parsed = Operands::parse(args, &["--workspace", "--session", "--format", "--approve"]);
        let workspace = parsed.value_of(&["--workspace"]);
        self.judge(
            "codesmith",
            "works on the workspace",
            &workspace,
            Follow::Through,
            true,
        )
    }

    /// `scp … DEST`: a local destination is written.
    fn scp(&self, args: &[Word]) -> Vec<String> {
        let parsed = Operands::parse(args, &["-P", "-i", "-o", "-F", "-c", "-l", "-S", "-J"]);
        let destination = parsed.operands.last().copied().filter(|w| !is_remote(w));
        self.judge(
            "scp",
            "writes",
            &destination.into_iter().collect::<Vec<_>>(),
            Follow::Through,
            false,
        )
    }

    /// A compressor replaces each file operand (and writes `-o FILE`) unless it writes to stdout, tests or lists.
    fn compressor(&self, name: &str, args: &[Word]) -> Vec<String> {
        let parsed = Operands::parse(args, &["-S", "--suffix", "-o", "-T", "--threads"]);
        // To stdout, or only testing or listing: no file changes.
        if parsed.has_any(&["-c", "--stdout", "-t", "--test", "-l", "--list"]) || parsed.has_short('c') {
            return Vec::new();
        }
        let mut targets = parsed.operands.clone();
        targets.extend(parsed.value_of(&["-o"]));
        self.judge(name, "replaces", &targets, Follow::Name, false)
    }

    /// `split FILE PREFIX` writes files named from PREFIX.
    fn split(&self, args: &[Word]) -> Vec<String> {
        let parsed = Operands::parse(
            args,
            &[
                "-a",
                "-b",
                "-C",
                "-l",
                "-n",
                "-t",
                "--additional-suffix",
                "--filter",
            ],
        );
        let prefix = parsed.operands.get(1).copied();
        self.judge(
            "split",
            "writes",
            &prefix.into_iter().collect::<Vec<_>>(),
            Follow::Through,
            false,
        )
    }

    /// `patch FILE`, `-o FILE`, `-d DIR`: what GNU patch writes.
    fn patch(&self, args: &[Word]) -> Vec<String> {
        let parsed = Operands::parse(
            args,
            &[
                "-p",
                "-i",
                "-o",
                "-d",
                "-r",
                "-B",
                "-z",
                "-V",
                "-F",
                "-D",
                "--directory",
                "--output",
                "--input",
            ],
        );
        let mut targets = parsed.value_of(&["-o", "--output", "-d", "--directory"]);
        targets.extend(parsed.operands.first().copied());
        self.judge("patch", "writes", &targets, Follow::Through, false)
    }

    /// `chattr +i FILE`: the operands that are not attribute changes.
    fn chattr(&self, args: &[Word]) -> Vec<String> {
        let parsed = Operands::parse(args, &["-v", "-p"]);
        let files: Vec<&Word> = parsed
            .operands
            .iter()
            .copied()
            .filter(|w| !w.text.as_deref().is_some_and(|t| t.starts_with(['+', '='])))
            .collect();
        self.judge(
            "chattr",
            "changes the attributes of",
            &files,
            Follow::Through,
            false,
        )
    }

    /// `uniq IN OUT` writes OUT.
    fn uniq(&self, args: &[Word]) -> Vec<String> {
        let parsed = Operands::parse(
            args,
            &["-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"],
        );
        let output = parsed.operands.get(1).copied();
        self.judge(
            "uniq",
            "writes",
            &output.into_iter().collect::<Vec<_>>(),
            Follow::Through,
            false,
        )
    }

    /// `git -C DIR …`, `--work-tree=DIR`, `--git-dir=DIR` with a subcommand that changes files;
    /// `git clean|rm PATH` and `git mv`; `git clone URL DIR`; output files (`--output`,
    /// `format-patch -o`, `archive -o`, `bundle create FILE`).
    fn git(&self, args: &[Word]) -> Vec<String> {
        let (places, i) = git_places(args);
        let Some(sub) = args.get(i).and_then(|w| w.text.clone()) else {
            return Vec::new();
        };
        let rest = &args[i + 1..];
        let mut reasons = Vec::new();
        if !GIT_READS.contains(&sub.as_str()) {
            let places: Vec<&Word> = places.iter().collect();
            reasons.extend(self.judge(&format!("git {sub}"), "works in", &places, Follow::Through, false));
        }
        let parsed = Operands::parse(
            rest,
            &[
                "-o",
                "--output",
                "-e",
                "--exclude",
                "-m",
                "--message",
                "-b",
                "--branch",
                "--depth",
                "--format",
                "--prefix",
                "--remote",
                "-n",
                "-C",
            ],
        );
        reasons.extend(self.git_subcommand(&sub, &parsed.operands));
        reasons.extend(self.judge(
            &format!("git {sub}"),
            "writes",
            &parsed.value_of(&["-o", "--output"]),
            Follow::Through,
            false,
        ));
        reasons
    }

    /// What a git subcommand deletes, moves or writes through its operands.
    fn git_subcommand(&self, sub: &str, operands: &[&Word]) -> Vec<String> {
        match sub {
            "clean" | "rm" => self.judge(&format!("git {sub}"), "deletes", operands, Follow::Through, false),
            "mv" => self.judge("git mv", "moves", operands, Follow::Name, false),
            "clone" => {
                let directory = operands.get(1).copied();
                self.judge(
                    "git clone",
                    "writes",
                    &directory.into_iter().collect::<Vec<_>>(),
                    Follow::Through,
                    false,
                )
            }
            "bundle"
                if operands
                    .first()
                    .is_some_and(|w| w.text.as_deref() == Some("create")) =>
            {
                let file = operands.get(1).copied();
                self.judge(
                    "git bundle",
                    "writes",
                    &file.into_iter().collect::<Vec<_>>(),
                    Follow::Through,
                    false,
                )
            }
            _ => Vec::new(),
        }
    }

    /// `cargo clean --target-dir DIR` (or `--manifest-path` elsewhere), `cargo install --root DIR`.
    fn cargo(&self, args: &[Word]) -> Vec<String> {
        let parsed = Operands::parse(
            args,
            &[
                "--target-dir",
                "--manifest-path",
                "--root",
                "-p",
                "--package",
                "--profile",
                "--target",
                "--color",
                "-Z",
                "--config",
            ],
        );
        let sub = parsed
            .operands
            .iter()
            .find(|w| !w.text.as_deref().is_some_and(|t| t.starts_with('+')))
            .and_then(|w| w.text.as_deref());
        match sub {
            Some("clean") => {
                let mut places = parsed.value_of(&["--target-dir"]);
                places.extend(parsed.value_of(&["--manifest-path"]));
                self.judge(
                    "cargo clean",
                    "deletes build output of",
                    &places,
                    Follow::Through,
                    false,
                )
            }
            Some("install") => self.judge(
                "cargo install",
                "installs into",
                &parsed.value_of(&["--root"]),
                Follow::Through,
                false,
            ),
            _ => Vec::new(),
        }
    }

    /// `rsync SRC… DEST` when DEST is local (`--delete` deletes in it); `--remove-source-files`
    /// deletes the local sources.
    fn rsync(&self, args: &[Word]) -> Vec<String> {
        let parsed = Operands::parse(
            args,
            &[
                "-e",
                "--rsh",
                "--exclude",
                "--include",
                "--filter",
                "-f",
                "--chmod",
                "--chown",
                "--port",
                "--password-file",
                "--log-file",
                "-T",
                "--temp-dir",
            ],
        );
        let Some((destination, sources)) = parsed.operands.split_last() else {
            return Vec::new();
        };
        let mut reasons = Vec::new();
        if !is_remote(destination) {
            let verb = if parsed.has_any(&[
                "--delete",
                "--delete-after",
                "--delete-before",
                "--delete-during",
                "--delete-excluded",
            ]) {
                "writes and deletes in"
            } else {
                "writes"
            };
            reasons.extend(self.judge("rsync", verb, &[*destination], Follow::Through, false));
        }
        if parsed.has_any(&["--remove-source-files"]) {
            let local: Vec<&Word> = sources.iter().copied().filter(|w| !is_remote(w)).collect();
            reasons.extend(self.judge(
                "rsync --remove-source-files",
                "deletes",
                &local,
                Follow::Through,
                false,
            ));
        }
        reasons
    }
}

fn is_remote(word: &Word) -> bool {
    word.text
        .as_deref()
        .is_none_or(|t| t.contains("::") || t.starts_with("rsync://") || remote_path(t))
}

/// The directories git's global options name (`-C DIR`, `--work-tree`, `--git-dir`), and the
/// index of the subcommand after them.
fn git_places(args: &[Word]) -> (Vec<Word>, usize) {
    let mut places: Vec<Word> = Vec::new();
    let mut i = 0;
    while let Some(text) = args.get(i).and_then(|w| w.text.as_deref()) {
        match text {
            "-C" | "--work-tree" | "--git-dir" => {
                places.extend(args.get(i + 1).cloned());
                i += 2;
            }
            "-c" | "--namespace" | "--exec-path" | "--config-env" => i += 2,
            _ if text.starts_with("--work-tree=") || text.starts_with("--git-dir=") => {
                places.extend(text.split_once('=').map(|(_, dir)| literal(dir)));
                i += 1;
            }
            _ if text.starts_with('-') => i += 1,
            _ => break,
        }
    }
    (places, i)
}
