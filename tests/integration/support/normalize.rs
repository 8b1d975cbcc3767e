//! Output compared exactly: what truly varies from one run to the next replaced by a
//! placeholder, and nothing else. The temp project's path (as given and canonical) becomes
//! `[ROOT]`, a temp file's random name `.ralph-tmp-[RANDOM]`, commit ids `[SHA]`, times
//! `[TIME]`, durations `[DUR]`, a run id `[RUN]`, a pid `pid [PID]`; every other byte is compared as the person or
//! script reading it gets it. Call it only on output that holds such parts: a fixture's fixed
//! run ids and times are compared as they are.

use regex::Regex;
use std::path::Path;
use std::sync::LazyLock;

/// Each pattern and its placeholder, in the order they are applied: a run id and an RFC 3339
/// time before a bare clock time, a time before a duration.
static RULES: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        // `fsutil::atomic_write`'s temp file beside the target.
        (r"\.ralph-tmp-[A-Za-z0-9]+", ".ralph-tmp-[RANDOM]"),
        // A process id.
        (r"\bpid \d+", "pid [PID]"),
        // A run id: its start time, compact, and a counter (`20261127T070501Z-1234`).
        (r"\b\d{8}T\d{6}Z?(-[0-9a-z]+)?\b", "[RUN]"),
        (
            r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?",
            "[TIME]",
        ),
        (r"\b\d{2}:\d{2}(:\d{2})?\b", "[TIME]"),
        (r"\b[0-9a-f]{7,40}\b", "[SHA]"),
        (r"\b\d+(\.\d+)?(ms|s|m|h)( \d+(\.\d+)?(ms|s|m))?\b", "[DUR]"),
    ]
    .into_iter()
    .map(|(re, to)| (Regex::new(re).expect("a valid pattern"), to))
    .collect()
});

/// `text` with `root` (and its canonical path) as `[ROOT]` and the varying parts as
/// placeholders (see the module doc).
pub(crate) fn normalize(text: &str, root: &Path) -> String {
    let mut out = text.to_string();
    let canonical = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    for r in [canonical.as_path(), root] {
        out = out.replace(&*r.to_string_lossy(), "[ROOT]");
    }
    for (re, to) in RULES.iter() {
        out = re.replace_all(&out, *to).into_owned();
    }
    out
}
