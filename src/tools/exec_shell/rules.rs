//! The per-command tables behind the classifier: the safe (read-only) list with its flag
//! exceptions, the commands that need the network, and the destructive ones.
//!
//! The safe list follows Codex's: commands that only read, and for the ones that can also
//! write or run other programs, the flags that make them do so (`find -exec`, `rg --pre`,
//! `git -c`, `sed` with anything but `-n Np`).
//!
//! Where file-changing commands (`rm`, `chmod`, `mv`, `>` …) land is judged in [`super::writes`].

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
    fn is(&self, text: &str) -> bool {
        self.text.as_deref() == Some(text)
    }

    pub fn is_any(&self, texts: &[&str]) -> bool {
        self.text.as_deref().is_some_and(|t| texts.contains(&t))
    }

    fn starts_with(&self, prefix: &str) -> bool {
        self.text.as_deref().is_some_and(|t| t.starts_with(prefix))
    }
}

/// `/usr/bin/git` → `git`.
pub fn base_name(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// Prefix commands that run the rest of the line, and how many following words each of their
/// options consumes.
fn prefix_options(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "sudo" | "doas" => &["-u", "-g", "-U", "-C", "-D", "-h", "-p", "-r", "-t", "-T"],
        "env" => &["-u", "-C", "--unset", "--chdir"],
        "nice" => &["-n"],
        "ionice" => &["-c", "-n", "-p"],
        "timeout" => &["-s", "-k"],
        "xargs" => &["-I", "-n", "-P", "-d", "-E", "-L", "-s", "-a"],
        "parallel" => &[
            "-j",
            "-S",
            "-a",
            "-d",
            "-I",
            "-n",
            "-N",
            "--jobs",
            "--sshlogin",
            "--arg-file",
        ],
        "exec" => &["-a"],
        "runuser" => &["-u", "-g", "-G", "--user", "--group"],
        "strace" | "ltrace" => &[
            "-o", "-e", "-p", "-s", "-u", "-E", "-P", "-a", "-b", "-n", "-O", "-S", "-X",
        ],
        "xvfb-run" => &["-n", "-s", "-f", "-e", "-p", "-w"],
        "numactl" => &[
            "-C",
            "-N",
            "-m",
            "-p",
            "-i",
            "--cpunodebind",
            "--membind",
            "--physcpubind",
        ],
        "cgexec" => &["-g"],
        "nsenter" => &["-t", "--target", "-S", "-G", "-w", "-r"],
        "unshare" | "prlimit" | "systemd-run" | "firejail" | "fakeroot" | "valgrind" | "entr"
        | "dbus-run-session" | "proot" | "nohup" | "time" | "command" | "builtin" | "coproc" | "stdbuf"
        | "setsid" | "chronic" | "busybox" | "toybox" | "chrt" | "taskset" => &[],
        _ => return None,
    })
}

/// Prefixes followed by one operand before the command: `timeout 10 cmd`, `chrt 5 cmd`,
/// `taskset 0x1 cmd`.
fn prefix_operands(name: &str) -> usize {
    usize::from(matches!(name, "timeout" | "chrt" | "taskset"))
}

/// Drops `sudo -u x`, `env A=1`, `timeout 10`, `xargs -n1` … from the front of a command.
/// After `xargs`, the command also receives the words xargs reads at run time, so a word known
/// only then is added (`… | xargs rm -rf` deletes paths nobody has seen yet).
pub fn unwrap_prefixes(words: Vec<Word>) -> Vec<Word> {
    let mut from_xargs = false;
    let mut words = strip_prefixes(words, &mut from_xargs);
    if from_xargs {
        words.push(Word {
            text: None,
            substitutes_command: false,
            raw: "(the words xargs reads)".to_string(),
        });
    }
    words
}

