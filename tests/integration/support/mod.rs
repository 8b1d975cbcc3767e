//! The helpers every integration test shares: the one way to run the binary under test
//! (`ralph`, `ralph_in`, `ralph_at`, `command`: always with a clean environment), fixture
//! paths, and for the loop's tests temp git projects with fake agents (`Project`). The Pin's
//! helpers are in `pin`, prd.json documents as JSON values in `prd_json`, what varies between
//! runs of an output (temp paths, commit ids, times, durations) made stable for an exact
//! comparison in `normalize`.
//!
//! A fake agent is a small sh script written into a temp `bin/` put first on PATH, named like a
//! real CLI (`claude`, `codex`, …). Every invocation records its argv (`argv-N`, NUL-separated)
//! and stdin (`stdin-N`) in the fake dir, then runs the behaviour the test gives it. In the
//! script, `$D` is the fake dir, `$n` the invocation number and `$RALPH_STORY_ID` the story.

pub(crate) mod normalize;
pub(crate) mod parallel;
pub(crate) mod pin;
pub(crate) mod prd_json;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command as Std, Stdio};
use std::time::{Duration, Instant};

/// The binary under test as a std `Command`, with a clean environment: no `RALPH_*` setting
/// and no colour setting (`NO_COLOR`, `CLICOLOR`, `CLICOLOR_FORCE`) inherited from whoever runs
/// the tests. For tests that spawn, signal or kill ralph or hand it a closed pipe; the others
/// use `ralph`.
pub(crate) fn command() -> Std {
    let mut c = Std::new(env!("CARGO_BIN_EXE_ralph"));
    for (k, _) in std::env::vars_os() {
        if k.to_str().is_some_and(|k| k.starts_with("RALPH_")) {
            c.env_remove(k);
        }
    }
    for k in ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"] {
        c.env_remove(k);
    }
    c
}

/// `ralph`, with the clean environment of `command`, run in the tests' working directory.
pub(crate) fn ralph() -> assert_cmd::Command {
    assert_cmd::Command::from_std(command())
}

/// `ralph` run in `dir` (the project is found from the working directory).
pub(crate) fn ralph_in(dir: &Path) -> assert_cmd::Command {
    let mut c = ralph();
    c.current_dir(dir);
    c
}

/// `ralph --root <root>`.
pub(crate) fn ralph_at(root: &Path) -> assert_cmd::Command {
    let mut c = ralph();
    c.arg("--root").arg(root);
    c
}

/// Run `cmd`: its exit code (-1 if a signal ended it), stdout and stderr.
pub(crate) fn output(cmd: &mut assert_cmd::Command) -> (i32, String, String) {
    let o = cmd.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `ralph <args>` run in `dir`: its exit code (-1 if a signal ended it), stdout and stderr.
pub(crate) fn output_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    output(ralph_in(dir).args(args))
}

/// `ralph <args>` run in `dir`: its exit code (-1 if a signal ended it) and stdout followed by
/// stderr, for tests that look for a message wherever it is printed.
pub(crate) fn output_joined_in(dir: &Path, args: &[&str]) -> (i32, String) {
    let (code, out, err) = output_in(dir, args);
    (code, out + &err)
}

/// Hold the project lock of `root` as a running `ralph run` does: `.ralph/lock` names `pid`
/// and the root folder is flocked exclusively. The lock is held until the returned file drops.
pub(crate) fn hold_lock(root: &Path, pid: &str) -> std::fs::File {
    use std::os::fd::AsRawFd;
    std::fs::create_dir_all(root.join(".ralph")).unwrap();
    std::fs::write(root.join(".ralph/lock"), format!("{pid}\n")).unwrap();
    let held = std::fs::File::open(root).unwrap();
    // SAFETY: flock on a descriptor this function owns.
    let got = unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(got, 0, "flock {}", root.display());
    held
}

/// `ralph run --json`'s stdout read as JSON lines, one event each (a line that is not JSON
/// fails the test).
pub(crate) fn events(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l:?}")))
        .collect()
}

