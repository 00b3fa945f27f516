//! The pipeline every file-changing tool goes through: load an existing file for change, then
//! prepare the new bytes (encode, syntax gate), then commit them (atomic write, refreshed
//! fingerprint).
//!
//! Preparing and committing are separate steps because apply_patch must compute and gate every
//! file of a patch before it writes any of them.
//!
//! ```text
//! let file = file_change::load(ctx, &path, &args.path)?;      // not_read / stale / binary / not_utf8
//! let lf = file.lf();                                         // match in LF space
//! let new_text = lf.splice(&edits);                           // original endings kept
//! let prepared = file_change::prepare(&path, Some(&file), &new_text)?;  // encode + syntax gate
//! prepared.commit(&ctx.state, Some(&file))?;                  // atomic write + freshness::record
//! ```

use std::fs;
use std::io::Read;

use encoding_rs::Encoding;

use crate::error::{Hint, StrayBytes, StrayRun, ToolError, Undecodable};
use crate::fs::line_endings::{EndingProfile, LfText};
use crate::fs::textfile;
use crate::fs::workspace::{shell_word, WsPath};
use crate::session::context::Context;
use crate::session::freshness::{self, Fingerprint};
use crate::session::state::State;

/// The largest file the editing tools change (past it, freshness has no content hash and a
/// whole-file rewrite is no longer an "edit").
pub const MAX_FILE_BYTES: u64 = freshness::HASH_LIMIT;

/// Serializes changes to one file across processes: held from [`load`] until after
/// [`Prepared::commit`], it makes two parallel edits of the same file run one after the other,
/// so the second sees the first's result (its freshness record was refreshed by the first
/// commit) instead of silently overwriting it. Keyed by the resolved path, for every session.
/// A caller changing several files takes their locks in sorted path order (no deadlock).
pub fn lock(state: &State, path: &WsPath) -> Result<crate::session::state::Lock, ToolError> {
    let dir = state.dir().join("locks");
    let key = xxhash_rust::xxh3::xxh3_64(path.abs.as_os_str().as_encoded_bytes());
    let take = || -> std::io::Result<crate::session::state::Lock> {
        state.ensure_dir()?;
        fs::create_dir_all(&dir)?;
        crate::session::state::Lock::exclusive(&dir.join(format!("{key:016x}.lock")))
    };
    take().map_err(|err| state.io_error(&dir, ".codesmith/locks", "lock a file for change in", &err))
}

/// An existing file, loaded for change.
#[derive(Debug, Clone)]
pub struct LoadedFile {
    pub path: WsPath,
    /// The bytes on disk when they differ from `text` (a BOM, another encoding); `None` for
    /// plain UTF-8, whose bytes are `text` itself, so a large file is held once, not twice.
    /// See [`LoadedFile::bytes`].
    raw: Option<Vec<u8>>,
    /// The decoded text, original line endings, without the BOM.
    pub text: String,
    /// The encoding the file is written back in.
    pub encoding: &'static Encoding,
    /// The file starts with a byte-order mark (kept on write).
    pub bom: bool,
    /// False for a legacy encoding guessed from little evidence. Such a file may still be
    /// edited, but only with characters it already holds (see [`prepare`]).
    pub encoding_confident: bool,
    /// The XXH3-128 of [`LoadedFile::bytes`]: their name in the history, hashed in the pass
    /// that fingerprinted them (see `history::blobs::digest_and_xxh3_64`).
    digest: [u8; 32],
    /// The permission bits, from the descriptor the bytes were read through.
    pub mode: u32,
}

impl LoadedFile {
    /// The exact bytes on disk (for restoring on rollback, and for the fingerprint).
    pub fn bytes(&self) -> &[u8] {
        self.raw.as_deref().unwrap_or(self.text.as_bytes())
    }

    /// The name of [`LoadedFile::bytes`] in the history (`history::blobs::digest`).
    pub fn digest(&self) -> [u8; 32] {
        self.digest
    }

    /// The exact bytes on disk, by value.
    pub fn into_bytes(self) -> Vec<u8> {
        self.raw.unwrap_or_else(|| self.text.into_bytes())
    }

    /// How the text's lines end. Counted when asked (a scan of the whole text, which
    /// apply_patch, keeping each line's own ending, never needs).
    pub fn endings(&self) -> EndingProfile {
        EndingProfile::of(&self.text)
    }

