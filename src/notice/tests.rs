//! Every notice renders as it was worded when it was a string at its producer: the expected
//! texts below were taken from those strings, so a change here is a change of wording.

use super::*;

/// One sample of every variant (both branches where a variant words two cases), and its text.
fn samples() -> Vec<(Notice, &'static str)> {
    vec![
        (ArgsNotice::Outside { field: "max_results", shown: "-5".into(), min: 1, max: 1000, used: 1 }.into(), "max_results=-5 is outside 1..=1000; used 1."),
        (ArgsNotice::OverCap { field: "max_lines", value: 5000, max: 2000, doing: "showing", unit: "lines" }.into(), "max_lines=5000 is over the cap; showing at most 2000 lines."),
        (ArgsNotice::DecodedFromString { object: "{\"path\": \"a.txt\"}".into() }.into(), "The arguments were a JSON string holding the object; it was decoded. Send the object itself: {\"path\": \"a.txt\"}"),
        (FileNotice::NotUtf8 { path: "a.txt".into() }.into(), "`a.txt` is not valid UTF-8 and not in an encoding that could be identified with confidence; invalid bytes are shown as U+FFFD. Editing it could corrupt those bytes."),
        (FileNotice::NotUtf8OnLinesShown { path: "big.log".into() }.into(), "`big.log` is not valid UTF-8 on the lines shown; invalid bytes are shown as U+FFFD. Editing it could corrupt those bytes."),
        (FileNotice::Decoded { path: "legacy.txt".into(), encoding: "windows-1252" }.into(), "`legacy.txt` is encoded in windows-1252; it is shown decoded, and edits keep that encoding."),
        (FileNotice::ReadNotRecorded { path: "a.txt".into(), error: "disk full".into() }.into(), "This read could not be recorded (disk full), so edit_file and apply_patch will treat `a.txt` as not read."),
        (FileNotice::SymlinkWrittenThrough { given: "link".into(), target: "dir/target.txt".into() }.into(), "`link` is a symlink; its target `dir/target.txt` was written (the link itself is unchanged)."),
        (FileNotice::CreatedDirectories { dirs: "a/b".into() }.into(), "Created the missing directories `a/b`."),
        (FileNotice::OldContentNotUtf8 { path: "a.bin".into() }.into(), "The old content of `a.bin` was not UTF-8 in an encoding codesmith could identify; the new content is written as UTF-8."),
        (FileNotice::CrlfKept { path: "win.txt".into() }.into(), "`win.txt` uses CRLF line endings; the new content was written with CRLF too."),
        (FileNotice::EditedInEncoding { path: "a.txt".into(), label: "UTF-8 with BOM".into() }.into(), "`a.txt` is UTF-8 with BOM; it was edited and written back in it."),
        (FileNotice::AddFileReplaced { path: "a.txt".into() }.into(), "`*** Add File: a.txt` named a file that exists, so it was replaced whole, as write_file does (this session had read it and it had not changed since)."),
        (FileNotice::PatchNeedsReads { call_args: vec!["a.txt".into(), "\"b c.txt\"".into()] }.into(), "Applying this patch needs the current content of what it changes read in this session first: call read_file with path=a.txt; call read_file with path=\"b c.txt\"."),
        (SearchNotice::Unreadable { count: 1 }.into(), "1 path could not be read (permissions or a race with a deletion) and were not searched."),
        (SearchNotice::Unreadable { count: 3 }.into(), "3 paths could not be read (permissions or a race with a deletion) and were not searched."),
        (SearchNotice::SymbolIndexRebuilt.into(), "The symbol index in .codesmith/index/ was unreadable and was rebuilt."),
        (SearchNotice::NoKnownWords { query_arg: "\"zqx\"".into() }.into(), "The embedding model knows none of the words of \"zqx\", so this search ranked by words alone; to search by meaning, describe the code in plain English words."),
        (SearchNotice::UnknownRanking { value: "\"fuzzy\"".into() }.into(), "`.codesmith/config.toml`: [search] ranking = \"fuzzy\" is not a ranking; it is ignored (the rankings are \"hybrid\", \"embedding\" and \"lexical\")."),
        (SearchNotice::ModelNotAPath { value: "3".into() }.into(), "`.codesmith/config.toml`: [search] model = 3 is not a path; it is ignored. Write the model's directory as a string, e.g. model = \"models/potion-base-8M\"."),
        (SearchNotice::RankingNeedsModel { ranking: "hybrid" }.into(), "`.codesmith/config.toml`: [search] ranking = \"hybrid\" needs an embedding model; ranked by words alone. Set [search] model to a model2vec model's directory (see docs/GUIDE.md, \"Search by meaning\")."),
        (SearchNotice::NoModel.into(), "search_code ranks by words alone here: no embedding model is set. To find code by meaning too, set [search] model in .codesmith/config.toml to a model2vec model's directory (see docs/GUIDE.md, \"Search by meaning\"). (Said once per session.)"),
        (SearchNotice::ModelUnusable { setting: "models/m".into(), file: "models/m/model.safetensors".into(), problem: "is missing".into() }.into(), "search_code ranked by words alone: the embedding model `.codesmith/config.toml` names ([search] model = \"models/m\") cannot be used: `models/m/model.safetensors` is missing. Put a model2vec model's model.safetensors and tokenizer.json there, or correct or remove the setting (see docs/GUIDE.md, \"Search by meaning\")."),
        (ConfigNotice::UnknownSection { key: "netwrok".into(), sections: vec!["network", "shell", "history", "web_search", "search", "tools"] }.into(), "`.codesmith/config.toml`: there is no section or setting `netwrok`; it is ignored (the sections are [network], [shell], [history], [web_search], [search], [tools])."),
        (ConfigNotice::NotASection { section: "shell" }.into(), "`.codesmith/config.toml`: `shell` is not a [shell] section; it is ignored."),
        (ConfigNotice::NotASection { section: "tools" }.into(), "`.codesmith/config.toml`: `tools` is not a [tools] section; it is ignored."),
        (ConfigNotice::UnknownSetting { section: "shell", key: "sandbx".into(), settings: vec!["sandbox", "writable"] }.into(), "`.codesmith/config.toml`: [shell] has no setting `sandbx`; it is ignored (the settings are sandbox, writable)."),
        (ConfigNotice::UnknownToolsSetting { key: "enable".into() }.into(), "`.codesmith/config.toml`: [tools] has no setting `enable`; it is ignored (the setting is enabled)."),
        (ConfigNotice::ToolsEnabledNotAList { selectors: "the capabilities read_only and the tool names read_file".into() }.into(), "`.codesmith/config.toml`: [tools] enabled is not a list of names, so no tool is enabled. Write e.g. enabled = [\"read_only\"], naming the capabilities read_only and the tool names read_file."),
        (ConfigNotice::UnknownToolsName { name: "read_olny".into(), selectors: "the capabilities read_only and the tool names read_file".into() }.into(), "`.codesmith/config.toml`: [tools] enabled names `read_olny`, which is neither a tool nor a capability; it enables nothing (the names are the capabilities read_only and the tool names read_file)."),
        (ConfigNotice::NetworkPolicy { problem: "[network] allow = 3 is not a list of hosts; ignored".into() }.into(), "network policy: [network] allow = 3 is not a list of hosts; ignored."),
        (ConfigNotice::NetworkPolicyForShell { problem: "[network] allow = 3 is not a list of hosts; ignored".into() }.into(), "The network policy was read narrowly: [network] allow = 3 is not a list of hosts; ignored. Fix .codesmith/config.toml."),
        (ConfigNotice::ShellSettings { problem: "[shell] sandbox = 3 is not a mode".into() }.into(), "The [shell] settings were read narrowly: [shell] sandbox = 3 is not a mode. Fix .codesmith/config.toml."),
        (SessionNotice::SessionFileReset { name: "default.json".into(), error: "EOF while parsing".into(), copy_failed: None }.into(), "The session file `.codesmith/sessions/default.json` does not parse (EOF while parsing); its bytes were kept in `.codesmith/sessions/default.json.corrupt`. The session was reset: its cwd is the workspace root and its pending and granted approvals are gone, so an action approved before must be approved again. Files read before are still on record."),
        (SessionNotice::SessionFileReset { name: "default.json".into(), error: "EOF while parsing".into(), copy_failed: Some("read-only file system".into()) }.into(), "The session file `.codesmith/sessions/default.json` does not parse (EOF while parsing); keeping a copy failed (read-only file system). The session was reset: its cwd is the workspace root and its pending and granted approvals are gone, so an action approved before must be approved again. Files read before are still on record."),
        (SessionNotice::TrustListUnparsable { error: "expected `,`".into() }.into(), "`.codesmith/trust.json` does not parse (expected `,`), so no trusted paths outside the workspace apply until it is fixed. Ask the user to fix the file (a JSON list of absolute directory paths) or delete it and `codesmith trust add DIR` again."),
        (SessionNotice::ApprovalsUnparsable { error: "expected `,`".into() }.into(), "`.codesmith/approvals.json` does not parse (expected `,`), so no approvals persisted for the workspace apply until it is fixed. Ask the user to fix the file (a JSON list of approval ids) or delete it."),
        (SessionNotice::CwdLost { recorded: "src".into(), exists: false }.into(), "The session cwd `src` no longer exists, so the cwd is now the workspace root: relative paths resolve from there. To work in another directory, use exec_shell with `cd DIR`."),
        (SessionNotice::CwdLost { recorded: "src".into(), exists: true }.into(), "The session cwd `src` is no longer inside the workspace or a trusted directory, so the cwd is now the workspace root: relative paths resolve from there. To work in another directory, use exec_shell with `cd DIR`."),
        (HistoryNotice::ChangeNotRecorded { error: "could not write".into() }.into(), "This change was not recorded as a checkpoint, so undo cannot take it back: could not write"),
        (HistoryNotice::CommandNotRecorded { why: "git failed".into() }.into(), "The changes of this command were not recorded, so undo cannot take them back: git failed"),
        (HistoryNotice::TooManyPaths { count: 12000, max: 10000 }.into(), "The command changed 12000 paths, more than the 10000 a checkpoint records, so its changes were not recorded and undo cannot take them back."),
        (HistoryNotice::OldContentUnreadable { path: "a.txt".into() }.into(), "the old content of `a.txt` could not be read; it was not recorded."),
        (HistoryNotice::TooLargeToRecord { path: "big".into(), max: 67108864, side: RecordedSide::Old }.into(), "`big` is over 67108864 bytes; its old content was not recorded."),
        (HistoryNotice::TooLargeToRecord { path: "big".into(), max: 67108864, side: RecordedSide::New }.into(), "`big` is over 67108864 bytes; its new content was not recorded."),
        (ShellNotice::CwdNotSaved { ended: "sub".into(), stays: ".".into(), error: "disk full".into() }.into(), "The command ran and ended in `sub`, but the session's cwd could not be saved, so the next call starts in `.` again: disk full"),
        (ShellNotice::EndedOutside { ended: "/elsewhere".into(), stays: ".".into() }.into(), "The command ended in `/elsewhere`, outside the workspace, so the session's cwd stays `.`. Run work elsewhere with `cd DIR && ...` inside one command."),
        (ShellNotice::WeakerSandbox { missing: vec![("network", "no user namespaces".into()), ("state", "kernel too old".into())] }.into(), "Commands run without part of the kernel sandbox here: network (no user namespaces); state (kernel too old). What is missing is guarded by the command classifier alone; data.sandbox says what holds for each command. (Said once per session.)"),
        (ShellNotice::FilesDrifted { shown: vec![DriftedFile { path: "a.rs".into(), deleted: false }, DriftedFile { path: "b.rs".into(), deleted: true }], more: 2, reread_arg: Some("a.rs".into()), any_deleted: true }.into(), "Files you read changed on disk since: a.rs (changed), b.rs (deleted) and 2 more. Your copy of the changed ones is stale: call read_file on them (e.g. read_file with path=a.rs) before editing them. The deleted ones no longer exist: do not edit them from memory; write_file creates a file anew if it should exist."),
        (ShellNotice::FilesDrifted { shown: vec![DriftedFile { path: "a.rs".into(), deleted: false }], more: 0, reread_arg: Some("a.rs".into()), any_deleted: false }.into(), "Files you read changed on disk since: a.rs (changed). Your copy of the changed ones is stale: call read_file on them (e.g. read_file with path=a.rs) before editing them."),
        (ShellNotice::Sandbox(SandboxHint::GitRedirectionsRemoved { by: Planter::EarlierCommand, paths: vec![".git/commondir".into()] }).into(), "Sandbox: an earlier command (through a process it left running) created `.git/commondir`, which would point git at another configuration and hooks, so it was removed. Commands may not change the workspace's git configuration; ask the user to make that change."),
        (NetNotice::AuditNotWritten { error: "Permission denied (os error 13)".into() }.into(), "could not append to .codesmith/audit.log: Permission denied (os error 13)"),
        (NetNotice::RedirectWithoutLocation { status: 302 }.into(), "the server answered 302 (a redirect) without a usable Location header, so the redirect could not be followed; what is shown is the redirect response itself."),
        (NetNotice::TooDeepToConvert { max: 1000 }.into(), "the page nests its elements more than 1000 levels deep, too deep to convert, so it is shown as plain text (format=\"text\") with its tags stripped."),
        (NetNotice::TooDeepForMarkdown { depth: 1200, max: 1000 }.into(), "the page nests its elements 1200 levels deep, more than the 1000 the markdown conversion goes, so it is shown as plain text (format=\"text\")."),
        (NetNotice::Truncated { max_bytes: 100000, bytes_read: 100000, more: Some(ReadMore { url_arg: "\"https://example.com/\"".into(), max_bytes: 400000 }) }.into(), "truncated: the body is longer than max_bytes=100000; only its first 100000 bytes were read. To read more, call fetch_url with url=\"https://example.com/\" max_bytes=400000."),
        (NetNotice::Truncated { max_bytes: 10485760, bytes_read: 10485760, more: None }.into(), "truncated: the body is longer than max_bytes=10485760; only its first 10485760 bytes were read. That is the largest body fetch_url reads."),
    ]
}