fn strip_prefixes(mut words: Vec<Word>, from_xargs: &mut bool) -> Vec<Word> {
    loop {
        let Some(name) = words.first().and_then(|w| w.text.clone()) else {
            return words;
        };
        let name = base_name(&name).to_string();
        let Some(takes_value) = prefix_options(&name) else {
            return words;
        };
        // `command -v x` asks about x; it does not run it.
        if name == "command" && words.get(1).is_some_and(|w| w.is("-v") || w.is("-V")) {
            return words;
        }
        let mut i = 1;
        while let Some(word) = words.get(i) {
            let text = word.text.as_deref().unwrap_or("");
            if text == "--" {
                i += 1;
                break;
            }
            if name == "env" && (text.starts_with("-S") || text.starts_with("--split-string")) {
                // `env -S 'cmd args'`: the string is split into the command's words.
                let (consumed, string) = match text.split_once('=') {
                    Some((_, value)) => (1, Some(value.to_string())),
                    None if text.len() > 2 && !text.starts_with("--") => (1, Some(text[2..].to_string())),
                    None => (2, words.get(i + 1).and_then(|w| w.text.clone())),
                };
                let Some(string) = string else {
                    // Split from a string only known at run time.
                    words.truncate(i);
                    words.push(Word {
                        text: None,
                        substitutes_command: false,
                        raw: "env -S …".to_string(),
                    });
                    words.drain(..i);
                    return words;
                };
                let split: Vec<Word> = split_words(&string);
                let end = (i + consumed).min(words.len());
                words.splice(i..end, split);
                continue;
            }
            if text.starts_with('-') && text.len() > 1 {
                i += if takes_value.contains(&text) { 2 } else { 1 };
            } else if name == "env" && text.contains('=') {
                i += 1;
            } else {
                break;
            }
        }
        i += prefix_operands(&name).min(words.len().saturating_sub(i));
        if i >= words.len() {
            // The prefix alone (`env` prints the environment, `time` does nothing).
            words.truncate(1);
            return words;
        }
        *from_xargs |= matches!(name.as_str(), "xargs" | "parallel");
        words.drain(..i);
    }
}

/// `a 'b c' "d"` split into words the simple way `env -S` does (whitespace, quotes removed).
fn split_words(text: &str) -> Vec<Word> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => current.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started || !current.is_empty() {
                    words.push(std::mem::take(&mut current));
                    started = false;
                }
            }
            (None, c) => current.push(c),
        }
    }
    if started || !current.is_empty() {
        words.push(current);
    }
    words
        .into_iter()
        .map(|text| Word {
            raw: text.clone(),
            text: Some(text),
            substitutes_command: false,
        })
        .collect()
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

fn has_short_flag(args: &[Word], flag: char) -> bool {
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
fn git_subcommand(args: &[Word]) -> Option<(String, &[Word])> {
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

/// The first words that always need the network.
pub const NETWORK_COMMANDS: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "nc",
    "netcat",
    "ncat",
    "ssh",
    "scp",
    "sftp",
    "rsync",
    "ftp",
    "ping",
    "traceroute",
    "nslookup",
    "dig",
    "host",
    "nmap",
    "masscan",
    "tcpdump",
    "wireshark",
    "telnet",
    "whois",
    "socat",
    "aria2c",
    "lftp",
    "ping6",
    "tracepath",
    "mtr",
    "tshark",
    "npx",
    "gh",
    "glab",
    "wget2",
    "lynx",
    "w3m",
    "links",
    "elinks",
    "ssh-keyscan",
    "tftp",
    "aws",
    "gsutil",
    "gcloud",
    "az",
    "kubectl",
    "helm",
    "http",
    "https",
    "xh",
    "uvx",
    "bunx",
    "pnpx",
];

/// `host:path` (scp and rsync syntax): a colon before the first slash.
pub fn remote_path(text: &str) -> bool {
    match text.find(':') {
        Some(colon) => colon > 0 && !text[..colon].contains('/'),
        None => false,
    }
}

/// Subcommands that need the network, by program.
fn network_subcommands(name: &str) -> &'static [&'static str] {
    match name {
        "git" => &[
            "fetch",
            "pull",
            "clone",
            "ls-remote",
            "submodule",
            "push",
            "svn",
            "send-email",
        ],
        "cargo" => &[
            "install",
            "fetch",
            "update",
            "publish",
            "search",
            "login",
            "owner",
            "yank",
            "add",
            "vendor",
            "generate-lockfile",
        ],
        "npm" => &[
            "install", "i", "add", "update", "publish", "ci", "exec", "x", "view", "info", "show", "search",
            "outdated", "audit", "login", "whoami", "ping", "pack", "dist-tag",
        ],
        "pnpm" => &["install", "i", "add", "update", "publish", "dlx"],
        "yarn" => &["install", "add", "update", "upgrade", "publish", "dlx"],
        "bun" => &["install", "i", "add", "update", "x"],
        "pip" | "pip3" | "pipx" => &["install", "download", "wheel", "run"],
        "uv" => &["install", "add", "sync", "lock", "tool", "run"],
        "terraform" | "tofu" => &["init", "plan", "apply", "destroy", "import", "refresh"],
        "poetry" => &["install", "add", "sync", "update", "lock"],
        "go" => &["get", "install"],
        "apt" | "apt-get" | "aptitude" => &[
            "install",
            "update",
            "upgrade",
            "dist-upgrade",
            "full-upgrade",
            "source",
            "download",
            "build-dep",
        ],
        "yum" | "dnf" => &["install", "update", "upgrade", "makecache", "download"],
        "apk" => &["add", "update", "upgrade", "fetch"],
        "zypper" => &["install", "in", "update", "up", "refresh", "ref"],
        "brew" => &["install", "update", "upgrade", "fetch", "tap", "reinstall"],
        "gem" => &["install", "update", "fetch", "push"],
        "bundle" => &["install", "update"],
        "composer" => &["install", "require", "update", "create-project"],
        "conda" | "mamba" => &["install", "create", "update"],
        "snap" | "flatpak" => &["install", "refresh", "update"],
        "docker" | "podman" => &["pull", "push", "login", "run", "build"],
        "rustup" => &["update", "install", "toolchain", "target", "component"],
        _ => &[],
    }
}