/// Write `text` to `dir/name` as an executable (mode 0755) script: its path.
pub(crate) fn script(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A pipe whose read end is already closed: every write to it fails with EPIPE.
pub(crate) fn closed_pipe() -> Stdio {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Stdio::from(writer)
}

/// The path of a compatibility fixture from the Ralph ecosystem.
pub(crate) fn compat(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/compat")
        .join(rel)
}

pub(crate) struct Project {
    pub dir: tempfile::TempDir,
    pub bin: PathBuf,
    pub fake: PathBuf,
}

/// A story line for a prd.json, one story per line so fake agents can edit it with sed.
pub(crate) fn story(id: &str, priority: u32, deps: &[&str]) -> String {
    let deps: Vec<String> = deps.iter().map(|d| format!("\"{d}\"")).collect();
    format!(
        "{{\"id\": \"{id}\", \"title\": \"Title {id}\", \"description\": \"Do {id}\", \"acceptanceCriteria\": [\"{id} works\"], \"priority\": {priority}, \"passes\": false, \"notes\": \"\", \"blockedBy\": [{}]}}",
        deps.join(", ")
    )
}

pub(crate) fn prd(branch: &str, stories: &[String]) -> String {
    format!(
        "{{\n\"project\": \"test\",\n\"branchName\": \"{branch}\",\n\"description\": \"d\",\n\"userStories\": [\n{}\n]\n}}\n",
        stories.join(",\n")
    )
}

fn git(dir: &Path, args: &[&str]) {
    let st = Std::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(st.status.success(), "git {args:?}: {st:?}");
}

/// `ralph run`'s arguments in the tests: no sleep between iterations, a short grace.
const RUN: [&str; 5] = ["run", "--sleep", "0", "--grace", "0.3"];

/// Shell snippet: mark the current story as passing in prd.json (one-line or pretty JSON).
pub(crate) const FLIP: &str =
    r#"sed -i -E -z "s/(\"id\": \"$RALPH_STORY_ID\"[^}]*\"passes\": )false/\1true/" prd.json"#;
/// Shell snippet: the first event of a structured agent (Claude Code's stream-json init): its
/// session started, so a failure after it is an attempt, not a start failure.
pub(crate) const STARTED: &str = r#"echo '{"type":"system","subtype":"init","session_id":"s-1"}'"#;
/// Shell snippet: write a file named after the story and commit it.
pub(crate) const WORK: &str = r#"echo "work $n" > "$RALPH_STORY_ID.txt"; git add -A >/dev/null; git commit -qm "$RALPH_STORY_ID" >/dev/null"#;

/// The fake agents' answers to a CLI's `--version` (the file `version` beside the fakes, else
/// nothing) and `--help` (anywhere in the arguments), without running or counting.
pub(crate) const FAKE_PROBES: &str = r#"[ "$1" = --version ] && { cat "$D/version" 2>/dev/null; exit 0; }
for a in "$@"; do [ "$a" = --help ] && exit 0; done
"#;

impl Project {
    pub(crate) fn new(prd_text: &str) -> Project {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        let fake = dir.path().join("fake");
        let root = dir.path().join("proj");
        for d in [&bin, &fake, &root] {
            std::fs::create_dir_all(d).unwrap();
        }
        git(&root, &["init", "-q"]);
        git(&root, &["config", "user.email", "t@example.com"]);
        git(&root, &["config", "user.name", "Test"]);
        git(&root, &["config", "commit.gpgsign", "false"]);
        std::fs::write(root.join("prd.json"), prd_text).unwrap();
        std::fs::write(root.join(".gitignore"), ".ralph/\n").unwrap();
        git(&root, &["add", "-A"]);
        git(&root, &["commit", "-qm", "init"]);
        Project { dir, bin, fake }
    }

    pub(crate) fn root(&self) -> PathBuf {
        self.dir.path().join("proj")
    }

    /// Commit everything in the work tree, as a person does before `ralph run` (which refuses
    /// to start with uncommitted changes): the files a test wrote (ralph.toml, scripts) go in.
    pub(crate) fn commit(&self, message: &str) {
        git(&self.root(), &["add", "-A"]);
        git(&self.root(), &["commit", "-qm", message]);
    }

    /// `git args…` in the project: its stdout, trimmed (the command must succeed).
    pub(crate) fn git(&self, args: &[&str]) -> String {
        let out = Std::new("git")
            .arg("-C")
            .arg(self.root())
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Install a fake agent `name` running `body` after the recording prelude. Like a real
    /// CLI, it answers `--version` and `--help` (ralph's preflight asks) without doing anything
    /// or counting as a run: it prints what [`Project::fake_version`] set (nothing by default:
    /// the version is then unknown to ralph) and an empty help.
    pub(crate) fn agent(&self, name: &str, body: &str) {
        let script = format!(
            "#!/bin/sh\nD='{}'\n{FAKE_PROBES}n=$(cat \"$D/count\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \"$D/count\"\nprintf '%s\\0' \"$@\" > \"$D/argv-$n\"\ncat > \"$D/stdin-$n\"\n{body}\n",
            self.fake.display()
        );
        self.script(name, &script);
    }

    /// Write the executable script `bin/<name>` (on the fake agents' PATH): its path.
    pub(crate) fn script(&self, name: &str, text: &str) -> PathBuf {
        script(&self.bin, name, text)
    }

    pub(crate) fn path_env(&self) -> String {
        format!("{}:/usr/local/bin:/usr/bin:/bin", self.bin.display())
    }

    /// `ralph` as a std `Command` in the project, its fake agents first on PATH (see
    /// `command`).
    pub(crate) fn command(&self) -> Std {
        let mut c = command();
        c.current_dir(self.root()).env("PATH", self.path_env());
        c
    }

    /// `ralph` in the project, with a clean environment, the fake agents on PATH and a
    /// timeout, so a hung loop fails its test.
    pub(crate) fn ralph(&self) -> assert_cmd::Command {
        let mut c = assert_cmd::Command::from_std(self.command());
        c.timeout(Duration::from_secs(60));
        c
    }

    /// `ralph run` with fast sleeps and grace.
    pub(crate) fn run(&self) -> assert_cmd::Command {
        let mut c = self.ralph();
        c.args(RUN);
        c
    }

    /// `ralph run` with fast sleeps and grace as a std `Command`, to spawn, signal or kill;
    /// stdout and stderr go nowhere unless the test says.
    pub(crate) fn run_command(&self) -> Std {
        let mut c = self.command();
        c.args(RUN).stdout(Stdio::null()).stderr(Stdio::null());
        c
    }

    /// What the fake agents print for `--version` from now on.
    pub(crate) fn fake_version(&self, text: &str) {
        std::fs::write(self.fake.join("version"), text).unwrap();
    }

    pub(crate) fn calls(&self) -> usize {
        std::fs::read_to_string(self.fake.join("count"))
            .map(|s| s.trim().parse().unwrap())
            .unwrap_or(0)
    }

    pub(crate) fn argv(&self, n: usize) -> Vec<String> {
        std::fs::read_to_string(self.fake.join(format!("argv-{n}")))
            .unwrap()
            .split('\0')
            .filter(|a| !a.is_empty())
            .map(String::from)
            .collect()
    }

    pub(crate) fn stdin(&self, n: usize) -> String {
        std::fs::read_to_string(self.fake.join(format!("stdin-{n}"))).unwrap()
    }

    /// prd.json as JSON. While a live run merges a story, git rewrites the file in place, so an
    /// empty or cut-short read is read again (for up to 10 s) rather than misread.
    pub(crate) fn prd_value(&self) -> serde_json::Value {
        let path = self.root().join("prd.json");
        let read = || serde_json::from_str(&std::fs::read_to_string(&path).ok()?).ok();
        let mut value = read();
        wait_for(10, || {
            value = value.take().or_else(read);
            value.is_some()
        });
        value.unwrap_or_default()
    }

    pub(crate) fn passes(&self, id: &str) -> bool {
        self.prd_value()["userStories"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .unwrap()["passes"]
            .as_bool()
            .unwrap()
    }

    pub(crate) fn history(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.root().join(".ralph/history.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The pid a fake agent wrote to `name`. The shell creates the file before `echo` fills
    /// it, so an empty or partial file is read again (for up to 10 s) rather than misread.
    pub(crate) fn read_pid(&self, name: &str) -> i32 {
        let path = self.fake.join(name);
        let mut pid = None;
        wait_for(10, || {
            pid = std::fs::read_to_string(&path)
                .ok()
                .filter(|t| t.ends_with('\n'))
                .and_then(|t| t.trim().parse().ok());
            pid.is_some()
        });
        pid.unwrap_or_default()
    }
}

/// Whether a process exists and is not a zombie.
pub(crate) fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

/// Wait until `cond` holds (or fail after `secs`).
pub(crate) fn wait_for(secs: u64, mut cond: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(secs);
    while !cond() {
        assert!(Instant::now() < end, "condition not met in {secs}s");
        std::thread::sleep(Duration::from_millis(20));
    }
}
