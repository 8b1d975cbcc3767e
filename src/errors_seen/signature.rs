//! A failure's signature (pure): the first error-looking lines of a failed verify command's
//! output, normalised so the same failure in another story, another temp dir or another line
//! number reads the same; and the pattern's short stable id.
//!
//! Owns the normalisation rules (times → `<time>`, durations → `<dur>`, hex hashes and addresses
//! → `<hash>`, paths → their file name, numbers → `N`). Does not redact: the caller redacts the
//! output first, so no rule here can split a secret into a shape the redactor misses.

use std::sync::LazyLock;

use regex::Regex;

/// The most lines a signature keeps.
pub(crate) const MAX_LINES: usize = 5;
/// The most characters of one signature line.
const MAX_LINE_CHARS: usize = 200;

/// Words that make an output line read as an error (matched in its lowercase text).
const ERROR_WORDS: &[&str] = &[
    "error",
    "fail",
    "panic",
    "assert",
    "exception",
    "traceback",
    "fatal",
    "cannot",
    "can't",
    "undefined",
    "not found",
    "no such",
    "denied",
    "expected",
    "mismatch",
    "segmentation fault",
];

/// A verify failure as the loop saw it: the command and the tail of its output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Failure {
    pub command: String,
    pub tail: String,
}

/// A pattern of this file (literals, tested below).
fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("valid regex")
}

static TIME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b",
    )
});
static DURATION: LazyLock<Regex> = LazyLock::new(|| {
    re(r"\b\d+(?:\.\d+)?\s?(?:ns|us|µs|ms|s|secs?|seconds?|m|mins?|minutes?|h)\b")
});
static HEX: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\b0x[0-9a-fA-F]+\b|\b[0-9a-f]*[0-9][0-9a-f]*[a-f][0-9a-f]*\b|\b[0-9a-f]*[a-f][0-9a-f]*[0-9][0-9a-f]*\b",
    )
});
static PATH: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:[A-Za-z]:)?(?:[\w.~@+-]*[/\\])+([\w.@+-]+)"));
static NUMBER: LazyLock<Regex> = LazyLock::new(|| re(r"\d+"));
static SPACE: LazyLock<Regex> = LazyLock::new(|| re(r"\s+"));

/// Whether `line` reads as an error line.
pub(crate) fn is_error_line(line: &str) -> bool {
    let l = line.to_lowercase();
    ERROR_WORDS.iter().any(|w| l.contains(w))
}

/// One output line normalised: times, durations, hex hashes, paths (file name kept), numbers.
pub(crate) fn normalise(line: &str) -> String {
    let s = TIME.replace_all(line.trim(), "<time>");
    let s = DURATION.replace_all(&s, "<dur>");
    let s = PATH.replace_all(&s, "$1");
    let s = HEX.replace_all(&s, |c: &regex::Captures<'_>| {
        let m = &c[0];
        // A short run (`e2`, `a1`) is more likely a word than a hash.
        if m.len() >= 7 || m.starts_with("0x") {
            "<hash>".to_string()
        } else {
            m.to_string()
        }
    });
    let s = NUMBER.replace_all(&s, "N");
    let s = SPACE.replace_all(&s, " ");
    let t = s.trim();
    match t.char_indices().nth(MAX_LINE_CHARS) {
        Some((b, _)) => t[..b].to_string(),
        None => t.to_string(),
    }
}

/// The signature of a failure's output (already redacted): its first error-looking lines, or
/// when none reads as an error its first non-empty lines; at most [`MAX_LINES`], normalised,
/// each line once.
pub(crate) fn signature(output: &str) -> Vec<String> {
    let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
    let errors: Vec<&str> = lines.iter().copied().filter(|l| is_error_line(l)).collect();
    let pick = if errors.is_empty() { lines } else { errors };
    let mut out: Vec<String> = Vec::with_capacity(MAX_LINES);
    for l in pick {
        let n = normalise(l);
        if !n.is_empty() && !out.contains(&n) {
            out.push(n);
        }
        if out.len() == MAX_LINES {
            break;
        }
    }
    out
}

/// The pattern's id: 10 hex digits of a 64-bit FNV-1a hash of the command and the signature
/// (stable across versions and machines, unlike the standard library's hasher).
pub(crate) fn id(command: &str, signature: &[String]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    eat(command.trim().as_bytes());
    for l in signature {
        eat(b"\n");
        eat(l.as_bytes());
    }
    format!("{:010x}", h >> 24)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_paths_hashes_and_times_are_normalised() {
        assert_eq!(
            normalise("error[E0308]: mismatched types at /tmp/.tmpX1y2/src/lib.rs:12:5"),
            "error[EN]: mismatched types at lib.rs:N:N"
        );
        assert_eq!(
            normalise("thread 'main' panicked at src\\a\\b.rs:3 (0x7ffd5e8c) commit 3f9a1c2d4e"),
            "thread 'main' panicked at b.rs:N (<hash>) commit <hash>"
        );
        assert_eq!(
            normalise("2026-11-26T14:01:02Z FAIL   took 1.52s at 10:00:01"),
            "<time> FAIL took <dur> at <time>"
        );
        // Words stay words, even when they are hex letters.
        assert_eq!(normalise("deadbeef added face"), "deadbeef added face");
    }

    #[test]
    fn a_signature_takes_the_error_lines_else_the_first_lines() {
        let out = "running 3 tests\ntest a ... ok\ntest b ... FAILED\nerror: test failed, to rerun pass `--lib`\nnote: x\n";
        assert_eq!(
            signature(out),
            [
                "test b ... FAILED",
                "error: test failed, to rerun pass `--lib`"
            ]
        );
        assert_eq!(signature("one\n\ntwo 2\n"), ["one", "two N"]);
        let many: String = (0..20).map(|i| format!("error {i}: x{i}\n")).collect();
        assert_eq!(signature(&many), ["error N: xN"]);
        let varied: String = (0..20)
            .map(|i| {
                format!(
                    "error in step {}\n",
                    "abcdefghijklmnopqrst".chars().nth(i).unwrap()
                )
            })
            .collect();
        assert_eq!(signature(&varied).len(), MAX_LINES);
    }

    #[test]
    fn the_same_failure_elsewhere_has_the_same_signature_and_id() {
        let a = signature("check: error: /tmp/a1/work/cfg.toml line 3: bad value 41\n");
        let b = signature("check: error: /home/u/p/cfg.toml line 17: bad value 9\n");
        assert_eq!(a, b);
        assert_eq!(id("sh check.sh", &a), id("sh check.sh", &b));
        assert_ne!(id("sh check.sh", &a), id("make", &a));
        assert_eq!(id("x", &a).len(), 10);
    }
}