/// The name of a notice's variant; a match without a wildcard, so a new variant stops the build
/// here, next to the samples it needs.
fn variant(notice: &Notice) -> &'static str {
    match notice {
        Notice::Args(notice) => match notice {
            ArgsNotice::Outside { .. } => "Outside",
            ArgsNotice::OverCap { .. } => "OverCap",
            ArgsNotice::DecodedFromString { .. } => "DecodedFromString",
        },
        Notice::File(notice) => match notice {
            FileNotice::NotUtf8 { .. } => "NotUtf8",
            FileNotice::NotUtf8OnLinesShown { .. } => "NotUtf8OnLinesShown",
            FileNotice::Decoded { .. } => "Decoded",
            FileNotice::ReadNotRecorded { .. } => "ReadNotRecorded",
            FileNotice::SymlinkWrittenThrough { .. } => "SymlinkWrittenThrough",
            FileNotice::CreatedDirectories { .. } => "CreatedDirectories",
            FileNotice::OldContentNotUtf8 { .. } => "OldContentNotUtf8",
            FileNotice::CrlfKept { .. } => "CrlfKept",
            FileNotice::EditedInEncoding { .. } => "EditedInEncoding",
            FileNotice::AddFileReplaced { .. } => "AddFileReplaced",
            FileNotice::PatchNeedsReads { .. } => "PatchNeedsReads",
        },
        Notice::Search(notice) => match notice {
            SearchNotice::Unreadable { .. } => "Unreadable",
            SearchNotice::SymbolIndexRebuilt => "SymbolIndexRebuilt",
            SearchNotice::NoKnownWords { .. } => "NoKnownWords",
            SearchNotice::UnknownRanking { .. } => "UnknownRanking",
            SearchNotice::ModelNotAPath { .. } => "ModelNotAPath",
            SearchNotice::RankingNeedsModel { .. } => "RankingNeedsModel",
            SearchNotice::NoModel => "NoModel",
            SearchNotice::ModelUnusable { .. } => "ModelUnusable",
        },
        Notice::Config(notice) => match notice {
            ConfigNotice::UnknownSection { .. } => "UnknownSection",
            ConfigNotice::NotASection { .. } => "NotASection",
            ConfigNotice::UnknownSetting { .. } => "UnknownSetting",
            ConfigNotice::UnknownToolsSetting { .. } => "UnknownToolsSetting",
            ConfigNotice::ToolsEnabledNotAList { .. } => "ToolsEnabledNotAList",
            ConfigNotice::UnknownToolsName { .. } => "UnknownToolsName",
            ConfigNotice::NetworkPolicy { .. } => "NetworkPolicy",
            ConfigNotice::NetworkPolicyForShell { .. } => "NetworkPolicyForShell",
            ConfigNotice::ShellSettings { .. } => "ShellSettings",
        },
        Notice::Session(notice) => match notice {
            SessionNotice::SessionFileReset { .. } => "SessionFileReset",
            SessionNotice::TrustListUnparsable { .. } => "TrustListUnparsable",
            SessionNotice::ApprovalsUnparsable { .. } => "ApprovalsUnparsable",
            SessionNotice::CwdLost { .. } => "CwdLost",
        },
        Notice::History(notice) => match notice {
            HistoryNotice::ChangeNotRecorded { .. } => "ChangeNotRecorded",
            HistoryNotice::CommandNotRecorded { .. } => "CommandNotRecorded",
            HistoryNotice::TooManyPaths { .. } => "TooManyPaths",
            HistoryNotice::OldContentUnreadable { .. } => "OldContentUnreadable",
            HistoryNotice::TooLargeToRecord { .. } => "TooLargeToRecord",
        },
        Notice::Shell(notice) => match notice {
            ShellNotice::CwdNotSaved { .. } => "CwdNotSaved",
            ShellNotice::EndedOutside { .. } => "EndedOutside",
            ShellNotice::WeakerSandbox { .. } => "WeakerSandbox",
            ShellNotice::FilesDrifted { .. } => "FilesDrifted",
            ShellNotice::Sandbox(_) => "Sandbox",
        },
        Notice::Net(notice) => match notice {
            NetNotice::AuditNotWritten { .. } => "AuditNotWritten",
            NetNotice::RedirectWithoutLocation { .. } => "RedirectWithoutLocation",
            NetNotice::TooDeepToConvert { .. } => "TooDeepToConvert",
            NetNotice::TooDeepForMarkdown { .. } => "TooDeepForMarkdown",
            NetNotice::Truncated { .. } => "Truncated",
        },
    }
}

