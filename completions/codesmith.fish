# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_codesmith_global_optspecs
    string join \n workspace= session= format= approve= answer= yolo tools= h/help V/version
end

function __fish_codesmith_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_codesmith_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_codesmith_using_subcommand
    set -l cmd (__fish_codesmith_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c codesmith -n "__fish_codesmith_needs_command" -l workspace -d 'The workspace root, the boundary of every path [default: the current directory]' -r -F
complete -c codesmith -n "__fish_codesmith_needs_command" -l session -d 'The session whose cwd, read fingerprints and approvals apply' -r
complete -c codesmith -n "__fish_codesmith_needs_command" -l format -d 'json: the envelope; text: its output and notices, for people (also after the command) [env: CODESMITH_FORMAT] [default: text at a terminal, json otherwise]' -r -f -a "json\t''
text\t''"
complete -c codesmith -n "__fish_codesmith_needs_command" -l approve -d 'Grant the pending approval ID for this call (repeatable)' -r
complete -c codesmith -n "__fish_codesmith_needs_command" -l answer -d 'Use the recorded answer to question ID (from answer_required) in this call' -r
complete -c codesmith -n "__fish_codesmith_needs_command" -l tools -d 'Offer only these tools: comma-separated tool names and capabilities (read_only, writes_files, runs_code, network) [default: all]' -r
complete -c codesmith -n "__fish_codesmith_needs_command" -l yolo -d 'Grant every approval for this call'
complete -c codesmith -n "__fish_codesmith_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_needs_command" -s V -l version -d 'Print version'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "read" -d 'Read a text file, one page at a time, with line numbers.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "read_file" -d 'Read a text file, one page at a time, with line numbers.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "edit" -d 'Replace text in a file: search names the exact text to change, replace is what it becomes.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "edit_file" -d 'Replace text in a file: search names the exact text to change, replace is what it becomes.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "write" -d 'Create a new file, or replace a whole file, with the given content.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "write_file" -d 'Create a new file, or replace a whole file, with the given content.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "patch" -d 'Apply a patch to one or more files: a unified diff (as `git diff` or `diff -u` print it) or the `*** Begin Patch` format.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "apply_patch" -d 'Apply a patch to one or more files: a unified diff (as `git diff` or `diff -u` print it) or the `*** Begin Patch` format.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "grep" -d 'Search file contents with a regular expression (ripgrep\'s engine, Rust regex syntax) across a directory tree or one file.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "grep_files" -d 'Search file contents with a regular expression (ripgrep\'s engine, Rust regex syntax) across a directory tree or one file.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "find" -d 'Find files and directories by glob, sorted by path (or by modification time, newest first).'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "file_search" -d 'Find files and directories by glob, sorted by path (or by modification time, newest first).'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "symbol" -d 'Find where a function, method, type, class, trait, constant or macro is defined, across the workspace; optionally where it is called, imported or otherwise referenced.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "find_symbol" -d 'Find where a function, method, type, class, trait, constant or macro is defined, across the workspace; optionally where it is called, imported or otherwise referenced.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "outline" -d 'Show the shape of a source file without reading it: its definitions (functions, methods, types, classes, traits, modules, constants, macros), nested as the code nests them, each with its kind, name, line range and first line.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "search" -d 'Find the code that does something, from a description in words or a fragment of code: "where is the config file parsed", "retry with backoff", "check_credentials". Returns ranked code regions (functions, methods, types, classes with their doc comments; other text in windows of 40 lines), best first, each with its path, line range, kind and name, its first lines, and the read_file call that opens it.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "search_code" -d 'Find the code that does something, from a description in words or a fragment of code: "where is the config file parsed", "retry with backoff", "check_credentials". Returns ranked code regions (functions, methods, types, classes with their doc comments; other text in windows of 40 lines), best first, each with its path, line range, kind and name, its first lines, and the read_file call that opens it.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "ls" -d 'List a directory\'s entries, sorted by name: directories end with `/`, symlinks show `-> target`, files show their size.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "list_dir" -d 'List a directory\'s entries, sorted by name: directories end with `/`, symlinks show `-> target`, files show their size.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "shell" -d 'Run a shell command (`sh -c`) in the session\'s working directory and get its exit code, stdout and stderr.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "exec_shell" -d 'Run a shell command (`sh -c`) in the session\'s working directory and get its exit code, stdout and stderr.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "task_output" -d 'Show the output a background task (started with exec_shell and background=true) wrote since the last task_output or task_wait call, and its status: running, exited with its exit code, or cancelled.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "task_input" -d 'Type input into a background task started with exec_shell with background=true and interactive=true (a program on a terminal: a REPL, a debugger, an installer\'s prompts), and get what it printed since the last look.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "task_wait" -d 'Wait until a background task (started with exec_shell and background=true) ends, or timeout_ms passes, then show its status and the output it wrote since the last task_output or task_wait call.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "task_cancel" -d 'Stop a background task started with exec_shell and background=true: the task and every process it started in its process group get SIGTERM, and SIGKILL if they have not ended a second later. Pass all=true instead of task_id to stop every running task of the workspace.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "history" -d 'List the checkpoints of this session, newest first: id, tool, a one-line summary and the paths each changed (created, modified, deleted).'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "undo" -d 'Take back a change made through codesmith: by default the newest checkpoint of this session.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "fetch" -d 'Fetch one http or https URL (GET) and return its content as text.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "fetch_url" -d 'Fetch one http or https URL (GET) and return its content as text.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "web_search" -d 'Search the web and get a numbered list of results: title, URL and snippet.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "ask" -d 'Ask the user one question and wait for the answer, which comes back as the output.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "ask_user" -d 'Ask the user one question and wait for the answer, which comes back as the output.'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "call" -d 'Run a model\'s tool call verbatim: stdin {"name": TOOL, "arguments": {...}}'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "tools" -d 'Print the tool catalog: names, descriptions, input schemas'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "trust" -d 'Manage trusted paths outside the workspace'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "approve" -d 'Grant a pending approval for this session'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "answer" -d 'Record a person\'s answer to a question ask_user asked (answer_required)'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "mcp" -d 'Serve the tools over the Model Context Protocol (MCP) on stdio'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "completions" -d 'Print the completion script for a shell (as in completions/)'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "man" -d 'Print the manual page codesmith(1) in roff (as man/codesmith.1)'
complete -c codesmith -n "__fish_codesmith_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c codesmith -n "__fish_codesmith_using_subcommand read" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand read" -l path -d 'The file to read: relative to the session cwd, or absolute inside the workspace.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand read" -l start-line -d 'The first line to show, 1-based.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand read" -l max-lines -d 'How many lines to show, 1 to 500; values outside are clamped (a notice says so).' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand read" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand read_file" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand read_file" -l path -d 'The file to read: relative to the session cwd, or absolute inside the workspace.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand read_file" -l start-line -d 'The first line to show, 1-based.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand read_file" -l max-lines -d 'How many lines to show, 1 to 500; values outside are clamped (a notice says so).' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand read_file" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand edit" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand edit" -l path -d 'The file to edit: relative to the session cwd, or absolute inside the workspace.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand edit" -l search -d 'The exact text to replace (from read_file, without line-number prefixes); must match once.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand edit" -l replace -d 'The new text for the match (or for the whole search_start..search_end range); empty deletes.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand edit" -l replace-all -d 'Replace every match of search instead of requiring exactly one.' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand edit" -l occurrence -d 'Which match to replace when search (or search_start) matches several times: 1-based.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand edit" -l search-start -d 'Anchor mode, instead of search: the text where the range begins (must match once).' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand edit" -l search-end -d 'Anchor mode: the range ends with the first match of this text after search_start.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand edit" -l dry-run -d 'Show the diff and the match without writing anything.' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand edit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand edit_file" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand edit_file" -l path -d 'The file to edit: relative to the session cwd, or absolute inside the workspace.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand edit_file" -l search -d 'The exact text to replace (from read_file, without line-number prefixes); must match once.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand edit_file" -l replace -d 'The new text for the match (or for the whole search_start..search_end range); empty deletes.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand edit_file" -l replace-all -d 'Replace every match of search instead of requiring exactly one.' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand edit_file" -l occurrence -d 'Which match to replace when search (or search_start) matches several times: 1-based.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand edit_file" -l search-start -d 'Anchor mode, instead of search: the text where the range begins (must match once).' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand edit_file" -l search-end -d 'Anchor mode: the range ends with the first match of this text after search_start.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand edit_file" -l dry-run -d 'Show the diff and the match without writing anything.' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand edit_file" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand write" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand write" -l path -d 'The file to create or replace: relative to the session cwd, or absolute inside the workspace.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand write" -l content -d 'The complete new content of the file.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand write" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand write_file" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand write_file" -l path -d 'The file to create or replace: relative to the session cwd, or absolute inside the workspace.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand write_file" -l content -d 'The complete new content of the file.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand write_file" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand patch" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand patch" -l patch -d 'The patch text: a unified diff (`git diff`, `diff -u`) or a `*** Begin Patch` … `*** End Patch` block.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand patch" -l dry-run -d 'Compute and show the result without writing anything.' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand patch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand apply_patch" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand apply_patch" -l patch -d 'The patch text: a unified diff (`git diff`, `diff -u`) or a `*** Begin Patch` … `*** End Patch` block.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand apply_patch" -l dry-run -d 'Compute and show the result without writing anything.' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand apply_patch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand grep" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand grep" -l pattern -d 'The regular expression to search for (Rust regex syntax), or literal text with' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand grep" -l path -d 'The directory (searched recursively) or file to search, relative to the session cwd.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand grep" -l include -d 'Only search files matching these globs (one glob or a list): `*.rs` matches names at' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand grep" -l exclude -d 'Skip files and directories matching these globs (one glob or a list), e.g. `*_test.go`' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand grep" -l case-insensitive -d 'Match letters regardless of case.' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand grep" -l fixed-strings -d 'Treat the pattern as literal text, not a regex.' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand grep" -l multiline -d 'Let the pattern span lines: `\\n` matches line ends and `.` matches newlines too.' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand grep" -l context -d 'Lines of context to show before and after each match (content mode), 0 to 50.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand grep" -l output-mode -d '"content" (matching lines), "files" (matching paths) or "count" (matches per file).' -r -f -a "content\t''
files\t''
count\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand grep" -l max-results -d 'How many matches (content) or files (files, count) to show, 1 to 1000 (values outside' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand grep" -l include-ignored -d 'Also search files that .gitignore/.ignore rules hide (the always-skip list still' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand grep" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand grep_files" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand grep_files" -l pattern -d 'The regular expression to search for (Rust regex syntax), or literal text with' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand grep_files" -l path -d 'The directory (searched recursively) or file to search, relative to the session cwd.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand grep_files" -l include -d 'Only search files matching these globs (one glob or a list): `*.rs` matches names at' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand grep_files" -l exclude -d 'Skip files and directories matching these globs (one glob or a list), e.g. `*_test.go`' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand grep_files" -l case-insensitive -d 'Match letters regardless of case.' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand grep_files" -l fixed-strings -d 'Treat the pattern as literal text, not a regex.' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand grep_files" -l multiline -d 'Let the pattern span lines: `\\n` matches line ends and `.` matches newlines too.' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand grep_files" -l context -d 'Lines of context to show before and after each match (content mode), 0 to 50.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand grep_files" -l output-mode -d '"content" (matching lines), "files" (matching paths) or "count" (matches per file).' -r -f -a "content\t''
files\t''
count\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand grep_files" -l max-results -d 'How many matches (content) or files (files, count) to show, 1 to 1000 (values outside' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand grep_files" -l include-ignored -d 'Also search files that .gitignore/.ignore rules hide (the always-skip list still' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand grep_files" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand find" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand find" -l pattern -d 'The glob: without `/` it matches names at any depth (`*.rs`); with `/` the path below' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand find" -l path -d 'The directory to search below, relative to the session cwd.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand find" -l max-results -d 'How many paths to show, 1 to 200 (values outside are clamped); every match is counted.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand find" -l sort -d '"path" (default) or "mtime" (most recently modified first).' -r -f -a "path\t''
mtime\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand find" -l include-ignored -d 'Also list entries that .gitignore/.ignore rules hide (the always-skip list still applies).' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand find" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand file_search" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand file_search" -l pattern -d 'The glob: without `/` it matches names at any depth (`*.rs`); with `/` the path below' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand file_search" -l path -d 'The directory to search below, relative to the session cwd.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand file_search" -l max-results -d 'How many paths to show, 1 to 200 (values outside are clamped); every match is counted.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand file_search" -l sort -d '"path" (default) or "mtime" (most recently modified first).' -r -f -a "path\t''
mtime\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand file_search" -l include-ignored -d 'Also list entries that .gitignore/.ignore rules hide (the always-skip list still applies).' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand file_search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand symbol" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand symbol" -l name -d 'The name to find: `parse_config`, or qualified as `Config::new` or `config.load`.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand symbol" -l kind -d 'Only definitions (and references) of this kind: function, method, struct, class,' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand symbol" -l path -d 'The directory (searched recursively) or file to look in, relative to the session cwd.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand symbol" -l include-references -d 'Also list every use of the name as an identifier (calls, imports, type uses, fields,' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand symbol" -l max-results -d 'How many definitions and references to show, 1 to 500 (values outside are clamped);' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand symbol" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand find_symbol" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand find_symbol" -l name -d 'The name to find: `parse_config`, or qualified as `Config::new` or `config.load`.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand find_symbol" -l kind -d 'Only definitions (and references) of this kind: function, method, struct, class,' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand find_symbol" -l path -d 'The directory (searched recursively) or file to look in, relative to the session cwd.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand find_symbol" -l include-references -d 'Also list every use of the name as an identifier (calls, imports, type uses, fields,' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand find_symbol" -l max-results -d 'How many definitions and references to show, 1 to 500 (values outside are clamped);' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand find_symbol" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand outline" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand outline" -l path -d 'The source file, or a directory whose source files are outlined, relative to the' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand outline" -l max-results -d 'How many definitions to show, 1 to 2000 (values outside are clamped).' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand outline" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand search" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand search" -l query -d 'What the code does, in words ("parse the config file"), or a fragment of code or an' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand search" -l path -d 'The directory (searched recursively) or file to look in, relative to the session cwd.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand search" -l glob -d 'Only files matching this glob: `*.rs` matches names at any depth, `src/**/*.ts` paths.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand search" -l max-results -d 'How many regions to show, 1 to 50 (values outside are clamped).' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand search_code" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand search_code" -l query -d 'What the code does, in words ("parse the config file"), or a fragment of code or an' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand search_code" -l path -d 'The directory (searched recursively) or file to look in, relative to the session cwd.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand search_code" -l glob -d 'Only files matching this glob: `*.rs` matches names at any depth, `src/**/*.ts` paths.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand search_code" -l max-results -d 'How many regions to show, 1 to 50 (values outside are clamped).' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand search_code" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand ls" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand ls" -l path -d 'The directory to list, relative to the session cwd or absolute inside the workspace.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand ls" -l depth -d 'How many levels to list: 1 is the directory itself, 2 adds its subdirectories, up to 10.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand ls" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand list_dir" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand list_dir" -l path -d 'The directory to list, relative to the session cwd or absolute inside the workspace.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand list_dir" -l depth -d 'How many levels to list: 1 is the directory itself, 2 adds its subdirectories, up to 10.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand list_dir" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand shell" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand shell" -l command -d 'The command line, run with `sh -c` in the session\'s working directory.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand shell" -l timeout-ms -d 'Milliseconds before the command and all its children are killed, 1 to 600000.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand shell" -l background -d 'Run detached, return a task_id at once; follow with task_output/task_wait/task_cancel.' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand shell" -l interactive -d 'With background: run on a pseudo-terminal (the program sees a tty) and take input with task_input.' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand shell" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand exec_shell" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand exec_shell" -l command -d 'The command line, run with `sh -c` in the session\'s working directory.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand exec_shell" -l timeout-ms -d 'Milliseconds before the command and all its children are killed, 1 to 600000.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand exec_shell" -l background -d 'Run detached, return a task_id at once; follow with task_output/task_wait/task_cancel.' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand exec_shell" -l interactive -d 'With background: run on a pseudo-terminal (the program sees a tty) and take input with task_input.' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand exec_shell" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand task_output" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand task_output" -l task-id -d 'The id exec_shell returned, e.g. `task-1`.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand task_output" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand task_input" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand task_input" -l task-id -d 'The id exec_shell returned for a task started with interactive=true, e.g. `task-1`.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand task_input" -l input -d 'The text to type; include \\n for Enter. May be empty, to read new output only.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand task_input" -l close-stdin -d 'After the input, type Ctrl-D (end of input at the start of a line).' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand task_input" -l wait-ms -d 'Milliseconds to wait for the output to settle (default 500, at most 30000).' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand task_input" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand task_wait" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand task_wait" -l task-id -d 'The id exec_shell returned, e.g. `task-1`.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand task_wait" -l timeout-ms -d 'The longest wait in milliseconds, 0 to 600000 (default 30000).' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand task_wait" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand task_cancel" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand task_cancel" -l task-id -d 'The id exec_shell returned, e.g. `task-1`.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand task_cancel" -l all -d 'Stop every running task instead of one.' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand task_cancel" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand history" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand history" -l limit -d 'How many checkpoints to list, newest first (1 to 1000).' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand history" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand undo" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand undo" -l id -d 'The checkpoint to revert (from history); default: the newest of this session.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand undo" -l to -d 'Rewind the session to just before this checkpoint, reverting it and every later one of the session, all or nothing.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand undo" -l force -d 'Restore even paths someone changed since the checkpoint, overwriting those changes.' -r -f -a "true\t''
false\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand undo" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand fetch" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand fetch" -l url -d 'The absolute http or https URL to GET.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand fetch" -l max-bytes -d 'Read at most this many bytes of the body (default 2000000; larger values are capped at' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand fetch" -l format -d 'markdown: HTML as markdown, JSON pretty-printed; text: HTML as plain text; raw: as sent.' -r -f -a "markdown\t''
text\t''
raw\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand fetch" -l timeout-ms -d 'Time limit for the whole call in milliseconds (default 30000; larger values are capped' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand fetch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand fetch_url" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand fetch_url" -l url -d 'The absolute http or https URL to GET.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand fetch_url" -l max-bytes -d 'Read at most this many bytes of the body (default 2000000; larger values are capped at' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand fetch_url" -l format -d 'markdown: HTML as markdown, JSON pretty-printed; text: HTML as plain text; raw: as sent.' -r -f -a "markdown\t''
text\t''
raw\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand fetch_url" -l timeout-ms -d 'Time limit for the whole call in milliseconds (default 30000; larger values are capped' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand fetch_url" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand web_search" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand web_search" -l query -d 'What to search for: keywords, an exact error message, an API name.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand web_search" -l max-results -d 'How many results to return (default 10, at most 20).' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand web_search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand ask" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand ask" -l question -d 'The question, with what you found that makes it necessary.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand ask" -l choices -d 'The answers to choose from, when the answer is one of a few (at most 20).' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand ask" -l default -d 'The answer an empty reply means.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand ask" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand ask_user" -l json -d 'All arguments as one JSON object (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand ask_user" -l question -d 'The question, with what you found that makes it necessary.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand ask_user" -l choices -d 'The answers to choose from, when the answer is one of a few (at most 20).' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand ask_user" -l default -d 'The answer an empty reply means.' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand ask_user" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand call" -l json -d 'The call as JSON instead of stdin (no value: read it from stdin)' -r
complete -c codesmith -n "__fish_codesmith_using_subcommand call" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand tools" -l format -d 'The catalog\'s shape [default: text at a terminal, json otherwise]' -r -f -a "text\t''
json\t''
openai\t''
openai-responses\t''
anthropic\t''
mcp\t''
markdown\t''
prompt\t''"
complete -c codesmith -n "__fish_codesmith_using_subcommand tools" -s h -l help -d 'Print help'
complete -c codesmith -n "__fish_codesmith_using_subcommand trust" -s h -l help -d 'Print help'
complete -c codesmith -n "__fish_codesmith_using_subcommand approve" -l persist -d 'Record it for the workspace (for network: add the host to the allow list)'
complete -c codesmith -n "__fish_codesmith_using_subcommand approve" -s h -l help -d 'Print help'
complete -c codesmith -n "__fish_codesmith_using_subcommand answer" -s h -l help -d 'Print help'
complete -c codesmith -n "__fish_codesmith_using_subcommand mcp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c codesmith -n "__fish_codesmith_using_subcommand completions" -s h -l help -d 'Print help'
complete -c codesmith -n "__fish_codesmith_using_subcommand man" -s h -l help -d 'Print help'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "read" -d 'Read a text file, one page at a time, with line numbers.'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "edit" -d 'Replace text in a file: search names the exact text to change, replace is what it becomes.'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "write" -d 'Create a new file, or replace a whole file, with the given content.'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "patch" -d 'Apply a patch to one or more files: a unified diff (as `git diff` or `diff -u` print it) or the `*** Begin Patch` format.'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "grep" -d 'Search file contents with a regular expression (ripgrep\'s engine, Rust regex syntax) across a directory tree or one file.'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "find" -d 'Find files and directories by glob, sorted by path (or by modification time, newest first).'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "symbol" -d 'Find where a function, method, type, class, trait, constant or macro is defined, across the workspace; optionally where it is called, imported or otherwise referenced.'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "outline" -d 'Show the shape of a source file without reading it: its definitions (functions, methods, types, classes, traits, modules, constants, macros), nested as the code nests them, each with its kind, name, line range and first line.'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "search" -d 'Find the code that does something, from a description in words or a fragment of code: "where is the config file parsed", "retry with backoff", "check_credentials". Returns ranked code regions (functions, methods, types, classes with their doc comments; other text in windows of 40 lines), best first, each with its path, line range, kind and name, its first lines, and the read_file call that opens it.'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "ls" -d 'List a directory\'s entries, sorted by name: directories end with `/`, symlinks show `-> target`, files show their size.'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "shell" -d 'Run a shell command (`sh -c`) in the session\'s working directory and get its exit code, stdout and stderr.'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "task_output" -d 'Show the output a background task (started with exec_shell and background=true) wrote since the last task_output or task_wait call, and its status: running, exited with its exit code, or cancelled.'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "task_input" -d 'Type input into a background task started with exec_shell with background=true and interactive=true (a program on a terminal: a REPL, a debugger, an installer\'s prompts), and get what it printed since the last look.'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "task_wait" -d 'Wait until a background task (started with exec_shell and background=true) ends, or timeout_ms passes, then show its status and the output it wrote since the last task_output or task_wait call.'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "task_cancel" -d 'Stop a background task started with exec_shell and background=true: the task and every process it started in its process group get SIGTERM, and SIGKILL if they have not ended a second later. Pass all=true instead of task_id to stop every running task of the workspace.'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "history" -d 'List the checkpoints of this session, newest first: id, tool, a one-line summary and the paths each changed (created, modified, deleted).'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "undo" -d 'Take back a change made through codesmith: by default the newest checkpoint of this session.'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "fetch" -d 'Fetch one http or https URL (GET) and return its content as text.'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "web_search" -d 'Search the web and get a numbered list of results: title, URL and snippet.'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "ask" -d 'Ask the user one question and wait for the answer, which comes back as the output.'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "call" -d 'Run a model\'s tool call verbatim: stdin {"name": TOOL, "arguments": {...}}'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "tools" -d 'Print the tool catalog: names, descriptions, input schemas'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "trust" -d 'Manage trusted paths outside the workspace'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "approve" -d 'Grant a pending approval for this session'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "answer" -d 'Record a person\'s answer to a question ask_user asked (answer_required)'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "mcp" -d 'Serve the tools over the Model Context Protocol (MCP) on stdio'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "completions" -d 'Print the completion script for a shell (as in completions/)'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "man" -d 'Print the manual page codesmith(1) in roff (as man/codesmith.1)'
complete -c codesmith -n "__fish_codesmith_using_subcommand help; and not __fish_seen_subcommand_from read edit write patch grep find symbol outline search ls shell task_output task_input task_wait task_cancel history undo fetch web_search ask call tools trust approve answer mcp completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
