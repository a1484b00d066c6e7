//! Following an append-only JSON-lines transcript by byte offset.
//!
//! The agents append one JSON record per line and never rewrite earlier bytes, so a reader only
//! needs the bytes past the offset it stopped at. [`LineSplitter`] turns chunks of bytes (in any
//! split) into complete lines; [`Follower`] owns the offset, notices truncation or replacement of
//! the file, and reads a bounded tail on a cold start.
//!
//! Damage, and what happens to it:
//! - an unterminated last line is held back until its newline arrives (the writer is mid-line);
//! - a line longer than the cap ([`MAX_LINE`]) is dropped as it streams in (the buffer is freed,
//!   the rest of the line up to the next newline is skipped) and counted as one unreadable line,
//!   so a 200 MB single line costs at most the cap in memory;
//! - a line that is not JSON (truncated record, invalid UTF-8, binary) is counted and skipped;
//! - glued records (`{…}{…}` on one line, as left by a writer that lost a newline) are split: each
//!   complete object is a record. If the glue is broken (the first object is cut short), the rest
//!   of that line counts as one unreadable line. See [`for_each_record`].

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The longest line kept, in bytes. Claude Code puts whole tool results (file contents, base64
/// screenshots of a few MB) on one line; anything longer is treated as damage.
pub const MAX_LINE: usize = 8 << 20;

/// Turns a byte stream, fed in chunks split anywhere, into complete lines with bounded memory.
#[derive(Debug, Clone)]
pub struct LineSplitter {
    buf: Vec<u8>,
    skipping: bool,
    cap: usize,
    /// Lines dropped for being longer than the cap.
    pub overlong: u32,
}

impl Default for LineSplitter {
    fn default() -> Self {
        Self::with_cap(MAX_LINE)
    }
}

impl LineSplitter {
    pub fn with_cap(cap: usize) -> Self {
        Self {
            buf: Vec::new(),
            skipping: false,
            cap,
            overlong: 0,
        }
    }

    /// Bytes held for an unterminated line.
    pub fn pending(&self) -> usize {
        self.buf.len()
    }

    /// Forgets any partial line (after the file was replaced).
    pub fn reset(&mut self) {
        self.buf = Vec::new();
        self.skipping = false;
    }

    /// Feeds `chunk`; calls `on_line` with each complete line (without its `\n` or a trailing
    /// `\r`). Empty lines are not reported.
    pub fn feed(&mut self, chunk: &[u8], on_line: &mut dyn FnMut(&[u8])) {
        self.feed_at(0, chunk, &mut |_, line| on_line(line));
    }

    /// [`Self::feed`], telling `on_line` where each line starts: `at` is the stream offset of
    /// `chunk`'s first byte (the file offset, when fed as read from the file).
    pub fn feed_at(&mut self, mut at: u64, mut chunk: &[u8], on_line: &mut dyn FnMut(u64, &[u8])) {
        while !chunk.is_empty() {
            match memchr::memchr(b'\n', chunk) {
                Some(nl) => {
                    let (head, rest) = (&chunk[..nl], &chunk[nl + 1..]);
                    // Where this line ends (its newline).
                    let end = at + nl as u64;
                    chunk = rest;
                    at = end + 1;
                    if self.skipping {
                        self.skipping = false;
                        continue;
                    }
                    if self.buf.is_empty() {
                        self.emit(end - head.len() as u64, head, on_line);
                    } else if self.buf.len() + head.len() > self.cap {
                        self.buf = Vec::new();
                        self.overlong += 1;
                    } else {
                        let mut line = std::mem::take(&mut self.buf);
                        line.extend_from_slice(head);
                        // Wrapping: [`Self::feed`] gives no offsets (0 for every chunk), so the
                        // start of a line begun in an earlier chunk is meaningless there.
                        self.emit(end.wrapping_sub(line.len() as u64), &line, on_line);
                        line.clear();
                        // Keep a modest buffer around for the next partial line, not a huge one.
                        if line.capacity() <= 1 << 20 {
                            self.buf = line;
                        }
                    }
                }
                None => {
                    if !self.skipping {
                        if self.buf.len() + chunk.len() > self.cap {
                            self.buf = Vec::new();
                            self.skipping = true;
                            self.overlong += 1;
                        } else {
                            self.buf.extend_from_slice(chunk);
                        }
                    }
                    return;
                }
            }
        }
    }

    /// The unterminated line held so far (none while an overlong line is skipped).
    pub fn partial(&self) -> Option<&[u8]> {
        (!self.skipping && !self.buf.is_empty()).then_some(&self.buf[..])
    }

    fn emit(&mut self, start: u64, line: &[u8], on_line: &mut dyn FnMut(u64, &[u8])) {
        // The cap counts the whole line as it streams in (with any `\r`), so a line is judged
        // the same whichever way it was split.
        if line.len() > self.cap {
            self.overlong += 1;
            return;
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        on_line(start, line);
    }
}

/// Parses every JSON value of `line` as a `T` and gives it to `on_record`. Glued objects are
/// split; returns false when (part of) the line is unreadable.
pub fn for_each_record<'a, T: Deserialize<'a>>(
    line: &'a [u8],
    on_record: &mut dyn FnMut(T),
) -> bool {
    let mut stream = serde_json::Deserializer::from_slice(line).into_iter::<T>();
    let mut any = false;
    loop {
        match stream.next() {
            Some(Ok(record)) => {
                any = true;
                on_record(record);
            }
            Some(Err(_)) => return false,
            None => return any,
        }
    }
}

/// What a read of the new bytes found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Nothing new.
    Unchanged,
    /// New bytes were read from the previous offset.
    Appended,
    /// The file shrank or was replaced: the caller starts over from the tail.
    Replaced,
    /// The file is gone.
    Missing,
}

/// A transcript followed by byte offset.
#[derive(Debug, Clone)]
pub struct Follower {
    pub path: PathBuf,
    /// Bytes consumed so far (complete lines plus the held partial line).
    pub offset: u64,
    /// Identity of the file read (inode on Unix), to notice replacement.
    pub file_id: u64,
    pub splitter: LineSplitter,
}

#[cfg(unix)]
fn file_id(meta: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.ino()
}

#[cfg(not(unix))]
fn file_id(_meta: &std::fs::Metadata) -> u64 {
    0
}

/// Windows of the tail tried on a cold start: small first, larger when the small one held no
/// record that tells the state (e.g. it fell inside one long tool result).
pub const TAIL_WINDOWS: [u64; 4] = [16 << 10, 128 << 10, 1 << 20, 8 << 20];

impl Follower {
    pub fn new(path: &Path) -> Self {
        Self {
            path: path.to_owned(),
            offset: 0,
            file_id: 0,
            splitter: LineSplitter::default(),
        }
    }

    /// Follows `path` on from `offset` (a line start) of the file as it is now: a later
    /// replacement of the file reads as [`Progress::Replaced`].
    pub fn resume_at(path: &Path, offset: u64) -> Self {
        Self {
            offset,
            file_id: std::fs::metadata(path).map_or(0, |m| file_id(&m)),
            ..Self::new(path)
        }
    }

    /// Reads the bytes appended since the last read, calling `on_line` for each complete line.
    /// Reads in bounded chunks, so memory stays bounded however much was appended.
    pub fn read_new(&mut self, on_line: &mut dyn FnMut(&[u8])) -> std::io::Result<Progress> {
        self.read_new_at(&mut |_, line| on_line(line))
    }

    /// [`Self::read_new`], telling `on_line` the file offset each line starts at.
    pub fn read_new_at(
        &mut self,
        on_line: &mut dyn FnMut(u64, &[u8]),
    ) -> std::io::Result<Progress> {
        let mut file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Progress::Missing),
            Err(e) => return Err(e),
        };
        let meta = file.metadata()?;
        if file_id(&meta) != self.file_id || meta.len() < self.offset {
            return Ok(Progress::Replaced);
        }
        if meta.len() == self.offset {
            return Ok(Progress::Unchanged);
        }
        file.seek(SeekFrom::Start(self.offset))?;
        let mut chunk = vec![0u8; 256 << 10];
        let mut read_any = false;
        loop {
            let n = match file.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            read_any = true;
            self.splitter.feed_at(self.offset, &chunk[..n], on_line);
            self.offset += n as u64;
        }
        Ok(if read_any {
            Progress::Appended
        } else {
            Progress::Unchanged
        })
    }

    /// Starts following from the end of the file, reading whole lines backwards: for each window
    /// of `windows` in turn, the tail is widened (reading only the bytes not read yet, backwards,
    /// finding line starts with memchr) to at least that many bytes and to the start of a line, so
    /// a multi-MiB last line is read once and never cut; then `start()` resets the caller's fold and
    /// the tail's lines are fed; `done()` says whether they told enough. Returns whether the tail
    /// reached the start of the file, and how many bytes were read.
    pub fn read_tail_lines(
        &mut self,
        windows: &[u64],
        start: &mut dyn FnMut(),
        on_line: &mut dyn FnMut(&[u8]),
        done: &mut dyn FnMut() -> bool,
    ) -> std::io::Result<(bool, u64)> {
        let file = File::open(&self.path)?;
        let meta = file.metadata()?;
        let len = meta.len();
        // The tail read so far, at the end of this thread's scratch buffer (reused from file to
        // file: no zeroing, no copy to put chunks in order).
        let mut tail = Tail {
            from: len,
            buf: TAIL_BUF.with(|b| b.take()),
            pos: 0,
            read: 0,
        };
        tail.pos = tail.buf.len();
        let fed_all = (|| {
            let mut fed = None;
            for &window in windows {
                tail.widen(&file, window.min(len))?;
                if fed == Some(tail.bytes().len()) {
                    continue; // already read, and it did not tell enough
                }
                fed = Some(tail.bytes().len());
                start();
                // The tail is in memory already: a line longer than the follower's cap (a 20 MiB
                // tool result) is still one record, fed whole (long strings are cut before
                // parsing).
                self.splitter = LineSplitter::with_cap(MAX_TAIL_LINE);
                self.splitter.feed(tail.bytes(), on_line);
                if tail.from == 0 || done() {
                    break;
                }
            }
            Ok::<(), std::io::Error>(())
        })();
        let (from, read) = (tail.from, tail.read);
        if tail.buf.len() <= 1 << 20 || KEEP_TAIL_BUF.with(|k| k.get()) {
            TAIL_BUF.with(|b| b.replace(tail.buf));
        }
        fed_all?;
        // Following on, lines are capped as usual; an unfinished last line longer than that is
        // skipped to its newline.
        let pending = std::mem::take(&mut self.splitter.buf);
        let overlong = self.splitter.overlong;
        self.splitter = LineSplitter::default();
        self.splitter.overlong = overlong;
        if pending.len() > self.splitter.cap {
            self.splitter.skipping = true;
            self.splitter.overlong += 1;
        } else {
            self.splitter.buf = pending;
        }
        self.offset = len;
        self.file_id = file_id(&meta);
        Ok((from == 0, read))
    }

    /// Starts following from the last `window` bytes: the first (probably cut) line of the window
    /// is skipped unless the window reaches the start of the file. Returns whether the window
    /// covered the whole file.
    pub fn read_tail(
        &mut self,
        window: u64,
        on_line: &mut dyn FnMut(&[u8]),
    ) -> std::io::Result<bool> {
        self.read_tail_at(window, &mut |_, line| on_line(line))
    }

    /// [`Self::read_tail`], telling `on_line` the file offset each line starts at.
    pub fn read_tail_at(
        &mut self,
        window: u64,
        on_line: &mut dyn FnMut(u64, &[u8]),
    ) -> std::io::Result<bool> {
        let mut file = File::open(&self.path)?;
        let meta = file.metadata()?;
        let len = meta.len();
        let start = len.saturating_sub(window);
        file.seek(SeekFrom::Start(start))?;
        let mut bytes = Vec::with_capacity((len - start) as usize);
        (&mut file).take(len - start).read_to_end(&mut bytes)?;
        let mut from = 0;
        if start > 0 {
            // A window that starts exactly at a line start still skips that line: the byte
            // before it is unknown without another read, and one line less is harmless.
            match memchr::memchr(b'\n', &bytes) {
                Some(nl) => from = nl + 1,
                None => from = bytes.len(),
            }
        }
        self.splitter.reset();
        self.splitter
            .feed_at(start + from as u64, &bytes[from..], on_line);
        self.offset = start + bytes.len() as u64;
        self.file_id = file_id(&meta);
        Ok(start == 0)
    }
}

