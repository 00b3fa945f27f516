//! All or nothing. Every file a patch touches is resolved through the workspace boundary,
//! checked for freshness, and its new bytes computed and passed through the syntax gate
//! before the first byte is written ([`super::commit`] then writes the steps, undoing them in
//! reverse order if one fails).
//!
//! Over 600 lines: every check a file passes before the first write (boundary, freshness,
//! links, syntax gate, encoding) is kept in the one pass that plans the transaction.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde_json::{json, Value};

use super::apply::{self, Applied, Splice, Target};
use super::commit::{NewBytes, Step};
use super::links::{self, LinkStep};
use super::locate::Fuzz;
use super::model::{FilePatch, Op};
use crate::error::{Hint, ToolError};
use crate::fs::workspace::WsPath;
use crate::notice::{FileNotice, Notice};
use crate::session::context::Context;
use crate::tools::file_change::{self, LoadedFile};

/// A file's text after the operations so far.
struct Current {
    text: Text,
    /// The slot whose loaded file this text derives from: it gives the encoding and BOM to
    /// write in and the "before" the syntax gate compares with. `None` for a new file.
    origin: Option<usize>,
}

/// A large file is neither copied when loaded nor when changed: its text stays the origin's
/// loaded text, or a splice of it, until it is written.
#[derive(Clone)]
enum Text {
    /// The origin's loaded text, unchanged.
    Original,
    /// A splice of the origin's loaded text.
    Spliced(Splice),
    /// Text of its own (a new file, or a file changed twice by one patch).
    Owned(String),
}

/// One path the patch touches, in the order first touched.
struct Slot {
    path: WsPath,
    /// The file as it was on disk before the patch (gated by freshness), if it existed.
    loaded: Option<LoadedFile>,
    old_mode: u32,
    /// `None` when the file is absent after the operations so far.
    current: Option<Current>,
    /// Permission bits to set when written.
    mode: Option<u32>,
}

/// One entry of the result: what happened to one file of the patch.
pub(super) struct FileReport {
    pub status: &'static str,
    pub path: String,
    pub from: Option<String>,
    pub hunks: Vec<apply::HunkResult>,
}

impl FileReport {
    pub(super) fn fuzz(&self) -> Option<Fuzz> {
        self.hunks.iter().map(|h| h.fuzz).max()
    }

    pub(super) fn to_json(&self) -> Value {
        // Built as values directly: `json!` would serialize the list of positions (a thousand
        // objects for a large patch) into a second copy.
        let positions: Vec<Value> = self
            .hunks
            .iter()
            .map(|h| {
                let mut position = serde_json::Map::with_capacity(3);
                position.insert("line".into(), h.line.into());
                position.insert("offset".into(), h.offset.into());
                position.insert("fuzz".into(), h.fuzz.as_str().into());
                Value::Object(position)
            })
            .collect();
        let mut value = json!({
            "path": self.path,
            "status": self.status,
            "hunks": self.hunks.len(),
            "fuzz": self.fuzz().map(Fuzz::as_str),
        });
        if let Value::Object(map) = &mut value {
            map.insert("hunk_positions".into(), Value::Array(positions));
        }
        if let (Some(from), Value::Object(map)) = (&self.from, &mut value) {
            map.insert("from".into(), Value::String(from.clone()));
        }
        value
    }
}

/// The computed change, not yet written: every file's final bytes, already past the gates.
pub(super) struct Plan {
    pub steps: Vec<Step>,
    pub reports: Vec<FileReport>,
    pub diff: String,
    /// Side observations for the result (an `*** Add File` that replaced a file).
    pub notices: Vec<Notice>,
}

/// Computes every file's new content. Nothing is written.
pub(super) fn plan(ctx: &Context, files: &[FilePatch], preview: bool) -> Result<Plan, ToolError> {
    let mut plan = Planning {
        preview,
        slots: Vec::new(),
        index: HashMap::new(),
        links: Vec::new(),
        claimed_by_links: HashSet::new(),
        reports: Vec::new(),
        diff: String::new(),
        notices: Vec::new(),
    };
    for file in files {
        if links::plan(ctx, &mut plan, file)? {
            continue;
        }
        let (source, replacing) = if file.op == Op::Add {
            new_slot(ctx, &mut plan, file)?
        } else {
            (slot(ctx, &mut plan, &file.path, file)?, false)
        };
        let path = plan.slots[source].path.clone();
        match file.op {
            Op::Add if replacing => replace_whole(ctx, &mut plan, source, file)?,
            Op::Add => plan_add(&mut plan, source, &path, file)?,
            Op::Delete => plan_delete(ctx, &mut plan, source, &path, file)?,
            Op::Update => plan_update(ctx, &mut plan, source, &path, file)?,
        }
    }
    let mut all_steps: Vec<Step> = plan.links.into_iter().map(Step::Link).collect();
    all_steps.extend(steps(plan.slots)?);
    Ok(Plan {
        steps: all_steps,
        reports: plan.reports,
        diff: plan.diff,
        notices: plan.notices,
    })
}

