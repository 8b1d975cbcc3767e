//! Running one child process (an agent or a verify command) under supervision.
//!
//! Owns: starting it in its own process group, feeding its stdin, streaming stdout and stderr
//! live to the terminal and line by line to a log (through a redaction function), keeping a
//! bounded tail in memory, the timeout (SIGTERM to the whole group, a grace period, SIGKILL),
//! forwarding an interrupt the same way, and making sure no descendant outlives the run (those
//! in the group, and, when asked, those that left it: [`stop_orphans`]). Does not interpret
//! the output (see [`super::detect`]).

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::AgentError;
pub(crate) use super::output::{Activity, LineWatch, LogSink, RawLog, TAIL_BYTES};
use super::pump::{Sinks, Stream, pump};
pub(crate) use super::pump::{Tail, Translate};

/// Why ralph stops a process before it ends by itself (reported as `timeout` / `interrupt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Stop {
    Timeout,
    Interrupt,
}

/// What the caller of [`supervise`] hears while the process runs, on the supervising thread.
pub(crate) trait Watcher {
    /// Called every poll (about 20 ms) with the output so far and the time since the start.
    fn tick(&mut self, activity: &Activity, elapsed: Duration);
    /// ralph has sent SIGTERM to the process group and sends SIGKILL after `grace`.
    fn stopping(&mut self, why: Stop, elapsed: Duration, grace: Duration);
}

/// What to run and how to supervise it.
pub(crate) struct Supervise<'a> {
    pub argv: &'a [String],
    pub cwd: &'a Path,
    pub env: &'a [(String, String)],
    pub stdin: Option<String>,
    pub timeout: Duration,
    /// Time between SIGTERM and SIGKILL.
    pub grace: Duration,
    pub log: Option<Arc<Mutex<LogSink>>>,
    /// Copy output to this process's stdout/stderr as it arrives.
    pub echo: bool,
    pub interrupt: &'a AtomicBool,
    pub watch: Option<LineWatch>,
    /// After the run, stop every remaining child of this process (descendants that left the
    /// process group and were re-parented here, see [`stop_orphans`]). Only for a caller
    /// that has no other child processes of its own running at the time (the loop).
    pub sweep_orphans: bool,
    /// Record the process group here while it runs (removed once it is gone), so the next run
    /// can stop it if ralph is killed outright ([`super::group`]).
    pub record: Option<std::path::PathBuf>,
    /// Told about the output while the process runs, and when ralph stops it.
    pub watcher: Option<&'a mut dyn Watcher>,
    /// Turns stdout's raw lines into readable text (an agent's structured events).
    pub translate: Option<Translate>,
    /// Keeps stdout's raw lines as printed, when they are translated.
    pub raw: Option<Arc<Mutex<RawLog>>>,
}

/// How the run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finished {
    pub exit_code: Option<i32>,
    /// The signal that ended the process, if one did.
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub interrupted: bool,
    /// Descendants were still alive after the process exited and had to be stopped.
    pub stopped_leftovers: bool,
    /// The last [`TAIL_BYTES`] of stdout and stderr, interleaved as they arrived.
    pub tail: String,
    pub duration: Duration,
}

impl Finished {
    pub(crate) fn success(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out && !self.interrupted
    }
}

fn signal_group(pgid: i32, sig: i32) -> bool {
    // SAFETY: kill(2) with a negative pid signals a process group; no memory is touched.
    unsafe { libc::kill(-pgid, sig) == 0 }
}

/// Make this process the reaper of its orphaned descendants (Linux), so a grandchild whose
/// parent exited is reaped here instead of lingering as a zombie under an init that never reaps
/// (common in containers). Best effort.
pub(crate) fn become_subreaper() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER only sets a flag on this process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// Reap any exited members of the group that became our children (see [`become_subreaper`]).
fn reap_group(pgid: i32) {
    // SAFETY: waitpid on a process group with WNOHANG; the status is discarded.
    unsafe {
        let mut status = 0;
        while libc::waitpid(-pgid, &mut status, libc::WNOHANG) > 0 {}
    }
}

