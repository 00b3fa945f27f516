//! Reading back what [`super::capture`] kept of a stream: the bytes after a stream offset, and
//! the span that was dropped between them, if any.

use std::fs::{self, File};
use std::path::Path;
use std::time::{Duration, Instant};

use super::capture::{self, DONE, PID};

/// What a stream holds past an offset.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct NewOutput {
    /// The kept bytes, with a marker line where a span was dropped.
    pub bytes: Vec<u8>,
    /// The dropped spans, as stream offsets `[from, to)`.
    pub dropped: Vec<(u64, u64)>,
    /// The stream offset the next read starts from.
    pub end: u64,
}

impl NewOutput {
    pub(super) fn dropped_bytes(&self) -> u64 {
        self.dropped.iter().map(|(from, to)| to - from).sum()
    }
}

/// One file of a stream: where it starts in the stream, and the file opened.
struct Piece {
    start: u64,
    file: File,
    len: u64,
}

/// The pieces of `stream`, in stream order. Segments are listed and opened before the head is
/// measured: the capturing process fills the head before it starts a segment, and a segment
/// before the next, so every piece but the last is whole and a gap between two pieces is a real
/// drop, never a piece still being written. A segment removed between listing and opening is
/// skipped (its bytes count as dropped).
fn pieces(dir: &Path, stream: &str) -> Vec<Piece> {
    let prefix = format!("{stream}.tail-");
    let mut starts: Vec<u64> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok())
                .filter_map(|entry| {
                    let name = entry.file_name();
                    name.to_str()?.strip_prefix(&prefix)?.parse::<u64>().ok()
                })
                .collect()
        })
        .unwrap_or_default();
    starts.sort_unstable();
    let open = |name: &str, start: u64| {
        let file = File::open(dir.join(name)).ok()?;
        let len = file.metadata().ok()?.len();
        Some(Piece { start, file, len })
    };
    let segments: Vec<Piece> = starts
        .into_iter()
        .filter_map(|start| open(&capture::segment_name(stream, start), start))
        .collect();
    open(stream, 0).into_iter().chain(segments).collect()
}

/// The bytes of `stream` in `dir` from stream offset `offset` on, with a marker line where
/// bytes were dropped. New output longer than `window` is read as its first and last
/// `window / 2` bytes around a marker: the report shows a head and a tail anyway, and one call
/// should not hold the whole 64 MiB (the files keep it, for read_file).
pub(super) fn read_since(dir: &Path, stream: &str, offset: u64, window: u64) -> NewOutput {
    let pieces = pieces(dir, stream);
    let end = pieces
        .iter()
        .map(|p| p.start + p.len)
        .max()
        .unwrap_or(0)
        .max(offset);
    let mut out = NewOutput {
        bytes: Vec::new(),
        dropped: gaps(&pieces, offset, end),
        end,
    };
    if end - offset <= window {
        read_range(&pieces, stream, offset, end, &mut out.bytes);
        return out;
    }
    let half = window / 2;
    let (skip_from, skip_to) = (offset + half, end - half);
    read_range(&pieces, stream, offset, skip_from, &mut out.bytes);
    let dropped: u64 = gaps(&pieces, skip_from, skip_to).iter().map(|(a, b)| b - a).sum();
    let of_them = if dropped > 0 {
        format!(", {dropped} of them dropped by the cap")
    } else {
        String::new()
    };
    push_line(
        &mut out.bytes,
        &format!(
            "[... {} bytes of {stream} not shown here (bytes {skip_from} to {skip_to} of the \
             stream{of_them}); the task's files keep the rest ...]\n",
            skip_to - skip_from
        ),
    );
    read_range(&pieces, stream, skip_to, end, &mut out.bytes);
    out
}

/// The spans of `[from, to)` that no piece holds: the bytes the cap dropped.
fn gaps(pieces: &[Piece], from: u64, to: u64) -> Vec<(u64, u64)> {
    let mut found = Vec::new();
    let mut at = from;
    for piece in pieces {
        if at >= to {
            break;
        }
        let piece_end = piece.start + piece.len;
        if piece_end <= at {
            continue;
        }
        if piece.start > at {
            found.push((at, piece.start.min(to)));
        }
        at = piece_end;
    }
    found
}