/// A new file: its text is the hunks applied to nothing.
fn plan_add(plan: &mut Planning, source: usize, path: &WsPath, file: &FilePatch) -> Result<(), ToolError> {
    let display = path.display.clone();
    if plan.slots[source].current.is_some() {
        return Err(already_exists(path, file));
    }
    let applied = run_hunks("", path, file)?;
    push_diff(&mut plan.diff, None, Some(&display), &applied.diff);
    let slot = &mut plan.slots[source];
    slot.current = Some(Current {
        text: Text::Owned(applied.splice.to_text("")),
        origin: None,
    });
    slot.mode = file.executable.map(|x| with_executable(0o644, x));
    plan.reports.push(report("added", &display, None, applied.hunks));
    Ok(())
}

/// A deletion: the file goes, after its hunks (if any) are checked to remove every line.
fn plan_delete(
    ctx: &Context,
    plan: &mut Planning,
    source: usize,
    path: &WsPath,
    file: &FilePatch,
) -> Result<(), ToolError> {
    let display = path.display.clone();
    materialize(plan, source);
    let current = existing(ctx, plan, source, file)?;
    let mut hunks = Vec::new();
    if !file.hunks.is_empty() {
        hunks = deleting_hunks(current, path, file)?;
    }
    let lines = current.lines().count();
    plan.diff.push_str(&format!(
        "--- a/{display}\n+++ /dev/null\n(deleted, {lines} line{})\n",
        if lines == 1 { "" } else { "s" }
    ));
    plan.slots[source].current = None;
    plan.reports.push(report("deleted", &display, None, hunks));
    Ok(())
}

/// An update: the hunks applied to the current text, which stays at its path or goes to
/// `move_to` (renamed, or copied).
fn plan_update(
    ctx: &Context,
    plan: &mut Planning,
    source: usize,
    path: &WsPath,
    file: &FilePatch,
) -> Result<(), ToolError> {
    let display = path.display.clone();
    materialize(plan, source);
    let current = existing(ctx, plan, source, file)?;
    let applied = run_hunks(current, path, file)?;
    let previous = plan.slots[source].current.as_ref();
    let content = Current {
        text: match previous.map(|c| &c.text) {
            // A pure move keeps the text it had (possibly the unchanged original).
            Some(text) if file.hunks.is_empty() => text.clone(),
            Some(Text::Original) => Text::Spliced(applied.splice),
            _ => Text::Owned(applied.splice.to_text(current)),
        },
        origin: previous.and_then(|c| c.origin),
    };
    let dest = match &file.move_to {
        Some(to) => slot(ctx, plan, to, file)?,
        None => source,
    };
    let dest_display = plan.slots[dest].path.display.clone();
    if dest == source {
        push_diff(&mut plan.diff, Some(&display), Some(&display), &applied.diff);
        let slot = &mut plan.slots[source];
        slot.current = Some(content);
        let base = slot.mode.unwrap_or(slot.old_mode);
        slot.mode = file.executable.map(|x| with_executable(base, x)).or(slot.mode);
        plan.reports
            .push(report("modified", &display, None, applied.hunks));
    } else {
        push_diff(&mut plan.diff, Some(&display), Some(&dest_display), &applied.diff);
        let source_mode = plan.slots[source].mode.unwrap_or(plan.slots[source].old_mode);
        if !file.copy {
            plan.slots[source].current = None;
        }
        let slot = &mut plan.slots[dest];
        slot.current = Some(content);
        slot.mode = Some(
            file.executable
                .map_or(source_mode, |x| with_executable(source_mode, x)),
        );
        let status = if file.copy { "copied" } else { "renamed" };
        plan.reports
            .push(report(status, &dest_display, Some(display), applied.hunks));
    }
    Ok(())
}

