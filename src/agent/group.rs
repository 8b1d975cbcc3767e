//! The agent's process group, recorded on disk while it runs, so that a ralph killed with
//! SIGKILL (no handler runs, the parent-death signal reaches only the group leader) does not
//! leave the agent's children working unsupervised: the next `ralph run` finds the record and
//! stops what is left of the group.
//!
//! Owns the record (`pgid start-time session`, one line), reading `/proc/<pid>/stat`, and the
//! identity rule: a process is stopped only if it is in the recorded group AND session and
//! started no earlier than the recorded leader; when the leader is still there its start time
//! must match exactly. A pid reused by an unrelated process therefore never matches (its start
//! time differs), and nothing outside the recorded session is touched. Linux only (`/proc`);
//! elsewhere nothing is recorded or stopped.

use std::path::Path;
use std::time::{Duration, Instant};

/// What `/proc/<pid>/stat` says about a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stat {
    pub state: u8,
    pub ppid: i32,
    pub pgrp: i32,
    pub session: i32,
    /// Start time in clock ticks since boot: with the pid, a process's identity.
    pub start: u64,
}

impl Stat {
    /// Exited (a zombie, or being reaped).
    pub(crate) fn gone(&self) -> bool {
        self.state == b'Z' || self.state == b'X'
    }
}

/// Parse one `/proc/<pid>/stat` line ("pid (comm) state ppid pgrp session … starttime …";
/// comm may hold spaces and parentheses, so fields are counted after the last ')').
pub(crate) fn parse_stat(line: &str) -> Option<Stat> {
    let rest = line.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    // Field 3 (state) is f[0]; field k is f[k - 3].
    Some(Stat {
        state: *f.first()?.as_bytes().first()?,
        ppid: f.get(1)?.parse().ok()?,
        pgrp: f.get(2)?.parse().ok()?,
        session: f.get(3)?.parse().ok()?,
        start: f.get(19)?.parse().ok()?,
    })
}

pub(crate) fn stat(pid: i32) -> Option<Stat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Every process, with its stat (empty without `/proc`).
pub(crate) fn all() -> Vec<(i32, Stat)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return vec![];
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| Some((pid, stat(pid)?)))
        .collect()
}

/// A recorded group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Record {
    pub pgid: i32,
    pub start: u64,
    pub session: i32,
}

impl Record {
    /// The record for a group whose leader is `pgid`, if it can be read.
    pub(crate) fn of(pgid: i32) -> Option<Record> {
        let s = stat(pgid)?;
        Some(Record {
            pgid,
            start: s.start,
            session: s.session,
        })
    }

    pub(crate) fn to_line(self) -> String {
        format!("{} {} {}\n", self.pgid, self.start, self.session)
    }

    pub(crate) fn parse(text: &str) -> Option<Record> {
        let mut it = text.split_whitespace();
        let r = Record {
            pgid: it.next()?.parse().ok()?,
            start: it.next()?.parse().ok()?,
            session: it.next()?.parse().ok()?,
        };
        (r.pgid > 1).then_some(r)
    }

    /// The live processes that belong to this group, by the identity rule in the module doc.
    pub(crate) fn members(self, procs: &[(i32, Stat)]) -> Vec<i32> {
        if let Some((_, leader)) = procs.iter().find(|(p, _)| *p == self.pgid)
            && leader.start != self.start
        {
            // The pid now names another process: its group is not ours.
            return vec![];
        }
        procs
            .iter()
            .filter(|(_, s)| {
                s.pgrp == self.pgid
                    && s.session == self.session
                    && s.start >= self.start
                    && !s.gone()
            })
            .map(|(p, _)| *p)
            .collect()
    }
}

fn signal(pids: &[i32], sig: i32) {
    for &p in pids {
        // SAFETY: kill(2) on a pid that passed the identity rule; no memory is touched.
        unsafe {
            libc::kill(p, sig);
        }
    }
}

/// Stop what is left of the group recorded in `path` (SIGTERM, `grace`, SIGKILL), then remove
/// the record. Returns how many processes were stopped.
pub(crate) fn stop_recorded(path: &Path, grace: Duration) -> usize {
    // fsutil::read: a FIFO put where the record was must not hang the next run.
    let Some(rec) = crate::fsutil::read(path)
        .ok()
        .and_then(|b| Record::parse(&String::from_utf8_lossy(&b)))
    else {
        let _ = std::fs::remove_file(path);
        return 0;
    };
    let members = rec.members(&all());
    if !members.is_empty() {
        signal(&members, libc::SIGTERM);
        let t = Instant::now();
        while t.elapsed() < grace && !rec.members(&all()).is_empty() {
            std::thread::sleep(Duration::from_millis(20));
        }
        signal(&rec.members(&all()), libc::SIGKILL);
    }
    let _ = std::fs::remove_file(path);
    members.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(pgrp: i32, session: i32, start: u64) -> Stat {
        Stat {
            state: b'S',
            ppid: 1,
            pgrp,
            session,
            start,
        }
    }

    #[test]
    fn stat_lines_parse_with_odd_command_names() {
        let line =
            "4242 (my (odd) agent) S 1 4242 100 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 987654 1 2";
        let s = parse_stat(line).unwrap();
        assert_eq!((s.ppid, s.pgrp, s.session, s.start), (1, 4242, 100, 987654));
        assert!(parse_stat("garbage").is_none());
        let me = stat(std::process::id() as i32).unwrap();
        assert!(!me.gone());
    }

    #[test]
    fn only_the_recorded_group_by_identity_is_a_member() {
        let rec = Record {
            pgid: 50,
            start: 1000,
            session: 7,
        };
        assert_eq!(Record::parse(&rec.to_line()), Some(rec));
        assert_eq!(Record::parse("junk"), None);
        // Leader gone; a grandchild in the group and session remains.
        let procs = vec![
            (51, st(50, 7, 1005)),
            (60, st(60, 7, 900)),
            (52, st(50, 8, 1010)),
        ];
        assert_eq!(rec.members(&procs), [51]);
        // Leader alive with the recorded start time: its group is ours.
        let procs = vec![(50, st(50, 7, 1000)), (51, st(50, 7, 1005))];
        assert_eq!(rec.members(&procs), [50, 51]);
        // The pid was reused by another process: nothing is ours.
        let procs = vec![(50, st(50, 7, 5000)), (51, st(50, 7, 5005))];
        assert!(rec.members(&procs).is_empty());
        // Older than the leader: not from this group.
        let procs = vec![(51, st(50, 7, 10))];
        assert!(rec.members(&procs).is_empty());
    }

    #[test]
    fn a_missing_or_junk_record_stops_nothing() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("agent-group");
        assert_eq!(stop_recorded(&p, Duration::ZERO), 0);
        std::fs::write(&p, "1 0 0\n").unwrap();
        assert_eq!(stop_recorded(&p, Duration::ZERO), 0);
        assert!(!p.exists());
    }
}