/// Appends the kept bytes of `[from, to)` to `out`, with a marker line standing for each span
/// the cap dropped.
fn read_range(pieces: &[Piece], stream: &str, from: u64, to: u64, out: &mut Vec<u8>) {
    use std::os::unix::fs::FileExt;
    let mut at = from;
    for piece in pieces {
        let (start, end) = (piece.start.max(at), (piece.start + piece.len).min(to));
        if end <= start {
            continue;
        }
        if start > at {
            push_line(out, &marker(stream, at, start));
        }
        let mut buffer = vec![0u8; (end - start) as usize];
        let mut got = 0;
        while got < buffer.len() {
            match piece
                .file
                .read_at(&mut buffer[got..], start - piece.start + got as u64)
            {
                Ok(0) | Err(_) => break,
                Ok(n) => got += n,
            }
        }
        out.extend_from_slice(&buffer[..got]);
        at = end;
    }
}

/// Appends a marker line, on a line of its own.
fn push_line(out: &mut Vec<u8>, line: &str) {
    if !out.is_empty() && !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    out.extend_from_slice(line.as_bytes());
}

/// The line that stands where bytes were dropped.
fn marker(stream: &str, from: u64, to: u64) -> String {
    format!(
        "[... {} bytes of {stream} dropped here (bytes {from} to {to} of the stream) ...]\n",
        to - from
    )
}

/// The cap the task was started with, for the drop notice.
pub(super) fn cap_of(dir: &Path) -> u64 {
    fs::read_to_string(dir.join(capture::CAP_FILE))
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(capture::STREAM_CAP)
}

/// How long a reader waits for the capturing process to write what the task's last writes left
/// in the pipes: the task has ended, so this is at most a pipe's worth of bytes.
const SETTLE: Duration = Duration::from_secs(3);
/// How long when something the task started may still hold the pipes open.
const SETTLE_HELD: Duration = Duration::from_millis(250);

/// Once a task has ended, waits until its capturing process has written everything (it writes
/// [`DONE`]), or it is gone, or `held` says the pipes may stay open and a short grace passed.
pub(super) fn settle(dir: &Path, held: bool) {
    let deadline = Instant::now() + if held { SETTLE_HELD } else { SETTLE };
    while !dir.join(DONE).exists() && capturing(dir) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether the capturing process of the task in `dir` still runs.
fn capturing(dir: &Path) -> bool {
    let Some(pid) = fs::read_to_string(dir.join(PID))
        .ok()
        .and_then(|text| text.trim().parse::<i32>().ok())
    else {
        // Not started yet, or never: a task from before capturing processes has none.
        return dir.join(capture::CAP_FILE).exists();
    };
    // SAFETY: signal 0 only asks whether the process exists; nothing is sent.
    pid > 1 && unsafe { libc::kill(pid, 0) } == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_marks_the_dropped_span_and_resumes_from_the_tail() {
        let dir = tempfile::tempdir().expect("tempdir");
        fs::write(dir.path().join("stdout"), b"0123456789").expect("head");
        fs::write(dir.path().join("stdout.tail-50"), b"abcd").expect("segment");
        fs::write(dir.path().join("stdout.tail-54"), b"ef").expect("segment");
        let first = read_since(dir.path(), "stdout", 4, 1000);
        assert_eq!(
            String::from_utf8_lossy(&first.bytes),
            "456789\n[... 40 bytes of stdout dropped here (bytes 10 to 50 of the stream) ...]\nabcdef"
        );
        assert_eq!((first.end, first.dropped_bytes()), (56, 40));
        fs::write(dir.path().join("stdout.tail-54"), b"efgh").expect("grow");
        let second = read_since(dir.path(), "stdout", first.end, 1000);
        assert_eq!((second.bytes.as_slice(), second.end), (&b"gh"[..], 58));
        assert!(second.dropped.is_empty());
    }

    #[test]
    fn a_cursor_inside_a_removed_segment_resumes_at_the_oldest_kept_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        fs::write(dir.path().join("stdout"), b"0123456789").expect("head");
        fs::write(dir.path().join("stdout.tail-30"), b"xyz").expect("segment");
        let out = read_since(dir.path(), "stdout", 20, 1000);
        assert_eq!(out.dropped, [(20, 30)]);
        assert!(String::from_utf8_lossy(&out.bytes).ends_with("...]\nxyz"));
    }

    #[test]
    fn new_output_past_the_window_is_read_as_head_and_tail_and_still_counts_what_was_dropped() {
        let dir = tempfile::tempdir().expect("tempdir");
        fs::write(dir.path().join("stdout"), b"0123456789").expect("head");
        fs::write(dir.path().join("stdout.tail-50"), b"abcdefghij").expect("segment");
        let out = read_since(dir.path(), "stdout", 0, 8);
        assert_eq!(
            String::from_utf8_lossy(&out.bytes),
            "0123\n[... 52 bytes of stdout not shown here (bytes 4 to 56 of the stream, 40 of them \
             dropped by the cap); the task's files keep the rest ...]\nghij"
        );
        assert_eq!((out.end, out.dropped_bytes()), (60, 40));
    }
}
