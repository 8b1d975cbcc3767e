//! Reading one output stream of a supervised process: copying it to the terminal, keeping a
//! bounded tail, logging it line by line (redacted), telling the line watcher, and, when the
//! agent speaks a structured format, showing its readable text instead of the raw events.
//!
//! Owns the byte ring ([`Tail`]) and the per-stream reader ([`pump`]). Does not start, stop or
//! wait for processes (see [`super::process`]) nor know any agent's format (a [`Translate`]
//! function, see [`super::telemetry`], turns a raw line into what a person reads).

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::output::{Activity, LineWatch, LogSink, RawLog, TAIL_BYTES};

/// How much of the last output line [`Activity`] keeps.
const LAST_LINE_CHARS: usize = 200;

/// The longest event of a structured format kept whole (a tool result can carry a whole file);
/// past it the bytes so far are taken as a line of their own (not JSON: shown as text).
const MAX_EVENT_BYTES: usize = 8 * 1024 * 1024;

/// Turns one raw stdout line (without its newline) into the text a person reads: `None` drops
/// the line (an event with nothing to show), `Some` may hold several lines.
pub(crate) type Translate = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// A byte ring: keeps the last `cap` bytes.
#[derive(Debug)]
pub(crate) struct Tail {
    buf: VecDeque<u8>,
    cap: usize,
}

impl Tail {
    pub(crate) fn new(cap: usize) -> Tail {
        Tail {
            buf: VecDeque::with_capacity(cap.min(8192)),
            cap,
        }
    }

    pub(crate) fn push(&mut self, bytes: &[u8]) {
        let bytes = if bytes.len() > self.cap {
            &bytes[bytes.len() - self.cap..]
        } else {
            bytes
        };
        let overflow = (self.buf.len() + bytes.len()).saturating_sub(self.cap);
        self.buf.drain(..overflow);
        self.buf.extend(bytes);
    }

    pub(crate) fn text(&self) -> String {
        let (a, b) = self.buf.as_slices();
        let mut v = Vec::with_capacity(a.len() + b.len());
        v.extend_from_slice(a);
        v.extend_from_slice(b);
        String::from_utf8_lossy(&v).into_owned()
    }
}

/// Which of the process's streams a reader reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    Out,
    Err,
}

/// Where a reader's output goes.
pub(crate) struct Sinks {
    pub tail: Arc<Mutex<Tail>>,
    pub activity: Arc<Mutex<Activity>>,
    pub log: Option<Arc<Mutex<LogSink>>>,
    pub echo: bool,
    pub watch: Option<LineWatch>,
    /// Applied to this stream's lines (stdout of an agent with a structured format).
    pub translate: Option<Translate>,
    /// Where the raw lines of a translated stream are kept, as printed.
    pub raw: Option<Arc<Mutex<RawLog>>>,
}

fn echo_bytes(stream: Stream, bytes: &[u8]) {
    // A heartbeat refreshed in place must not run into the output.
    crate::ui::clear_transient();
    let _ = match stream {
        Stream::Out => {
            let mut o = std::io::stdout().lock();
            o.write_all(bytes).and_then(|_| o.flush())
        }
        Stream::Err => {
            let mut e = std::io::stderr().lock();
            e.write_all(bytes).and_then(|_| e.flush())
        }
    };
}

impl Sinks {
    /// One complete line (with its newline, if it had one) as a person reads it.
    fn line(&self, line: &[u8]) {
        let text = String::from_utf8_lossy(line);
        let trimmed = text.trim();
        if !trimmed.is_empty()
            && let Ok(mut a) = self.activity.lock()
        {
            a.last_line = trimmed.chars().take(LAST_LINE_CHARS).collect();
        }
        if let Some(w) = &self.watch {
            w(text.trim_end_matches(['\n', '\r']));
        }
        if let Some(log) = &self.log
            && let Ok(mut sink) = log.lock()
        {
            let red = (sink.redact)(&text);
            // The log is best effort: a full disk must not stop the agent.
            let _ = sink.file.write_all(red.as_bytes());
        }
    }

    /// One raw line of a translated stream: kept as printed, its readable text echoed, kept
    /// and logged.
    fn translated(&self, stream: Stream, raw: &[u8], translate: &Translate) {
        let raw = String::from_utf8_lossy(raw);
        if let Some(r) = &self.raw
            && let Ok(mut r) = r.lock()
        {
            r.line(&raw);
        }
        let Some(text) = translate(raw.trim_end_matches(['\n', '\r'])) else {
            return;
        };
        for l in text.lines() {
            let line = format!("{l}\n");
            if self.echo {
                echo_bytes(stream, line.as_bytes());
            }
            if let Ok(mut t) = self.tail.lock() {
                t.push(line.as_bytes());
            }
            self.line(line.as_bytes());
        }
    }

