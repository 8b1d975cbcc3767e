//! Asking an installed agent CLI about itself without running an agent: its `--version`, and
//! whether it accepts the preset's argv (the argv with `--help` appended: the CLI parses its
//! flags and prints its help, no model is called).
//!
//! Owns running such a short command: its own process group, no stdin, a time limit after
//! which the whole group is killed, both streams captured (bounded). Does not judge the
//! answers (see [`super::detect::refusal`] and `crate::doctor`).

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::version::Version;
use super::{AgentSpec, Invocation};

/// How long a `--version` or `--help` call may take (a cold Node.js CLI on a busy machine
/// takes a few seconds).
pub(crate) const PROBE_TIMEOUT: Duration = Duration::from_secs(20);

/// At most this much of each stream is kept (Claude Code's help is over 16 KiB).
const KEEP: usize = 256 * 1024;

/// What a short call printed and how it ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Answer {
    /// `None`: killed by a signal, or by ralph at the time limit.
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Answer {
    /// Both streams, stderr first (where CLIs write their errors).
    pub(crate) fn text(&self) -> String {
        format!("{}\n{}", self.stderr, self.stdout)
    }
}

fn read_bounded(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            match r.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) if buf.len() < KEEP => {
                    buf.extend_from_slice(&chunk[..n.min(KEEP - buf.len())])
                }
                Ok(_) => {}
            }
        }
        String::from_utf8_lossy(&buf).into_owned()
    })
}

/// Run `argv` in `cwd` with `env` added, no stdin, for at most `limit`.
pub(crate) fn ask(
    argv: &[String],
    cwd: &Path,
    env: &[(String, String)],
    limit: Duration,
) -> std::io::Result<Answer> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| std::io::Error::other("empty command"))?;
    let mut child = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()?;
    let out = child.stdout.take().map(read_bounded);
    let err = child.stderr.take().map(read_bounded);
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break Some(s);
        }
        if start.elapsed() >= limit {
            timed_out = true;
            kill_group(child.id());
            break child.wait().ok();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // A grandchild holding the pipes open must not hang the probe: the group is gone by now.
    kill_group(child.id());
    let text = |h: Option<std::thread::JoinHandle<String>>| {
        h.and_then(|h| h.join().ok()).unwrap_or_default()
    };
    Ok(Answer {
        exit_code: status.and_then(|s| s.code()),
        timed_out,
        stdout: text(out),
        stderr: text(err),
    })
}

fn kill_group(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: kill(2) on a process group ralph created for this child; no memory touched.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

/// The installed version of `spec`'s program (`--version`), `None` when it does not say one.
pub(crate) fn version(spec: &AgentSpec, cwd: &Path, env: &[(String, String)]) -> Option<Version> {
    let argv = [spec.argv[0].clone(), "--version".to_string()];
    let a = ask(&argv, cwd, env, PROBE_TIMEOUT).ok()?;
    if a.timed_out || a.exit_code != Some(0) {
        return None;
    }
    Version::find(&a.stdout).or_else(|| Version::find(&a.stderr))
}

/// The preset's argv (prompt left out) with `--help`: a CLI that rejects one of the flags
/// says so here, without a model call.
pub(crate) fn argv_check(inv: &Invocation) -> Vec<String> {
    let mut argv: Vec<String> = inv
        .argv
        .iter()
        .filter(|a| a.as_str() != "-")
        .cloned()
        .collect();
    argv.push("--help".into());
    argv
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_call_is_captured_and_a_hung_one_is_killed_at_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let sh = |s: &str| vec!["sh".to_string(), "-c".to_string(), s.to_string()];
        let a = ask(
            &sh("echo out; echo err >&2; exit 3"),
            dir.path(),
            &[],
            PROBE_TIMEOUT,
        )
        .unwrap();
        assert_eq!(a.exit_code, Some(3));
        assert_eq!((a.stdout.as_str(), a.stderr.as_str()), ("out\n", "err\n"));
        let t0 = Instant::now();
        let hung = ask(
            &sh("sleep 30 & wait"),
            dir.path(),
            &[],
            Duration::from_millis(200),
        )
        .unwrap();
        assert!(hung.timed_out);
        assert!(t0.elapsed() < Duration::from_secs(20));
        let env = [("PROBE_X".to_string(), "42".to_string())];
        let e = ask(&sh("echo $PROBE_X"), dir.path(), &env, PROBE_TIMEOUT).unwrap();
        assert_eq!(e.stdout, "42\n");
        assert!(
            ask(
                &["/nonexistent/prog".to_string()],
                dir.path(),
                &[],
                PROBE_TIMEOUT
            )
            .is_err()
        );
    }

    #[test]
    fn the_argv_check_drops_the_stdin_dash_and_asks_for_help() {
        let spec = AgentSpec::preset(super::super::AgentKind::Codex).unwrap();
        let inv = super::super::plan(&spec, "p", Path::new("/p"));
        let check = argv_check(&inv);
        assert_eq!(check.last().map(String::as_str), Some("--help"));
        assert!(!check.contains(&"-".to_string()));
        assert_eq!(check[1], "exec");
    }
}