    /// The LF view of the text, for matching; splice edits through it to keep the endings.
    pub fn lf(&self) -> LfText<'_> {
        LfText::new(&self.text)
    }

    /// `None` for UTF-8 without a BOM; otherwise e.g. `"Shift_JIS"`, `"UTF-8 with BOM"`.
    pub fn encoding_label(&self) -> Option<String> {
        match (self.encoding == encoding_rs::UTF_8, self.bom) {
            (true, false) => None,
            (true, true) => Some("UTF-8 with BOM".to_string()),
            (false, true) => Some(format!("{} with BOM", self.encoding.name())),
            (false, false) => Some(self.encoding.name().to_string()),
        }
    }
}

/// Loads an existing file for change, running every gate in front of a change:
/// `not_found` (with similar paths), `is_directory`, `not_a_regular_file`, `too_large`,
/// `not_read` / `stale` (freshness, in the name of `ctx.tool`), `binary_file`, and `not_utf8`
/// when the encoding could not be identified with confidence or does not round-trip exactly.
/// `given` is the path as the caller wrote it (for messages).
pub fn load(ctx: &Context, path: &WsPath, given: &str) -> Result<LoadedFile, ToolError> {
    load_gated(ctx, path, given, true)
}

/// [`load`] for a preview that writes nothing (apply_patch's dry run): the freshness gate,
/// which protects writes, is skipped.
pub fn load_for_preview(ctx: &Context, path: &WsPath, given: &str) -> Result<LoadedFile, ToolError> {
    load_gated(ctx, path, given, false)
}

fn load_gated(ctx: &Context, path: &WsPath, given: &str, fresh: bool) -> Result<LoadedFile, ToolError> {
    let mut file = crate::fs::open::open_regular_file(&ctx.workspace, ctx.tool, path, given)?;
    let meta = file
        .metadata()
        .map_err(|err| ToolError::io(&path.display, "read", &err))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(ToolError::too_large_to_change(
            &path.file_ref(),
            ctx.tool,
            meta.len(),
            MAX_FILE_BYTES,
        ));
    }
    let bytes = crate::fs::read_whole::read_whole(&mut file, meta.len())
        .map_err(|err| ToolError::io(&path.display, "read", &err))?;
    // Binary first: read_file refuses binary files, so "read it first" would be a dead end.
    if textfile::is_binary(&bytes) {
        return Err(ToolError::binary_for_change(&path.file_ref(), ctx.tool));
    }
    // The fingerprint of exactly these bytes must be the one the session recorded. Checked on
    // the bytes already in hand, so a large file is read and hashed once; only on a mismatch
    // does the full check run, for the right error (`not_read`, `stale`), and if the file on
    // disk matches after all, it changed while this call was reading it.
    let (digest, xxh3_64) = crate::session::history::blobs::digest_and_xxh3_64(&[&bytes]);
    let read_now = Fingerprint::with_xxh3_64(&meta, xxh3_64);
    let recorded = freshness::lookup(&ctx.state, &path.display);
    if fresh && !recorded.is_some_and(|r| r.fingerprint.same_content(&read_now)) {
        freshness::check(&ctx.state, path, ctx.tool)?;
        return Err(stale_during_call(path, ctx.tool));
    }
    // Plain UTF-8 (the common case) becomes the text without a copy.
    let (decoded, raw) = if bytes.starts_with(b"\xEF\xBB\xBF") {
        (textfile::decode(&bytes), Some(bytes))
    } else {
        match String::from_utf8(bytes) {
            Ok(text) => {
                let decoded = textfile::Decoded {
                    text,
                    encoding: encoding_rs::UTF_8,
                    bom: false,
                    lossy: false,
                };
                (decoded, None)
            }
            Err(err) => {
                let bytes = err.into_bytes();
                (textfile::decode(&bytes), Some(bytes))
            }
        }
    };
    let on_disk = raw.as_deref().unwrap_or(decoded.text.as_bytes());
    if decoded.lossy || !round_trips(&decoded, on_disk) {
        return Err(not_utf8(path, ctx.tool, &decoded, on_disk));
    }
    let encoding_confident =
        decoded.encoding == encoding_rs::UTF_8 || decoded.bom || convincing(&decoded.text);
    Ok(LoadedFile {
        path: path.clone(),
        encoding_confident,
        text: decoded.text,
        encoding: decoded.encoding,
        bom: decoded.bom,
        raw,
        digest,
        mode: std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o7777,
    })
}