fn group_alive(pgid: i32) -> bool {
    reap_group(pgid);
    if signal_group(pgid, 0) {
        return true;
    }
    std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// The live children of this process, from `/proc/*/stat` (Linux; empty elsewhere). Exited
/// ones (zombies, e.g. an orphaned grandchild that died) are reaped on the way.
fn live_children() -> Vec<i32> {
    let me = std::process::id() as i32;
    super::group::all()
        .into_iter()
        .filter(|(pid, st)| {
            if st.ppid != me {
                return false;
            }
            if st.gone() {
                reap(&[*pid]);
            }
            !st.gone()
        })
        .map(|(pid, _)| pid)
        .collect()
}

fn reap(pids: &[i32]) {
    for &pid in pids {
        let mut status = 0;
        // SAFETY: waitpid on one specific child with WNOHANG; the status is discarded.
        unsafe {
            libc::waitpid(pid, &mut status, libc::WNOHANG);
        }
    }
}

/// Stop every child this process still has: descendants of an agent that left its process
/// group (`setsid`, a daemonising server) are re-parented here because ralph is a child
/// subreaper ([`become_subreaper`]). SIGTERM, `grace`, SIGKILL, reap; repeated (a bounded
/// number of rounds) because stopping one may orphan its own children onto us. Call it only
/// when no child of this process should be running. Returns whether any was found.
pub(crate) fn stop_orphans(grace: Duration) -> bool {
    const ROUNDS: usize = 8;
    let mut found = false;
    for _ in 0..ROUNDS {
        let kids = live_children();
        if kids.is_empty() {
            break;
        }
        found = true;
        for &pid in &kids {
            // SAFETY: kill(2) on a child pid of ours; no memory is touched.
            unsafe {
                libc::kill(pid, libc::SIGTERM);
            }
        }
        let t = Instant::now();
        loop {
            reap(&kids);
            if kids.iter().all(|p| !live_children().contains(p)) || t.elapsed() >= grace {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let left: Vec<i32> = live_children()
            .into_iter()
            .filter(|p| kids.contains(p))
            .collect();
        for &pid in &left {
            // SAFETY: as above.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        let k = Instant::now();
        while !left.is_empty() && k.elapsed() < Duration::from_secs(1) {
            reap(&left);
            if left.iter().all(|p| !live_children().contains(p)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        reap(&left);
    }
    found
}

/// Run a process to the end under supervision. Returns when the process and every descendant
/// left in its process group are gone (or, for ones that ignore SIGKILL, after one more grace).
pub(crate) fn supervise(mut s: Supervise<'_>) -> Result<Finished, AgentError> {
    let program = s.argv.first().cloned().unwrap_or_default();
    let start = Instant::now();
    let mut child = command(&program, &s)
        .spawn()
        .map_err(|source| AgentError::Spawn {
            program: program.clone(),
            source,
        })?;
    // The child is its own group leader, so its pid is the group id.
    let pgid = child.id() as i32;
    if let (Some(path), Some(rec)) = (&s.record, super::group::Record::of(pgid)) {
        // Best effort: without the record only a SIGKILL of ralph itself loses track.
        let _ = crate::fsutil::atomic_write(path, rec.to_line().as_bytes());
    }
    if let (Some(mut stdin), Some(text)) = (child.stdin.take(), s.stdin.take()) {
        std::thread::spawn(move || {
            // EPIPE when the agent does not read its input is fine.
            let _ = stdin.write_all(text.as_bytes());
        });
    }
    let seen = Seen::default();
    let readers = Readers::spawn(&mut child, &s, &seen);
    let (exit_tx, exit_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = exit_tx.send(child.wait());
    });
    let mut stopping = Stopping::default();
    let status = match stopping.wait(&mut s, &exit_rx, pgid, start, &seen.activity) {
        Ok(status) => status,
        Err(source) => {
            signal_group(pgid, libc::SIGKILL);
            return Err(AgentError::Wait { program, source });
        }
    };
    let mut stopped_leftovers = stop_group(pgid, stopping.term_at, s.grace);
    if s.sweep_orphans && stop_orphans(s.grace) {
        stopped_leftovers = true;
    }
    if let Some(path) = &s.record {
        let _ = std::fs::remove_file(path);
    }
    readers.wait();
    let tail = seen.tail.lock().map(|t| t.text()).unwrap_or_default();
    Ok(Finished {
        exit_code: status.and_then(|st| st.code()),
        signal: status.and_then(|st| st.signal()),
        timed_out: stopping.timed_out,
        interrupted: stopping.interrupted,
        stopped_leftovers,
        tail,
        duration: start.elapsed(),
    })
}

/// The command to spawn: its own process group, stdin piped when there is input, stdout and
/// stderr piped, and (Linux) SIGTERM when ralph dies.
fn command(program: &str, s: &Supervise<'_>) -> Command {
    let mut cmd = Command::new(program);
    cmd.args(s.argv.iter().skip(1))
        .current_dir(s.cwd)
        .process_group(0)
        .stdin(if s.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in s.env {
        cmd.env(k, v);
    }
    #[cfg(target_os = "linux")]
    // SAFETY: the closure runs between fork and exec and only makes one prctl(2) call, which is
    // async-signal-safe. If ralph itself is killed (even by SIGKILL), the agent gets SIGTERM
    // instead of running on unsupervised.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM, 0, 0, 0);
            Ok(())
        });
    }
    cmd
}

/// What the reader threads have seen of the output: its tail, and its activity.
struct Seen {
    tail: Arc<Mutex<Tail>>,
    activity: Arc<Mutex<Activity>>,
}

impl Default for Seen {
    fn default() -> Seen {
        Seen {
            tail: Arc::new(Mutex::new(Tail::new(TAIL_BYTES))),
            activity: Arc::new(Mutex::new(Activity::default())),
        }
    }
}

/// One reader thread per captured stream; each says when it has seen end of file.
struct Readers {
    done: mpsc::Receiver<()>,
    count: usize,
}

impl Readers {
    fn spawn(child: &mut std::process::Child, s: &Supervise<'_>, seen: &Seen) -> Readers {
        let (done_tx, done) = mpsc::channel::<()>();
        let spawn_reader = |src: Box<dyn Read + Send>, stream: Stream| {
            let sinks = Sinks {
                tail: seen.tail.clone(),
                activity: seen.activity.clone(),
                log: s.log.clone(),
                echo: s.echo,
                watch: s.watch.clone(),
                translate: s.translate.clone().filter(|_| stream == Stream::Out),
                raw: s.raw.clone().filter(|_| stream == Stream::Out),
            };
            let tx = done_tx.clone();
            std::thread::spawn(move || {
                pump(src, stream, sinks);
                let _ = tx.send(());
            });
        };
        let mut count = 0;
        if let Some(out) = child.stdout.take() {
            spawn_reader(Box::new(out), Stream::Out);
            count += 1;
        }
        if let Some(err) = child.stderr.take() {
            spawn_reader(Box::new(err), Stream::Err);
            count += 1;
        }
        Readers { done, count }
    }

    /// Readers end when every writer of the pipes is gone; a process that left the group and
    /// kept the pipe open must not hang the loop: at most 2 s for all of them.
    fn wait(self) {
        let read_deadline = Instant::now() + Duration::from_secs(2);
        for _ in 0..self.count {
            let left = read_deadline.saturating_duration_since(Instant::now());
            if self.done.recv_timeout(left).is_err() {
                break;
            }
        }
    }
}

/// Whether, why and since when ralph is stopping the process.
#[derive(Default)]
struct Stopping {
    timed_out: bool,
    interrupted: bool,
    /// When SIGTERM went to the group.
    term_at: Option<Instant>,
    killed: bool,
}

type ExitRx = mpsc::Receiver<std::io::Result<std::process::ExitStatus>>;

impl Stopping {
    /// Poll for the leader's exit every 20 ms, telling the watcher, until it exits (`None`:
    /// its waiting thread is gone), stopping it on an interrupt or the timeout.
    fn wait(
        &mut self,
        s: &mut Supervise<'_>,
        exit_rx: &ExitRx,
        pgid: i32,
        start: Instant,
        activity: &Mutex<Activity>,
    ) -> std::io::Result<Option<std::process::ExitStatus>> {
        loop {
            match exit_rx.recv_timeout(Duration::from_millis(20)) {
                Ok(Ok(st)) => return Ok(Some(st)),
                Ok(Err(source)) => return Err(source),
                Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(None),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            if let Some(w) = s.watcher.as_deref_mut()
                && self.term_at.is_none()
            {
                let a = activity.lock().map(|a| a.clone()).unwrap_or_default();
                w.tick(&a, start.elapsed());
            }
            self.poll(s, pgid, start);
        }
    }

    /// SIGTERM to the group on an interrupt or the timeout (once), SIGKILL a grace later.
    fn poll(&mut self, s: &mut Supervise<'_>, pgid: i32, start: Instant) {
        let stop = match self.term_at {
            None if s.interrupt.load(Ordering::SeqCst) => Some(Stop::Interrupt),
            None if start.elapsed() >= s.timeout => Some(Stop::Timeout),
            _ => None,
        };
        if let Some(why) = stop {
            self.interrupted = why == Stop::Interrupt;
            self.timed_out = why == Stop::Timeout;
            if let Some(w) = s.watcher.as_deref_mut() {
                w.stopping(why, start.elapsed(), s.grace);
            }
            signal_group(pgid, libc::SIGTERM);
            self.term_at = Some(Instant::now());
        }
        if let Some(t) = self.term_at
            && !self.killed
            && t.elapsed() >= s.grace
        {
            signal_group(pgid, libc::SIGKILL);
            self.killed = true;
        }
    }
}

/// The leader is gone; anything left in its group (a background server, a grandchild that
/// ignores SIGTERM) is stopped the same way (SIGTERM unless sent at `term_at`, the rest of
/// `grace`, SIGKILL, up to 1 s more), so nothing outlives the iteration. Whether any was left.
fn stop_group(pgid: i32, term_at: Option<Instant>, grace: Duration) -> bool {
    if !group_alive(pgid) {
        return false;
    }
    let t = term_at.unwrap_or_else(|| {
        signal_group(pgid, libc::SIGTERM);
        Instant::now()
    });
    while group_alive(pgid) && t.elapsed() < grace {
        std::thread::sleep(Duration::from_millis(10));
    }
    if group_alive(pgid) {
        signal_group(pgid, libc::SIGKILL);
        let k = Instant::now();
        while group_alive(pgid) && k.elapsed() < Duration::from_secs(1) {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, timeout_ms: u64) -> Finished {
        let never = AtomicBool::new(false);
        let argv = vec!["/bin/sh".to_string(), "-c".into(), script.into()];
        supervise(Supervise {
            argv: &argv,
            cwd: Path::new("."),
            env: &[],
            stdin: Some("input".into()),
            timeout: Duration::from_millis(timeout_ms),
            grace: Duration::from_millis(100),
            log: None,
            echo: false,
            interrupt: &never,
            watch: None,
            sweep_orphans: false,
            record: None,
            watcher: None,
            translate: None,
            raw: None,
        })
        .unwrap()
    }

    #[test]
    fn captures_exit_code_and_output() {
        let f = sh("cat; echo out; echo err >&2; exit 3", 5000);
        assert_eq!(f.exit_code, Some(3));
        // stdout and stderr are separate pipes: only the order within each is defined.
        let out_at = f.tail.find("out").unwrap();
        assert!(f.tail.find("input").unwrap() < out_at);
        assert!(f.tail.contains("err\n"));
        assert!(!f.timed_out && !f.success());
    }

    #[test]
    fn timeout_kills_a_process_that_ignores_sigterm() {
        let f = sh("trap '' TERM; while :; do sleep 0.05; done", 200);
        assert!(f.timed_out);
        assert_eq!(f.signal, Some(libc::SIGKILL));
    }

    #[test]
    fn missing_program_is_a_spawn_error() {
        let never = AtomicBool::new(false);
        let argv = vec!["/nonexistent/agent".to_string()];
        let err = supervise(Supervise {
            argv: &argv,
            cwd: Path::new("."),
            env: &[],
            stdin: None,
            timeout: Duration::from_secs(1),
            grace: Duration::from_millis(10),
            log: None,
            echo: false,
            interrupt: &never,
            watch: None,
            sweep_orphans: false,
            record: None,
            watcher: None,
            translate: None,
            raw: None,
        })
        .unwrap_err();
        assert!(err.to_string().contains("/nonexistent/agent"));
    }
}
