//! The generated files: the man page, the shell completions, the catalog snapshot and the
//! reference documents (docs/TOOLS.md, docs/ERRORS.md).
//!
//! All are rendered from the registry (through [`crate::cli::command`] and
//! [`crate::dispatch::catalog`]), committed under `man/`, `completions/` and `tests/snapshots/`, and
//! checked by the `generated` integration test, which rewrites them when `CODESMITH_BLESS=1`.

use clap_complete::Shell;
use roff::{bold, italic, roman, Inline, Roff};

use crate::cli::reference;
use crate::dispatch::catalog;
use crate::error::ErrorCode;
use crate::tools::REGISTRY;

/// Every generated file: its path relative to the crate root, and its content.
pub fn all() -> Vec<(&'static str, String)> {
    vec![
        ("man/codesmith.1", man_page()),
        ("completions/codesmith.bash", completions(Shell::Bash)),
        ("completions/_codesmith", completions(Shell::Zsh)),
        ("completions/codesmith.fish", completions(Shell::Fish)),
        ("tests/snapshots/catalog.json", catalog::render("json")),
        ("docs/TOOLS.md", reference::tools_md()),
        ("docs/ERRORS.md", reference::errors::errors_md()),
    ]
}

/// The completion script for `shell`.
pub fn completions(shell: Shell) -> String {
    let mut cmd = crate::cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "codesmith", &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// The man page `codesmith(1)`: clap's synopsis, options and subcommands, then every tool with
/// its parameters, the envelope, the error codes, exit statuses, state and configuration.
pub fn man_page() -> String {
    let man = clap_mangen::Man::new(crate::cli::command())
        .source(format!("codesmith {}", env!("CARGO_PKG_VERSION")))
        .manual("codesmith manual");
    type Section = fn(&clap_mangen::Man, &mut dyn std::io::Write) -> std::io::Result<()>;
    let sections: [Section; 5] = [
        clap_mangen::Man::render_title,
        clap_mangen::Man::render_name_section,
        clap_mangen::Man::render_synopsis_section,
        clap_mangen::Man::render_description_section,
        clap_mangen::Man::render_options_section,
    ];
    let mut page = String::new();
    for render in sections {
        let mut out = Vec::new();
        // Rendering into a Vec cannot fail.
        let _ = render(&man, &mut out);
        page.push_str(&without_preamble(
            &page,
            String::from_utf8_lossy(&out).into_owned(),
        ));
    }
    let mut roff = Roff::new();
    commands(&mut roff);
    invocation(&mut roff);
    tools(&mut roff);
    envelope(&mut roff);
    error_codes(&mut roff);
    exit_status(&mut roff);
    files(&mut roff);
    workspace_boundary(&mut roff);
    environment(&mut roff);
    examples(&mut roff);
    page.push_str(&without_preamble(&page, roff.render()));
    page
}

/// Each roff rendering starts with the same apostrophe preamble; the page needs it once.
fn without_preamble(page: &str, rendered: String) -> String {
    const PREAMBLE_LINES: usize = 2;
    if page.is_empty() {
        return rendered;
    }
    let preamble: String = page.split_inclusive('\n').take(PREAMBLE_LINES).collect();
    match rendered.strip_prefix(&preamble) {
        Some(rest) => rest.to_string(),
        None => rendered,
    }
}

fn commands(roff: &mut Roff) {
    heading(roff, "COMMANDS");
    for spec in REGISTRY {
        let about = spec.description.lines().next().unwrap_or_default();
        item(
            roff,
            [bold(spec.alias), roman(", "), bold(spec.name)],
            &format!("{about} See TOOLS."),
        );
    }
    let people = crate::cli::command();
    for name in ["call", "tools", "trust", "approve", "answer", "mcp"] {
        if let Some(sub) = people.find_subcommand(name) {
            let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
            item(roff, [bold(name)], &about);
        }
    }
}

fn heading(roff: &mut Roff, title: &str) {
    roff.control("SH", [title]);
}

fn para(roff: &mut Roff, text: &str) {
    roff.control("PP", []);
    roff.text([roman(text)]);
}

/// A tagged paragraph: `tag` in bold, then `body`.
fn item(roff: &mut Roff, tag: impl Into<Vec<Inline>>, body: &str) {
    roff.control("TP", []);
    roff.text(tag);
    roff.text([roman(body)]);
}

/// A block shown verbatim (no filling).
fn verbatim(roff: &mut Roff, lines: &[&str]) {
    roff.control("PP", []);
    roff.control("nf", []);
    roff.control("RS", ["4"]);
    for line in lines {
        roff.text([roman(*line)]);
    }
    roff.control("RE", []);
    roff.control("fi", []);
}

fn invocation(roff: &mut Roff) {
    heading(roff, "INVOCATION");
    verbatim(
        roff,
        &[
            "codesmith [GLOBAL] <tool> [ARGS]",
            "codesmith [GLOBAL] call",
            "codesmith tools [--format text|json|openai|openai-responses|anthropic|mcp|markdown|prompt]",
            "codesmith trust add|remove|list [PATH]",
            "codesmith approve ID [--persist]",
            "codesmith answer ID TEXT",
            "codesmith completions bash|zsh|fish",
            "codesmith man",
        ],
    );
    para(
        roff,
        "Global options (--workspace, --session, --approve, --answer, --yolo, --tools) go before the tool name; \
         --format may also come after it (except for fetch and tools, whose own --format it would be). \
         At a terminal results print as text (coloured unless NO_COLOR is set), otherwise as the JSON \
         envelope; --format or CODESMITH_FORMAT chooses. Plain codesmith prints the help and exits 2. \
         completions and man print the files shipped in completions/ and man/: put the bash script in \
         ~/.local/share/bash-completion/completions/codesmith, the zsh one as _codesmith in a directory of \
         $fpath, the fish one in ~/.config/fish/completions/codesmith.fish, and the page in \
         ~/.local/share/man/man1/codesmith.1. \
         Each tool is a subcommand under its short name, with its canonical name as an alias: ",
    );
    let names: Vec<String> = REGISTRY
        .iter()
        .map(|spec| format!("{}={}", spec.alias, spec.name))
        .collect();
    roff.text([bold(names.join(", ")), roman(".")]);
    para(
        roff,
        "Arguments come from exactly one source: flags and the positional main argument, --json TEXT, \
         or a JSON object on stdin (--json with no value, or no arguments at all while stdin is not a \
         terminal). JSON argument names are snake_case and match the catalog's input schema; each has \
         a kebab-case flag (start_line is --start-line). Giving two sources at once, an unknown field \
         (the message names every one, the field each probably meant, the valid ones and the \
         corrected call), a wrong type or malformed JSON is invalid_arguments. For an integer field \
         a whole number as a string (\"2\") or a float without a fraction (2.0) is taken; for a \
         boolean field \"true\" and \"false\" are. Fields documented as clamped (max_lines, \
         max_results) clamp any out-of-range number with a notice. A JSON null for an optional field \
         means the field is left out. Global options go before the tool name.",
    );
    para(
        roff,
        "call reads a model's tool call verbatim from stdin (also --json with no value) or --json \
         TEXT: {\"name\": TOOL, \"arguments\": {...}} (MCP, OpenAI Responses), an Anthropic tool_use \
         block {\"type\": \"tool_use\", \"id\": ..., \"name\": TOOL, \"input\": {...}}, or an OpenAI \
         chat tool call {\"id\": ..., \"type\": \"function\", \"function\": {\"name\": TOOL, \
         \"arguments\": \"...\"}}. \"arguments\" may be a JSON string holding the object; the \
         fields id, type and call_id are ignored, any other is invalid_arguments. A UTF-8 byte \
         order mark before stdin JSON is skipped.",
    );
    para(
        roff,
        "tools prints the catalog (name, description, input schema of every tool); --format openai, \
         openai-responses, anthropic and mcp wrap it in each ecosystem's tool-definition shape (both \
         OpenAI shapes in strict mode: every property required, optional ones nullable), markdown \
         renders it for people, and prompt prints a system-prompt block with the house rules of the \
         enabled tools. The catalog is byte-stable.",
    );
    para(
        roff,
        "--tools LIST (env CODESMITH_TOOLS), and [tools] enabled = [...] in .codesmith/config.toml, \
         restrict the tools offered to the named tools and capabilities (read_only, writes_files, \
         runs_code, network); a tool is offered when every source given selects it. Every surface \
         follows it: the catalog, the tool subcommands, call and the MCP server. A call to a tool \
         left out is tool_disabled, naming the enabled tools.",
    );
    para(
        roff,
        "mcp serves the tools over the Model Context Protocol on stdio (JSON-RPC 2.0, one message \
         per line): the initialize handshake of 2024-11-05 to 2025-11-25 and the stateless \
         2026-07-28. tools/call runs the tool in process and returns the envelope as content \
         (output, then one block per notice), structuredContent (data, or the error object) and \
         isError. One connection is one session (--session, default default). Approvals are asked \
         through elicitation where the client offers it. notifications/cancelled stops the running \
         call and kills its process group; closing stdin ends the server.",
    );
}

fn tools(roff: &mut Roff) {
    heading(roff, "TOOLS");
    for spec in REGISTRY {
        roff.control(
            "SS",
            [format!("{} (codesmith {})", spec.name, spec.alias).as_str()],
        );
        roff.text([italic(format!("Capability: {}.", spec.capability.as_str()))]);
        for line in spec.description.lines() {
            if line.starts_with('{') {
                roff.control("br", []);
                roff.text([bold(line)]);
            } else {
                roff.control("PP", []);
                roff.text([roman(line)]);
            }
        }
        roff.control("PP", []);
        roff.text([roman("Parameters:")]);
        for param in catalog::parameters(spec) {
            let mut facts = vec![param.kind.clone()];
            if param.required {
                facts.push("required".into());
            }
            if let Some(default) = &param.default {
                facts.push(format!("default {default}"));
            }
            if !param.allowed.is_empty() {
                facts.push(format!("one of {}", param.allowed.join(" ")));
            }
            let flag = format!("--{}", param.name.replace('_', "-"));
            let positional = if spec.positional == Some(param.name.as_str()) {
                ", or positional"
            } else {
                ""
            };
            item(
                roff,
                [
                    bold(param.name.clone()),
                    roman(format!(" ({}; flag {flag}{positional})", facts.join(", "))),
                ],
                &param.description,
            );
        }
        if let Some(notes) = reference::notes(spec.name) {
            roff.control("PP", []);
            roff.text([italic("Behaviour:")]);
            reference::roff::render(roff, notes);
        }
    }
    for (title, notes) in reference::SHARED_NOTES {
        roff.control("SS", [*title]);
        reference::roff::render(roff, notes);
    }
}

fn envelope(roff: &mut Roff) {
    heading(roff, "RESULT ENVELOPE");
    para(
        roff,
        "Every call prints exactly one JSON object and a newline on stdout, for success and failure \
         alike; nothing else is printed on stdout.",
    );
    verbatim(
        roff,
        &[
            "{\"ok\": true, \"tool\": \"read_file\", \"output\": \"...\", \"data\": {...}, \"notices\": [...]}",
            "{\"ok\": false, \"tool\": \"read_file\", \"output\": \"<error.message>\",",
            " \"error\": {\"code\": \"not_found\", \"message\": \"...\", ...}}",
        ],
    );
    item(
        roff,
        [bold("output")],
        "Always present: the exact text to hand the model (on failure, the error message). Byte-stable \
         for equal inputs: no timestamps, ids or durations. Capped at 120,000 characters: past that the \
         head is kept and a final line says how many characters were omitted and names the file under \
         .codesmith/spill/ that holds the whole text; data.output_truncated, data.output_omitted_chars \
         and data.spill_path say the same for programs.",
    );
    item(
        roff,
        [bold("data")],
        "Tool-specific fields for programs: counts, paths, flags such as truncated.",
    );
    item(
        roff,
        [bold("notices")],
        "Side observations for the model, such as a file shown in a legacy encoding.",
    );
    item(
        roff,
        [bold("error")],
        "On failure: code (one of ERROR CODES), message (what went wrong and the way out, with the \
         exact call where one call fixes it) and code-specific fields (path, similar, available, \
         approval, ...).",
    );
    para(
        roff,
        "Paths in results are workspace-relative with / separators. With --format text only the output \
         field is printed (and a newline), for people; the exit status is the same.",
    );
}

fn error_codes(roff: &mut Roff) {
    heading(roff, "ERROR CODES");
    para(
        roff,
        "The set is closed and stable; each code's exit status is given in brackets.",
    );
    for code in ErrorCode::ALL {
        item(
            roff,
            [bold(code.as_str()), roman(format!(" [{}]", code.exit_status()))],
            &format!("{}. {}", code.meaning(), code.next_step()),
        );
    }
}

fn exit_status(roff: &mut Roff) {
    heading(roff, "EXIT STATUS");
    item(roff, [bold("0")], "The tool succeeded (ok: true).");
    item(roff, [bold("1")], "The tool refused or failed (ok: false).");
    item(
        roff,
        [bold("2")],
        "Usage: invalid_arguments, unknown_tool, malformed JSON, an unknown option; also plain \
         codesmith, which prints the help (a command is missing, as clap has it).",
    );
    item(
        roff,
        [bold("3")],
        "approval_required: re-run with --approve ID after a person agreed, or have them run \
         codesmith approve ID. answer_required (ask_user): a person records the answer with \
         codesmith answer ID TEXT; re-run with --answer ID.",
    );
}

fn files(roff: &mut Roff) {
    heading(roff, "FILES");
    para(
        roff,
        "State lives in .codesmith/ at the workspace root (created on first need, with a .gitignore). \
         The file tools never write inside it and the listing and search tools skip it (a path \
         inside it is invalid_arguments for them; read a spill file with read_file). It must be a \
         real directory: a .codesmith symlink is refused by every call (io_error) until removed.",
    );
    item(
        roff,
        [bold(".codesmith/config.toml")],
        "Optional workspace settings. A file that does not parse is an io_error (exit 1) naming the line; an unknown value never \
         widens what is allowed. The [network] section: default = \"allow\"|\"deny\" (or \"block\")|\"prompt\" \
         (missing, mistyped or unknown means prompt); allow and deny host lists, case-insensitive, trailing \
         dot ignored (\".example.com\" and \"*.example.com\" match subdomains only; a host on both is \
         denied; an unreadable deny entry means nothing is allowed without asking); trusted_cidrs, ranges \
         exempted from fetch_url's restricted address table. codesmith approve ID --persist adds an \
         approved host to allow, keeping the rest of the file. The [shell] section: sandbox = \
         \"auto\"|\"required\"|\"off\" (exec_shell's kernel sandbox; an unknown value means required); \
         writable, a list of absolute directories commands may write besides the workspace, the \
         trusted roots and their TMPDIR. The [history] section: max_checkpoints (default 1000) and \
         max_bytes (default 536870912) bound the checkpoints kept, oldest pruned first; shell = false \
         turns off the exec_shell snapshots.",
    );
    item(
        roff,
        [bold(".codesmith/history/")],
        "Checkpoints of every call that changed files (write_file, edit_file, apply_patch, exec_shell \
         commands not classified read-only, undo): each checkpoint records each path's content and mode \
         before, as a content-addressed blob, and the hash and mode after; records and blobs are appended to pack-N, \
         located by index-N (state holds the next id and N, and its lock serializes writers); shadow/ is the \
         private git directory whose index is the stat cache of the exec_shell snapshots. Listed by \
         history, reverted by undo, which refuses a path changed since unless forced.",
    );
    item(
        roff,
        [bold(".codesmith/sessions/NAME.json")],
        "The session: its cwd, granted and pending approvals, once-only reminder marks. Updated under \
         an exclusive lock (NAME.lock), written to a temp file and renamed.",
    );
    item(
        roff,
        [bold(".codesmith/sessions/NAME.fp/")],
        "Freshness fingerprints, one small file per file the session has read (mtime in nanoseconds, \
         length, content hash), so a call costs the same after 20,000 reads as after one, and parallel \
         reads never contend.",
    );
    item(
        roff,
        [bold(".codesmith/sessions/NAME.journal")],
        "One JSON line per fingerprint recorded (path, fingerprint, time): the shell probe reads its \
         end to re-check the 256 files the session read most recently. Rewritten to its tail once it \
         passes 1 MiB.",
    );
    item(
        roff,
        [bold(".codesmith/trust.json")],
        "Trusted directories outside the workspace (codesmith trust add).",
    );
    item(
        roff,
        [bold(".codesmith/approvals.json")],
        "Approval ids persisted for the workspace (codesmith approve ID --persist).",
    );
    item(
        roff,
        [bold(".codesmith/spill/")],
        "Whole texts of outputs that were cut at 120,000 characters, named by a hash of the text.",
    );
    item(
        roff,
        [bold(".codesmith/audit.log")],
        "One JSON line per fetch_url hop, sent or refused: time, session, tool, url (scrubbed), host, \
         address, decision (allow, approved, trusted-cidr, deny), status, error, bytes, trusted_cidr.",
    );
    item(roff, [bold(".codesmith/tasks/")], "Background shell tasks.");
}

fn workspace_boundary(roff: &mut Roff) {
    heading(roff, "WORKSPACE BOUNDARY");
    para(
        roff,
        "Every path is checked in three stages: lexically (after folding . and .. against the session \
         cwd, compared component-wise, so /ws-evil is not inside /ws); canonically for an existing path \
         (symlinks followed); and for a path that does not exist yet, through its deepest existing \
         ancestor (so a new file beneath a symlink that leads out is refused). Where the path resolves \
         decides: one reaching the workspace or a trusted root through a symlink (/link/src/a.rs when \
         /link -> /ws) is accepted. Refusals are \
         outside_workspace with a message starting \"path escapes workspace\". Paths are taken \
         literally: a leading ~, a backslash, a drive letter, a UNC or \\\\?\\ prefix, an empty path or \
         a NUL byte are invalid_arguments.",
    );
}

fn environment(roff: &mut Roff) {
    heading(roff, "ENVIRONMENT");
    item(
        roff,
        [bold("CODESMITH_WORKSPACE")],
        "The workspace root when --workspace is not given (default: the current directory).",
    );
    item(
        roff,
        [bold("CODESMITH_SESSION")],
        "The session name when --session is not given (default: default). 1 to 64 of A-Z a-z 0-9 . _ -, \
         not starting with a dot.",
    );
    item(
        roff,
        [bold("CODESMITH_FORMAT")],
        "json or text when --format is not given (empty: the default, text when stdout is a \
         terminal and json otherwise; another value is a usage error).",
    );
    item(
        roff,
        [bold("NO_COLOR")],
        "Set and not empty: text at a terminal is not coloured.",
    );
    item(
        roff,
        [bold("CODESMITH_TOOLS")],
        "The tool profile when --tools is not given: comma-separated tool names and capabilities.",
    );
    item(
        roff,
        [bold("CODESMITH_TASK_OUTPUT_CAP")],
        "Lowers the output a background task keeps per stream (bytes; default and maximum 64 MiB, \
         at least 16 KiB), read when the task starts.",
    );
}

fn examples(roff: &mut Roff) {
    heading(roff, "EXAMPLES");
    verbatim(
        roff,
        &[
            "codesmith read src/main.rs",
            "codesmith read_file --path src/main.rs --start-line 201 --max-lines 100",
            "codesmith read --json '{\"path\": \"src/main.rs\"}'",
            "echo '{\"path\": \"src\"}' | codesmith ls",
            "echo '{\"name\": \"list_dir\", \"arguments\": {\"depth\": 2}}' | codesmith call",
            "codesmith --format text --session agent-1 ls src",
            "codesmith tools --format openai",
        ],
    );
}
