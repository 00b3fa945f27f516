//! The file tools against a workspace that changes under them: a background process swaps a
//! workspace directory with a symlink to a directory outside (`renameat2(RENAME_EXCHANGE)` in a
//! tight loop) while write_file, apply_patch and edit_file write beneath that directory. Nothing
//! may land outside, and every envelope either reports a write that is inside or is refused with
//! `outside_workspace` (docs/SECURITY.md, "The file tools and a changing workspace").

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::harness::{symlink, Outcome, Ws};

/// Swaps two paths atomically, as fast as it can, until it is killed.
const SWAPPER: &str = r#"
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = sys.argv[1].encode(), sys.argv[2].encode()
AT_FDCWD, RENAME_EXCHANGE = -100, 2
if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
    sys.exit("renameat2: errno %d" % ctypes.get_errno())
print("ready", flush=True)
while True:
    libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
"#;

/// The swapping process, killed when the test ends (also when it fails).
struct Swapper(Child);

impl Swapper {
    /// Starts swapping `a` and `b`; `None` when python3 or renameat2 is not available here.
    fn start(a: &Path, b: &Path) -> Option<Swapper> {
        let child = Command::new("python3")
            .args(["-c", SWAPPER])
            .arg(a)
            .arg(b)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let mut swapper = Swapper(child);
        let mut line = String::new();
        let stdout = swapper.0.stdout.take()?;
        BufReader::new(stdout).read_line(&mut line).ok()?;
        (line.trim() == "ready").then_some(swapper)
    }
}

impl Drop for Swapper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// How long the race runs, the most calls it makes (from [`CALLERS`] threads at once), and the
/// fewest that still mean something on a loaded machine (a few dozen calls land one outside
/// without the descriptor walk).
const BUDGET: Duration = Duration::from_secs(6);
const MAX_CALLS: usize = 600;
const MIN_CALLS: usize = 30;
const CALLERS: usize = 2;

/// The race's ground: a workspace `ws` with a directory `d` and a link `link` to the directory
/// `outside`, both under a fresh temporary directory (kept alive by the first value).
struct Ground {
    _parent: tempfile::TempDir,
    root: std::path::PathBuf,
    outside: std::path::PathBuf,
    ws: Ws,
}

impl Ground {
    fn new() -> Ground {
        let parent = tempfile::tempdir().unwrap();
        let base = parent.path().canonicalize().unwrap();
        let (root, outside) = (base.join("ws"), base.join("outside"));
        std::fs::create_dir_all(root.join("d")).unwrap();
        std::fs::create_dir(&outside).unwrap();
        let ws = Ws::at(&root);
        symlink(&outside, root.join("link"));
        Ground {
            _parent: parent,
            root,
            outside,
            ws,
        }
    }

    /// Starts swapping `d` and `link`; `None` (the test is skipped, and says so) when python3
    /// with renameat2 is not available here.
    fn swap(&self, what: &str) -> Option<Swapper> {
        let swapper = Swapper::start(&self.root.join("d"), &self.root.join("link"));
        if swapper.is_none() {
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                format!("SKIPPED the {what} race: python3 with renameat2 is not available\n").as_bytes(),
            );
        }
        swapper
    }
}

#[test]
fn writes_beneath_a_directory_swapped_with_a_link_out_never_land_outside() {
    let ground = Ground::new();
    let (root, outside, ws) = (&ground.root, &ground.outside, &ground.ws);
    ws.write("d/e.txt", "a\n");
    ws.read_via_tool("d/e.txt");
    let Some(swapper) = ground.swap("file tool") else {
        return;
    };

    let started = Instant::now();
    let results: Vec<Race> = std::thread::scope(|scope| {
        let callers: Vec<_> = (0..CALLERS)
            .map(|caller| {
                let ws = &ws;
                scope.spawn(move || race(ws, caller, started))
            })
            .collect();
        callers.into_iter().map(|c| c.join().unwrap()).collect()
    });
    drop(swapper);
    let calls: usize = results.iter().map(|r| r.calls).sum();
    let refused: usize = results.iter().map(|r| r.refused).sum();

    let landed_outside = entries(outside);
    assert!(
        landed_outside.is_empty(),
        "{} of {calls} calls wrote outside the workspace: {landed_outside:?}",
        landed_outside.len()
    );
    // Whichever of the two names holds the real directory now, every reported write is in it.
    let real = [root.join("d"), root.join("link")]
        .into_iter()
        .find(|p| p.symlink_metadata().is_ok_and(|m| m.is_dir()))
        .unwrap();
    let inside = entries(&real);
    for name in results.iter().flat_map(|r| &r.written) {
        assert!(
            inside.contains(name),
            "{name} was reported written but is not inside"
        );
    }
    assert!(
        calls >= MIN_CALLS && refused < calls,
        "the race made {calls} calls, {refused} refused: too few to mean anything"
    );
}

/// What one calling thread did.
struct Race {
    calls: usize,
    refused: usize,
    /// The files reported created.
    written: Vec<String>,
}