/// How many variants `variant` names: a new one adds an arm there and one here.
const VARIANTS: usize = 50;

#[test]
fn every_notice_renders_as_it_was_worded() {
    for (notice, text) in samples() {
        assert_eq!(notice.to_string(), text, "{}", variant(&notice));
    }
}

#[test]
fn every_variant_has_a_sample() {
    let named: std::collections::BTreeSet<&str> =
        samples().iter().map(|(notice, _)| variant(notice)).collect();
    assert_eq!(named.len(), VARIANTS, "{named:?}");
}

#[test]
fn render_all_keeps_the_order() {
    let notices = [
        Notice::from(SearchNotice::SymbolIndexRebuilt),
        Notice::from(HistoryNotice::OldContentUnreadable { path: "a".into() }),
    ];
    let texts = render_all(&notices);
    assert_eq!(texts.len(), 2);
    assert!(texts[0].starts_with("The symbol index") && texts[1].starts_with("the old content of `a`"));
}

/// The constructions of notice variants outside `src/notice/`: each family's name with `::`,
/// up to the end of the expression it starts, as (file, text).
fn constructions(found: &mut Vec<(String, String)>) {
    const FAMILIES: [&str; 8] = [
        "ArgsNotice::",
        "FileNotice::",
        "SearchNotice::",
        "ConfigNotice::",
        "SessionNotice::",
        "HistoryNotice::",
        "ShellNotice::",
        "NetNotice::",
    ];
    let in_notice = |path: &std::path::Path| path.ends_with("src/notice") || path.ends_with("src/notice.rs");
    for (path, code) in crate::source_tests::production_sources(&in_notice) {
        for family in FAMILIES {
            for (at, _) in code.match_indices(family) {
                found.push((path.display().to_string(), expression(&code[at..]).to_string()));
            }
        }
    }
}

