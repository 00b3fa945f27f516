//! Another harness's tool call (Claude Code, Codex, the Anthropic text editor) translated
//! whole into the codesmith call that does the same thing, so `unknown_tool` can hand back a
//! call that succeeds as sent instead of only the tool's name.
//!
//! Over 600 lines: one mapping per foreign tool, each small, kept side by side so their
//! conventions (offsets, modes, argv) can be compared.
//!
//! Every argument is mapped with its meaning, not only its name: Claude Code's `offset` is the
//! first line to show, its Grep lists files unless told otherwise, Codex's `shell` takes an
//! argv. A field with no equivalent here is named in [`Translation::notes`], never dropped
//! silently. Calls whose meaning depends on the file's text (several edits at once, an insert
//! at a line) are computed against the file as it is now and become an `apply_patch` diff.

use serde_json::{json, Map, Value};

use crate::error::{NoEquivalent, TranslationNote, Untranslatable};
use crate::tools::Cap;

/// The codesmith call another harness's call translates to.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Translation {
    pub name: &'static str,
    pub arguments: Value,
    /// What the translation could not carry over, one sentence each.
    pub notes: Vec<TranslationNote>,
}

/// What a translation may need to know about the workspace.
pub trait Files {
    /// The file's text and the path a call names it by; `Err` says why it cannot be had.
    fn text(&self, path: &str) -> Result<(String, String), Untranslatable>;
    fn is_dir(&self, path: &str) -> bool;
}

/// The translation of the call `name(arguments)`, when `name` is a tool of a harness this
/// knows; `Err` when the call cannot be translated, with the reason.
pub(super) fn translate(
    name: &str,
    arguments: &Value,
    files: &dyn Files,
) -> Option<Result<Translation, Untranslatable>> {
    let empty = Map::new();
    let args = arguments.as_object().unwrap_or(&empty);
    let mut call = Builder::new(args);
    let base = name.rsplit("__").next().unwrap_or(name);
    let translated = match base {
        "Read" => call.read(),
        "Write" => call.write(),
        "Edit" => call.edit(),
        "MultiEdit" => call.multi_edit(files),
        "Bash" => call.bash(),
        "Grep" => call.grep(),
        "Glob" => call.glob(),
        "LS" => call.ls(),
        "WebFetch" => call.web_fetch(),
        "shell" | "local_shell" | "container.exec" => call.codex_shell(),
        "apply_patch" | "ApplyPatch" => call.codex_apply_patch(),
        "str_replace_editor" | "str_replace_based_edit_tool" => call.text_editor(files),
        _ => return None,
    };
    Some(translated.map(|name| call.finish(name)))
}

/// Collects the arguments of the translated call and the notes on what was left out.
struct Builder<'a> {
    args: &'a Map<String, Value>,
    out: Map<String, Value>,
    notes: Vec<TranslationNote>,
    /// The fields already taken into `out` or explained in `notes`.
    used: Vec<&'a str>,
}

