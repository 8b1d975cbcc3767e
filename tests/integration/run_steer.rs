//! Steering a live run from another terminal (specs/loop.md, "Steering a live run";
//! specs/parallel.md): `ralph steer` reaches the next prompt, `ralph pause` holds new iterations
//! and claims until `ralph resume`, `ralph skip` holds a story and `ralph retry` releases it,
//! `ralph status` shows the run, in sequential and parallel runs; and every command without a
//! run. No test depends on timing: agents wait for marker files the test creates, and the run's
//! own lines (its stderr, read as it goes) say when it holds.

use std::path::PathBuf;
use std::process::{Child, Stdio};

use serde_json::Value;

use crate::support::normalize::normalize;
use crate::support::{FAKE_PROBES, FLIP, Project, prd, story, wait_for};

/// A fake `claude` recording its prompt per story and attempt (`$D/stdin-<id>-<attempt>`, whole
/// once it exists), then
/// waiting for `$D/go-<id>` (or `$D/go-all`), then marking its story passing, committing and
/// saying so.
fn agent(p: &Project) {
    let script = format!(
        "#!/bin/sh\nD='{}'\n{FAKE_PROBES}id=\"$RALPH_STORY_ID\"\na=\"$RALPH_ATTEMPT\"\n\
         cat > \"$D/.stdin-$id-$a\"; mv \"$D/.stdin-$id-$a\" \"$D/stdin-$id-$a\"\n\
         while [ ! -f \"$D/go-$id\" ] && [ ! -f \"$D/go-all\" ]; do sleep 0.05; done\n\
         echo $id > $id.txt\n{FLIP}\ngit add -A >/dev/null; git commit -qm \"$id\" >/dev/null\n\
         echo \"STORY COMPLETE: $id\"\n",
        p.fake.display()
    );
    p.script("claude", &script);
}

/// A running `ralph run` with its stderr in a file the test reads as it grows.
struct Live {
    child: Child,
    err: PathBuf,
    p: Project,
}

impl Live {
    /// `ralph status` of the live run, whole (exit 0), for an exact comparison: times, the
    /// run's pid and id, durations as placeholders.
    fn status(&self) -> String {
        let (code, text, err) = self.ralph(&["status"]);
        assert_eq!(code, 0, "{err}");
        normalize(&text, &self.p.root())
    }

    /// `ralph run <args>` on `ids` (in that priority order), on branch `ralph/steer`.
    fn start(ids: &[&str], args: &[&str]) -> Live {
        Live::start_with(ids, args, |_| {})
    }

