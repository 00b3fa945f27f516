//! Commands that change files, judged by where their targets land.
//!
//! Over 600 lines: the resolution of a target (cwd, `cd`, variables, globs, `--` and the
//! recursive forms) is read in one place with the rules that use it.
//!
//! Deleting, overwriting, moving, truncating or re-permissioning a path outside the workspace
//! (and its trusted roots) needs a person's yes, whichever command does it: `rm`, `find -delete`,
//! `chmod -R`, `mv`, `cp` onto a file, `tee`, `sed -i`, `dd of=`, `tar -x -C`, or a `>`
//! redirection. Inside the workspace these run as usual. A target only known at run time
//! (`"$DIR"`, the paths `xargs` reads) asks only for the recursive forms (`rm -r`, `chmod -R`),
//! as a plain `rm "$f"` in a loop is everyday work.
//!
//! `rm` has its own cases ([`rm`]); other programs that write somewhere are in [`programs`].
//!
//! A target is resolved as the kernel would: against the directory the command runs in (`cd` is
//! followed by the classifier), each symlink replaced by its target before a `..` applies, so
//! `rm -rf link/` or `link/../x` through a link that leads out is judged where it lands. What a program does by itself (`python3 -c …`,
//! a build script) is not visible here; the classifier reads shell words, it is not a sandbox.

use std::path::{Component, Path, PathBuf};

use super::rules::{base_name, is_device_write, is_safe, Word};
use super::scope::Scope;

mod programs;
mod rm;

/// Where a target lands.
enum Target {
    /// An absolute path, normalized and with existing symlinks resolved.
    Path(PathBuf),
    /// Known only when the command runs.
    Unknown,
}

/// How a command treats a target path.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Follow {
    /// The operation removes or renames the name itself (`rm link` removes the link): only
    /// the directories above it are resolved.
    Name,
    /// The operation writes through the name (`chmod link` changes the link's target).
    Through,
}

/// Reasons for every target of `name args` that lands outside the workspace.
pub fn outside_writes(name: &str, args: &[Word], cwd: Option<&Path>, scope: &Scope) -> Vec<String> {
    let judge = Judge { cwd, scope };
    match name {
        "rm" => rm::targets(args, &judge),
        "chmod" | "chown" | "chgrp" => judge.mode_change(name, args),
        "mv" => judge.all_operands(
            name,
            args,
            "moves",
            Follow::Name,
            &["-t", "--target-directory", "-S", "--suffix"],
        ),
        "unlink" | "rmdir" => judge.all_operands(name, args, "deletes", Follow::Name, &[]),
        "shred" => judge.all_operands(
            name,
            args,
            "overwrites",
            Follow::Through,
            &["-n", "--iterations", "-s", "--size", "--random-source"],
        ),
        "truncate" => judge.all_operands(
            name,
            args,
            "truncates",
            Follow::Through,
            &["-s", "--size", "-r", "--reference"],
        ),
        "tee" => judge.all_operands(name, args, "writes", Follow::Through, &["--output-error"]),
        "cp" | "install" | "ln" => judge.copy_target(name, args),
        "sed" => judge.in_place(
            "sed -i",
            args,
            &["-e", "--expression", "-f", "--file", "-l", "--line-length"],
        ),
        "perl" => judge.in_place("perl -i", args, &["-e", "-E", "-M", "-m", "-I", "-x"]),
        "sort" => {
            let parsed = Operands::parse(
                args,
                &[
                    "-o",
                    "--output",
                    "-k",
                    "--key",
                    "-t",
                    "--field-separator",
                    "-S",
                    "--buffer-size",
                    "-T",
                    "--temporary-directory",
                ],
            );
            judge.judge(
                "sort -o",
                "writes",
                &parsed.value_of(&["-o", "--output"]),
                Follow::Through,
                false,
            )
        }
        "dd" => judge.dd_output(args),
        "find" => judge.find_actions(args),
        "tar" => judge.tar_extract(args),
        "unzip" => judge.unzip_target(args),
        _ => judge.program_writes(name, args),
    }
}