impl<'a> Builder<'a> {
    fn new(args: &'a Map<String, Value>) -> Builder<'a> {
        Builder {
            args,
            out: Map::new(),
            notes: Vec::new(),
            used: Vec::new(),
        }
    }

    fn get(&mut self, key: &'a str) -> Option<&'a Value> {
        let value = self.args.get(key).filter(|v| !v.is_null());
        if value.is_some() {
            self.used.push(key);
        }
        value
    }

    fn str_of(&mut self, key: &'a str) -> Option<&'a str> {
        self.get(key).and_then(Value::as_str)
    }

    fn u64_of(&mut self, key: &'a str) -> Option<u64> {
        self.get(key)
            .and_then(|v| v.as_u64().or_else(|| v.as_str()?.trim().parse().ok()))
    }

    fn bool_of(&mut self, key: &'a str) -> Option<bool> {
        self.get(key)
            .and_then(|v| v.as_bool().or_else(|| v.as_str()?.parse().ok()))
    }

    /// Copies `from` to `to` as is.
    fn rename(&mut self, from: &'a str, to: &str) {
        if let Some(value) = self.get(from) {
            self.out.insert(to.to_string(), value.clone());
        }
    }

    fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.out.insert(key.to_string(), value.into());
    }

    fn note(&mut self, key: &'a str, why: NoEquivalent) {
        if self.get(key).is_some() {
            self.notes.push(TranslationNote::NoEquivalent {
                key: key.to_string(),
                why,
            });
        }
    }

    fn require(&mut self, key: &'static str) -> Result<&'a Value, Untranslatable> {
        self.get(key).ok_or(Untranslatable::Required(key))
    }

    fn finish(mut self, name: &'static str) -> Translation {
        for key in self.args.keys() {
            if !self.used.contains(&key.as_str()) && !self.args[key].is_null() {
                self.notes.push(TranslationNote::NotAField { key: key.clone() });
            }
        }
        Translation {
            name,
            arguments: Value::Object(self.out),
            notes: self.notes,
        }
    }

    /// Claude Code `Read {file_path, offset, limit}`: offset is the first line to show.
    fn read(&mut self) -> Result<&'static str, Untranslatable> {
        self.require("file_path")?;
        self.rename("file_path", "path");
        if let Some(offset) = self.u64_of("offset") {
            self.set("start_line", offset.max(1));
        }
        if let Some(limit) = self.u64_of("limit") {
            self.max_lines(limit);
        }
        self.note("pages", NoEquivalent::PdfPages);
        Ok("read_file")
    }

    fn max_lines(&mut self, lines: u64) {
        self.capped("read_file", "max_lines", lines, |cap| {
            TranslationNote::ReadLinesCapped { cap }
        });
    }

    /// Sets `field` of `tool` to `value` within the field's bounds; a value over the largest
    /// taken is noted.
    fn capped(&mut self, tool: &str, field: &'static str, value: u64, over: fn(u64) -> TranslationNote) {
        let Cap { min, max, .. } = cap(tool, field);
        if value > max {
            self.notes.push(over(max));
        }
        self.set(field, value.clamp(min, max));
    }

    fn write(&mut self) -> Result<&'static str, Untranslatable> {
        self.require("file_path")?;
        self.rename("file_path", "path");
        self.rename("content", "content");
        Ok("write_file")
    }

    /// Claude Code `Edit {file_path, old_string, new_string, replace_all}`.
    fn edit(&mut self) -> Result<&'static str, Untranslatable> {
        self.require("file_path")?;
        self.rename("file_path", "path");
        self.rename("old_string", "search");
        self.rename("new_string", "replace");
        if self.bool_of("replace_all") == Some(true) {
            self.set("replace_all", true);
        }
        Ok("edit_file")
    }