/// Enough evidence that a guessed legacy encoding is right: several non-ASCII characters, most
/// of them letters (a wrong guess tends to produce symbols and box-drawing characters).
fn convincing(text: &str) -> bool {
    const MIN_NON_ASCII: usize = 4;
    let (mut non_ascii, mut letters) = (0usize, 0usize);
    for c in text.chars().filter(|c| !c.is_ascii()) {
        non_ascii += 1;
        if c.is_alphabetic() {
            letters += 1;
        }
    }
    non_ascii >= MIN_NON_ASCII && letters * 10 >= non_ascii * 7
}

/// A legacy encoding is only safe to write back if decoding and re-encoding reproduces the
/// file byte for byte; otherwise bytes outside the edit would change.
fn round_trips(decoded: &textfile::Decoded, bytes: &[u8]) -> bool {
    if decoded.encoding == encoding_rs::UTF_8 {
        return true;
    }
    textfile::encode(&decoded.text, decoded.encoding, decoded.bom).as_deref() == Some(bytes)
}

fn not_utf8(
    path: &WsPath,
    tool: crate::tool_id::ToolId,
    decoded: &textfile::Decoded,
    bytes: &[u8],
) -> ToolError {
    // A UTF-8 file with a few stray bytes is not in another encoding: converting it whole
    // (iconv from LATIN1) would turn every correct `é` into mojibake. Name the bytes instead.
    if decoded.lossy && textfile::mostly_utf8(bytes) {
        return stray_bytes(path, tool, bytes);
    }
    let why = if decoded.lossy {
        Undecodable::Unidentified
    } else {
        Undecodable::NoRoundTrip {
            encoding: decoded.encoding.name(),
        }
    };
    ToolError::not_utf8(&path.file_ref(), tool, why, &utf8_copy_word(path))
}

/// The shell word of the UTF-8 copy a suggested `iconv` writes next to the file.
fn utf8_copy_word(path: &WsPath) -> String {
    shell_word(&format!("{}.utf8", path.call))
}

/// The refusal for a file that is UTF-8 but for a few invalid bytes: where the first few are,
/// and what the first reads as in windows-1252 (the usual source of a stray byte).
fn stray_bytes(path: &WsPath, tool: crate::tool_id::ToolId, bytes: &[u8]) -> ToolError {
    const SHOWN: usize = 3;
    let (runs, total) = textfile::invalid_utf8_runs(bytes, SHOWN);
    let first_meant = runs.first().map(|run| {
        let (meant, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&run.bytes);
        meant.into_owned()
    });
    let runs = runs
        .into_iter()
        .map(|run| StrayRun {
            line: run.line,
            offset: run.offset,
            bytes: run.bytes,
        })
        .collect();
    let stray = StrayBytes {
        runs,
        total,
        first_meant,
    };
    ToolError::stray_bytes(&path.file_ref(), tool, &stray)
}

fn stale_during_call(path: &WsPath, tool: crate::tool_id::ToolId) -> ToolError {
    ToolError::stale_during_call(&path.file_ref(), tool)
}

/// New bytes for one file, encoded and past the syntax gate, not yet written.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub path: WsPath,
    /// Exactly what [`Prepared::commit`] writes.
    pub bytes: Vec<u8>,
    /// The file does not exist yet.
    pub created: bool,
}

/// Turns the final text of a file into bytes, ready to commit: encoded in `before`'s encoding
/// and BOM (UTF-8 without BOM for a new file), then checked by the syntax gate against
/// `before`'s text. Refuses (`invalid_arguments`) a character the file's encoding cannot hold,
/// naming it and its line, rather than writing a substitute; and (`not_utf8`) a character new to
/// a file whose encoding is only a guess. Nothing is written.
pub fn prepare(path: &WsPath, before: Option<&LoadedFile>, after_text: &str) -> Result<Prepared, ToolError> {
    prepare_owned(path, before, after_text.to_string())
}