/// The reason for a redirection (`> FILE`, `>> FILE`, `&> FILE`) that writes outside.
pub fn redirect_outside(destination: &Word, cwd: Option<&Path>, scope: &Scope) -> Option<String> {
    let judge = Judge { cwd, scope };
    let text = destination.text.as_deref()?;
    if is_harmless_sink(text) || is_device_write(text) {
        return None;
    }
    let Target::Path(abs) = judge.resolve(destination, Follow::Through) else {
        return None;
    };
    let place = judge.forbidden_place(&abs)?;
    Some(format!("`>` writes `{}`, {place}", abs.display()))
}

/// `CODESMITH_WORKSPACE=DIR codesmith …`: codesmith run on another workspace would judge paths
/// against that one.
pub fn foreign_workspace(value: &Word, cwd: Option<&Path>, scope: &Scope) -> Option<String> {
    let judge = Judge { cwd, scope };
    judge
        .judge(
            "codesmith",
            "works on the workspace",
            &[value],
            Follow::Through,
            true,
        )
        .into_iter()
        .next()
}

/// Streams that are not files: writing to them changes nothing on disk.
fn is_harmless_sink(target: &str) -> bool {
    matches!(
        target,
        "/dev/null" | "/dev/zero" | "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "-"
    ) || target.starts_with("/dev/fd/")
        || target.starts_with("/proc/self/fd/")
}

struct Judge<'a> {
    cwd: Option<&'a Path>,
    scope: &'a Scope<'a>,
}