/// `*** Add File` over a file that exists: the new text replaces it whole, as write_file would
/// (the file passed the freshness gate when its slot was loaded).
fn replace_whole(
    ctx: &Context,
    plan: &mut Planning,
    source: usize,
    file: &FilePatch,
) -> Result<(), ToolError> {
    materialize(plan, source);
    let path = plan.slots[source].path.clone();
    let display = path.display.clone();
    let current = existing(ctx, plan, source, file)?.to_string();
    let applied = run_hunks("", &path, file)?;
    let text = applied.splice.to_text("");
    plan.diff
        .push_str(&crate::fs::diff::unified(&display, &current, &text));
    plan.notices.push(
        FileNotice::AddFileReplaced {
            path: file.path.clone(),
        }
        .into(),
    );
    let origin = plan.slots[source].current.as_ref().and_then(|c| c.origin);
    plan.slots[source].current = Some(Current {
        text: Text::Owned(text),
        origin,
    });
    plan.reports
        .push(report("replaced", &display, None, applied.hunks));
    Ok(())
}

/// The plan while it is being built.
pub(super) struct Planning {
    slots: Vec<Slot>,
    /// Slot by resolved path.
    index: HashMap<PathBuf, usize>,
    /// Symlinks removed or renamed (see [`links`]), run before the content changes.
    pub(super) links: Vec<LinkStep>,
    /// Paths a link step vacates or fills: no other part of the patch may use them, except to
    /// create a file where a removed link was.
    pub(super) claimed_by_links: HashSet<PathBuf>,
    pub(super) reports: Vec<FileReport>,
    pub(super) diff: String,
    notices: Vec<Notice>,
    /// A dry run: files are loaded without the freshness gate, since nothing is written.
    preview: bool,
}

impl Planning {
    /// True when another part of the patch already touches `abs`.
    pub(super) fn touches(&self, abs: &Path) -> bool {
        self.index.contains_key(abs)
    }
}

/// `mode` made executable (an `x` bit for each `r` bit, as `chmod +x` under a usual umask) or
/// not; no other bit changes.
fn with_executable(mode: u32, executable: bool) -> u32 {
    if executable {
        mode | ((mode & 0o444) >> 2)
    } else {
        mode & !0o111
    }
}

pub(super) fn report(
    status: &'static str,
    path: &str,
    from: Option<String>,
    hunks: Vec<apply::HunkResult>,
) -> FileReport {
    FileReport {
        status,
        path: path.to_string(),
        from,
        hunks,
    }
}

fn push_diff(diff: &mut String, old: Option<&str>, new: Option<&str>, body: &str) {
    let side =
        |prefix: &str, path: Option<&str>| path.map_or("/dev/null".to_string(), |p| format!("{prefix}{p}"));
    diff.push_str(&format!("--- {}\n+++ {}\n", side("a/", old), side("b/", new)));
    diff.push_str(body);
}

/// Runs the hunks of a file deletion, which must remove every line of the file.
pub(super) fn deleting_hunks(
    current: &str,
    path: &WsPath,
    file: &FilePatch,
) -> Result<Vec<apply::HunkResult>, ToolError> {
    let display = &path.display;
    let applied = run_hunks(current, path, file)?;
    if !applied.splice.slices(current).all(|s| s.trim().is_empty()) {
        return Err(ToolError::deletion_leaves_lines(
            display,
            file.line,
            &path.call_arg(),
        ));
    }
    Ok(applied.hunks)
}

pub(super) fn run_hunks(text: &str, path: &WsPath, file: &FilePatch) -> Result<Applied, ToolError> {
    apply::apply(text, &Target { path, patch: file })
}

/// Turns a splice into text of its own, before a second change to the same file in one patch.
pub(super) fn materialize(plan: &mut Planning, index: usize) {
    let slots = &mut plan.slots;
    if let Some(Current {
        text: Text::Spliced(splice),
        origin,
    }) = &slots[index].current
    {
        let base = origin
            .and_then(|o| slots[o].loaded.as_ref())
            .map_or("", |l| l.text.as_str());
        let text = splice.to_text(base);
        if let Some(current) = slots[index].current.as_mut() {
            current.text = Text::Owned(text);
        }
    }
}

/// The current content of a file the patch expects to exist (call [`materialize`] first).
pub(super) fn existing<'s>(
    ctx: &Context,
    plan: &'s Planning,
    index: usize,
    file: &FilePatch,
) -> Result<&'s str, ToolError> {
    let slot = &plan.slots[index];
    match &slot.current {
        Some(current) => Ok(text_of(&plan.slots, current)),
        None if slot.loaded.is_some() => Err(ToolError::changed_after_removal(&slot.path.display, file.line)),
        None => {
            let err = crate::fs::open::not_found(&ctx.workspace, ctx.tool, &slot.path, &file.path);
            Err(err.hint(Hint::PatchChangesMissing {
                patch_line: file.line,
            }))
        }
    }
}