    /// Claude Code `MultiEdit {file_path, edits}`: one edit is an edit_file call; several are
    /// applied in order to the file's text now and sent as one apply_patch diff, which keeps
    /// MultiEdit's all or nothing.
    fn multi_edit(&mut self, files: &dyn Files) -> Result<&'static str, Untranslatable> {
        let path = self
            .require("file_path")?
            .as_str()
            .ok_or(Untranslatable::NotAString("file_path"))?;
        let edits = self
            .require("edits")?
            .as_array()
            .ok_or(Untranslatable::NotAList("edits"))?;
        if let [only] = edits.as_slice() {
            self.set("path", path);
            self.set("search", only["old_string"].clone());
            self.set("replace", only["new_string"].clone());
            if only["replace_all"] == true {
                self.set("replace_all", true);
            }
            return Ok("edit_file");
        }
        let (call_path, old) = files.text(path)?;
        let mut new = old.clone();
        for (n, edit) in edits.iter().enumerate() {
            let (Some(search), Some(replace)) = (edit["old_string"].as_str(), edit["new_string"].as_str())
            else {
                return Err(Untranslatable::EditWithoutStrings { edit: n + 1 });
            };
            let count = if search.is_empty() {
                0
            } else {
                new.matches(search).count()
            };
            match (count, edit["replace_all"] == true) {
                (0, _) => {
                    return Err(Untranslatable::EditNotFound {
                        edit: n + 1,
                        path: call_path,
                    })
                }
                (1, _) | (_, true) => new = new.replace(search, replace),
                (count, false) => {
                    return Err(Untranslatable::EditAmbiguous {
                        edit: n + 1,
                        count,
                        path: call_path,
                    })
                }
            }
        }
        self.patch_of(&call_path, &old, &new)
    }

    fn patch_of(&mut self, call_path: &str, old: &str, new: &str) -> Result<&'static str, Untranslatable> {
        if old == new {
            return Err(Untranslatable::Unchanged {
                path: call_path.to_string(),
            });
        }
        self.set("patch", crate::fs::diff::unified(call_path, old, new));
        Ok("apply_patch")
    }

    /// Claude Code `Bash {command, timeout, description, run_in_background}`; timeout is in ms.
    fn bash(&mut self) -> Result<&'static str, Untranslatable> {
        self.require("command")?;
        self.rename("command", "command");
        if let Some(timeout) = self.u64_of("timeout") {
            self.timeout(timeout);
        }
        if self.bool_of("run_in_background") == Some(true) {
            self.set("background", true);
        }
        self.note("description", NoEquivalent::CommandOnly);
        Ok("exec_shell")
    }

    fn timeout(&mut self, ms: u64) {
        self.capped("exec_shell", "timeout_ms", ms, |cap| {
            TranslationNote::TimeoutCapped { cap }
        });
    }

    /// Claude Code `Grep`: ripgrep's options by their flag names; lists matching files unless
    /// `output_mode` says otherwise.
    fn grep(&mut self) -> Result<&'static str, Untranslatable> {
        self.require("pattern")?;
        self.rename("pattern", "pattern");
        self.rename("path", "path");
        let mut include: Vec<Value> = Vec::new();
        if let Some(glob) = self.str_of("glob") {
            include.push(glob.into());
        }
        if let Some(kind) = self.str_of("type") {
            match globs_of_type(kind) {
                Some(globs) => include.extend(globs.iter().map(|g| Value::from(*g))),
                None => self.notes.push(TranslationNote::UnknownFileType {
                    kind: kind.to_string(),
                }),
            }
        }
        match include.len() {
            0 => {}
            1 => self.set("include", include.remove(0)),
            _ => self.set("include", include),
        }
        let mode = match self.str_of("output_mode").unwrap_or("files_with_matches") {
            "content" => "content",
            "count" => "count",
            _ => "files",
        };
        self.set("output_mode", mode);
        if self.bool_of("-i") == Some(true) {
            self.set("case_insensitive", true);
        }
        if self.bool_of("multiline") == Some(true) {
            self.set("multiline", true);
        }
        self.grep_context();
        if let Some(limit) = self.u64_of("head_limit") {
            let Cap { min, max, .. } = cap("grep_files", "max_results");
            self.set("max_results", limit.clamp(min, max));
        }
        self.note("offset", NoEquivalent::ResultOffset);
        // Content lines always carry their line numbers here.
        self.get("-n");
        Ok("grep_files")
    }

    /// `-C`, or the larger of `-A`/`-B`: grep_files shows the same context on both sides.
    fn grep_context(&mut self) {
        let around = self.u64_of("-C");
        let after = self.u64_of("-A");
        let before = self.u64_of("-B");
        let lines = around.into_iter().chain(after).chain(before).max();
        if let Some(lines) = lines {
            if around.is_none() && after != before {
                self.notes.push(TranslationNote::SameContextBothSides { lines });
            }
            let Cap { min, max, .. } = cap("grep_files", "context");
            self.set("context", lines.clamp(min, max));
        }
    }

    /// Claude Code `Glob {pattern, path}`: its results come newest first.
    fn glob(&mut self) -> Result<&'static str, Untranslatable> {
        self.require("pattern")?;
        self.rename("pattern", "pattern");
        self.rename("path", "path");
        self.set("sort", "mtime");
        Ok("file_search")
    }

    fn ls(&mut self) -> Result<&'static str, Untranslatable> {
        self.rename("path", "path");
        self.note("ignore", NoEquivalent::IgnoreList);
        Ok("list_dir")
    }

    fn web_fetch(&mut self) -> Result<&'static str, Untranslatable> {
        self.require("url")?;
        self.rename("url", "url");
        self.note("prompt", NoEquivalent::FetchPrompt);
        Ok("fetch_url")
    }

    /// Codex `shell {command: argv, workdir, timeout_ms}`. `["bash", "-lc", script]` runs
    /// `script`; `["apply_patch", patch]` is the patch tool; a workdir runs the command in a
    /// subshell there, so the session's cwd stays where it was, as in Codex.
    fn codex_shell(&mut self) -> Result<&'static str, Untranslatable> {
        let argv: Vec<&str> = match self.require("command")? {
            Value::Array(items) => items
                .iter()
                .map(Value::as_str)
                .collect::<Option<_>>()
                .ok_or(Untranslatable::ArgvNotStrings)?,
            Value::String(line) => vec![line.as_str()],
            _ => return Err(Untranslatable::CommandShape),
        };
        if let ["apply_patch" | "applypatch", patch] = argv.as_slice() {
            self.set("patch", *patch);
            return Ok("apply_patch");
        }
        let script = match argv.as_slice() {
            [shell, flag, script] if is_shell(shell) && matches!(*flag, "-c" | "-lc" | "-ic") => {
                script.to_string()
            }
            [line] => line.to_string(),
            words => words
                .iter()
                .map(|w| crate::fs::workspace::shell_word(w))
                .collect::<Vec<_>>()
                .join(" "),
        };
        let command = match self.str_of("workdir") {
            Some(dir) => format!("(cd {} && {script})", crate::fs::workspace::shell_word(dir)),
            None => script,
        };
        self.set("command", command);
        if let Some(timeout) = self.u64_of("timeout_ms").or_else(|| self.u64_of("timeout")) {
            self.timeout(timeout);
        }
        self.note("with_escalated_permissions", NoEquivalent::Escalation);
        self.note("justification", NoEquivalent::CommandOnly);
        Ok("exec_shell")
    }

    fn codex_apply_patch(&mut self) -> Result<&'static str, Untranslatable> {
        let key = if self.args.contains_key("input") {
            "input"
        } else {
            "patch"
        };
        self.require(key)?;
        self.rename(key, "patch");
        Ok("apply_patch")
    }

    /// The Anthropic text editor tool: `view`, `create`, `str_replace`, `insert`.
    fn text_editor(&mut self, files: &dyn Files) -> Result<&'static str, Untranslatable> {
        let command = self
            .require("command")?
            .as_str()
            .ok_or(Untranslatable::NotAString("command"))?;
        let path = self
            .require("path")?
            .as_str()
            .ok_or(Untranslatable::NotAString("path"))?;
        match command {
            "view" if files.is_dir(path) => {
                self.set("path", path);
                self.set("depth", 2);
                self.get("view_range");
                Ok("list_dir")
            }
            "view" => {
                self.set("path", path);
                if let Some(range) = self.get("view_range").and_then(Value::as_array) {
                    let start = range.first().and_then(Value::as_i64).unwrap_or(1).max(1);
                    self.set("start_line", start);
                    if let Some(end) = range.get(1).and_then(Value::as_i64).filter(|end| *end >= start) {
                        self.max_lines((end - start + 1) as u64);
                    }
                }
                Ok("read_file")
            }
            "create" => {
                self.set("path", path);
                self.rename("file_text", "content");
                Ok("write_file")
            }
            "str_replace" => {
                self.set("path", path);
                self.rename("old_str", "search");
                let replace = self.get("new_str").cloned().unwrap_or_else(|| json!(""));
                self.set("replace", replace);
                Ok("edit_file")
            }
            "insert" => self.insert(path, files),
            "undo_edit" => Err(Untranslatable::UndoEdit),
            other => Err(Untranslatable::EditorCommand {
                command: other.to_string(),
            }),
        }
    }

    /// `insert {insert_line, new_str|insert_text}`: the text goes after line `insert_line`
    /// (0: at the top), computed against the file now and sent as an apply_patch diff.
    fn insert(&mut self, path: &str, files: &dyn Files) -> Result<&'static str, Untranslatable> {
        let line = self
            .u64_of("insert_line")
            .ok_or(Untranslatable::Missing("insert_line"))? as usize;
        let text = self
            .str_of("new_str")
            .or_else(|| self.str_of("insert_text"))
            .ok_or(Untranslatable::Missing("new_str"))?;
        let (call_path, old) = files.text(path)?;
        let lines = old.split_inclusive('\n').count();
        if line > lines {
            return Err(Untranslatable::PastTheEnd {
                path: call_path,
                lines,
                line,
            });
        }
        let at: usize = old.split_inclusive('\n').take(line).map(str::len).sum();
        let mut new = String::with_capacity(old.len() + text.len() + 2);
        new.push_str(&old[..at]);
        if at > 0 && !new.ends_with('\n') {
            new.push('\n');
        }
        new.push_str(text);
        if !text.ends_with('\n') && at < old.len() {
            new.push('\n');
        }
        new.push_str(&old[at..]);
        self.patch_of(&call_path, &old, &new)
    }
}