    /// [`Live::start`], after `setup` prepared the project (files it writes are committed).
    fn start_with(ids: &[&str], args: &[&str], setup: impl FnOnce(&Project)) -> Live {
        let stories: Vec<String> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| story(id, i as u32 + 1, &[]))
            .collect();
        let p = Project::new(&prd("ralph/steer", &stories));
        p.git(&["checkout", "-qb", "ralph/steer"]);
        agent(&p);
        setup(&p);
        if !p.git(&["status", "--porcelain"]).is_empty() {
            p.commit("setup");
        }
        let err = p.dir.path().join("run.err");
        // `ralph run` with no sleep between iterations unless the test asks for one.
        let sleep: &[&str] = if args.contains(&"--sleep") {
            &[]
        } else {
            &["--sleep", "0"]
        };
        let child = p
            .command()
            .args(["run", "--grace", "0.3"])
            .args(sleep)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::from(std::fs::File::create(&err).unwrap()))
            .spawn()
            .unwrap();
        Live { child, err, p }
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.err).unwrap_or_default()
    }

    /// Wait until the run has printed `needle`.
    fn wait_err(&self, needle: &str) {
        let mut seen = String::new();
        let found = (0..1500).any(|_| {
            seen = self.stderr();
            seen.contains(needle) || {
                std::thread::sleep(std::time::Duration::from_millis(20));
                false
            }
        });
        assert!(found, "the run never printed {needle:?}:\n{seen}");
    }

    fn go(&self, id: &str) {
        std::fs::write(self.p.fake.join(format!("go-{id}")), "").unwrap();
    }

    fn started(&self, id: &str, attempt: u32) -> bool {
        self.p.fake.join(format!("stdin-{id}-{attempt}")).exists()
    }

    fn prompt(&self, id: &str, attempt: u32) -> String {
        std::fs::read_to_string(self.p.fake.join(format!("stdin-{id}-{attempt}"))).unwrap()
    }

    /// `ralph <args>` in the project: exit code, stdout, stderr.
    fn ralph(&self, args: &[&str]) -> (i32, String, String) {
        crate::support::output(self.p.ralph().args(args))
    }

    /// `ralph <args> --json`: exit code and the one envelope, checked against the schema.
    fn json(&self, args: &[&str]) -> (i32, Value) {
        let mut args = args.to_vec();
        args.push("--json");
        let (code, out, err) = self.ralph(&args);
        (code, envelope(&out, &err))
    }

    /// `ralph status --json`'s `data.run`.
    fn run_state(&self) -> Value {
        let (code, v) = self.json(&["status"]);
        assert_eq!(code, 0, "{v:#}");
        v["data"]["run"].clone()
    }

    /// Wait until the published state satisfies `cond` (the run publishes a change within a
    /// tenth of a second): that state.
    fn wait_state(&self, cond: impl Fn(&Value) -> bool) -> Value {
        let mut state = Value::Null;
        wait_for(10, || {
            state = self.run_state();
            cond(&state)
        });
        state
    }

    /// Wait for the run to end: its exit code and stderr.
    fn finish(&mut self) -> (Option<i32>, String) {
        let mut code = None;
        wait_for(60, || {
            code = self.child.try_wait().unwrap().map(|s| s.code());
            code.is_some()
        });
        (code.flatten(), self.stderr())
    }
}

impl Drop for Live {
    /// A failed test must not leave a run and its agents behind: every agent may go, ralph
    /// gets SIGTERM.
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = std::fs::write(self.p.fake.join("go-all"), "");
            // SAFETY: a signal to the child this test spawned.
            unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
            let _ = self.child.wait();
        }
    }
}

/// The one envelope on stdout, valid against schemas/envelope.schema.json.
fn envelope(out: &str, err: &str) -> Value {
    assert_eq!(out.lines().count(), 1, "one line:\n{out}\n{err}");
    let v: Value = serde_json::from_str(out).unwrap();
    let problems: Vec<String> = crate::json_envelope::schema()
        .iter_errors(&v)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(problems.is_empty(), "{problems:#?}\n{v:#}");
    v
}

