//! Classifying a command before it runs: read-only, other, network or destructive.
//!
//! Over 600 lines: one walk over the syntax tree whose visitors share its state (cwd, aliases,
//! nesting depth); the per-program rules are in their own modules.
//!
//! The command is parsed with tree-sitter-bash, not searched for substrings, so the words are
//! the words the shell will see: `git commit -m "pull fix"` is `git commit` with a message,
//! not a `pull`; `echo rm -rf /` is an echo. Every simple command is visited, including those
//! inside pipelines, `&&` chains, loops, subshells and `$(…)`, after unwrapping `sudo`, `env`,
//! `nohup`, `timeout`, `xargs` and similar prefixes. The per-command rules live in
//! [`super::rules`], and where file-changing commands land in [`super::writes`].
//!
//! What a class means for the run:
//! - `read_only`: every command is on the safe list, no output redirection to a file. Runs.
//! - `other`: anything else that is neither network nor destructive. Runs.
//! - `network`: needs the network; follows the `[network]` policy (allow, deny, prompt).
//! - `destructive`: needs a person's yes (approval kind `destructive`) whatever the policy.
//!
//! `cd` is followed through the command (`cd /tmp && rm -rf build` deletes `/tmp/build`), and
//! a `cd` to a directory only known at run time makes later relative paths unknown.

use std::path::PathBuf;

use tree_sitter::{Node, Parser};

use super::rules::{self, Word};
use super::scope::Scope;
use super::writes;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    ReadOnly,
    Other,
    Network,
    Destructive,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        match self {
            Class::ReadOnly => "read_only",
            Class::Other => "other",
            Class::Network => "network",
            Class::Destructive => "destructive",
        }
    }
}

/// Why a command needs the network or a person's yes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub class: Class,
    pub reason: String,
}

#[derive(Debug, Clone)]
pub struct Classification {
    pub class: Class,
    pub findings: Vec<Finding>,
}

impl Classification {
    /// The reasons of one class, joined for an approval request.
    pub fn reasons(&self, class: Class) -> Option<String> {
        let reasons: Vec<&str> = self
            .findings
            .iter()
            .filter(|f| f.class == class)
            .map(|f| f.reason.as_str())
            .collect();
        (!reasons.is_empty()).then(|| reasons.join("; "))
    }
}

/// How deep `sh -c '…'` scripts inside scripts are followed.
const MAX_NESTING: usize = 3;

pub fn classify(command: &str, scope: &Scope) -> Classification {
    classify_at(command, scope, Some(scope.cwd.clone()), 0)
}

fn classify_at(command: &str, scope: &Scope, cwd: Option<PathBuf>, depth: usize) -> Classification {
    let joined = join_continuations(command);
    let command = joined.as_ref();
    let mut walker = Walker {
        src: command.as_bytes(),
        aliases: Vec::new(),
        cdpath: command.contains("CDPATH"),
        scope,
        cwd,
        read_only: true,
        findings: Vec::new(),
        depth,
        exported: Vec::new(),
    };
    let mut parser = Parser::new();
    let tree = parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .ok()
        .and_then(|()| parser.parse(command, None));
    match tree {
        Some(tree) => walker.visit(tree.root_node()),
        None => walker.read_only = false,
    }
    let mut findings = walker.findings;
    findings.dedup();
    let class = findings
        .iter()
        .map(|f| f.class)
        .max()
        .unwrap_or(if walker.read_only {
            Class::ReadOnly
        } else {
            Class::Other
        });
    Classification { class, findings }
}

struct Walker<'a> {
    src: &'a [u8],
    /// `alias NAME=VALUE` seen so far: a later command named NAME runs VALUE.
    aliases: Vec<(String, String)>,
    /// The command sets `CDPATH`, so where a relative `cd` lands is not known.
    cdpath: bool,
    scope: &'a Scope<'a>,
    /// The directory the next command runs in, as far as it can be known before running.
    cwd: Option<PathBuf>,
    read_only: bool,
    findings: Vec<Finding>,
    /// How many `sh -c` levels this script is inside.
    depth: usize,
    /// `export NAME=VALUE` seen so far: the environment of every later command.
    exported: Vec<(String, String)>,
}

