//! Helpers of the parallel-run tests (`run_parallel`, `parallel_kept`, `parallel_schedule`):
//! a project on its branch, a fake agent that records per story and attempt, spawning ralph
//! and waiting for it, and reading what it left in git.

use std::process::{Child, Stdio};

use super::{FAKE_PROBES, Project, prd, wait_for};

/// Install a fake `claude` that records per story and attempt (`$D/stdin-<id>-<attempt>`,
/// `$D/pwd-<id>-<attempt>`, `$D/env-<id>-<attempt>`), so agents running at once never share a
/// file; then `body`. `$a` is the attempt, `$M` the main tree.
pub(crate) fn agent(p: &Project, body: &str) {
    let script = format!(
        "#!/bin/sh\nD='{}'\n{FAKE_PROBES}M='{}'\nid=\"$RALPH_STORY_ID\"\na=\"$RALPH_ATTEMPT\"\nn=\"$RALPH_ITERATION\"\ncat > \"$D/stdin-$id-$a\"\npwd > \"$D/pwd-$id-$a\"\nenv | grep '^RALPH_' > \"$D/env-$id-$a\"\n{body}\n",
        p.fake.display(),
        p.root().display()
    );
    p.script("claude", &script);
}

/// Shell: commit everything.
pub(crate) const COMMIT: &str =
    r#"git add -A >/dev/null; git commit -qm "$id attempt $a" >/dev/null"#;
/// Shell: wait until the main tree's prd.json says story `$1` passes (i.e. it is merged).
pub(crate) const MERGED: &str = r#"merged() { while ! grep -q "\"id\": \"$1\"[^}]*\"passes\": true" "$M/prd.json"; do sleep 0.05; done; }"#;

/// A project on branch `ralph/par` (checked out) with these stories.
pub(crate) fn project(stories: &[String]) -> Project {
    let p = Project::new(&prd("ralph/par", stories));
    p.git(&["checkout", "-qb", "ralph/par"]);
    p
}

/// `ralph run <args>` in the project, stderr piped.
pub(crate) fn spawn(p: &Project, args: &[&str]) -> Child {
    p.run_command()
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Wait for the child (at most 60 s); its exit code and stderr.
pub(crate) fn finish(mut child: Child) -> (Option<i32>, String) {
    let mut code = None;
    wait_for(60, || {
        code = child.try_wait().unwrap().map(|s| s.code());
        code.is_some()
    });
    let mut err = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (code.flatten(), err)
}

/// The `nth` history record of story `id`.
pub(crate) fn record<'a>(
    h: &'a [serde_json::Value],
    id: &str,
    nth: usize,
) -> &'a serde_json::Value {
    h.iter()
        .filter(|r| r["story"] == id)
        .nth(nth)
        .unwrap_or_else(|| panic!("no record {nth} of {id}: {h:?}"))
}

/// Whether the main tree's prd.json says `id` passes; false while git rewrites the file
/// during a merge (it may be missing or half-written for a moment).
pub(crate) fn passes_now(p: &Project, id: &str) -> bool {
    let text = std::fs::read_to_string(p.root().join("prd.json")).unwrap_or_default();
    text.lines()
        .any(|l| l.contains(&format!("\"id\": \"{id}\"")) && l.contains("\"passes\": true"))
}

/// How many worktrees git lists (the main tree included).
pub(crate) fn worktrees(p: &Project) -> usize {
    p.git(&["worktree", "list", "--porcelain"])
        .lines()
        .filter(|l| l.starts_with("worktree "))
        .count()
}

/// The refs that contain `commit` (branches, attempt refs); empty: unreachable.
pub(crate) fn refs_containing(p: &Project, commit: &str) -> Vec<String> {
    p.git(&["for-each-ref", "--contains", commit, "--format=%(refname)"])
        .lines()
        .map(String::from)
        .collect()
}