impl Judge<'_> {
    fn resolve(&self, word: &Word, follow: Follow) -> Target {
        let Some(text) = word.text.as_deref() else {
            return Target::Unknown;
        };
        let joined = if let Some(rest) = text.strip_prefix('~') {
            if !(rest.is_empty() || rest.starts_with('/')) {
                return Target::Unknown; // `~user`
            }
            match &self.scope.home {
                Some(home) => home.join(rest.trim_start_matches('/')),
                None => return Target::Unknown,
            }
        } else if Path::new(text).is_absolute() {
            PathBuf::from(text)
        } else {
            match self.cwd {
                Some(cwd) => cwd.join(text),
                None => return Target::Unknown,
            }
        };
        let follow = if text.ends_with('/') {
            Follow::Through
        } else {
            follow
        };
        Target::Path(physical(&joined, follow))
    }

    /// Where `abs` lies when a command may not change it without asking: outside the workspace
    /// and its trusted roots, or inside codesmith's own state (its approvals, fingerprints and
    /// network policy are not the command's to rewrite).
    fn forbidden_place(&self, abs: &Path) -> Option<&'static str> {
        let workspace = self.scope.workspace;
        if !workspace.is_inside(abs) {
            Some("outside the workspace")
        } else if workspace.is_state_path(abs) {
            Some("codesmith's own state")
        } else {
            None
        }
    }

    /// One reason per target outside; `recursive` makes a run-time target ask too.
    fn judge(
        &self,
        name: &str,
        verb: &str,
        targets: &[&Word],
        follow: Follow,
        recursive: bool,
    ) -> Vec<String> {
        let mut reasons = Vec::new();
        for word in targets {
            if word.text.as_deref().is_some_and(is_harmless_sink) {
                continue;
            }
            match self.resolve(word, follow) {
                Target::Path(abs) => {
                    if let Some(place) = self.forbidden_place(&abs) {
                        reasons.push(format!("`{name}` {verb} `{}`, {place}", abs.display()));
                    }
                }
                Target::Unknown if recursive => reasons.push(format!(
                    "`{name}` {verb} `{}`, a path known only at run time",
                    word.raw
                )),
                Target::Unknown => {}
            }
        }
        reasons
    }

    fn all_operands(
        &self,
        name: &str,
        args: &[Word],
        verb: &str,
        follow: Follow,
        takes_value: &[&str],
    ) -> Vec<String> {
        let parsed = Operands::parse(args, takes_value);
        let mut targets = parsed.operands.clone();
        targets.extend(parsed.value_of(&["-t", "--target-directory"]));
        self.judge(name, verb, &targets, follow, false)
    }

    /// `chmod MODE FILE…`, `chown OWNER FILE…`; with `--reference=F` every operand is a file.
    fn mode_change(&self, name: &str, args: &[Word]) -> Vec<String> {
        // chmod's modes may start with `-` (`chmod -w f`): only its real flags are options.
        let is_flag = |t: &str| {
            t.starts_with("--")
                || (t.len() > 1 && t[1..].chars().all(|c| "RvcfhHLP".contains(c)) && t.starts_with('-'))
        };
        let mut recursive = false;
        let mut by_reference = false;
        let mut operands = Vec::new();
        let mut options_done = false;
        for word in args {
            match word.text.as_deref() {
                Some("--") if !options_done => options_done = true,
                Some(t) if !options_done && is_flag(t) => {
                    recursive |= t == "--recursive" || (!t.starts_with("--") && t.contains('R'));
                    by_reference |= t.starts_with("--reference");
                }
                _ => operands.push(word),
            }
        }
        let files = if by_reference {
            &operands[..]
        } else {
            operands.get(1..).unwrap_or_default()
        };
        let verb = if name == "chmod" {
            "changes the mode of"
        } else {
            "changes the owner of"
        };
        let name = if recursive {
            format!("{name} -R")
        } else {
            name.to_string()
        };
        self.judge(&name, verb, files, Follow::Through, recursive)
    }

    /// `cp SRC… DEST`, `install`, `ln TARGET LINK`: the destination (or `-t DIR`).
    fn copy_target(&self, name: &str, args: &[Word]) -> Vec<String> {
        let parsed = Operands::parse(
            args,
            &[
                "-t",
                "--target-directory",
                "-S",
                "--suffix",
                "-m",
                "--mode",
                "-o",
                "--owner",
                "-g",
                "--group",
            ],
        );
        let directory = parsed.value_of(&["-t", "--target-directory"]);
        let makes_directories = name == "install" && parsed.has_short('d');
        let targets: Vec<&Word> = if !directory.is_empty() {
            directory
        } else if makes_directories {
            parsed.operands.clone()
        } else if parsed.operands.len() >= 2 {
            parsed.operands.last().copied().into_iter().collect()
        } else {
            Vec::new() // `ln -s TARGET` links into the cwd
        };
        let follow = if name == "ln" {
            Follow::Name
        } else {
            Follow::Through
        };
        self.judge(name, "writes", &targets, follow, false)
    }

    /// `sed -i SCRIPT FILE…` (also `-i.bak`, `-ni`, `--in-place`), `perl -pi -e CODE FILE…`:
    /// the script is the first operand unless given with `-e`/`-f`.
    fn in_place(&self, name: &str, args: &[Word], takes_value: &[&str]) -> Vec<String> {
        let parsed = Operands::parse(args, takes_value);
        let in_place = parsed
            .options
            .iter()
            .any(|t| t.starts_with("--in-place") || short_cluster_has(t, 'i'));
        if !in_place {
            return Vec::new();
        }
        let has_script_option = !parsed
            .value_of(&["-e", "-E", "--expression", "-f", "--file"])
            .is_empty();
        let files = if has_script_option {
            &parsed.operands[..]
        } else {
            parsed.operands.get(1..).unwrap_or_default()
        };
        self.judge(name, "edits", files, Follow::Name, false)
    }

    /// `dd of=FILE` (devices are judged apart).
    fn dd_output(&self, args: &[Word]) -> Vec<String> {
        let mut reasons = Vec::new();
        for word in args {
            let Some(target) = word.text.as_deref().and_then(|t| t.strip_prefix("of=")) else {
                continue;
            };
            if is_device_write(target) {
                continue;
            }
            reasons.extend(self.judge("dd", "writes", &[&literal(target)], Follow::Through, false));
        }
        reasons
    }

    /// `find ROOTS… -delete`, `-exec CMD {} ;` (unless CMD only reads), `-fprint FILE`.
    fn find_actions(&self, args: &[Word]) -> Vec<String> {
        let mut i = 0;
        // Leading options: -H -L -P, -D DEBUG, -O LEVEL.
        while let Some(t) = args.get(i).and_then(|w| w.text.as_deref()) {
            match t {
                "-H" | "-L" | "-P" => i += 1,
                "-D" => i += 2,
                _ if t.starts_with("-O") => i += 1,
                _ => break,
            }
        }
        let mut roots: Vec<&Word> = Vec::new();
        while let Some(word) = args.get(i) {
            let starts_expression = word
                .text
                .as_deref()
                .is_some_and(|t| t.starts_with('-') || t == "(" || t == "!" || t == ",");
            if starts_expression {
                break;
            }
            roots.push(word);
            i += 1;
        }
        let dot = literal(".");
        if roots.is_empty() {
            roots.push(&dot);
        }
        let mut reasons = Vec::new();
        let expression = &args[i..];
        let mut j = 0;
        while let Some(word) = expression.get(j) {
            match word.text.as_deref() {
                Some("-delete") => {
                    reasons.extend(self.judge(
                        "find -delete",
                        "deletes files under",
                        &roots,
                        Follow::Through,
                        true,
                    ));
                }
                Some("-exec" | "-execdir" | "-ok" | "-okdir") => {
                    let end = expression[j + 1..]
                        .iter()
                        .position(|w| w.is_any(&[";", "+"]))
                        .map_or(expression.len(), |at| j + 1 + at);
                    let command = &expression[j + 1..end];
                    if let Some(program) = command.first().and_then(|w| w.text.as_deref()).map(base_name) {
                        if !is_safe(program, &command[1..]) {
                            let name = format!("find -exec {program}");
                            reasons.extend(self.judge(
                                &name,
                                "runs on files under",
                                &roots,
                                Follow::Through,
                                true,
                            ));
                        }
                    }
                    j = end;
                }
                Some("-fprint" | "-fprint0" | "-fprintf" | "-fls") => {
                    if let Some(file) = expression.get(j + 1) {
                        reasons.extend(self.judge("find", "writes", &[file], Follow::Through, false));
                    }
                    j += 1;
                }
                _ => {}
            }
            j += 1;
        }
        reasons.dedup();
        reasons
    }

    /// `tar -x … -C DIR` (also `tar xzf a.tgz -C DIR`, `--directory=DIR`) extracts into DIR;
    /// `tar -c -f FILE` (also `-r`, `-u`) writes the archive FILE.
    fn tar_extract(&self, args: &[Word]) -> Vec<String> {
        let first = args.first().and_then(|w| w.text.as_deref()).unwrap_or("");
        let mode = |short: char, long: &[&str]| {
            (!first.starts_with('-') && first.contains(short))
                || args.iter().any(|w| {
                    w.is_any(long)
                        || w.text
                            .as_deref()
                            .is_some_and(|t| !t.starts_with("--") && short_cluster_has(t, short))
                })
        };
        let parsed = Operands::parse(args, &["-C", "--directory", "-f", "--file"]);
        if mode('x', &["--extract", "--get"]) {
            let directory = parsed.value_of(&["-C", "--directory"]);
            return self.judge("tar -x", "extracts into", &directory, Follow::Through, false);
        }
        if mode('c', &["--create"]) || mode('r', &["--append"]) || mode('u', &["--update"]) {
            // `tar czf out.tgz src`: with a bundled `f`, the archive is the first operand after
            // the bundle.
            let mut archive = parsed.value_of(&["-f", "--file"]);
            if archive.is_empty() && !first.starts_with('-') && first.contains('f') {
                archive.extend(parsed.operands.get(1).copied());
            }
            return self.judge("tar", "writes", &archive, Follow::Through, false);
        }
        Vec::new()
    }

    /// `unzip ARCHIVE -d DIR`.
    fn unzip_target(&self, args: &[Word]) -> Vec<String> {
        let parsed = Operands::parse(args, &["-d"]);
        self.judge(
            "unzip",
            "extracts into",
            &parsed.value_of(&["-d"]),
            Follow::Through,
            false,
        )
    }
}