    fn complete(&self, stream: Stream, line: &[u8]) {
        match &self.translate {
            Some(t) => self.translated(stream, line, t),
            None => self.line(line),
        }
    }
}

/// Read `src` to its end, line by line into `sinks`.
pub(crate) fn pump(mut src: impl Read, stream: Stream, sinks: Sinks) {
    let mut chunk = [0u8; 8192];
    let mut partial: Vec<u8> = Vec::new();
    let raw = sinks.translate.is_none();
    loop {
        let n = match src.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let bytes = &chunk[..n];
        if let Ok(mut a) = sinks.activity.lock() {
            a.bytes += n as u64;
            a.last_output = Some(Instant::now());
            // A translated stream is written a whole line at a time.
            a.mid_line = raw && bytes.last() != Some(&b'\n');
        }
        if raw {
            if sinks.echo {
                echo_bytes(stream, bytes);
            }
            if let Ok(mut t) = sinks.tail.lock() {
                t.push(bytes);
            }
        }
        // Only the new bytes are searched: a long event arriving in many reads stays linear.
        let scanned = partial.len();
        partial.extend_from_slice(bytes);
        let mut start = 0;
        while let Some(i) = memchr::memchr(b'\n', &partial[scanned.max(start)..]) {
            let end = scanned.max(start) + i + 1;
            sinks.complete(stream, &partial[start..end]);
            start = end;
        }
        partial.drain(..start);
        if partial.len() > TAIL_BYTES && raw {
            // A huge line without a newline: log it in pieces rather than grow forever (an
            // event of a structured format is kept whole, up to a bound: it is parsed as one line).
            let line = std::mem::take(&mut partial);
            sinks.line(&line);
        } else if partial.len() > MAX_EVENT_BYTES {
            let line = std::mem::take(&mut partial);
            sinks.complete(stream, &line);
        }
    }
    if !partial.is_empty() {
        partial.push(b'\n');
        sinks.complete(stream, &partial);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_across_reads_and_a_long_event_come_out_whole() {
        // A reader that hands out 3 bytes at a time: every line crosses reads.
        struct Drip<'a>(&'a [u8]);
        impl Read for Drip<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.0.len().min(3).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let long = "x".repeat(100_000);
        let input = format!("ab\n{long}\ncd\nlast");
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let keep = seen.clone();
        let translate: Translate = Arc::new(move |l: &str| {
            if let Ok(mut s) = keep.lock() {
                s.push(l.to_string());
            }
            None
        });
        let sinks = Sinks {
            tail: Arc::new(Mutex::new(Tail::new(1024))),
            activity: Arc::new(Mutex::new(Activity::default())),
            log: None,
            echo: false,
            watch: None,
            translate: Some(translate),
            raw: None,
        };
        pump(Drip(input.as_bytes()), Stream::Out, sinks);
        let seen = seen.lock().unwrap().clone();
        assert_eq!(seen, ["ab", long.as_str(), "cd", "last"]);
    }

    #[test]
    fn tail_keeps_only_the_last_bytes() {
        let mut t = Tail::new(5);
        t.push(b"abc");
        t.push(b"defg");
        assert_eq!(t.text(), "cdefg");
        t.push(b"0123456789");
        assert_eq!(t.text(), "56789");
    }

    #[test]
    fn a_translated_stream_shows_only_the_readable_text() {
        let tail = Arc::new(Mutex::new(Tail::new(1024)));
        let seen = Arc::new(Mutex::new(Vec::<String>::new()));
        let s2 = seen.clone();
        let sinks = Sinks {
            tail: tail.clone(),
            activity: Arc::new(Mutex::new(Activity::default())),
            log: None,
            echo: false,
            watch: Some(Arc::new(move |l: &str| s2.lock().unwrap().push(l.into()))),
            translate: Some(Arc::new(|l: &str| {
                (!l.starts_with('{')).then(|| format!("> {l}\nsecond"))
            })),
            raw: None,
        };
        pump(&b"{\"x\":1}\nhello\nlast"[..], Stream::Out, sinks);
        assert_eq!(
            tail.lock().unwrap().text(),
            "> hello\nsecond\n> last\nsecond\n"
        );
        assert_eq!(
            *seen.lock().unwrap(),
            ["> hello", "second", "> last", "second"]
        );
    }
}