/// The longest line a tail read feeds whole (the tail holds it in memory already).
pub const MAX_TAIL_LINE: usize = 64 << 20;

/// Lines longer than this are shrunk by [`elide_long_strings`] before they are parsed for state.
pub const ELIDE_LINE: usize = 64 << 10;
/// How much of each long string such a line keeps.
pub const ELIDE_KEEP: usize = 1 << 10;

/// Copies `line` into `out` with every JSON string value longer than `keep` bytes cut to about
/// `keep` bytes (at a character and escape boundary, still a valid string): the structure and every
/// short field (types, ids, times, paths) stay, the multi-MiB tool output and file contents go.
/// One pass of memchr over the line; nothing is unescaped or allocated per string. Broken JSON
/// stays broken (the reader counts it as unreadable, as before).
pub fn elide_long_strings(line: &[u8], keep: usize, out: &mut Vec<u8>) {
    out.clear();
    let mut i = 0;
    loop {
        // Outside a string: up to and including the next quote.
        let Some(k) = memchr::memchr(b'"', &line[i..]) else {
            out.extend_from_slice(&line[i..]);
            return;
        };
        out.extend_from_slice(&line[i..i + k + 1]);
        i += k + 1;
        // Inside a string that starts at `start` (`line[start - 1]` is its opening quote): its end
        // is the next quote not escaped. Blocks whose every quote is escaped by one backslash (a
        // tool's output: `\"` every hundred bytes) are skipped whole; in the others each quote is
        // found with memchr and its escape counted.
        let start = i;
        loop {
            while i >= 2
                && i + QUOTE_BLOCK <= line.len()
                && !unsure_quote(&line[i - 2..i + QUOTE_BLOCK])
            {
                i += QUOTE_BLOCK;
            }
            let lim = (i + QUOTE_BLOCK).min(line.len());
            let Some(k) = memchr::memchr(b'"', &line[i..lim]) else {
                if lim == line.len() {
                    out.extend_from_slice(&line[start..]);
                    return;
                }
                i = lim;
                continue;
            };
            let q = i + k;
            let run = line[start..q]
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count();
            if run % 2 == 1 {
                i = q + 1;
                continue;
            }
            let end = if q - start > keep {
                safe_cut(line, start, start + keep)
            } else {
                q
            };
            out.extend_from_slice(&line[start..end]);
            out.push(b'"');
            i = q + 1;
            break;
        }
    }
}