/// `-ni`, `-xzf`: a short-option cluster holding `flag`.
fn short_cluster_has(text: &str, flag: char) -> bool {
    text.starts_with('-') && !text.starts_with("--") && text[1..].contains(flag)
}

/// A command's words split into options (with the values they take) and operands, the way
/// getopt reads them: `-o FILE`, `-oFILE`, `-uo FILE` (a cluster ending in a value option),
/// `--output FILE`, `--output=FILE`.
struct Operands<'a> {
    options: Vec<&'a str>,
    /// `(option, value)`; for an attached value, a word holding just the value.
    values: Vec<(String, Word)>,
    operands: Vec<&'a Word>,
}

impl<'a> Operands<'a> {
    fn parse(args: &'a [Word], takes_value: &[&str]) -> Operands<'a> {
        let mut parsed = Operands {
            options: Vec::new(),
            values: Vec::new(),
            operands: Vec::new(),
        };
        let mut options_done = false;
        let mut words = args.iter();
        while let Some(word) = words.next() {
            let text = match word.text.as_deref() {
                Some("--") if !options_done => {
                    options_done = true;
                    continue;
                }
                Some(t) if !options_done && t.starts_with('-') && t.len() > 1 => t,
                _ => {
                    parsed.operands.push(word);
                    continue;
                }
            };
            parsed.options.push(text);
            if let Some(long) = text.strip_prefix("--") {
                match long.split_once('=') {
                    Some((name, value)) if takes_value.contains(&format!("--{name}").as_str()) => {
                        parsed.values.push((format!("--{name}"), literal(value)));
                    }
                    Some(_) => {}
                    None if takes_value.contains(&text) => {
                        if let Some(value) = words.next() {
                            parsed.values.push((text.to_string(), value.clone()));
                        }
                    }
                    None => {}
                }
                continue;
            }
            // A short cluster: the first value option takes the rest of the word, or the next.
            for (at, flag) in text.char_indices().skip(1) {
                let option = format!("-{flag}");
                if takes_value.contains(&option.as_str()) {
                    let rest = &text[at + flag.len_utf8()..];
                    if !rest.is_empty() {
                        parsed.values.push((option, literal(rest)));
                    } else if let Some(value) = words.next() {
                        parsed.values.push((option, value.clone()));
                    }
                    break;
                }
            }
        }
        parsed
    }

    fn has_short(&self, flag: char) -> bool {
        self.options.iter().any(|t| short_cluster_has(t, flag))
    }

    fn has_any(&self, options: &[&str]) -> bool {
        self.options.iter().any(|t| {
            options
                .iter()
                .any(|o| t == o || (o.starts_with("--") && t.starts_with(&format!("{o}="))))
        })
    }

    /// The values given to any of `options`.
    fn value_of(&self, options: &[&str]) -> Vec<&Word> {
        self.values
            .iter()
            .filter(|(option, _)| options.contains(&option.as_str()))
            .map(|(_, word)| word)
            .collect()
    }
}

fn literal(text: &str) -> Word {
    Word {
        text: Some(text.to_string()),
        substitutes_command: false,
        raw: text.to_string(),
    }
}

/// Where `path` (absolute) leads on disk, resolved as the kernel resolves it: component by
/// component, each symlink (a dangling one too) replaced by its target before a following `..`
/// applies, so `link/../x` is judged beside the link's target, not beside the link. The part that
/// does not exist is taken as written. With [`Follow::Name`] the last component itself is not
/// resolved (`rm link` removes the link).
fn physical(path: &Path, follow: Follow) -> PathBuf {
    let mut out = PathBuf::from("/");
    let mut hops = 0;
    walk_into(&mut out, path, follow == Follow::Through, &mut hops);
    out
}

/// Symlinks followed at most, as the kernel's own limit; past it the rest is taken as written.
const MAX_LINK_HOPS: usize = 40;

fn walk_into(out: &mut PathBuf, path: &Path, follow_last: bool, hops: &mut usize) {
    let parts: Vec<Component> = path.components().collect();
    for (i, part) in parts.iter().enumerate() {
        match part {
            Component::RootDir => *out = PathBuf::from("/"),
            Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                out.push(name);
                let last = i + 1 == parts.len();
                if (last && !follow_last) || *hops >= MAX_LINK_HOPS {
                    continue;
                }
                if let Ok(target) = std::fs::read_link(&*out) {
                    *hops += 1;
                    out.pop();
                    walk_into(out, &target, true, hops);
                }
            }
        }
    }
}