/// [`prepare`] taking the text by value, which saves a copy of it for a UTF-8 file (worth it on
/// large files).
pub fn prepare_owned(
    path: &WsPath,
    before: Option<&LoadedFile>,
    after_text: String,
) -> Result<Prepared, ToolError> {
    let (encoding, bom) = before.map_or((encoding_rs::UTF_8, false), |b| (b.encoding, b.bom));
    if let Some(before) = before.filter(|b| !b.encoding_confident) {
        if let Some(c) = new_character(&before.text, &after_text) {
            return Err(guessed_encoding(path, encoding, c));
        }
    }
    crate::fs::syntax_gate::check_moved(
        &path.display,
        before.map(|b| b.path.display.as_str()),
        before.map(|b| b.text.as_str()),
        &after_text,
    )?;
    let bytes = if encoding == encoding_rs::UTF_8 && !bom {
        after_text.into_bytes()
    } else {
        textfile::encode(&after_text, encoding, bom)
            .ok_or_else(|| unencodable(path, encoding, &after_text))?
    };
    Ok(Prepared {
        path: path.clone(),
        bytes,
        created: before.is_none(),
    })
}

/// A non-ASCII character of `after` that `before` does not hold.
fn new_character(before: &str, after: &str) -> Option<char> {
    let known: std::collections::HashSet<char> = before.chars().filter(|c| !c.is_ascii()).collect();
    after.chars().find(|c| !c.is_ascii() && !known.contains(c))
}

/// Refusal to add a character to a file whose encoding is only a guess: the bytes already in
/// the file are written back as they were whatever the true encoding, and so are ASCII and
/// characters the file already holds, but a new character would be encoded by the guess.
fn guessed_encoding(path: &WsPath, encoding: &'static Encoding, c: char) -> ToolError {
    ToolError::guessed_encoding(&path.file_ref(), &utf8_copy_word(path), encoding.name(), c)
}

fn unencodable(path: &WsPath, encoding: &'static Encoding, text: &str) -> ToolError {
    let mut line = 1;
    let mut culprit = None;
    for c in text.chars() {
        if c == '\n' {
            line += 1;
        }
        let mut buf = [0u8; 4];
        if textfile::encode(c.encode_utf8(&mut buf), encoding, false).is_none() {
            culprit = Some(c);
            break;
        }
    }
    ToolError::unencodable(
        &path.file_ref(),
        &utf8_copy_word(path),
        encoding.name(),
        culprit.map(|c| (c, line)),
    )
}

impl Prepared {
    /// Writes the bytes atomically (temp file in the same directory, fsync, rename; the mode of
    /// a replaced file is kept; missing parents are created) and records the new fingerprint
    /// in this session, so the next edit needs no re-read. On failure the original file is
    /// untouched. `before` is the file as [`load`] read it, when it was loaded: its bytes go
    /// into the checkpoint, so a large file is not read into memory a second time.
    pub fn commit(&self, state: &State, before: Option<&LoadedFile>) -> Result<(), ToolError> {
        write_parts(state, &self.path, self.created, &[&self.bytes], before)
    }
}

/// Whether a change of `file` may be written as a splice ([`commit_spliced`]): plain UTF-8
/// (its text is its bytes) that no syntax gate parses, so the new text is never needed whole.
pub fn writes_spliced(file: &LoadedFile) -> bool {
    file.encoding == encoding_rs::UTF_8
        && !file.bom
        && crate::fs::syntax_gate::Language::of(&file.path.display).is_none()
}

/// Commits new content of `file` given as consecutive parts (stretches of its text and the
/// replacements, see [`LfText::splice_parts`]), for a file [`writes_spliced`] allows: written,
/// checkpointed and fingerprinted part by part, so a large file is held once, as read.
pub fn commit_spliced(state: &State, file: &LoadedFile, parts: &[&str]) -> Result<(), ToolError> {
    let bytes: Vec<&[u8]> = parts.iter().map(|part| part.as_bytes()).collect();
    write_parts(state, &file.path, false, &bytes, Some(file))
}