pub(super) fn already_exists(path: &WsPath, file: &FilePatch) -> ToolError {
    ToolError::added_file_exists(&path.display, file.line, &path.call_arg())
}

/// The slot for a file the patch creates: an existing file there is an error (reported before
/// any freshness gate, which would otherwise ask for a pointless read).
/// With it, whether the file exists and is to be replaced whole (see [`FilePatch::replaces`]).
fn new_slot(ctx: &Context, plan: &mut Planning, file: &FilePatch) -> Result<(usize, bool), ToolError> {
    // Where the patch removed a symlink, the new file goes in the link's place, not through it.
    if let Some(link) = links::link_at(ctx, &file.path, file)? {
        if plan.claimed_by_links.contains(&link.path.abs) && !plan.index.contains_key(&link.path.abs) {
            return Ok((slot_at(ctx, plan, link.path, &file.path, file)?, false));
        }
    }
    let path = resolve_at(ctx, &file.path, file)?;
    if !plan.index.contains_key(&path.abs) {
        match fs::symlink_metadata(&path.abs) {
            Ok(meta) if file.replaces && meta.is_file() => {
                return Ok((slot_at(ctx, plan, path, &file.path, file)?, true));
            }
            Ok(_) => return Err(already_exists(&path, file)),
            Err(_) => {}
        }
    }
    Ok((slot_at(ctx, plan, path, &file.path, file)?, false))
}

/// The slot for `given`, loading the file (with the freshness gate) on first touch.
pub(super) fn slot(
    ctx: &Context,
    plan: &mut Planning,
    given: &str,
    file: &FilePatch,
) -> Result<usize, ToolError> {
    let path = resolve_at(ctx, given, file)?;
    if plan.claimed_by_links.contains(&path.abs) && !plan.index.contains_key(&path.abs) {
        return Err(claimed_by_link(&path.display, file));
    }
    slot_at(ctx, plan, path, given, file)
}