impl Walker<'_> {
    fn text(&self, node: Node) -> &str {
        node.utf8_text(self.src).unwrap_or_default()
    }

    fn visit(&mut self, node: Node) {
        if node.is_missing() {
            self.read_only = false;
        }
        if node.is_error() {
            self.read_only = false;
        }
        if node.is_error() && self.depth > 0 {
            // In a script handed to another shell (`bash -c '{rm,-rf,x}'`), text the parser
            // cannot place could run anything once that shell reads it its own way. (At the top,
            // `sh` itself reports a syntax error and runs nothing.)
            let text = self.text(node);
            let shown: String = text.chars().take(60).collect();
            self.find(
                Class::Destructive,
                format!("`{shown}` cannot be parsed here, so what it does cannot be judged"),
            );
        }
        match node.kind() {
            "command" => self.command(node),
            "pipeline" => self.pipeline(node),
            "file_redirect" => self.redirect(node),
            "heredoc_redirect" => self.heredoc(node),
            "herestring_redirect" => self.herestring(node),
            "variable_assignment" => self.assignment(node),
            "function_definition" => {
                self.read_only = false;
                self.function(node);
            }
            _ => {}
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            self.visit(child);
        }
    }

    /// The words of a simple command, with `sudo`/`env`/… prefixes unwrapped.
    fn words(&self, node: Node) -> Vec<Word> {
        let mut words = Vec::new();
        if let Some(name) = node.child_by_field_name("name") {
            words.push(self.word(name));
        }
        let mut cursor = node.walk();
        for arg in node.children_by_field_name("argument", &mut cursor) {
            words.push(self.word(arg));
        }
        rules::unwrap_prefixes(words)
    }

    fn command(&mut self, node: Node) {
        let words = self.words(node);
        let env = self.command_env(node);
        self.simple_command(&words, &env);
    }

    /// The variables known to be set for one command: exported earlier, assigned before its
    /// name (`X=1 cmd`), or handed to `env` (`env X=1 cmd`). Only their effect on whether the
    /// command needs the network is judged (`npm_config_offline=true npm ci`).
    fn command_env(&self, node: Node) -> Vec<(String, String)> {
        let mut env = self.exported.clone();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.kind() == "variable_assignment" {
                env.extend(self.assigned(child));
            }
        }
        let runs_env = node
            .child_by_field_name("name")
            .is_some_and(|name| rules::base_name(self.text(name)) == "env");
        if runs_env {
            for arg in node.children_by_field_name("argument", &mut cursor) {
                let word = self.word(arg);
                match word.text.as_deref().and_then(|t| t.split_once('=')) {
                    Some((name, value)) if !name.is_empty() && !name.starts_with('-') => {
                        env.push((name.to_string(), value.to_string()))
                    }
                    _ if word.starts_with("-") => {}
                    _ => break,
                }
            }
        }
        env
    }

    /// `NAME=VALUE` as a pair, when the value is known before running.
    fn assigned(&self, node: Node) -> Option<(String, String)> {
        let name = node.child_by_field_name("name")?;
        let value = match node.child_by_field_name("value") {
            Some(value) => self.word(value).text?,
            None => String::new(),
        };
        Some((self.text(name).to_string(), value))
    }

    /// Judges one simple command given as words (also the command `find -exec` or `watch`
    /// runs), with the variables `env` set for it.
    fn simple_command(&mut self, words: &[Word], env: &[(String, String)]) {
        let Some(first) = words.first() else {
            return;
        };
        // A name only known at run time (`$CMD args`, `$(echo curl) …`), or one the shell
        // expands (`/bin/r? -rf x`, `{rm,-rf,x}`), could be any program: it could reach the
        // network or delete anything, so it is not let past a policy that asks or denies, and a
        // person sees it first.
        let known = first
            .text
            .as_deref()
            .filter(|t| !t.is_empty() && !t.contains(['*', '?', '[', '{']));
        let Some(name) = known.map(rules::base_name) else {
            self.unknown_command(&first.raw);
            return;
        };
        let name = name.to_string();
        let args = &words[1..];
        if let Some(value) = self.alias(&name) {
            // `alias r=rm` … `r -rf x`: the shell runs the alias's text with the arguments.
            let rest: Vec<&str> = args.iter().map(|w| w.raw.as_str()).collect();
            self.read_only = false;
            self.script(&format!("{value} {}", rest.join(" ")));
            return;
        }
        if name == "alias" {
            for definition in args.iter().filter_map(|w| w.text.as_deref()) {
                if let Some((alias, value)) = definition.split_once('=') {
                    self.aliases.push((alias.to_string(), value.to_string()));
                    self.read_only = false;
                    self.script(value);
                }
            }
        }
        match name.as_str() {
            "cd" | "pushd" => self.cd(args),
            // Where `popd` returns to is not followed; later relative paths are unknown.
            "popd" => self.cd_unknown(),
            _ => {}
        }
        if !rules::is_safe(&name, args) {
            self.read_only = false;
        }
        if let Some(reason) = rules::network(&name, args).filter(|_| !rules::offline(&name, args, env)) {
            self.find(Class::Network, reason);
        }
        if let Some(reason) = rules::destructive(&name, args) {
            self.find(Class::Destructive, reason);
        }
        self.commands_inside(&name, args);
        for reason in writes::outside_writes(&name, args, self.cwd.as_deref(), self.scope) {
            self.find(Class::Destructive, reason);
        }
    }

    /// The commands a command runs (`sh -c SCRIPT`, `find -exec`, `xargs`, …), each judged as a
    /// command of its own.
    fn commands_inside(&mut self, name: &str, args: &[Word]) {
        // `sh -c 'curl …'`: the script is a command line of its own, classified the same way.
        if rules::SHELLS.contains(&name) {
            match rules::dash_c_script(args) {
                Some(Some(script)) => self.script(&script),
                Some(None) => {
                    self.read_only = false;
                    self.find(
                        Class::Network,
                        format!(
                            "`{name} -c` runs a script only known at run time, so it may need the network"
                        ),
                    );
                }
                None => {}
            }
        }
        // Commands that run other commands: each is judged as a command of its own.
        if self.depth < MAX_NESTING {
            self.depth += 1;
            for run in rules::commands_run_by(name, args) {
                match run {
                    rules::Runs::Words(words) => {
                        let env = self.exported.clone();
                        self.simple_command(&words, &env)
                    }
                    rules::Runs::Script(script) => self.script(&script),
                    rules::Runs::Unknown(shown) => self.unknown_command(&shown),
                }
            }
            self.depth -= 1;
        }
    }

    /// A script run by a shell (`sh -c SCRIPT`, `watch 'a | b'`), classified like the command
    /// line itself.
    fn script(&mut self, script: &str) {
        if self.depth >= MAX_NESTING {
            self.read_only = false;
            return;
        }
        let nested = classify_at(script, self.scope, self.cwd.clone(), self.depth + 1);
        self.read_only &= nested.class == Class::ReadOnly;
        for finding in nested.findings {
            self.find(finding.class, finding.reason);
        }
    }

    fn alias(&self, name: &str) -> Option<String> {
        self.aliases
            .iter()
            .rev()
            .find(|(alias, _)| alias == name)
            .map(|(_, value)| value.clone())
    }

    /// `NAME=VALUE` (before a command, or exported): some variables make programs run a
    /// command (`GIT_EXTERNAL_DIFF`, `GIT_SSH_COMMAND`, `PAGER`, `EDITOR` …) or load code
    /// (`BASH_ENV`, `LD_PRELOAD` …).
    fn assignment(&mut self, node: Node) {
        let Some(name) = node.child_by_field_name("name").map(|n| self.text(n).to_string()) else {
            return;
        };
        let exports = node
            .parent()
            .is_some_and(|p| p.kind() == "declaration_command" && self.text(p).starts_with("export"));
        if exports {
            self.exported.extend(self.assigned(node));
        }
        let value = node.child_by_field_name("value").map(|v| self.word(v));
        if rules::COMMAND_VARIABLES.contains(&name.as_str()) {
            self.read_only = false;
            match value.as_ref().and_then(|v| v.text.clone()) {
                Some(script) => self.script(&script),
                None if value.is_some() => self.unknown_command(&format!("${name}")),
                None => {}
            }
        } else if rules::CODE_LOADING_VARIABLES.contains(&name.as_str()) {
            self.read_only = false;
        } else if name == "CODESMITH_WORKSPACE" {
            if let Some(reason) = value
                .as_ref()
                .and_then(|v| writes::foreign_workspace(v, self.cwd.as_deref(), self.scope))
            {
                self.find(Class::Destructive, reason);
            }
        }
    }

    /// An unquoted here-document expands `` `…` `` like `$(…)` (which the parser already shows
    /// as a command substitution); a quoted one (`<<'EOF'`) expands nothing.
    /// `sh <<EOF … EOF`: the here-document is the shell's script.
    fn heredoc(&mut self, node: Node) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        let quoted = children
            .iter()
            .find(|c| c.kind() == "heredoc_start")
            .is_some_and(|start| self.text(*start).contains(['\'', '"', '\\']));
        for body in children.iter().filter(|c| c.kind() == "heredoc_body") {
            let text = self.text(*body).to_string();
            self.stdin_script(node, &text);
            if !quoted {
                for script in backtick_scripts(&text) {
                    self.read_only = false;
                    self.script(&script);
                }
            }
        }
    }

    /// `bash <<< 'cmd'`: the here-string is the shell's script.
    fn herestring(&mut self, node: Node) {
        let Some(content) = node.named_child(0) else {
            return;
        };
        let word = self.word(content);
        match word.text {
            Some(text) => self.stdin_script(node, &text),
            None if self.stdin_is_script(node).is_some() => self.unknown_command(&word.raw),
            None => {}
        }
    }

    /// When the command a redirect belongs to runs its stdin as a script (a shell or an
    /// interpreter without a script argument), judges `text` as that script: a shell's is
    /// classified like the command line; another interpreter's cannot be judged.
    fn stdin_script(&mut self, redirect: Node, text: &str) {
        match self.stdin_is_script(redirect) {
            Some(true) => {
                self.read_only = false;
                self.script(text);
            }
            Some(false) => {
                self.read_only = false;
                self.find(
                    Class::Destructive,
                    "runs a here-document as a program, which cannot be judged".to_string(),
                );
            }
            None => {}
        }
    }

    /// `Some(true)` when the redirect feeds a shell reading its script from stdin,
    /// `Some(false)` for another interpreter doing so, `None` otherwise.
    fn stdin_is_script(&self, redirect: Node) -> Option<bool> {
        let parent = redirect.parent()?;
        let command = match parent.kind() {
            "command" => parent,
            "redirected_statement" => parent
                .child_by_field_name("body")
                .filter(|b| b.kind() == "command")?,
            _ => return None,
        };
        let words = self.words(command);
        rules::reads_script_from_stdin(&words)?;
        let name = words.first()?.text.as_deref().map(rules::base_name)?;
        Some(rules::SHELLS.contains(&name))
    }

    /// A command that cannot be judged before it runs.
    fn unknown_command(&mut self, shown: &str) {
        self.read_only = false;
        self.find(
            Class::Network,
            format!("`{shown}` names the command only at run time, so it may need the network"),
        );
        self.find(
            Class::Destructive,
            format!("`{shown}` names the command only at run time, so what it does cannot be judged"),
        );
    }

    fn cd_unknown(&mut self) {
        self.cwd = None;
    }

    fn cd(&mut self, args: &[Word]) {
        let target = args
            .iter()
            .find(|w| w.text.as_deref().is_none_or(|t| !t.starts_with('-')));
        self.cwd = match target {
            None => self.scope.home.clone(),
            Some(Word { text: Some(t), .. }) if t.starts_with('~') => self
                .scope
                .home
                .as_ref()
                .map(|h| h.join(t.trim_start_matches('~').trim_start_matches('/'))),
            // With CDPATH set, `cd name` may land in any of its directories.
            Some(Word { text: Some(t), .. }) if self.cdpath && !t.starts_with('/') && !t.starts_with('.') => {
                None
            }
            Some(Word { text: Some(t), .. }) if t != "-" => self
                .cwd
                .as_ref()
                .map(|cwd| crate::fs::workspace::normalize_lexically(&cwd.join(t))),
            _ => None,
        };
    }

    /// `… | sh`: the text of the earlier stages becomes a script.
    fn pipeline(&mut self, node: Node) {
        let mut cursor = node.walk();
        let stages: Vec<Node> = node.named_children(&mut cursor).collect();
        for stage in stages.iter().skip(1) {
            let command = match stage.kind() {
                "command" => Some(*stage),
                "redirected_statement" => stage
                    .child_by_field_name("body")
                    .filter(|b| b.kind() == "command"),
                _ => None,
            };
            if let Some(command) = command {
                let words = self.words(command);
                if let Some(reason) = rules::reads_script_from_stdin(&words) {
                    self.find(Class::Destructive, reason);
                }
            }
        }
    }

    fn redirect(&mut self, node: Node) {
        let Some(destination) = node.child_by_field_name("destination") else {
            return;
        };
        // The operator is everything before the destination (`>`, `2>>`, `&>`, `1<>`, `>|`).
        let operator = self.src[node.start_byte()..destination.start_byte()].to_vec();
        let operator = String::from_utf8_lossy(&operator).trim().to_string();
        let word = self.word(destination);
        if let Some(t) = word
            .text
            .as_deref()
            .filter(|t| t.starts_with("/dev/tcp/") || t.starts_with("/dev/udp/"))
        {
            self.read_only = false;
            self.find(Class::Network, format!("`{t}` opens a network connection"));
            return;
        }
        if !operator.contains('>') {
            return;
        }
        match word.text.as_deref() {
            // `2>&1`, `>&2`: duplicating a descriptor writes nothing new.
            Some(t) if operator.ends_with('&') && t.chars().all(|c| c.is_ascii_digit() || c == '-') => {}
            Some("/dev/null") => {}
            Some(t) if rules::is_device_write(t) => {
                self.read_only = false;
                self.find(Class::Destructive, format!("writes straight to the device `{t}`"));
            }
            _ => {
                self.read_only = false;
                if let Some(reason) = writes::redirect_outside(&word, self.cwd.as_deref(), self.scope) {
                    self.find(Class::Destructive, reason);
                }
            }
        }
    }

    /// A function that calls itself in a pipeline is the classic fork bomb `:(){ :|:& };:`.
    fn function(&mut self, node: Node) {
        let Some(name) = node.child_by_field_name("name").map(|n| self.text(n).to_string()) else {
            return;
        };
        let Some(body) = node.child_by_field_name("body") else {
            return;
        };
        if self.calls_itself_in_pipeline(body, &name, false) {
            self.find(
                Class::Destructive,
                format!("defines `{name}` to start copies of itself without end (a fork bomb)"),
            );
        }
    }

    fn calls_itself_in_pipeline(&self, node: Node, name: &str, in_pipeline: bool) -> bool {
        let in_pipeline = in_pipeline || node.kind() == "pipeline";
        if in_pipeline && node.kind() == "command_name" && self.text(node) == name {
            return true;
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        children
            .into_iter()
            .any(|child| self.calls_itself_in_pipeline(child, name, in_pipeline))
    }

    fn find(&mut self, class: Class, reason: String) {
        let finding = Finding { class, reason };
        if !self.findings.contains(&finding) {
            self.findings.push(finding);
        }
    }

    /// The static text of a word, or `None` where the shell substitutes something at run time.
    fn word(&self, node: Node) -> Word {
        let mut word = Word {
            text: Some(String::new()),
            substitutes_command: false,
            raw: self.text(node).to_string(),
        };
        self.append(node, &mut word);
        word
    }

    fn append(&self, node: Node, word: &mut Word) {
        match node.kind() {
            "command_substitution" | "process_substitution" => {
                word.substitutes_command = true;
                word.text = None;
            }
            "expansion" | "simple_expansion" | "arithmetic_expansion" | "ansi_c_string" => word.text = None,
            "word" | "number" | "command_name" if node.named_child_count() == 0 => {
                let raw = self.text(node);
                if let Some(text) = &mut word.text {
                    text.push_str(&unescape_bare(raw));
                }
            }
            "raw_string" => {
                let raw = self.text(node);
                if let Some(text) = &mut word.text {
                    text.push_str(raw.trim_start_matches('\'').trim_end_matches('\''));
                }
            }
            "string_content" => {
                let raw = self.text(node);
                if let Some(text) = &mut word.text {
                    text.push_str(&unescape_double_quoted(raw));
                }
            }
            _ => {
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                for child in children {
                    self.append(child, word);
                }
            }
        }
    }
}