/// The bytes [`elide_long_strings`] checks at once for a quote that may end a string.
const QUOTE_BLOCK: usize = 256;

/// Whether the block `w[2..]` holds a quote that is not plainly escaped: one not right after a
/// backslash, or right after two (`\\"`, whose escape needs counting). `w[..2]` are the two bytes
/// before the block. A quote after exactly one backslash is escaped, provided the byte before that
/// backslash is inside the same string or is its opening quote. One pass the compiler vectorizes:
/// no branch per quote.
fn unsure_quote(w: &[u8]) -> bool {
    let w: &[u8; QUOTE_BLOCK + 2] = match w.try_into() {
        Ok(w) => w,
        Err(_) => return true,
    };
    let (b2, b1, b0) = (&w[..QUOTE_BLOCK], &w[1..=QUOTE_BLOCK], &w[2..]);
    b2.iter()
        .zip(b1)
        .zip(b0)
        .fold(0u8, |acc, ((&b2, &b1), &b0)| {
            acc | u8::from((b0 == b'"') & ((b1 != b'\\') | (b2 == b'\\')))
        })
        != 0
}

/// A position at or before `c` (and after `start`, a string's first byte) that is neither inside a
/// UTF-8 character nor inside an escape sequence.
fn safe_cut(line: &[u8], start: usize, mut c: usize) -> usize {
    while c > start && (line[c] & 0xC0) == 0x80 {
        c -= 1;
    }
    // The nearest backslash within an escape's length before `c`: if it starts an escape (an odd
    // run of backslashes ends at it) that `c` would cut, cut before it.
    let lo = c.saturating_sub(6).max(start);
    if let Some(j) = (lo..c).rev().find(|&j| line[j] == b'\\') {
        let run = line[start..=j]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        if run % 2 == 1 {
            let len = if line.get(j + 1) == Some(&b'u') { 6 } else { 2 };
            if c < j + len {
                c = j;
            }
        }
    }
    c
}