/// The write shared by [`Prepared::commit`] and [`commit_spliced`]: checkpoint, atomic write
/// in the directory reached beneath the workspace's roots, new fingerprint.
fn write_parts(
    state: &State,
    path: &WsPath,
    created: bool,
    parts: &[&[u8]],
    before: Option<&LoadedFile>,
) -> Result<(), ToolError> {
    let (digest, xxh3_64) = crate::session::history::blobs::digest_and_xxh3_64(parts);
    let recorded = record_checkpoint(state, path, parts, digest, before)?;
    let meta =
        crate::fs::atomic::write_beneath(path, parts, crate::fs::atomic::WriteOptions::USER_FILE, None)
            .map_err(|refusal| {
                if let Some(recorded) = &recorded {
                    recorded.discard();
                }
                let io = matches!(refusal, crate::fs::beneath::Refusal::Io(_));
                let error = path.refusal("write", refusal);
                if io {
                    error.hint(Hint::NothingWritten { created })
                } else {
                    error
                }
            })?;
    freshness::record(state, path, Fingerprint::with_xxh3_64(&meta, xxh3_64))
}

/// Records the checkpoint of a write (the file's bytes and mode now, and `after`, whose
/// digest is `after_digest`), before anything is written. The file is reached beneath the roots, as the write will be; its bytes
/// now are `loaded`'s when given (the freshness check made sure they are the file's, and the
/// file lock keeps them so), else read from it.
fn record_checkpoint(
    state: &State,
    path: &WsPath,
    after: &[&[u8]],
    after_digest: [u8; 32],
    loaded: Option<&LoadedFile>,
) -> Result<Option<crate::session::history::Recorded>, ToolError> {
    use std::borrow::Cow;
    use std::os::unix::fs::PermissionsExt;
    let before = match path.open(libc::O_RDONLY | libc::O_NONBLOCK) {
        Ok(mut file) => {
            type Before<'b> = (Cow<'b, [u8]>, u32, Option<[u8; 32]>);
            let read = |file: &mut fs::File| -> std::io::Result<Before<'_>> {
                let mode = file.metadata()?.permissions().mode();
                Ok(match loaded {
                    Some(loaded) => (Cow::Borrowed(loaded.bytes()), mode, Some(loaded.digest)),
                    None => {
                        let mut bytes = Vec::new();
                        file.read_to_end(&mut bytes)?;
                        (Cow::Owned(bytes), mode, None)
                    }
                })
            };
            Some(read(&mut file).map_err(|err| ToolError::io(&path.display, "read", &err))?)
        }
        Err(crate::fs::beneath::Refusal::Io(err)) if crate::fs::open::is_missing(&err) => None,
        Err(refusal) => return Err(path.refusal("read", refusal)),
    };
    let after_mode = before
        .as_ref()
        .map_or(crate::fs::atomic::new_file_mode(false), |(_, mode, _)| *mode);
    let change = crate::session::history::Change {
        path: path.display.clone(),
        before: before
            .as_ref()
            .map(|(bytes, mode, digest)| crate::session::history::Content {
                digest: *digest,
                ..crate::session::history::Content::file(bytes, *mode)
            }),
        after: Some(crate::session::history::Content {
            parts: after.to_vec(),
            mode: after_mode & 0o7777,
            symlink: false,
            digest: Some(after_digest),
        }),
    };
    let summary = format!("{} {}", state.tool(), path.display);
    Ok(crate::session::history::record_or_notice(
        state,
        state.tool(),
        &summary,
        &[change],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iconv_is_suggested_only_for_a_file_that_is_not_mostly_utf8() {
        let path = WsPath {
            abs: "/ws/a.txt".into(),
            display: "a.txt".into(),
            call: "a.txt".into(),
            roots: crate::fs::beneath::Roots::new(vec!["/ws".into()]),
        };
        let lossy = |bytes: &[u8]| textfile::Decoded {
            text: String::from_utf8_lossy(bytes).into_owned(),
            encoding: encoding_rs::UTF_8,
            bom: false,
            lossy: true,
        };
        let legacy = b"x \xff\xfe\xfd\n";
        let err = not_utf8(&path, crate::tool_id::ToolId::EditFile, &lossy(legacy), legacy);
        assert!(err.message().contains("iconv -f LATIN1"), "{}", err.message());
        let stray = "é é é \u{0}"
            .as_bytes()
            .iter()
            .map(|&b| if b == 0 { 0xff } else { b })
            .collect::<Vec<_>>();
        let err = not_utf8(&path, crate::tool_id::ToolId::EditFile, &lossy(&stray), &stray);
        assert!(!err.message().contains("iconv -f"), "{}", err.message());
        assert!(err.message().contains("byte offset 9"), "{}", err.message());
    }
}
