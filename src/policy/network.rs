//! Commands that need the network: by first word (`curl`, `ssh` …) and by subcommand
//! (`git fetch`, `cargo install`, `npm install` …).

use super::rules::Word;
use super::safe::git_subcommand;

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

/// Whether `name args`, with the variables `env` set for it, is told to stay offline: a network
/// subcommand (`cargo generate-lockfile`, `npm ci`, `pip install`) that then uses only what is
/// on disk (caches, vendored sources, local wheels). Each tool's own spellings count: its flag
/// anywhere on the line and its environment variable. Anything that could still reach out
/// (`pip --no-index --find-links https://…`, npm's `--prefer-offline`) does not.
pub fn offline(name: &str, args: &[Word], env: &[(String, String)]) -> bool {
    let flag = |flags: &[&str]| args.iter().any(|w| w.is_any(flags));
    let set = |names: &[&str]| {
        env.iter()
            .rev()
            .find(|(key, _)| names.iter().any(|n| n.eq_ignore_ascii_case(key)))
            .is_some_and(|(_, value)| truthy(value))
    };
    match name {
        "cargo" => flag(&["--offline", "--frozen", "net.offline=true"]) || set(&["CARGO_NET_OFFLINE"]),
        "npm" | "pnpm" | "yarn" => flag(&["--offline", "--offline=true"]) || set(&["npm_config_offline"]),
        "pip" | "pip3" => pip_offline(args, env),
        _ if name.starts_with("python") => pip_offline(args, env),
        "uv" => flag(&["--offline"]) || set(&["UV_OFFLINE"]),
        "gem" | "bundle" => flag(&["--local"]),
        "go" => env
            .iter()
            .rev()
            .find(|(key, _)| key == "GOPROXY")
            .is_some_and(|(_, value)| value == "off"),
        _ => false,
    }
}

/// `pip install|download|wheel --no-index` (or `PIP_NO_INDEX`) without a `--find-links` that
/// names a URL: packages come only from local files.
fn pip_offline(args: &[Word], env: &[(String, String)]) -> bool {
    let no_index = args.iter().any(|w| w.is("--no-index"))
        || env
            .iter()
            .rev()
            .find(|(key, _)| key.eq_ignore_ascii_case("PIP_NO_INDEX"))
            .is_some_and(|(_, value)| truthy(value));
    let texts: Vec<Option<&str>> = args.iter().map(|w| w.text.as_deref()).collect();
    let remote_links = texts.iter().enumerate().any(|(i, text)| {
        let value = match text {
            Some(t) if *t == "-f" || *t == "--find-links" => texts.get(i + 1).copied().flatten(),
            Some(t) => t
                .strip_prefix("--find-links=")
                .or_else(|| t.strip_prefix("-f").filter(|v| !v.is_empty())),
            None => None,
        };
        value.is_some_and(|v| v.contains("://"))
    }) || env
        .iter()
        .any(|(key, value)| key.eq_ignore_ascii_case("PIP_FIND_LINKS") && value.contains("://"));
    no_index && !remote_links
}

/// An environment value meaning yes (`true`, `1`, `yes`, `on`), as npm, cargo, pip and uv
/// read them.
fn truthy(value: &str) -> bool {
    matches!(value.to_ascii_lowercase().as_str(), "true" | "1" | "yes" | "on")
}
