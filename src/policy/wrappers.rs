//! Commands that run other commands: the prefixes unwrapped before a command is judged
//! (`sudo`, `env`, `timeout 10`, `xargs`, `busybox` …) and the commands that `find -exec`,
//! `watch`, `trap`, `su -c`, `flock` or `rg --pre` run, each judged as a command of its own.

use super::rules::{base_name, Word};

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
        | "setsid" | "chronic" | "busybox" | "toybox" | "chrt" | "taskset" | "unbuffer" | "eatmydata"
        | "rlwrap" | "catchsegv" | "pkexec" | "proxychains" | "proxychains4" | "torsocks" | "tsocks"
        | "faketime" => &[],
        _ => return None,
    })
}

/// Prefixes followed by one operand before the command: `timeout 10 cmd`, `chrt 5 cmd`,
/// `taskset 0x1 cmd`.
fn prefix_operands(name: &str) -> usize {
    usize::from(matches!(name, "timeout" | "chrt" | "taskset" | "faketime"))
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
        "find" => find_execs(args),
        "watch" => watched(args),
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
        // `sg GROUP -c 'cmd'` or `sg GROUP 'cmd'`: the command is a script for `sh -c`.
        "sg" => match dash_c_option(args) {
            Some(run) => vec![run],
            None => match args.iter().filter(|w| !w.starts_with("-")).nth(1) {
                Some(Word {
                    text: Some(script), ..
                }) => vec![Runs::Script(script.clone())],
                Some(Word { raw, .. }) => vec![Runs::Unknown(raw.clone())],
                None => Vec::new(),
            },
        },
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

/// `watch [-x] CMD…`: with -x the words run as they are; without, watch joins them with
/// spaces and hands them to `sh -c`.
fn watched(args: &[Word]) -> Vec<Runs> {
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
        let texts: Option<Vec<&str>> = command.iter().map(|w| w.text.as_deref()).collect();
        match texts {
            Some(texts) => vec![Runs::Script(texts.join(" "))],
            None => vec![Runs::Words(command.to_vec())],
        }
    }
}

/// `find … -exec CMD {} ;` (and -execdir, -ok, -okdir): each command runs per file found.
fn find_execs(args: &[Word]) -> Vec<Runs> {
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