/// The expression `text` starts with: up to the first `,`, `;` or `)` outside brackets.
fn expression(text: &str) -> &str {
    let mut depth = 0i32;
    for (at, c) in text.char_indices() {
        match c {
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' if depth == 0 => return &text[..at],
            ')' | '}' | ']' => depth -= 1,
            ',' | ';' if depth == 0 => return &text[..at],
            _ => {}
        }
    }
    text
}

/// A notice is data: no producer words its text. (The types keep a bare string out of the
/// notices; this keeps one out of their fields.) A variant built with `format!` would be a
/// message written outside this module.
#[test]
fn notices_are_built_from_data_not_text() {
    let mut found = Vec::new();
    constructions(&mut found);
    assert!(
        found.len() > 30,
        "the scan found too few notices to be reading the sources: {found:?}"
    );
    let worded: Vec<_> = found
        .iter()
        .filter(|(_, expr)| expr.contains("format!"))
        .collect();
    assert!(
        worded.is_empty(),
        "notices built from formatted text (add a variant instead): {worded:?}"
    );
}

/// The lines exec_shell puts before a command's output (`Sandbox: …`, `Hint: …`) are worded in
/// `src/notice/sandbox.rs`, and an approval's reason is an `ApprovalReason` worded in
/// `src/notice/approval.rs`: no other source spells such a line, and every `ApprovalRequest`
/// built outside its module takes its reason from a variant. The classifier's rule texts are
/// the one reason worded elsewhere (`ApprovalReason::Classified`), passed through as they are.
#[test]
fn sandbox_lines_and_approval_reasons_are_worded_in_one_place() {
    let in_notice = |path: &std::path::Path| path.ends_with("src/notice") || path.ends_with("src/notice.rs");
    let sources = crate::source_tests::production_sources(&in_notice);
    let mut worded = Vec::new();
    let mut requests = 0;
    for (path, code) in &sources {
        let file = path.display().to_string();
        for line in ["\"Sandbox: ", "\"Hint: "] {
            if code.contains(line) {
                worded.push(format!("{file}: a {line}…\" line"));
            }
        }
        if file.ends_with("src/session/approval.rs") {
            continue;
        }
        for (at, _) in code.match_indices("ApprovalRequest {") {
            let body = &code[at + "ApprovalRequest {".len()..];
            let body = &body[..body.find('}').unwrap_or(body.len())];
            let Some(reason) = body.split_once("reason").map(|(_, rest)| rest.trim_start()) else {
                continue;
            };
            requests += 1;
            let value = reason.strip_prefix(':').map(str::trim_start).unwrap_or("");
            if !value.starts_with("ApprovalReason::") {
                worded.push(format!(
                    "{file}: ApprovalRequest {{ reason{} }}",
                    expression(reason)
                ));
            }
        }
        for (at, _) in code.match_indices("ApprovalReason::Classified(") {
            let expr = expression(&code[at..]);
            if expr.contains('"') || expr.contains("format!") {
                worded.push(format!("{file}: {expr}"));
            }
        }
    }
    assert!(
        requests >= 4,
        "the scan found too few approval requests to be reading the sources"
    );
    assert!(
        worded.is_empty(),
        "sandbox lines or approval reasons worded outside src/notice/ (add a variant to \
         SandboxHint or ApprovalReason instead): {worded:#?}"
    );
}