fn slot_at(
    ctx: &Context,
    plan: &mut Planning,
    path: WsPath,
    given: &str,
    file: &FilePatch,
) -> Result<usize, ToolError> {
    if let Some(&i) = plan.index.get(&path.abs) {
        return Ok(i);
    }
    let (loaded, old_mode) = match fs::symlink_metadata(&path.abs) {
        Err(err) if err.kind() == std::io::ErrorKind::NotADirectory => {
            return Err(through_a_file(ctx, &path, file)
                .unwrap_or_else(|| at_line(ToolError::io(&path.display, "inspect", &err), file)));
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => (None, 0),
        _ if plan.claimed_by_links.contains(&path.abs) => (None, 0),
        _ => {
            let loaded = if plan.preview {
                file_change::load_for_preview(ctx, &path, given)
            } else {
                file_change::load(ctx, &path, given)
            };
            let loaded = loaded.map_err(|err| at_line(err, file))?;
            let mode = loaded.mode;
            (Some(loaded), mode)
        }
    };
    let i = plan.slots.len();
    plan.index.insert(path.abs.clone(), i);
    plan.slots.push(Slot {
        current: loaded.as_ref().map(|_| Current {
            text: Text::Original,
            origin: Some(i),
        }),
        path,
        loaded,
        old_mode,
        mode: None,
    });
    Ok(i)
}

/// A path an earlier part of the patch deleted or renamed a symlink at, or renamed one to.
pub(super) fn claimed_by_link(display: &str, file: &FilePatch) -> ToolError {
    ToolError::claimed_by_link(display, file.line)
}

/// The error for a path that runs through an existing file (`notes.txt/x`), if it does.
fn through_a_file(ctx: &Context, path: &WsPath, file: &FilePatch) -> Option<ToolError> {
    let blocking = crate::fs::open::blocking_file(&ctx.workspace, path)?;
    Some(ToolError::patch_through_file(&path.display, file.line, &blocking))
}

/// `given`, a path of `file`, through the workspace guard; a refusal names the patch line.
pub(super) fn resolve_at(ctx: &Context, given: &str, file: &FilePatch) -> Result<WsPath, ToolError> {
    ctx.resolve_for_write(given).map_err(|err| at_line(err, file))
}

/// Adds the patch line to a gate's message, and says nothing was written.
fn at_line(err: ToolError, file: &FilePatch) -> ToolError {
    err.hint(Hint::PatchTouches {
        patch_line: file.line,
    })
}

/// The text `current` stands for (an original or owned text; splices are resolved by
/// [`existing`] before anyone asks).
fn text_of<'s>(slots: &'s [Slot], current: &'s Current) -> &'s str {
    match (
        &current.text,
        current.origin.and_then(|o| slots[o].loaded.as_ref()),
    ) {
        (Text::Owned(text), _) => text,
        (Text::Original, Some(loaded)) => &loaded.text,
        _ => "",
    }
}

/// What a slot's final content is, before the old bytes are moved into the steps.
enum Final {
    Absent,
    Unchanged,
    Bytes(Vec<u8>),
    Spliced(Splice),
}

/// A file's bytes as loaded (shared by the steps that need them) and their name in the
/// history, hashed when they were loaded.
type Old = (Rc<Vec<u8>>, [u8; 32]);

/// Moves each slot's loaded bytes out of it.
fn take_olds(slots: &mut [Slot]) -> Vec<Option<Old>> {
    slots
        .iter_mut()
        .map(|slot| {
            let loaded = slot.loaded.take()?;
            let digest = loaded.digest();
            Some((Rc::new(loaded.into_bytes()), digest))
        })
        .collect()
}

/// Turns the plan into byte-level steps: each final text encoded in its file's encoding and
/// passed through the syntax gate (`file_change::prepare`). A splice of a plain UTF-8 file
/// that no gate parses stays a splice (its bytes are written part by part). Files whose bytes
/// and mode end up unchanged are skipped.
fn steps(mut slots: Vec<Slot>) -> Result<Vec<Step>, ToolError> {
    let texts: Vec<Option<Text>> = slots
        .iter_mut()
        .map(|slot| {
            slot.current
                .as_mut()
                .map(|c| std::mem::replace(&mut c.text, Text::Original))
        })
        .collect();
    let mut finals = Vec::with_capacity(slots.len());
    for (slot, text) in slots.iter().zip(texts) {
        let origin = slot.current.as_ref().and_then(|c| c.origin);
        let before = origin.and_then(|o| slots[o].loaded.as_ref());
        let plain = before.is_some_and(|b| b.encoding == encoding_rs::UTF_8 && !b.bom)
            && crate::fs::syntax_gate::Language::of(&slot.path.display).is_none();
        finals.push(match (text, before) {
            (None, _) => Final::Absent,
            (Some(Text::Original), Some(_)) if origin == Some(finals.len()) => Final::Unchanged,
            (Some(Text::Original), Some(loaded)) => Final::Bytes(loaded.bytes().to_vec()),
            (Some(Text::Spliced(splice)), Some(_)) if plain => Final::Spliced(splice),
            (Some(Text::Spliced(splice)), Some(loaded)) => {
                let text = splice.to_text(&loaded.text);
                Final::Bytes(file_change::prepare_owned(&slot.path, before, text)?.bytes)
            }
            (Some(Text::Owned(text)), _) => {
                Final::Bytes(file_change::prepare_owned(&slot.path, before, text)?.bytes)
            }
            (Some(_), None) => Final::Bytes(Vec::new()),
        });
    }
    let olds = take_olds(&mut slots);
    let mut steps = Vec::new();
    for (i, (slot, fin)) in slots.into_iter().zip(finals).enumerate() {
        let bytes = match fin {
            Final::Absent => None,
            Final::Unchanged => match &olds[i] {
                Some((old, _)) if slot.mode.is_some_and(|m| m != slot.old_mode) => {
                    Some(NewBytes::Whole(old.as_ref().clone()))
                }
                _ => continue,
            },
            Final::Bytes(bytes) => Some(NewBytes::Whole(bytes)),
            Final::Spliced(splice) => {
                let origin = slot.current.as_ref().and_then(|c| c.origin);
                match origin.and_then(|o| olds[o].as_ref()) {
                    Some((base, _)) => Some(NewBytes::Spliced(splice, base.clone())),
                    None => continue,
                }
            }
        };
        match (olds[i].clone(), bytes) {
            (None, None) => {}
            (None, Some(bytes)) => steps.push(Step::Create {
                path: slot.path,
                bytes,
                mode: slot.mode,
            }),
            (Some((old, old_digest)), Some(bytes)) => {
                if !bytes.equals(&old) || slot.mode.is_some_and(|m| m != slot.old_mode) {
                    steps.push(Step::Replace {
                        path: slot.path,
                        bytes,
                        mode: slot.mode,
                        old,
                        old_digest,
                        old_mode: slot.old_mode,
                    });
                }
            }
            (Some((old, old_digest)), None) => steps.push(Step::Delete {
                path: slot.path,
                old,
                old_digest,
                old_mode: slot.old_mode,
            }),
        }
    }
    Ok(steps)
}