/// Why `name args` needs the network, if it does.
pub fn network(name: &str, args: &[Word]) -> Option<String> {
    if name == "rsync" {
        // Only a `host:path` or `rsync://` operand goes over the network; a local copy does not.
        let remote = args.iter().any(|w| match w.text.as_deref() {
            Some(t) => {
                !t.starts_with('-') && (t.contains("::") || t.starts_with("rsync://") || remote_path(t))
            }
            None => true,
        });
        return remote.then(|| "`rsync` talks to the network".to_string());
    }
    if NETWORK_COMMANDS.contains(&name) {
        return Some(format!("`{name}` talks to the network"));
    }
    let sub = match name {
        "git" => git_subcommand(args).map(|(sub, _)| sub),
        // `cargo +nightly install x`: the toolchain comes first.
        _ => args
            .iter()
            .find(|w| !w.starts_with("-") && !w.starts_with("+"))
            .and_then(|w| w.text.clone()),
    };
    let subs = network_subcommands(name);
    match sub.as_deref() {
        Some(s) if subs.contains(&s) => Some(format!("`{name} {s}` downloads or uploads")),
        // `yarn` alone installs.
        None if name == "yarn" => Some("`yarn` installs packages".to_string()),
        Some("remote") if name == "git" && args.iter().any(|w| w.is("update")) => {
            Some("`git remote update` fetches every remote".to_string())
        }
        Some("lfs")
            if name == "git" && args.iter().any(|w| w.is_any(&["pull", "fetch", "push", "clone"])) =>
        {
            Some("`git lfs` downloads or uploads".to_string())
        }
        Some("archive") if name == "git" && args.iter().any(|w| w.starts_with("--remote")) => {
            Some("`git archive --remote` talks to the network".to_string())
        }
        Some("s_client") if name == "openssl" => Some("`openssl s_client` talks to the network".to_string()),
        Some("tidy" | "download" | "vendor") if name == "go" && args.iter().any(|w| w.is("mod")) => {
            Some("`go mod` downloads modules".to_string())
        }
        Some("mod") if name == "go" && args.iter().any(|w| w.is_any(&["download", "tidy", "vendor"])) => {
            Some("`go mod` downloads modules".to_string())
        }
        Some("pip") if name == "uv" && args.iter().any(|w| w.is("install") || w.is("sync")) => {
            Some("`uv pip install` downloads".to_string())
        }
        _ if name == "pacman" && args.iter().any(|w| w.starts_with("-S") || w.starts_with("-U")) => {
            Some("`pacman -S` downloads packages".to_string())
        }
        _ if name.starts_with("python") && pip_module_install(args) => {
            Some("`python -m pip install|download` downloads packages".to_string())
        }
        _ => None,
    }
}

fn pip_module_install(args: &[Word]) -> bool {
    let texts: Vec<&str> = args.iter().filter_map(|w| w.text.as_deref()).collect();
    texts
        .windows(3)
        .any(|w| w[0] == "-m" && w[1].starts_with("pip") && matches!(w[2], "install" | "download"))
}

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

/// A command that another command runs.
pub enum Runs {
    /// Run directly, as words (`find -exec CMD ARGS… ;`, `watch -x CMD ARGS…`).
    Words(Vec<Word>),
    /// Joined and run by `sh -c` (`watch CMD ARGS…`).
    Script(String),
    /// A command only known at run time (`trap "$X" EXIT`), shown as written.
    Unknown(String),
}