#[test]
fn sequential_a_steer_reaches_the_next_prompts_history_status_and_show() {
    let mut run = Live::start(&["A", "B"], &[]);
    wait_for(30, || run.started("A", 1));
    let (code, out, err) = run.ralph(&["steer", "use the new API client"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "steering note n1 for every story: it goes into every prompt from the next one until the run ends (agents running now do not see it)\n"
    );
    let (code, v) = run.json(&["steer", "--story", "B", "B only: keep the schema"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["command"], "steer");
    assert_eq!(v["data"]["status"], "applied");
    assert_eq!(v["data"]["story"], "B");
    assert_eq!(run.ralph(&["steer", "--story", "A", "A only"]).0, 0);
    // The notes are the run's state.
    let state = run.wait_state(|s| s["claims"][0]["state"] == "running");
    assert_eq!(state["steering"].as_array().unwrap().len(), 3);
    assert_eq!(state["claims"][0]["story"], "A");
    insta::assert_snapshot!("sequential_steered", run.status());
    // `ralph context` shows what the agent gets, the live run's notes for the story included.
    let (code, prompt, _) = run.ralph(&["context", "B"]);
    assert_eq!(code, 0);
    assert!(prompt.contains("  > B only: keep the schema\n"), "{prompt}");
    assert!(!prompt.contains("A only"));
    run.go("A");
    wait_for(30, || run.started("B", 1));
    let b = run.prompt("B", 1);
    let at = b
        .find("\n# Steering from the person running ralph")
        .expect(&b);
    assert!(at > b.find("# Your story: B").unwrap());
    assert!(b.contains("- For every story (") && b.contains("  > use the new API client\n"));
    assert!(b.contains("- For this story (") && b.contains("  > B only: keep the schema\n"));
    assert!(!b.contains("A only"), "another story's note");
    assert!(
        !run.prompt("A", 1).contains("# Steering"),
        "given after A started"
    );
    run.go("B");
    let (code, err) = run.finish();
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("ralph: steering note n1 for every story"),
        "{err}"
    );
    assert!(err.contains("ralph:   > use the new API client"), "{err}");
    let p_root = run.p.root();
    let control: Vec<Value> = std::fs::read_to_string(p_root.join(".ralph/history.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &Value| v.get("control").is_some())
        .collect();
    assert_eq!(control.len(), 3, "{control:#?}");
    assert_eq!(control[1]["control"], "steer");
    assert_eq!(control[1]["story"], "B");
    assert_eq!(control[1]["text"], "B only: keep the schema");
    // ralph show: B got both notes; A its own only (the one for all came after A's attempt).
    let show = |id: &str| {
        let (_, out, err) =
            crate::support::output(crate::support::ralph_in(&p_root).args(["show", id, "--json"]));
        envelope(&out, &err)["data"]["steering"].clone()
    };
    let b = show("B");
    assert_eq!(b.as_array().unwrap().len(), 2, "{b:#}");
    assert_eq!(b[0]["this_story"], false);
    assert_eq!(b[1]["text"], "B only: keep the schema");
    let a = show("A");
    assert_eq!(a.as_array().unwrap().len(), 1, "{a:#}");
    assert_eq!(a[0]["text"], "A only");
    // The run is over: nothing is live any more.
    let (code, _, err) = crate::support::output(crate::support::ralph_in(&p_root).arg("pause"));
    assert_eq!(code, 1);
    assert!(err.contains("no ralph run is active"), "{err}");
}

#[test]
fn sequential_pause_holds_the_next_iteration_until_resume() {
    let mut run = Live::start(&["A", "B"], &[]);
    wait_for(30, || run.started("A", 1));
    let (code, out, _) = run.ralph(&["pause"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "paused: A (attempt 1) finishes, then no new iteration starts until `ralph resume`\n"
    );
    let (code, v) = run.json(&["pause"]);
    assert_eq!(code, 0);
    assert_eq!(v["data"]["status"], "unchanged");
    run.go("A");
    run.go("B");
    // The loop reached its next iteration and holds there: B would be next, and never started.
    run.wait_err("paused before iteration 2 (B is next): waiting for `ralph resume`");
    assert!(run.p.passes("A"));
    assert!(!run.started("B", 1));
    // Held and settled: nothing claimed, no wait left (the zero sleep before it is over).
    let state = run.wait_state(|s| s["claims"] == serde_json::json!([]) && s["wait"].is_null());
    assert_eq!(state["paused"], true);
    insta::assert_snapshot!("sequential_paused", run.status());
    let (code, v) = run.json(&["resume"]);
    assert_eq!(code, 0, "{v:#}");
    assert!(
        v["data"]["message"]
            .as_str()
            .unwrap()
            .starts_with("resumed after ")
    );
    let (code, err) = run.finish();
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("ralph: paused: A (attempt 1) finishes"),
        "{err}"
    );
}

#[test]
fn sequential_a_pause_during_the_sleep_holds_the_next_iteration() {
    let mut run = Live::start(&["A", "B"], &["--sleep", "4"]);
    wait_for(30, || run.started("A", 1));
    run.go("A");
    run.go("B");
    let state = run.wait_state(|s| s["wait"]["why"] == "sleep");
    assert!(state["wait"]["until"].is_string());
    insta::assert_snapshot!("sequential_sleeping", run.status());
    let (code, out, _) = run.ralph(&["pause"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "paused: no new iteration starts until `ralph resume`\n"
    );
    run.wait_err("paused before iteration 2 (B is next): waiting for `ralph resume`");
    assert!(!run.started("B", 1));
    run.wait_state(|s| s["wait"].is_null());
    assert_eq!(run.ralph(&["resume"]).0, 0);
    assert_eq!(run.finish().0, Some(0));
    assert!(run.started("B", 1));
}

#[test]
fn sequential_a_pause_during_a_rate_limit_wait_holds_the_retry() {
    let mut run = Live::start_with(&["A"], &[], |p| {
        // The first run of the agent hits a usage limit that resets in 4 seconds.
        let script = p.bin.join("claude");
        let text = std::fs::read_to_string(&script).unwrap().replacen(
            "id=",
            "if [ ! -f \"$D/limited\" ]; then touch \"$D/limited\"; echo 'usage limit reached, try again in 4 seconds'; exit 1; fi\nid=",
            1,
        );
        std::fs::write(&script, text).unwrap();
    });
    run.go("A");
    let state = run.wait_state(|s| s["wait"]["why"] == "rate-limit");
    assert_eq!(state["claims"], serde_json::json!([]));
    insta::assert_snapshot!("sequential_rate_limited", run.status());
    assert_eq!(run.ralph(&["pause"]).0, 0);
    // The wait ends; the retry does not start.
    run.wait_err("paused before iteration 1 (A is next): waiting for `ralph resume`");
    assert!(!run.started("A", 1));
    assert_eq!(run.ralph(&["resume"]).0, 0);
    let (code, err) = run.finish();
    assert_eq!(code, Some(0), "{err}");
    assert!(run.started("A", 1));
}

#[test]
fn sequential_skip_holds_a_story_and_retry_releases_it() {
    let mut run = Live::start(&["A", "B", "C"], &[]);
    wait_for(30, || run.started("A", 1));
    let (code, out, _) = run.ralph(&["skip", "B"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "B is held for the rest of the run; `ralph retry B` releases it\n"
    );
    assert_eq!(run.run_state()["held"][0]["story"], "B");
    assert_eq!(run.ralph(&["pause"]).0, 0);
    run.go("A");
    // Held: C comes next although B has the higher priority.
    run.wait_err("paused before iteration 2 (C is next)");
    run.wait_err("ralph: skipping B for the rest of this run: requested with `ralph skip`");
    run.wait_state(|s| s["claims"] == serde_json::json!([]) && s["wait"].is_null());
    insta::assert_snapshot!("sequential_held", run.status());
    let (code, v) = run.json(&["retry", "B"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["data"]["status"], "applied");
    let (code, v) = run.json(&["retry", "C"]);
    assert_eq!(code, 0);
    assert_eq!(v["data"]["status"], "unchanged");
    assert_eq!(
        v["data"]["message"],
        "C is not held in this run; nothing to release"
    );
    assert_eq!(run.ralph(&["resume"]).0, 0);
    // Released: B runs again, before C.
    wait_for(30, || run.started("B", 1));
    assert!(!run.started("C", 1));
    run.go("B");
    run.go("C");
    let (code, err) = run.finish();
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn sequential_a_skipped_story_stays_held_to_the_end() {
    let mut run = Live::start(&["A", "B"], &[]);
    wait_for(30, || run.started("A", 1));
    assert_eq!(run.ralph(&["skip", "B"]).0, 0);
    run.go("A");
    run.go("B");
    let (code, err) = run.finish();
    assert_eq!(code, Some(4), "nothing else is ready: {err}");
    assert!(!run.started("B", 1));
    assert!(
        err.contains("  B: skipped: requested with `ralph skip`"),
        "{err}"
    );
}

#[test]
fn requests_are_refused_with_the_reason_and_change_nothing() {
    let mut run = Live::start(&["A", "B"], &[]);
    wait_for(30, || run.started("A", 1));
    let (code, _, err) = run.ralph(&["skip", "Bx"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("refused `ralph skip`: no story Bx in "),
        "{err}"
    );
    assert!(err.contains("(did you mean B?)"), "{err}");
    let (code, v) = run.json(&["steer", "   "]);
    assert_eq!(code, 1);
    assert_eq!(v["errors"][0]["code"], "refused");
    assert!(
        v["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("needs text")
    );
    let (code, v) = run.json(&["retry", "nope"]);
    assert_eq!(code, 1);
    assert_eq!(v["errors"][0]["story"], "nope");
    let state = run.run_state();
    assert_eq!(state["held"], serde_json::json!([]));
    assert_eq!(state["steering"], serde_json::json!([]));
    run.go("A");
    run.go("B");
    assert_eq!(run.finish().0, Some(0));
}

#[test]
fn every_command_without_a_run_exits_1_with_the_reason() {
    let p = Project::new(&prd("ralph/steer", &[story("A", 1, &[])]));
    let commands: [&[&str]; 5] = [
        &["pause"],
        &["resume"],
        &["steer", "a note"],
        &["skip", "A"],
        &["retry", "A"],
    ];
    for args in commands {
        let (code, out, err) = crate::support::output(p.ralph().args(args));
        assert_eq!(code, 1, "ralph {args:?}");
        assert!(out.is_empty());
        assert!(
            err.starts_with(
                "error: no ralph run is active in . (nothing published ./.ralph/control/run.json)"
            ),
            "{err}"
        );
        let mut json = args.to_vec();
        json.push("--json");
        let (code, out, err) = crate::support::output(p.ralph().args(&json));
        assert_eq!(code, 1);
        assert!(err.is_empty(), "{err}");
        let v = envelope(&out, &err);
        assert_eq!(v["command"], args[0]);
        assert_eq!(v["data"], Value::Null);
        assert_eq!(v["errors"][0]["code"], "no-run");
        assert_eq!(v["errors"][0]["file"], "./.ralph/control/run.json");
    }
    // A state left by a run that was killed: its pid is gone.
    let control = p.root().join(".ralph/control");
    std::fs::create_dir_all(&control).unwrap();
    let mut state: Value = serde_json::from_str(STALE).unwrap();
    state["pid"] = serde_json::json!(99_999_999u32);
    std::fs::write(control.join("run.json"), state.to_string()).unwrap();
    let (code, _, err) = crate::support::output(p.ralph().args(["steer", "x"]));
    assert_eq!(code, 1);
    assert!(
        err.contains("run 20261126T100000-1 (pid 99999999) is no longer running"),
        "{err}"
    );
    // ralph status says so and shows no run.
    let (code, out, err) = crate::support::output(p.ralph().args(["status", "--json"]));
    assert_eq!(code, 0);
    assert_eq!(envelope(&out, &err)["data"]["run"], Value::Null);
    assert!(err.contains("is no longer running"), "{err}");
}

const STALE: &str = r#"{"schema_version":1,"run_id":"20261126T100000-1","pid":1,"pid_start":null,
"prd":"prd.json","started":"2026-11-26T10:00:00Z","updated":"2026-11-26T10:00:00Z","parallel":1,
"branch":null,"paused":false,"paused_since":null,"wait":null,"iteration":0,"limit":10,
"claims":[],"held":[],"steering":[]}"#;

#[test]
fn parallel_pause_holds_claims_while_running_agents_finish_and_a_steer_reaches_the_next_prompt() {
    let mut run = Live::start(&["A", "B", "C"], &["--parallel", "2"]);
    wait_for(30, || run.started("A", 1) && run.started("B", 1));
    let state = run.wait_state(|s| s["claims"][1]["state"] == "running");
    assert_eq!(state["parallel"], 2);
    let claims: Vec<(&str, &str)> = state["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["story"].as_str().unwrap(), c["state"].as_str().unwrap()))
        .collect();
    assert_eq!(claims, [("A", "running"), ("B", "running")]);
    let (code, out, _) = run.ralph(&["pause"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "paused: no new claim or attempt starts until `ralph resume`; the running agents (A, B) finish and queued stories still merge\n"
    );
    assert_eq!(run.ralph(&["steer", "note for all"]).0, 0);
    assert_eq!(run.ralph(&["steer", "--story", "C", "C only"]).0, 0);
    insta::assert_snapshot!("parallel_paused", run.status());
    run.go("A");
    run.go("B");
    run.go("C");
    // Both merged and nothing is claimed: C would have been, but the run holds.
    run.wait_err("paused with nothing running: waiting for `ralph resume`");
    assert!(run.p.passes("A") && run.p.passes("B"));
    assert!(!run.started("C", 1));
    run.wait_state(|s| s["claims"] == serde_json::json!([]));
    let (code, v) = run.json(&["resume"]);
    assert_eq!(code, 0, "{v:#}");
    let (code, err) = run.finish();
    assert_eq!(code, Some(0), "{err}");
    let c = run.prompt("C", 1);
    assert!(
        c.contains("  > note for all\n") && c.contains("  > C only\n"),
        "{c}"
    );
    assert!(!run.prompt("A", 1).contains("# Steering"));
}

#[test]
fn parallel_skip_holds_an_unclaimed_story_and_retry_releases_it() {
    let mut run = Live::start(&["A", "B", "C"], &["--parallel", "2"]);
    wait_for(30, || run.started("A", 1) && run.started("B", 1));
    let (code, v) = run.json(&["skip", "C"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(
        v["data"]["message"],
        "C is held for the rest of the run; `ralph retry C` releases it"
    );
    run.wait_err("ralph: skipping C for the rest of this run: requested with `ralph skip`");
    // A's slot frees: C is held, so it is not claimed.
    run.go("A");
    wait_for(30, || run.p.passes("A"));
    assert_eq!(run.ralph(&["pause"]).0, 0);
    run.go("B");
    run.go("C");
    run.wait_err("paused with nothing running: waiting for `ralph resume`");
    assert!(!run.started("C", 1));
    let state = run.run_state();
    assert_eq!(state["held"][0]["story"], "C");
    assert_eq!(state["held"][0]["reason"], "requested with `ralph skip`");
    run.wait_state(|s| s["claims"] == serde_json::json!([]) && s["wait"].is_null());
    insta::assert_snapshot!("parallel_held", run.status());
    assert_eq!(run.ralph(&["retry", "C"]).0, 0);
    assert_eq!(run.ralph(&["resume"]).0, 0);
    let (code, err) = run.finish();
    assert_eq!(code, Some(0), "{err}");
    assert!(run.started("C", 1));
    assert!(run.p.passes("C"));
}

#[test]
fn parallel_status_shows_a_story_merging() {
    // The re-verify in the main tree (not the gate in a worktree) waits for the test's go.
    let mut run = Live::start_with(
        &["A", "C"],
        &["--parallel", "2", "--verify", "sh check.sh"],
        |p| {
            let check = format!(
                "if [ \"$(pwd -P)\" = \"$(cd '{}' && pwd -P)\" ]; then touch '{}/merging'; while [ ! -f '{}/go-merge' ]; do sleep 0.05; done; fi\n",
                p.root().display(),
                p.fake.display(),
                p.fake.display()
            );
            std::fs::write(p.root().join("check.sh"), check).unwrap();
        },
    );
    wait_for(30, || run.started("A", 1) && run.started("C", 1));
    // C merges first (a fast-forward, not re-verified); A's merge on top of it is.
    run.go("C");
    wait_for(30, || run.p.passes("C"));
    run.go("A");
    wait_for(30, || run.p.fake.join("merging").exists());
    let state = run.wait_state(|s| s["claims"][0]["state"] == "merging");
    assert_eq!(state["claims"][0]["story"], "A");
    assert_eq!(state["claims"].as_array().unwrap().len(), 1, "{state:#}");
    insta::assert_snapshot!("parallel_merging", run.status());
    run.go("merge");
    let (code, err) = run.finish();
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn views_read_again_while_a_live_run_has_prd_json_cut_short() {
    // As git leaves it for a moment when a merge rewrites prd.json in place.
    let mut run = Live::start(&["A"], &[]);
    wait_for(30, || run.started("A", 1));
    // `ralph <args>` with prd.json cut to its first `keep` bytes, whole again 300 ms later.
    let cut_short = |args: &[&str], keep: fn(usize) -> usize| {
        let path = run.p.root().join("prd.json");
        let whole = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, &whole[..keep(whole.len())]).unwrap();
        let restore = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            std::fs::write(&path, whole).unwrap();
        });
        let got = run.ralph(args);
        restore.join().unwrap();
        got
    };
    let (code, out, err) = cut_short(&["status"], |_| 0);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("0/1 done"), "{out}");
    for args in [&["show", "A"][..], &["context", "A"]] {
        let (code, _, err) = cut_short(args, |n| n / 2);
        assert_eq!(code, 0, "{args:?}: {err}");
    }
    run.go("A");
    let (code, err) = run.finish();
    assert_eq!(code, Some(0), "{err}");
}