/// A stop of every kind, with what it says happened and the way out it gives besides the
/// approval; the texts were taken from the strings exec_shell wrote before they were typed.
fn stops() -> Vec<(SandboxStop, &'static str, &'static str)> {
    vec![
        (SandboxStop::Network { symptom: "Could not resolve host" }, "the network is off for commands by the workspace's network policy, so this command could not connect (Could not resolve host)", "or ask the user to set default = \"allow\" under [network] in .codesmith/config.toml; for a web page use fetch_url"),
        (SandboxStop::Protected { path: ".git/hooks/pre-commit".into() }, "the sandbox kept the command from changing `.git/hooks/pre-commit`: codesmith's state and the workspace's git configuration and hooks (.git/config, .git/hooks, .git/modules, .git/worktrees) are read-only to commands", "a person can change it outside codesmith"),
        (SandboxStop::Outside { path: "/srv/out/f".into(), writable: Some(WritableLine { entries: vec!["\"/data\"".into(), "\"/srv/out\"".into()], dir: "/srv/out".into() }) }, "the sandbox kept the command from writing `/srv/out/f`, outside the directories a command may write (the workspace, trusted directories, [shell] writable, $TMPDIR)", "or, to let every command write there, ask the user to put this line under [shell] in .codesmith/config.toml: `writable = [\"/data\", \"/srv/out\"]` (or to run `codesmith trust add /srv/out`)"),
        (SandboxStop::Outside { path: "/f".into(), writable: None }, "the sandbox kept the command from writing `/f`, outside the directories a command may write (the workspace, trusted directories, [shell] writable, $TMPDIR)", "or write inside the workspace or $TMPDIR instead"),
        (SandboxStop::Socket { path: "/run/docker.sock".into() }, "the sandbox hides the sockets of daemons outside the workspace (`/run`, the user's runtime directory, the ssh agent's) from commands, so this command could not reach `/run/docker.sock`", "or, to let every command reach it, ask the user to add `sockets = [\"/run/docker.sock\"]` under [shell] in .codesmith/config.toml"),
        (SandboxStop::Privilege { path: "dev/null0".into() }, "the command was refused an operation on `dev/null0` that needs root's privileges: commands run without capabilities, even as root (no chown to another user, no device nodes, no raw sockets)", "or do without them (`tar --no-same-owner`, `cp` without `-a`, files owned by whoever runs the command)"),
        (SandboxStop::FileOperation, "the command was refused a file operation, which may be the sandbox: commands write only in the workspace, trusted directories and $TMPDIR", "or write inside the workspace or $TMPDIR instead"),
    ]
}