fn is_shell(program: &str) -> bool {
    let name = program.rsplit('/').next().unwrap_or(program);
    matches!(name, "bash" | "sh" | "zsh" | "dash")
}

/// ripgrep's `--type` names as globs, for the common ones.
fn globs_of_type(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "rust" | "rs" => &["*.rs"],
        "py" | "python" => &["*.py", "*.pyi"],
        "js" => &["*.js", "*.jsx", "*.mjs", "*.cjs"],
        "ts" => &["*.ts", "*.tsx", "*.mts", "*.cts"],
        "go" => &["*.go"],
        "java" => &["*.java"],
        "c" => &["*.c", "*.h"],
        "cpp" => &["*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.hxx", "*.h"],
        "rb" | "ruby" => &["*.rb"],
        "php" => &["*.php"],
        "sh" => &["*.sh", "*.bash"],
        "md" | "markdown" => &["*.md", "*.markdown"],
        "json" => &["*.json"],
        "yaml" => &["*.yaml", "*.yml"],
        "toml" => &["*.toml"],
        "html" => &["*.html", "*.htm"],
        "css" => &["*.css"],
        "kotlin" => &["*.kt", "*.kts"],
        "swift" => &["*.swift"],
        "cs" => &["*.cs"],
        _ => return None,
    })
}