/// Quote removal for an unquoted word: `\x` is `x`, and a backslash-newline (a line
/// continuation) is nothing at all, as the shell reads it.
fn unescape_bare(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(next) => out.push(next),
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn unescape_double_quoted(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some(&next)) if matches!(next, '"' | '\\' | '$' | '`') => {
                out.push(next);
                chars.next();
            }
            // A line continuation inside double quotes is removed too.
            ('\\', Some('\n')) => {
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// The command line as the shell reads it: a backslash-newline (outside single quotes) is
/// removed, so `r\⏎m` is `rm`.
fn join_continuations(src: &str) -> std::borrow::Cow<'_, str> {
    if !src.contains("\\\n") {
        return std::borrow::Cow::Borrowed(src);
    }
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    let (mut single, mut double) = (false, false);
    while let Some(c) = chars.next() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '\\' if !single => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                    continue;
                }
                out.push(c);
                if let Some(next) = chars.next() {
                    out.push(next);
                }
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    std::borrow::Cow::Owned(out)
}

/// The texts between unescaped backticks.
fn backtick_scripts(text: &str) -> Vec<String> {
    let mut scripts = Vec::new();
    let mut current: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (c, current.as_mut()) {
            ('\\', Some(script)) => {
                script.push(c);
                if let Some(next) = chars.next() {
                    script.push(next);
                }
            }
            ('\\', None) => {
                chars.next();
            }
            ('`', Some(_)) => scripts.extend(current.take()),
            ('`', None) => current = Some(String::new()),
            (_, Some(script)) => script.push(c),
            (_, None) => {}
        }
    }
    scripts
}

#[cfg(test)]
#[path = "classify_tests.rs"]
mod tests;