#[test]
fn every_sandbox_line_renders_as_it_was_worded() {
    for (stop, what, other_way) in stops() {
        let line = SandboxHint::Liftable {
            stop: stop.clone(),
            id: "ap-0123456789ab".into(),
        };
        assert_eq!(
            line.to_string(),
            format!(
                "Sandbox: {what}. To run it without that limit, ask the user to approve it with \
                 `codesmith approve ap-0123456789ab` and repeat this exact call (or repeat it with \
                 `--approve ap-0123456789ab` if the user already agreed); {other_way}."
            ),
            "{stop:?}"
        );
        assert_eq!(ApprovalReason::Stopped(stop).to_string(), what);
    }
    let lines = [
        (SandboxHint::BadSystemCall, "Sandbox: a program was killed for a system call the sandbox refuses (\"Bad system call\": 32-bit system calls cannot run confined). Use a 64-bit build of the program, or ask the user to run the command with --yolo."),
        (SandboxHint::NetworkDenied { symptom: "Network is unreachable" }, "Sandbox: the workspace's network policy denies the network ([network] default = \"deny\" in .codesmith/config.toml), so this command could not connect (Network is unreachable). No approval lifts that: do the work without the network, use fetch_url for a web page the allow list permits, or ask the user to change the policy."),
        (SandboxHint::GitRedirectionsRemoved { by: Planter::Command, paths: vec![".git/commondir".into(), ".git/config.worktree".into()] }, "Sandbox: the command created `.git/commondir`, `.git/config.worktree`, which would point git at another configuration and hooks, so it was removed. Commands may not change the workspace's git configuration; ask the user to make that change."),
        (SandboxHint::NetworkMayBeBlocked { symptom: "Connection refused" }, "Hint: this command needs the network and failed the way a blocked network fails (Connection refused). The workspace's network policy does not allow the network, so the sandbox may be cutting it off. Ask the user to allow it (set default = \"allow\" under [network] in .codesmith/config.toml, or approve the command), or use fetch_url for web pages."),
    ];
    for (line, text) in lines {
        assert_eq!(line.to_string(), text);
    }
}