thread_local! {
    /// The scratch buffer of [`Follower::read_tail_lines`] on this thread: kept from one file to
    /// the next (a multi-MiB last line is read into it without zeroing or reordering chunks), and
    /// given back with [`release_tail_buffers`] when a batch of reads is over.
    static TAIL_BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

thread_local! {
    /// Whether this thread keeps a tail scratch buffer over 1 MiB between reads (during
    /// [`with_tail_buffers`]).
    static KEEP_TAIL_BUF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` (a batch of cold reads on the current rayon pool) with each thread keeping its tail
/// scratch buffer from one file to the next, however large; they are freed afterwards, so a
/// long-lived process does not keep the largest line it read. Outside a batch a buffer over 1 MiB
/// is freed after each read.
pub fn with_tail_buffers<R>(f: impl FnOnce() -> R) -> R {
    let keep = |on: bool| {
        KEEP_TAIL_BUF.with(|k| k.set(on));
        if !on {
            TAIL_BUF.with(|b| b.take());
        }
    };
    rayon::broadcast(|_| keep(true));
    keep(true);
    let out = f();
    rayon::broadcast(|_| keep(false));
    keep(false);
    out
}

/// The last bytes of a file, from a line start (or the file's start) to its end: `buf[pos..]`.
struct Tail {
    /// The file offset of `buf[pos]`.
    from: u64,
    buf: Vec<u8>,
    pos: usize,
    /// Bytes read from the file so far.
    read: u64,
}

impl Tail {
    /// The first chunk read backwards (most transcripts end in lines of a few KiB); each next one
    /// is twice as large, up to [`Self::STEP`].
    const FIRST_STEP: u64 = 32 << 10;
    /// The largest chunk read backwards.
    const STEP: u64 = 256 << 10;

    fn bytes(&self) -> &[u8] {
        &self.buf[self.pos..]
    }

    /// Makes room for `n` more bytes before the tail (growing the buffer, the tail moved to its
    /// end).
    fn make_room(&mut self, n: usize) {
        if self.pos >= n {
            return;
        }
        let used = self.buf.len() - self.pos;
        let len = (used + n)
            .max(self.buf.len() * 2)
            .max(Self::FIRST_STEP as usize);
        let mut grown = vec![0u8; len];
        grown[len - used..].copy_from_slice(&self.buf[self.pos..]);
        self.buf = grown;
        self.pos = len - used;
    }

    /// Reads backwards (only bytes not read yet) until the tail holds at least `want` bytes and
    /// starts at a line start or at the file's start.
    fn widen(&mut self, file: &File, want: u64) -> std::io::Result<()> {
        #[cfg(unix)]
        use std::os::unix::fs::FileExt;
        let end = self.from + self.bytes().len() as u64;
        if end - self.from >= want {
            return Ok(());
        }
        let mut from = self.from;
        let mut next = (end - from).clamp(Self::FIRST_STEP, Self::STEP);
        while from > 0 {
            let step = next.max(want.saturating_sub(end - from)).min(from);
            next = (next * 2).min(Self::STEP);
            let at = from - step;
            self.make_room(step as usize);
            let chunk = self.pos - step as usize..self.pos;
            file.read_exact_at(&mut self.buf[chunk.clone()], at)?;
            self.pos = chunk.start;
            self.read += step;
            from = at;
            // Once the size is reached, the nearest line start at or before the wanted start.
            if end - at >= want {
                let within = ((end - want) - at) as usize;
                let head = &self.buf[chunk.start..chunk.start + within.min(step as usize)];
                if let Some(nl) = memchr::memrchr(b'\n', head) {
                    self.pos += nl + 1;
                    from = at + nl as u64 + 1;
                    break;
                }
            }
        }
        self.from = from;
        Ok(())
    }
}

/// The first of the marker `words` in `hay` ([`first_marker`]), their finders built once per call
/// site.
macro_rules! first_of {
    ($hay:expr, [$($word:expr),+ $(,)?]) => {{
        static FINDERS: std::sync::LazyLock<Vec<memchr::memmem::Finder<'static>>> =
            std::sync::LazyLock::new(|| vec![$(memchr::memmem::Finder::new($word)),+]);
        $crate::agents::records::transcript::first_marker($hay, &FINDERS)
    }};
}
pub(crate) use first_of;

/// Parses one line a reader's `plan_candidate` pointed at into plan facts, each record through
/// `plan_record`; a line that is not JSON counts as unreadable.
pub(crate) fn parse_plan_line<'a, T: Deserialize<'a>>(
    pf: &mut crate::agents::records::plan_events::PlanFacts,
    line: &'a [u8],
    mut plan_record: impl FnMut(&mut crate::agents::records::plan_events::PlanFacts, T),
) {
    let ok = for_each_record::<T>(line, &mut |rec| plan_record(pf, rec));
    if !ok {
        pf.unreadable += 1;
    }
}

/// Where the first occurrence of any of `finders` starts in `hay`. Each needle after the first is
/// searched only up to the best hit so far.
pub fn first_marker(hay: &[u8], finders: &[memchr::memmem::Finder<'_>]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for f in finders {
        let end = best.map_or(hay.len(), |b| (b + f.needle().len()).min(hay.len()));
        if let Some(p) = f.find(&hay[..end]) {
            if best.is_none_or(|b| p < b) {
                best = Some(p);
            }
        }
    }
    best
}

/// What [`read_marked`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarkedRead {
    /// The file offset after the last complete line read: where the next read starts (an
    /// unterminated last line is read again once its newline is there).
    pub end: u64,
    /// Bytes read from the file.
    pub bytes_read: u64,
    /// Lines longer than [`MAX_LINE`], skipped.
    pub overlong: u32,
    /// Lines given to `on_line`.
    pub lines: u64,
}

/// Bytes read per `read` call: small enough that the scan of a chunk finds it in the CPU cache.
const MARKED_CHUNK: usize = 256 << 10;
/// Bytes searched again at the start of each chunk, so that a marker cut by the end of the previous
/// one is found (markers and call ids are shorter).
const MARKED_OVERLAP: usize = 256;

thread_local! {
    static MARKED_BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Reads `file` from the offset `start` (a line start) to its end, and calls `on_line` only for
/// the lines `candidate` points into: `candidate(state, hay)` gives the position of the first
/// marker in `hay` (bytes as read, cut anywhere, any number of lines), or `None`. Lines are never
/// split before a marker is found, so a transcript whose lines say nothing of interest costs one
/// search over its bytes as they arrive: no parse, and no copy of a long line (a line past half
/// the buffer with no marker yet is forgotten as it streams in, and read again from the file only
/// if a marker turns up in it). A line longer than [`MAX_LINE`] is skipped and counted.
pub fn read_marked<S: ?Sized>(
    file: &File,
    start: u64,
    state: &mut S,
    candidate: fn(&S, &[u8]) -> Option<usize>,
    on_line: fn(&mut S, &[u8]),
) -> std::io::Result<MarkedRead> {
    read_marked_chunked(file, start, MARKED_CHUNK, state, candidate, on_line)
}

/// [`read_marked`] with reads of `chunk` bytes (tests cut lines and markers with small ones).
fn read_marked_chunked<S: ?Sized>(
    file: &File,
    start: u64,
    chunk: usize,
    state: &mut S,
    candidate: fn(&S, &[u8]) -> Option<usize>,
    on_line: fn(&mut S, &[u8]),
) -> std::io::Result<MarkedRead> {
    let size = 2 * chunk + 4 * MARKED_OVERLAP;
    MARKED_BUF.with(|cell| {
        let mut buf = cell.take();
        if buf.len() != size {
            buf = vec![0u8; size];
        }
        let r = read_marked_in(&mut buf, file, start, chunk, state, candidate, on_line);
        if buf.len() == size {
            cell.replace(buf);
        }
        r
    })
}

fn read_marked_in<S: ?Sized>(
    buf: &mut Vec<u8>,
    file: &File,
    start: u64,
    chunk: usize,
    state: &mut S,
    candidate: fn(&S, &[u8]) -> Option<usize>,
    on_line: fn(&mut S, &[u8]),
) -> std::io::Result<MarkedRead> {
    use memchr::{memchr, memrchr};
    #[cfg(unix)]
    use std::os::unix::fs::FileExt;
    let mut out = MarkedRead {
        end: start,
        bytes_read: 0,
        overlong: 0,
        lines: 0,
    };
    let emit = |state: &mut S, out: &mut MarkedRead, line: &[u8]| {
        if line.len() > MAX_LINE {
            out.overlong += 1;
            return;
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if !line.iter().all(u8::is_ascii_whitespace) {
            out.lines += 1;
            on_line(state, line);
        }
    };
    // The next file offset to read; buf[..filled] holds bytes read, buf[0] being at file offset
    // `base`; buf[head..filled] is the last line, not complete yet (everything before was dealt
    // with). `dropped`: that line's start, when its first bytes were forgotten (head is then
    // inside it).
    let mut pos = start;
    let (mut base, mut head, mut filled) = (start, 0usize, 0usize);
    let mut dropped: Option<u64> = None;
    // Where the next marker search starts; a candidate line whose newline is not read yet (in
    // buf from `pending`, or the forgotten line), and where to look for that newline; an overlong
    // line being skipped up to its newline.
    let mut scan_from = 0usize;
    let mut pending: Option<usize> = None;
    let mut pending_dropped = false;
    let mut nl_from = 0usize;
    let mut skipping = false;
    loop {
        if buf.len() - filled < chunk {
            let keep = filled - head;
            if pending_dropped || skipping {
                // Only its newline is looked for: nothing to keep.
                (head, scan_from, nl_from) = (filled, filled, filled);
            } else if pending.is_none() && keep > buf.len() / 2 {
                // A long line with no marker yet: keep only its last bytes, where a marker may
                // be cut.
                dropped.get_or_insert(base + head as u64);
                head = filled - MARKED_OVERLAP;
                scan_from = scan_from.max(head);
            }
            let keep = filled - head;
            if keep <= buf.len() / 2 {
                buf.copy_within(head..filled, 0);
                base += head as u64;
                scan_from = scan_from.saturating_sub(head);
                nl_from = nl_from.saturating_sub(head);
                pending = pending.map(|p| p - head);
                filled = keep;
                head = 0;
            }
            if buf.len() - filled < chunk {
                // A candidate line longer than the buffer (bounded by the MAX_LINE check below).
                buf.resize((buf.len() * 2).max(filled + chunk), 0);
            }
        }
        let n = loop {
            match file.read_at(&mut buf[filled..filled + chunk], pos) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        if n == 0 {
            break;
        }
        pos += n as u64;
        let prev = filled;
        filled += n;
        out.bytes_read += n as u64;
        if skipping {
            match memchr(b'\n', &buf[prev..filled]) {
                None => {
                    (head, scan_from, nl_from) = (filled, filled, filled);
                    out.end = base + filled as u64;
                    continue;
                }
                Some(i) => {
                    skipping = false;
                    head = prev + i + 1;
                    (scan_from, nl_from) = (head, head);
                }
            }
        }
        loop {
            if pending.is_some() || pending_dropped {
                match memchr(b'\n', &buf[nl_from..filled]) {
                    Some(i) => {
                        let e = nl_from + i;
                        match (pending, dropped) {
                            (Some(ls), _) => emit(state, &mut out, &buf[ls..e]),
                            (None, Some(from)) => {
                                let len = (base + e as u64 - from) as usize;
                                if len > MAX_LINE {
                                    out.overlong += 1;
                                } else {
                                    let mut line = vec![0u8; len];
                                    file.read_exact_at(&mut line, from)?;
                                    emit(state, &mut out, &line);
                                }
                            }
                            (None, None) => {}
                        }
                        (pending, pending_dropped, dropped) = (None, false, None);
                        head = e + 1;
                        scan_from = head;
                    }
                    None => {
                        nl_from = filled;
                        break;
                    }
                }
            }
            match candidate(state, &buf[scan_from..filled]) {
                Some(off) => {
                    let hit = scan_from + off;
                    match memrchr(b'\n', &buf[head..hit]) {
                        Some(i) => {
                            head += i + 1;
                            pending = Some(head);
                            dropped = None;
                        }
                        None if dropped.is_some() => pending_dropped = true,
                        None => pending = Some(head),
                    }
                    nl_from = hit;
                }
                None => {
                    scan_from = filled.saturating_sub(MARKED_OVERLAP).max(scan_from);
                    break;
                }
            }
        }
        if pending.is_none() && !pending_dropped {
            let from = head.max(prev);
            if let Some(i) = memrchr(b'\n', &buf[from..filled]) {
                head = from + i + 1;
                dropped = None;
            }
            scan_from = scan_from.max(head);
        }
        // Where the unfinished last line starts in the file.
        let line_start = match (pending, dropped) {
            (None, Some(from)) => from,
            _ => base + head as u64,
        };
        if base + filled as u64 - line_start > MAX_LINE as u64 {
            out.overlong += 1;
            skipping = true;
            (pending, pending_dropped, dropped) = (None, false, None);
            (head, scan_from, nl_from) = (filled, filled, filled);
            out.end = base + filled as u64;
        } else {
            out.end = line_start;
        }
    }
    Ok(out)
}

/// The first complete lines of a file, within `limit` bytes.
pub fn read_head(path: &Path, limit: u64, on_line: &mut dyn FnMut(&[u8])) -> std::io::Result<()> {
    let mut file = File::open(path)?;
    // One read of the whole window where the file holds it (read_to_end would grow from 32 bytes).
    let mut bytes = vec![0u8; limit.min(MAX_LINE as u64) as usize];
    let mut filled = 0;
    while filled < bytes.len() {
        match file.read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    bytes.truncate(filled);
    let mut splitter = LineSplitter::default();
    splitter.feed(&bytes, on_line);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(splitter: &mut LineSplitter, chunks: &[&[u8]]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for c in chunks {
            splitter.feed(c, &mut |l| out.push(l.to_vec()));
        }
        out
    }

    #[test]
    fn a_multi_mib_last_line_is_read_once_whole_from_its_start() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let small: String = (0..200).map(|i| format!("{{\"n\":{i}}}\n")).collect();
        let huge = format!(
            "{{\"type\":\"user\",\"pad\":\"{}\"}}\n",
            "a".repeat(3 << 20)
        );
        std::fs::write(&path, format!("{small}{huge}")).unwrap();
        let len = std::fs::metadata(&path).unwrap().len();
        let mut lines: Vec<usize> = Vec::new();
        let mut starts = 0;
        let mut f = Follower::new(&path);
        let lines_cell = std::cell::RefCell::new(&mut lines);
        let (covered, read) = f
            .read_tail_lines(
                &TAIL_WINDOWS,
                &mut || {
                    starts += 1;
                    lines_cell.borrow_mut().clear();
                },
                &mut |l| lines_cell.borrow_mut().push(l.len()),
                &mut || lines_cell.borrow().len() >= 2,
            )
            .unwrap();
        // The huge line whole, then (widened once) the small lines before it: each byte read
        // once, but for the part of a chunk before a line start, read again when widening.
        assert_eq!(lines.last(), Some(&(huge.len() - 1)));
        assert!(lines.len() >= 2, "{lines:?}");
        assert!(covered && read <= len + (256 << 10), "read {read} of {len}");
        assert_eq!(
            starts, 2,
            "16 KiB window: the huge line; 8 MiB: the file, fed once each"
        );
        assert_eq!((f.offset, f.splitter.pending()), (len, 0));
        // Fixed windows ending at the file's end cut the huge line until one holds all of it,
        // reading the same bytes again for each.
        let mut fixed_read = 0;
        for w in TAIL_WINDOWS {
            let mut n = 0;
            let mut g = Follower::new(&path);
            g.read_tail(w, &mut |_| n += 1).unwrap();
            fixed_read += w.min(len);
            if n > 0 {
                break;
            }
        }
        assert!(fixed_read > len + (1 << 20), "{fixed_read}");
    }

    #[test]
    fn long_strings_are_cut_and_the_record_still_parses_with_every_short_field() {
        let long = format!("{}é\\n\\\"\\u00e9{}", "x".repeat(1020), "y".repeat(3 << 20));
        let line = format!(
            r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"toolu_1","content":"{long}"}}]}},"timestamp":"2026-06-01T10:00:00Z","toolUseResult":{{"stdout":"{long}","n":[1,2]}},"cwd":"/w"}}"#
        );
        for keep in [24, 1019, 1020, 1021, 1022, 1023, 1024, 1025, 1026, 1030] {
            let mut out = Vec::new();
            elide_long_strings(line.as_bytes(), keep, &mut out);
            assert!(out.len() < 4 * keep + 400, "{keep}: {}", out.len());
            let v: serde_json::Value =
                serde_json::from_slice(&out).unwrap_or_else(|e| panic!("keep {keep}: {e}"));
            assert_eq!(v["message"]["content"][0]["tool_use_id"], "toolu_1");
            assert_eq!(v["timestamp"], "2026-06-01T10:00:00Z");
            assert_eq!(v["cwd"], "/w");
            assert_eq!(v["toolUseResult"]["n"][1], 2);
            let kept = v["toolUseResult"]["stdout"].as_str().unwrap();
            assert!(
                kept.starts_with(&"x".repeat(20)) && kept.len() <= keep + 8,
                "{keep}"
            );
        }
        // Short lines and strings are copied as they are.
        let mut out = Vec::new();
        let short = br#"{"a":"b\"c","d":[1,"\u00e9"]}"#;
        elide_long_strings(short, 1024, &mut out);
        assert_eq!(out, short);
    }

    /// [`elide_long_strings`] as it was before blocks of escaped quotes were skipped: every quote
    /// found with memchr and its escape counted. The fast path must give the same bytes.
    fn elide_reference(line: &[u8], keep: usize, out: &mut Vec<u8>) {
        out.clear();
        let mut i = 0;
        loop {
            let Some(k) = memchr::memchr(b'"', &line[i..]) else {
                out.extend_from_slice(&line[i..]);
                return;
            };
            out.extend_from_slice(&line[i..i + k + 1]);
            i += k + 1;
            let start = i;
            loop {
                let Some(k) = memchr::memchr(b'"', &line[i..]) else {
                    out.extend_from_slice(&line[start..]);
                    return;
                };
                let q = i + k;
                let run = line[start..q]
                    .iter()
                    .rev()
                    .take_while(|&&b| b == b'\\')
                    .count();
                if run % 2 == 1 {
                    i = q + 1;
                    continue;
                }
                let end = if q - start > keep {
                    safe_cut(line, start, start + keep)
                } else {
                    q
                };
                out.extend_from_slice(&line[start..end]);
                out.push(b'"');
                i = q + 1;
                break;
            }
        }
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]
        /// Quotes escaped by one, two or three backslashes, unescaped quotes, broken and
        /// unterminated strings, multi-byte characters and `\u` escapes, runs long enough to
        /// span several blocks, at every offset against the block boundaries.
        #[test]
        fn eliding_skips_blocks_of_escaped_quotes_with_the_same_result(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just("\"".to_owned()),
                    proptest::strategy::Just("\\\"".to_owned()),
                    proptest::strategy::Just("\\\\\"".to_owned()),
                    proptest::strategy::Just("\\\\\\\"".to_owned()),
                    proptest::strategy::Just("\\".to_owned()),
                    proptest::strategy::Just("\\u00e9é,:{}[]".to_owned()),
                    (1usize..700).prop_map(|n| "x".repeat(n)),
                    (1usize..90).prop_map(|n| "ab\\\"cd".repeat(n)),
                ],
                0..60,
            ),
            keep in proptest::prop_oneof![1usize..40, 200usize..1100],
            pad in 0usize..300,
        ) {
            let line = format!("{}{}", " ".repeat(pad), parts.concat());
            let (mut got, mut want) = (Vec::new(), Vec::new());
            elide_long_strings(line.as_bytes(), keep, &mut got);
            elide_reference(line.as_bytes(), keep, &mut want);
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn a_quote_ending_a_string_behind_blocks_of_escaped_ones_is_found() {
        // A tool's output: escaped quotes every few bytes over many blocks, then `\\"` (an
        // escaped backslash, then the string's end) at each offset of a block.
        for at in 0..2 * QUOTE_BLOCK + 3 {
            let body = format!("{}{}", "ab\\\"cd".repeat(300), "y".repeat(at));
            let line = format!(r#"{{"a":"{body}\\","b":"short","c":"{body}"}}"#);
            let mut out = Vec::new();
            elide_long_strings(line.as_bytes(), 64, &mut out);
            let v: serde_json::Value = serde_json::from_slice(&out)
                .unwrap_or_else(|e| panic!("at {at}: {e}: {}", String::from_utf8_lossy(&out)));
            assert_eq!(v["b"], "short", "at {at}");
            assert!(v["a"].as_str().unwrap().len() <= 64 && v["c"].as_str().unwrap().len() <= 64);
        }
    }

    /// Lines of `text` as a whole-file read gives them, from the line start at or before
    /// `len - want`: what [`Follower::read_tail_lines`] must feed for a window of `want` bytes.
    fn tail_lines_reference(text: &[u8], want: usize) -> Vec<Vec<u8>> {
        let from = if want >= text.len() {
            0
        } else {
            memchr::memrchr(b'\n', &text[..text.len() - want]).map_or(0, |nl| nl + 1)
        };
        let mut out = Vec::new();
        LineSplitter::with_cap(MAX_TAIL_LINE).feed(&text[from..], &mut |l| out.push(l.to_vec()));
        out
    }

    fn tail_lines(path: &Path, windows: &[u64], need: usize) -> (Vec<Vec<u8>>, Follower) {
        let mut f = Follower::new(path);
        let got = std::cell::RefCell::new(Vec::new());
        f.read_tail_lines(
            windows,
            &mut || got.borrow_mut().clear(),
            &mut |l| got.borrow_mut().push(l.to_vec()),
            &mut || got.borrow().len() >= need,
        )
        .unwrap();
        (got.into_inner(), f)
    }

    #[test]
    fn tail_lines_are_whole_lines_from_a_line_start_whatever_the_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let line = |n: usize, c: char| format!("{{\"n\":\"{}\"}}\n", c.to_string().repeat(n));
        // Line lengths around the first chunk (32 KiB), the doubled ones and the largest (256
        // KiB), so line starts fall just before, on and just after each chunk boundary.
        let mut cases: Vec<(&str, String)> = Vec::new();
        cases.push((
            "shorter than a chunk",
            format!("{}{}", line(10, 'a'), line(20, 'b')),
        ));
        cases.push(("one line, no newline", "{\"only\":1}".to_owned()));
        cases.push(("empty", String::new()));
        for edge in [
            32 << 10,
            64 << 10,
            96 << 10,
            224 << 10,
            256 << 10,
            480 << 10,
        ] {
            for d in [-9i64, -8, -7, -1, 0, 1, 2] {
                let n = (edge as i64 + d - 9) as usize;
                let text = format!("{}{}{}", line(100, 'p'), line(n, 'q'), line(7, 'r'));
                cases.push(("a line across a chunk boundary", text.clone()));
                // The record being written: its end not there yet.
                cases.push((
                    "a record cut mid-write",
                    format!("{text}{{\"cut\":\"{}", "z".repeat(n / 3)),
                ));
            }
        }
        let huge = format!("{}{}", line(50, 's').repeat(200), line(3 << 20, 'h'));
        cases.push(("a huge last line", huge));
        for (i, (what, text)) in cases.iter().enumerate() {
            let path = dir.path().join(format!("t{i}.jsonl"));
            std::fs::write(&path, text).unwrap();
            for (windows, need) in [
                (&TAIL_WINDOWS[..], 2),
                (&TAIL_WINDOWS[..], 1_000_000),
                (&[16u64][..], 1),
            ] {
                let (got, f) = tail_lines(&path, windows, need);
                // The window the reads stopped at: the first that told enough, else the last.
                let mut want = None;
                for &w in windows {
                    let lines = tail_lines_reference(text.as_bytes(), w as usize);
                    let enough = lines.len() >= need;
                    want = Some(lines);
                    if enough || w as usize >= text.len() {
                        break;
                    }
                }
                assert!(
                    got == want.unwrap(),
                    "{what} (case {i}, windows {windows:?}, need {need})"
                );
                let partial = text.len() - text.rfind('\n').map_or(0, |nl| nl + 1);
                assert_eq!(
                    (f.offset, f.splitter.pending()),
                    (text.len() as u64, partial),
                    "{what}"
                );
            }
        }
    }

    #[test]
    fn the_tail_buffer_kept_from_a_larger_file_leaks_nothing_into_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.jsonl");
        let small = dir.path().join("small.jsonl");
        std::fs::write(
            &big,
            format!("{{\"a\":1}}\n{{\"big\":\"{}\"}}\n", "b".repeat(2 << 20)),
        )
        .unwrap();
        std::fs::write(&small, "{\"c\":3}\n{\"d\":4}\n").unwrap();
        with_tail_buffers(|| {
            for _ in 0..2 {
                let (got, _) = tail_lines(&big, &TAIL_WINDOWS, 1_000_000);
                assert_eq!(got.len(), 2);
                let (got, _) = tail_lines(&small, &TAIL_WINDOWS, 1);
                assert_eq!(got, vec![b"{\"c\":3}".to_vec(), b"{\"d\":4}".to_vec()]);
            }
        });
        assert_eq!(
            TAIL_BUF.with(|b| b.borrow().capacity()),
            0,
            "freed after the batch"
        );
    }

    #[test]
    fn unterminated_line_waits_for_its_newline() {
        let mut s = LineSplitter::default();
        assert_eq!(
            lines(&mut s, &[b"{\"a\":1}\n{\"b\""]),
            vec![b"{\"a\":1}".to_vec()]
        );
        assert_eq!(s.pending(), 4);
        assert_eq!(lines(&mut s, &[b":2}\r\n\n"]), vec![b"{\"b\":2}".to_vec()]);
    }

    #[test]
    fn lines_are_told_with_their_file_offsets_however_the_reads_cut_them() {
        let text: &[u8] =
            b"{\"a\":1}\n\n{\"b\":22}\r\n0123456789abcdef\n{\"c\":3}\n  \n{\"d\":4}\n{\"e\"";
        let want: Vec<(u64, &[u8])> = vec![
            (0, b"{\"a\":1}"),
            (9, b"{\"b\":22}"),
            (36, b"{\"c\":3}"),
            (47, b"{\"d\":4}"),
        ];
        for step in 1..text.len() {
            let mut s = LineSplitter::with_cap(12);
            let mut got = Vec::new();
            for (i, chunk) in text.chunks(step).enumerate() {
                s.feed_at((i * step) as u64, chunk, &mut |at, l| {
                    got.push((at, l.to_vec()))
                });
            }
            let got: Vec<(u64, &[u8])> = got.iter().map(|(at, l)| (*at, &l[..])).collect();
            assert_eq!(got, want, "step {step}");
            assert_eq!((s.overlong, s.partial()), (1, Some(&b"{\"e\""[..])));
        }
        // From the file: appended bytes and a tail.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, &text[..20]).unwrap();
        let mut f = Follower::resume_at(&path, 9);
        let mut got = Vec::new();
        f.read_new_at(&mut |at, _| got.push(at)).unwrap();
        std::fs::write(&path, text).unwrap();
        f.read_new_at(&mut |at, _| got.push(at)).unwrap();
        // The follower's cap is the default one: the 16-byte line is kept.
        assert_eq!(got, vec![9, 19, 36, 47]);
        let mut got = Vec::new();
        Follower::new(&path)
            .read_tail_at(20, &mut |at, _| got.push(at))
            .unwrap();
        assert_eq!(got, vec![47]);
    }

    #[test]
    fn overlong_line_is_skipped_with_bounded_memory() {
        let mut s = LineSplitter::with_cap(10);
        let got = lines(
            &mut s,
            &[
                b"{\"a\":1}\n0123456",
                b"789abcdef",
                b"ghij",
                b"k\n{\"b\":2}\n",
            ],
        );
        assert_eq!(got, vec![b"{\"a\":1}".to_vec(), b"{\"b\":2}".to_vec()]);
        assert_eq!(s.overlong, 1);
        assert!(s.pending() == 0);
    }

    #[test]
    fn a_200_mb_line_streams_through_in_bounded_memory() {
        let mut s = LineSplitter::default();
        let chunk = vec![b'a'; 1 << 20];
        let mut got = Vec::new();
        s.feed(b"{\"type\":\"user\",\"pad\":\"", &mut |l| {
            got.push(l.to_vec())
        });
        for _ in 0..200 {
            s.feed(&chunk, &mut |l| got.push(l.to_vec()));
            assert!(s.pending() <= MAX_LINE);
        }
        s.feed(b"\"}\n{\"ok\":1}\n", &mut |l| got.push(l.to_vec()));
        assert_eq!(got, vec![b"{\"ok\":1}".to_vec()]);
        assert_eq!((s.overlong, s.pending()), (1, 0));
    }

    #[test]
    fn glued_records_are_split_and_broken_glue_is_damage() {
        let mut n = 0;
        assert!(for_each_record::<serde_json::Value>(
            br#"{"a":1}{"b":2}"#,
            &mut |_| n += 1
        ));
        assert_eq!(n, 2);
        let mut n = 0;
        assert!(!for_each_record::<serde_json::Value>(
            br#"{"a":"cut{"b":2}"#,
            &mut |_| n += 1
        ));
        assert!(!for_each_record::<serde_json::Value>(
            b"{\"a\":\"\xff\xfe\"}",
            &mut |_| n += 1
        ));
        assert_eq!(n, 0);
    }

    #[test]
    fn follower_reads_only_new_bytes_and_notices_replacement() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"a\":2}\n").unwrap();
        let mut f = Follower::new(&path);
        let mut got = Vec::new();
        assert!(f.read_tail(1 << 20, &mut |l| got.push(l.to_vec())).unwrap());
        assert_eq!(got.len(), 2);
        use std::io::Write;
        let mut w = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        w.write_all(b"{\"a\":3}\n{\"a\"").unwrap();
        got.clear();
        assert_eq!(
            f.read_new(&mut |l| got.push(l.to_vec())).unwrap(),
            Progress::Appended
        );
        assert_eq!(got, vec![b"{\"a\":3}".to_vec()]);
        assert_eq!(f.read_new(&mut |_| panic!()).unwrap(), Progress::Unchanged);
        std::fs::write(&path, "{}\n").unwrap();
        assert_eq!(f.read_new(&mut |_| ()).unwrap(), Progress::Replaced);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(f.read_new(&mut |_| ()).unwrap(), Progress::Missing);
    }

    #[test]
    fn tail_skips_the_cut_first_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, "{\"a\":\"xxxxxxxxxxxx\"}\n{\"a\":2}\n").unwrap();
        let mut f = Follower::new(&path);
        let mut got = Vec::new();
        assert!(!f.read_tail(12, &mut |l| got.push(l.to_vec())).unwrap());
        assert_eq!(got, vec![b"{\"a\":2}".to_vec()]);
    }

    fn marked(hay: &[u8]) -> Option<usize> {
        memchr::memmem::find(hay, b"MARK")
    }

    fn read_all(bytes: &[u8], start: u64, chunk: usize) -> (Vec<Vec<u8>>, MarkedRead) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, bytes).unwrap();
        let mut got: Vec<Vec<u8>> = Vec::new();
        let r = read_marked_chunked(
            &File::open(&path).unwrap(),
            start,
            chunk,
            &mut got,
            |_, hay| marked(hay),
            |got, line| got.push(line.to_vec()),
        )
        .unwrap();
        (got, r)
    }

    #[test]
    fn read_marked_gives_exactly_the_marked_lines_however_the_reads_cut_them() {
        // Lines of every size, a marker at the start, middle or end of some, a \r\n ending, a
        // line longer than the cap, and an unterminated last line.
        let mut text = Vec::new();
        let mut want = Vec::new();
        for i in 0..400usize {
            let len = [8, 40, 700, 5000, 300_000][i % 5] + i;
            let mut line = vec![b'a' + (i % 26) as u8; len];
            if i % 3 == 0 {
                let at = [0, len / 2, len - 4][i % 9 / 3];
                line[at..at + 4].copy_from_slice(b"MARK");
                want.push(line.clone());
            }
            text.extend_from_slice(&line);
            text.extend_from_slice(if i == 7 { b"\r\n" } else { b"\n" });
        }
        let mut overlong = vec![b'x'; MAX_LINE + 10];
        overlong[MAX_LINE / 2..MAX_LINE / 2 + 4].copy_from_slice(b"MARK");
        text.extend_from_slice(&overlong);
        text.push(b'\n');
        text.extend_from_slice(b"MARK after\n");
        want.push(b"MARK after".to_vec());
        let complete = text.len() as u64;
        text.extend_from_slice(b"unterminated MARK");
        for step in [256 << 10, 65_537, 4093, 1024] {
            let (got, r) = read_all(&text, 0, step);
            assert_eq!(got.len(), want.len(), "step {step}");
            assert!(got == want, "step {step}");
            assert_eq!(r.overlong, 1, "step {step}");
            assert_eq!(r.end, complete, "step {step}");
            assert_eq!(r.bytes_read, text.len() as u64);
        }
    }

    #[test]
    fn read_marked_resumes_at_a_line_start() {
        let text = b"a\nMARK one\nb\nMARK tw";
        let (got, r) = read_all(text, 0, 1024);
        assert_eq!(got, vec![b"MARK one".to_vec()]);
        assert_eq!(r.end, 13);
        let (got, r) = read_all(b"a\nMARK one\nb\nMARK two\nc\n", 13, 1024);
        assert_eq!(got, vec![b"MARK two".to_vec()]);
        assert_eq!((r.end, r.bytes_read), (13 + 11, 11));
    }
}
