//! read_file: a page of a text file, with line numbers, that records the read for the
//! freshness gates.

use std::fs;
use std::io::{BufRead, BufReader};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::error::ToolError;
use crate::fs::open::open_regular_file;
use crate::fs::textfile;
use crate::fs::workspace::{quote_arg, WsPath};
use crate::notice::{FileNotice, Notice};
use crate::session::context::Context;
use crate::session::freshness::{self, Fingerprint, HASH_LIMIT};
use crate::tools::{Cap, Capability, DataField, ToolOutput, ToolSpec};

pub const SPEC: ToolSpec = ToolSpec {
    name: "read_file",
    id: crate::tool_id::ToolId::ReadFile,
    alias: "read",
    positional: Some("path"),
    capability: Capability::ReadOnly,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<ReadFileArgs>,
    caps: &[MAX_LINES],
    data: &[
        DataField::always("path", "string"),
        DataField::always("total_lines", "integer"),
        DataField::always("start_line", "integer"),
        DataField::always("end_line", "integer|null"),
        DataField::always("truncated", "boolean"),
        DataField::always("next_start_line", "integer|null"),
        DataField::always("cut_lines", "integer"),
        DataField::sometimes("encoding", "string"),
    ],
    run: |args, ctx| run(crate::tools::parse("read_file", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "Read a text file, one page at a time, with line numbers.
Use this instead of cat, head, tail or sed -n in exec_shell: it pages large files without loading them, refuses binary files and devices, and records the read so edit_file and apply_patch can check the file has not changed since.
Output lines look like `    12│ text`; the number and `│ ` are not part of the file (do not paste them into edit_file's search). A page holds at most max_lines lines (default 200, at most 500) and 16 KB of text, always ending on a whole line; when more remains, the last line says exactly which call continues. Lines over 2000 characters are cut with a marker saying how much was cut. For a directory use list_dir; to find text across files use grep_files.
Examples:
{\"path\": \"src/main.rs\"}
{\"path\": \"logs/server.log\", \"start_line\": 4001, \"max_lines\": 500}";

/// At most this many lines per page.
pub const MAX_LINES_CAP: u64 = 500;
/// max_lines: over the cap is shown as the cap; below 1, or beyond 64 bits, is clamped.
pub const MAX_LINES: Cap = Cap::new("max_lines", 1, MAX_LINES_CAP).also_unrepresentable();
/// A page stops before its rendered text passes this many bytes (but holds at least one line).
pub const PAGE_BYTES: usize = 16 * 1024;
/// Longer lines are cut to this many characters.
pub const MAX_LINE_CHARS: usize = 2000;
/// Files up to this size are read whole (and may be decoded from a legacy encoding); larger
/// ones are streamed line by line as UTF-8.
const WHOLE_FILE_LIMIT: u64 = 16 * 1024 * 1024;

fn default_start_line() -> u64 {
    1
}

fn default_max_lines() -> u64 {
    200
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// The file to read: relative to the session cwd, or absolute inside the workspace.
    pub path: String,
    /// The first line to show, 1-based.
    #[serde(default = "default_start_line")]
    #[schemars(range(min = 1))]
    pub start_line: u64,
    /// How many lines to show, 1 to 500; values outside are clamped (a notice says so).
    #[serde(default = "default_max_lines")]
    // No schema range: out-of-range values are clamped, not refused, and the schema says what
    // the tool accepts.
    #[schemars(with = "i64")]
    pub max_lines: u64,
}

pub fn run(args: ReadFileArgs, ctx: &mut Context) -> Result<ToolOutput, ToolError> {
    if args.start_line == 0 {
        return Err(ToolError::start_line_zero(&quote_arg(&args.path)));
    }
    if args.max_lines == 0 {
        return Err(ToolError::max_lines_zero(&quote_arg(&args.path), MAX_LINES_CAP));
    }
    let mut notices = Vec::new();
    let max_lines = MAX_LINES.cut(args.max_lines, ("showing", "lines"), &mut notices);
    let path = ctx.resolve(&args.path)?;
    let file = open_regular_file(&ctx.workspace, ctx.tool, &path, &args.path)?;
    let meta = file
        .metadata()
        .map_err(|err| ToolError::io(&path.display, "read", &err))?;
    let mut page = Page::new(args.start_line, max_lines);
    let fingerprint = if meta.len() <= WHOLE_FILE_LIMIT {
        read_whole(file, &meta, &path, &mut page, &mut notices)?
    } else {
        let fingerprint = read_streaming(file, &meta, &path, &mut page)?;
        if page.lossy {
            notices.push(
                FileNotice::NotUtf8OnLinesShown {
                    path: path.display.clone(),
                }
                .into(),
            );
            page.encoding = Some("unknown (shown lossily)".into());
        }
        fingerprint
    };
    // The page is what was asked for; failing to note the read (a read-only checkout, a full
    // disk) must not hide it. The edit tools will then ask for a read again, which is safe.
    if let Err(err) = freshness::record(&ctx.state, &path, fingerprint) {
        notices.push(
            FileNotice::ReadNotRecorded {
                path: path.display.clone(),
                error: err.message(),
            }
            .into(),
        );
    }
    let mut out = page.finish(&args.path);
    out.notices.extend(notices);
    Ok(out.with("path", path.display))
}

fn binary_error(path: &WsPath, len: u64) -> ToolError {
    ToolError::binary_for_read(&path.file_ref(), len)
}

fn read_whole(
    mut file: fs::File,
    meta: &fs::Metadata,
    path: &WsPath,
    page: &mut Page,
    notices: &mut Vec<Notice>,
) -> Result<Fingerprint, ToolError> {
    let bytes = crate::fs::read_whole::read_whole(&mut file, meta.len())
        .map_err(|err| ToolError::io(&path.display, "read", &err))?;
    if textfile::is_binary(&bytes) {
        return Err(binary_error(path, meta.len()));
    }
    let decoded = textfile::decode(&bytes);
    if !decoded.is_utf8() {
        let path = path.display.clone();
        notices.push(if decoded.lossy {
            FileNotice::NotUtf8 { path }.into()
        } else {
            FileNotice::Decoded {
                path,
                encoding: decoded.encoding.name(),
            }
            .into()
        });
        page.encoding = Some(if decoded.lossy {
            "unknown (shown lossily)".into()
        } else {
            decoded.encoding.name().into()
        });
    }
    let text = decoded.text.as_str();
    let body = text.strip_suffix('\n').unwrap_or(text);
    if !text.is_empty() {
        for line in body.split('\n').skip((page.start_line - 1) as usize) {
            if !page.push(line, 0) {
                break;
            }
        }
    }
    let total = if text.is_empty() {
        0
    } else {
        memchr::memchr_iter(b'\n', body.as_bytes()).count() as u64 + 1
    };
    page.total_lines = Some(total);
    Ok(Fingerprint::of_content(meta, &bytes))
}

/// Streams a large file in one pass and little memory: skips to the page counting newlines,
/// collects the page line by line (each line held to a bounded prefix), then counts the rest.
/// Every consumed byte is hashed once. Past [`HASH_LIMIT`] the hash is dropped and the pass
/// stops at the end of the page, so the total line count is then unknown.
fn read_streaming(
    file: fs::File,
    meta: &fs::Metadata,
    path: &WsPath,
    page: &mut Page,
) -> Result<Fingerprint, ToolError> {
    let io_err = |err: std::io::Error| ToolError::io(&path.display, "read", &err);
    let hashing = meta.len() <= HASH_LIMIT;
    let mut scan = Scan {
        reader: BufReader::with_capacity(256 * 1024, file),
        hasher: hashing.then(xxhash_rust::xxh3::Xxh3::new),
        newlines: 0,
        last_byte: None,
    };
    if textfile::is_binary(scan.reader.fill_buf().map_err(io_err)?) {
        return Err(binary_error(path, meta.len()));
    }
    scan.skip_lines(page.start_line - 1).map_err(io_err)?;
    let eof = scan.collect_page(page).map_err(io_err)?;
    if !eof {
        if !hashing {
            page.total_lines = None;
            return Ok(Fingerprint {
                mtime_ns: freshness::mtime_ns(meta),
                len: meta.len(),
                hash: None,
            });
        }
        scan.count_rest().map_err(io_err)?;
    }
    page.total_lines = Some(scan.newlines + u64::from(scan.last_byte.is_some_and(|b| b != b'\n')));
    Ok(Fingerprint {
        mtime_ns: freshness::mtime_ns(meta),
        len: meta.len(),
        hash: scan.hasher.map(|hasher| format!("{:016x}", hasher.digest())),
    })
}

/// One pass over a file: every byte consumed is counted (newlines, the last byte) and, for a
/// file small enough, hashed.
struct Scan {
    reader: BufReader<fs::File>,
    hasher: Option<xxhash_rust::xxh3::Xxh3>,
    newlines: u64,
    last_byte: Option<u8>,
}

impl Scan {
    /// Consumes `len` buffered bytes holding `newlines_in` newlines.
    fn consume(&mut self, len: usize, newlines_in: u64) {
        let chunk = &self.reader.buffer()[..len];
        if let Some(hasher) = &mut self.hasher {
            hasher.update(chunk);
        }
        if len > 0 {
            self.last_byte = Some(chunk[len - 1]);
        }
        self.newlines += newlines_in;
        self.reader.consume(len);
    }

    /// Skips `target` lines: to the first line of the page.
    fn skip_lines(&mut self, target: u64) -> std::io::Result<()> {
        let mut skipped: u64 = 0;
        while skipped < target {
            let chunk = self.reader.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            let mut len = chunk.len();
            let mut found = 0;
            for pos in memchr::memchr_iter(b'\n', chunk) {
                found += 1;
                if skipped + found == target {
                    len = pos + 1;
                    break;
                }
            }
            skipped += found;
            self.consume(len, found);
        }
        Ok(())
    }

    /// Collects the page's lines, keeping at most enough bytes of each to show it cut. Returns
    /// whether the file ended.
    fn collect_page(&mut self, page: &mut Page) -> std::io::Result<bool> {
        let keep_bytes = MAX_LINE_CHARS * 4 + 4;
        let mut current: Vec<u8> = Vec::new();
        let mut extra_chars = 0usize;
        while !page.full {
            let chunk = self.reader.fill_buf()?;
            if chunk.is_empty() {
                if !current.is_empty() || extra_chars > 0 {
                    page.push_bytes(&current, extra_chars);
                }
                return Ok(true);
            }
            let (piece_len, newline) = match memchr::memchr(b'\n', chunk) {
                Some(pos) => (pos, true),
                None => (chunk.len(), false),
            };
            let room = keep_bytes.saturating_sub(current.len());
            current.extend_from_slice(&chunk[..piece_len.min(room)]);
            if piece_len > room {
                extra_chars += chunk[room..piece_len]
                    .iter()
                    .filter(|b| (**b & 0xC0) != 0x80)
                    .count();
            }
            self.consume(piece_len + usize::from(newline), u64::from(newline));
            if newline {
                page.push_bytes(&current, extra_chars);
                current.clear();
                extra_chars = 0;
            }
        }
        Ok(false)
    }

    /// Counts (and hashes) the rest of the file.
    fn count_rest(&mut self) -> std::io::Result<()> {
        loop {
            let chunk = self.reader.fill_buf()?;
            if chunk.is_empty() {
                return Ok(());
            }
            let len = chunk.len();
            let found = memchr::memchr_iter(b'\n', chunk).count() as u64;
            self.consume(len, found);
        }
    }
}

/// Appends `n` in decimal, as `{n}` would, without going through the formatter.
fn push_decimal(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

/// Appends the line-number gutter, as `format!("{number:>6}│ ")` would.
fn push_line_number(out: &mut String, number: u64) {
    let width = number.checked_ilog10().unwrap_or(0) as usize + 1;
    for _ in width..6 {
        out.push(' ');
    }
    push_decimal(out, number);
    out.push_str("│ ");
}

/// One page of numbered lines under the line and byte budgets.
struct Page {
    start_line: u64,
    max_lines: u64,
    rendered: String,
    shown: u64,
    /// Set when a line was refused for the byte budget or the line budget was reached.
    full: bool,
    total_lines: Option<u64>,
    encoding: Option<String>,
    cut_lines: u64,
    /// A shown line held bytes that are not UTF-8 (streaming path).
    lossy: bool,
}

impl Page {
    fn new(start_line: u64, max_lines: u64) -> Page {
        Page {
            start_line,
            max_lines,
            rendered: String::new(),
            shown: 0,
            full: false,
            total_lines: None,
            encoding: None,
            cut_lines: 0,
            lossy: false,
        }
    }

    /// Offers the next line as raw bytes (the streaming path), decoded lossily. A multi-byte
    /// character cut at the end of a long line's kept prefix is not an encoding error.
    fn push_bytes(&mut self, line: &[u8], extra_chars: usize) -> bool {
        if let Err(err) = std::str::from_utf8(line) {
            if err.error_len().is_some() {
                self.lossy = true;
            }
        }
        self.push(&String::from_utf8_lossy(line), extra_chars)
    }

    /// Offers the next line (lines before `start_line` must be skipped by the caller or are
    /// skipped here). Returns false once the page is full.
    fn push(&mut self, line: &str, extra_chars: usize) -> bool {
        if self.full {
            return false;
        }
        let number = self.start_line + self.shown;
        let line = line.strip_suffix('\r').unwrap_or(line);
        // The entry is written straight onto the page (no string per line) and taken back if
        // it does not fit.
        let page_len = self.rendered.len();
        push_line_number(&mut self.rendered, number);
        let char_count = if line.len() + extra_chars <= MAX_LINE_CHARS {
            line.len() + extra_chars // at most one char per byte: no need to count
        } else {
            line.chars().count() + extra_chars
        };
        let cut = char_count > MAX_LINE_CHARS;
        if cut {
            let cut_at = line
                .char_indices()
                .nth(MAX_LINE_CHARS)
                .map_or(line.len(), |(i, _)| i);
            self.rendered.push_str(&line[..cut_at]);
            self.rendered.push_str("… [line cut: ");
            push_decimal(&mut self.rendered, (char_count - MAX_LINE_CHARS) as u64);
            self.rendered.push_str(" more characters]");
        } else {
            self.rendered.push_str(line);
        }
        self.rendered.push('\n');
        if self.shown > 0 && self.rendered.len() > PAGE_BYTES {
            self.rendered.truncate(page_len);
            self.full = true;
            return false;
        }
        // Counted only once the line is on the page: a line the byte budget sends back is
        // neither shown nor cut.
        self.cut_lines += u64::from(cut);
        self.shown += 1;
        if self.shown >= self.max_lines {
            self.full = true;
        }
        true
    }

    fn finish(self, given_path: &str) -> ToolOutput {
        let end_line = self.start_line + self.shown.saturating_sub(1);
        let more = match self.total_lines {
            Some(total) => self.shown > 0 && end_line < total,
            None => true,
        };
        let mut output = self.rendered;
        let mut data = ToolOutput::default();
        if self.shown == 0 {
            let total = self.total_lines.unwrap_or(0);
            output = if total == 0 {
                "[NO CONTENT] The file is empty (0 lines).".to_string()
            } else {
                format!(
                    "[NO CONTENT] start_line={} is past the end of the file, which has {total} lines. \
                     Call read_file with path={} start_line=1 to read from the start.",
                    self.start_line,
                    quote_arg(given_path)
                )
            };
        } else if more {
            let next = end_line + 1;
            output.push_str(&format!(
                "\nTo continue, call read_file with path={} start_line={next} max_lines={}",
                quote_arg(given_path),
                self.max_lines
            ));
        } else if output.ends_with('\n') {
            output.pop();
        }
        data.output = output;
        data.data.insert(
            "total_lines".into(),
            self.total_lines.map_or(Value::Null, Value::from),
        );
        data.data
            .insert("start_line".into(), Value::from(self.start_line));
        data.data.insert(
            "end_line".into(),
            if self.shown == 0 {
                Value::Null
            } else {
                Value::from(end_line)
            },
        );
        data.data
            .insert("truncated".into(), Value::Bool(more && self.shown > 0));
        data.data.insert(
            "next_start_line".into(),
            if more && self.shown > 0 {
                Value::from(end_line + 1)
            } else {
                Value::Null
            },
        );
        data.data.insert("cut_lines".into(), Value::from(self.cut_lines));
        if let Some(encoding) = self.encoding {
            data.data.insert("encoding".into(), Value::String(encoding));
        }
        data
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gutter_and_numbers_match_the_formatter() {
        for n in [0u64, 1, 9, 10, 99_999, 999_999, 1_000_000, 123_456_789, u64::MAX] {
            let mut gutter = String::from("x");
            push_line_number(&mut gutter, n);
            assert_eq!(gutter, format!("x{n:>6}│ "));
            let mut plain = String::new();
            push_decimal(&mut plain, n);
            assert_eq!(plain, n.to_string());
        }
    }
}