/// The script given with `-c` (`su -c 'cmd'`, `flock FILE -c 'cmd'`, `script -qc 'cmd'`).
fn dash_c_option(args: &[Word]) -> Option<Runs> {
    let at = args.iter().position(|w| {
        w.is_any(&["-c", "--command"]) || w.text.as_deref().is_some_and(|t| short_cluster_ends_with(t, 'c'))
    })?;
    let script = args.get(at + 1)?;
    Some(match &script.text {
        Some(text) => Runs::Script(text.clone()),
        None => Runs::Unknown(script.raw.clone()),
    })
}

fn short_cluster_ends_with(text: &str, flag: char) -> bool {
    text.len() > 1 && text.starts_with('-') && !text.starts_with("--") && text.ends_with(flag)
}

/// The commands `name args` runs: each `-exec`/`-execdir`/`-ok`/`-okdir` of `find`, and the
/// command `watch` repeats (`sudo`, `env`, `xargs`, `timeout` … are unwrapped before this).
pub fn commands_run_by(name: &str, args: &[Word]) -> Vec<Runs> {
    match name {
        "find" => {
            let mut runs = Vec::new();
            let mut i = 0;
            while i < args.len() {
                if args[i].is_any(&["-exec", "-execdir", "-ok", "-okdir"]) {
                    let end = args[i + 1..]
                        .iter()
                        .position(|w| w.is_any(&[";", "+"]))
                        .map_or(args.len(), |at| i + 1 + at);
                    runs.push(Runs::Words(unwrap_prefixes(args[i + 1..end].to_vec())));
                    i = end;
                }
                i += 1;
            }
            runs
        }
        "watch" => {
            let mut i = 0;
            let mut exec = false;
            while let Some(text) = args.get(i).and_then(|w| w.text.as_deref()) {
                match text {
                    "-n" | "--interval" | "-q" | "--equexit" => i += 2,
                    "-x" | "--exec" => {
                        exec = true;
                        i += 1;
                    }
                    "--" => {
                        i += 1;
                        break;
                    }
                    _ if text.starts_with('-') => i += 1,
                    _ => break,
                }
            }
            let command = &args[i.min(args.len())..];
            if command.is_empty() {
                Vec::new()
            } else if exec {
                vec![Runs::Words(unwrap_prefixes(command.to_vec()))]
            } else {
                // watch joins its arguments with spaces and hands them to `sh -c`.
                let texts: Option<Vec<&str>> = command.iter().map(|w| w.text.as_deref()).collect();
                match texts {
                    Some(texts) => vec![Runs::Script(texts.join(" "))],
                    None => vec![Runs::Words(command.to_vec())],
                }
            }
        }
        // `trap 'cmd' EXIT`: the action runs when the signal comes.
        "trap" => match args.iter().find(|w| !w.is_any(&["-p", "-l", "--"])) {
            Some(Word {
                text: Some(action), ..
            }) if !action.is_empty() && action != "-" => {
                vec![Runs::Script(action.clone())]
            }
            Some(Word { text: None, raw, .. }) => vec![Runs::Unknown(raw.clone())],
            _ => Vec::new(),
        },
        "su" | "runuser" | "script" => dash_c_option(args).into_iter().collect(),
        // `flock [-c 'cmd'] FILE cmd…`, `chroot DIR cmd…`: after the options and one operand.
        "flock" | "chroot" => match dash_c_option(args) {
            Some(run) => vec![run],
            None => {
                let mut operands = args.iter().skip_while(|w| w.starts_with("-")).skip(1);
                let command: Vec<Word> = operands.by_ref().cloned().collect();
                if command.is_empty() {
                    Vec::new()
                } else {
                    vec![Runs::Words(unwrap_prefixes(command))]
                }
            }
        },
        // `rg --pre CMD`: CMD runs on every file searched.
        "rg" => args
            .iter()
            .enumerate()
            .find_map(|(i, w)| match w.text.as_deref() {
                Some("--pre") => args.get(i + 1).cloned(),
                Some(t) => t.strip_prefix("--pre=").map(|cmd| Word {
                    text: Some(cmd.to_string()),
                    substitutes_command: false,
                    raw: cmd.to_string(),
                }),
                None => None,
            })
            .map(|cmd| vec![Runs::Words(vec![cmd])])
            .unwrap_or_default(),
        _ => Vec::new(),
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