/// One caller's share of the race: write_file, apply_patch and (for the first caller) edit_file
/// in turn, each judged as it returns.
fn race(ws: &Ws, caller: usize, started: Instant) -> Race {
    let mut race = Race {
        calls: 0,
        refused: 0,
        written: Vec::new(),
    };
    let mut edit = Edit::default();
    while race.calls < MAX_CALLS / CALLERS && started.elapsed() < BUDGET {
        let name = format!("f{caller}-{}.txt", race.calls);
        let turn = race.calls % 3;
        let outcome = match turn {
            0 => ws.call(
                "write_file",
                json!({"path": format!("d/{name}"), "content": "new\n"}),
            ),
            2 if caller == 0 => edit.call(ws),
            _ => ws.call("apply_patch", json!({"patch": new_file_patch(&name)})),
        };
        if judge(&outcome, race.calls) {
            if !(turn == 2 && caller == 0) {
                race.written.push(name);
            }
        } else {
            race.refused += 1;
        }
        race.calls += 1;
    }
    race
}

/// True for a call that succeeded; a refusal must be `outside_workspace` with the usual message.
fn judge(outcome: &Outcome, call: usize) -> bool {
    if outcome.envelope.ok {
        assert_eq!(outcome.status, 0, "call {call}: {}", outcome.stdout);
        return true;
    }
    let error = outcome.envelope.error.as_ref().unwrap();
    assert_eq!(error.code, "outside_workspace", "call {call}: {}", outcome.stdout);
    assert!(
        error.message.starts_with("path escapes workspace"),
        "call {call}: {}",
        error.message
    );
    false
}

/// edit_file flipping `d/e.txt` between `a` and `b`.
#[derive(Default)]
struct Edit {
    flipped: bool,
}

impl Edit {
    fn call(&mut self, ws: &Ws) -> Outcome {
        let (from, to) = if self.flipped { ("b", "a") } else { ("a", "b") };
        let outcome = ws.call(
            "edit_file",
            json!({"path": "d/e.txt", "search": from, "replace": to}),
        );
        if outcome.envelope.ok {
            self.flipped = !self.flipped;
        }
        outcome
    }
}

fn new_file_patch(name: &str) -> String {
    format!("--- /dev/null\n+++ b/d/{name}\n@@ -0,0 +1 @@\n+new\n")
}

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
}

/// The searches against the same race: grep_files, file_search, find_symbol and search_code walk the tree by
/// name, so a walk may list the directory while it is the link out. Nothing of what is outside
/// (a file's name, its content, a definition in it) may come back.
#[test]
fn searches_beneath_a_directory_swapped_with_a_link_out_never_show_what_is_outside() {
    let ground = Ground::new();
    let (root, outside, ws) = (&ground.root, &ground.outside, &ground.ws);
    std::fs::write(outside.join("secret.txt"), "outside marker\n").unwrap();
    std::fs::write(outside.join("secret.rs"), "fn outside_secret() {}\n").unwrap();
    ws.write("d/inside.txt", "inside marker\n");
    ws.write("d/inside.rs", "fn inside_fn() {}\n");
    let Some(swapper) = ground.swap("search") else {
        return;
    };
    let searches = [
        ("grep_files", json!({"pattern": "marker"})),
        ("file_search", json!({"pattern": "**/secret*"})),
        ("find_symbol", json!({"name": "outside_secret"})),
        ("search_code", json!({"query": "outside secret marker"})),
    ];
    let started = Instant::now();
    let (mut calls, mut succeeded) = (0, 0);
    while calls < MAX_CALLS && started.elapsed() < BUDGET {
        let (tool, args) = &searches[calls % searches.len()];
        if matches!(*tool, "find_symbol" | "search_code") {
            // A fresh index, so each call reads the files again.
            let _ = std::fs::remove_dir_all(root.join(".codesmith/index"));
        }
        let outcome = ws.call(tool, args.clone());
        // file_search repeats its pattern, which names the outside file: leave it out.
        let shown = outcome.stdout.replace("**/secret*", "");
        let definitions = outcome
            .envelope
            .data
            .as_ref()
            .and_then(|data| data.get("total_definitions"))
            .and_then(serde_json::Value::as_u64);
        assert!(
            !shown.contains("secret.") && definitions.unwrap_or(0) == 0,
            "call {calls} ({tool}) showed what is outside: {}",
            outcome.stdout
        );
        assert!(
            !outcome.stdout.contains("outside marker"),
            "call {calls} ({tool}) read a file outside: {}",
            outcome.stdout
        );
        succeeded += usize::from(outcome.envelope.ok);
        calls += 1;
    }
    drop(swapper);
    assert!(
        calls >= MIN_CALLS,
        "the race made {calls} calls: too few to mean anything"
    );
    // A search that failed on every call would show nothing outside for the wrong reason.
    assert!(succeeded > 0, "none of the {calls} searches succeeded");
}