/// The cap `tool` declares for `field` (the registry test below checks every one used here
/// exists); a missing one would pass values through unclamped, for the tool to judge.
fn cap(tool: &str, field: &'static str) -> Cap {
    crate::tools::find(tool)
        .and_then(|spec| spec.cap(field))
        .copied()
        .unwrap_or(Cap::new(field, 0, u64::MAX))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_caps_translations_clamp_to_are_declared() {
        for (tool, field) in [
            ("read_file", "max_lines"),
            ("exec_shell", "timeout_ms"),
            ("grep_files", "max_results"),
            ("grep_files", "context"),
        ] {
            let declared = crate::tools::find(tool).and_then(|spec| spec.cap(field));
            assert!(declared.is_some(), "{tool} declares no cap for {field}");
        }
    }

    use super::*;

    struct NoFiles;
    impl Files for NoFiles {
        fn text(&self, path: &str) -> Result<(String, String), Untranslatable> {
            Ok((path.to_string(), "one\ntwo\nthree\n".to_string()))
        }
        fn is_dir(&self, _: &str) -> bool {
            false
        }
    }

    fn tr(name: &str, args: Value) -> Translation {
        translate(name, &args, &NoFiles)
            .expect("known")
            .expect("translates")
    }

    #[test]
    fn claude_code_read_offset_is_the_first_line() {
        let t = tr("Read", json!({"file_path": "a", "offset": 30, "limit": 900}));
        assert_eq!(
            t.arguments,
            json!({"path": "a", "start_line": 30, "max_lines": 500})
        );
        assert_eq!(t.notes.len(), 1);
    }

    #[test]
    fn grep_lists_files_unless_told_and_maps_flags() {
        let t = tr(
            "Grep",
            json!({"pattern": "x", "type": "rust", "-i": true, "-A": 2}),
        );
        assert_eq!(t.arguments["output_mode"], "files");
        assert_eq!(t.arguments["include"], "*.rs");
        assert_eq!(t.arguments["context"], 2);
        assert_eq!(t.arguments["case_insensitive"], true);
    }

    #[test]
    fn codex_argv_and_insert() {
        let t = tr(
            "shell",
            json!({"command": ["bash", "-lc", "ls -a"], "workdir": "src"}),
        );
        assert_eq!(t.arguments["command"], "(cd src && ls -a)");
        let t = tr(
            "str_replace_editor",
            json!({"command": "insert", "path": "f", "insert_line": 1, "new_str": "x"}),
        );
        assert_eq!(t.name, "apply_patch");
        assert!(t.arguments["patch"].as_str().is_some_and(|p| p.contains("+x\n")));
        assert!(translate("Frob", &json!({}), &NoFiles).is_none());
    }
}