#[test]
fn every_approval_reason_renders_as_it_was_worded() {
    let reasons = [
        (ApprovalReason::WritesOutside, "it writes outside the directories a command may write"),
        (ApprovalReason::OpensNetwork, "it opens network connections"),
        (ApprovalReason::HostNeedsApproval { host: "example.com".into() }, "fetch_url wants to connect to `example.com`, which the network policy ([network] in .codesmith/config.toml) does not allow without asking"),
        (ApprovalReason::Classified("deletes files outside the workspace; downloads".into()), "deletes files outside the workspace; downloads"),
    ];
    for (reason, text) in reasons {
        assert_eq!(reason.to_string(), text);
    }
}

#[test]
fn why_a_protection_did_not_hold_reads_as_it_did() {
    use super::Unprotected;
    let cases = [
        (
            Unprotected::SandboxOff,
            "[shell] sandbox = \"off\" in .codesmith/config.toml",
        ),
        (
            Unprotected::Approved { id: "ap-1".into() },
            "lifted for this command by approval ap-1",
        ),
        (
            Unprotected::NetworkAllowed,
            "the workspace's network policy allows the network",
        ),
        (Unprotected::Missing(Vec::new()), "not available here"),
        (
            Unprotected::Missing(vec![("landlock", "absent".into()), ("mounts", "refused".into())]),
            "landlock: absent; mounts: refused",
        ),
    ];
    for (why, text) in cases {
        assert_eq!(why.to_string(), text);
        assert_eq!(
            why.is_missing(),
            text.starts_with("landlock") || text == "not available here"
        );
    }
}

#[test]
fn an_output_cut_says_how_much_and_where_the_rest_is() {
    use super::OutputCut;
    let spilled = OutputCut {
        omitted: 5,
        total: 9,
        spilled: Some(".codesmith/spill/x.txt".into()),
    };
    assert_eq!(
        spilled.to_string(),
        "[output truncated: 5 of 9 characters omitted; the whole text is in .codesmith/spill/x.txt (read it \
         with read_file, or narrow the call)]"
    );
    let kept = OutputCut {
        spilled: None,
        ..spilled
    };
    assert_eq!(
        kept.to_string(),
        "[output truncated: 5 of 9 characters omitted; narrow the call to see the rest]"
    );
}
