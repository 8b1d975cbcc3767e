//! Conflict-aware scheduling (specs/parallel.md, section 3): two ready stories predicted to
//! touch the same file do not run at once; `--dry-run --parallel K` prints the waves and why a
//! story waits; `--conflict-threshold off` runs them at once (and one is sent back at the
//! merge). No timing: the stories of a pair are claimed in the same select.

use crate::support::parallel::{agent, finish, spawn};
use crate::support::{FLIP, Project, prd};

/// A story line (one per line, so the agent's sed finds it).
fn story(id: &str, priority: u32, title: &str, description: &str) -> String {
    format!(
        "{{\"id\": \"{id}\", \"title\": \"{title}\", \"description\": \"{description}\", \"acceptanceCriteria\": [\"done\"], \"priority\": {priority}, \"passes\": false, \"notes\": \"\"}}"
    )
}

/// A project with a greeting and a store module; G1 and G2 change the greeting's line (G1
/// names the file, G2 only the function), S the store's.
fn project() -> Project {
    let p = Project::new(&prd(
        "ralph/par",
        &[
            story(
                "G1",
                1,
                "Greet in French",
                "Make greeting() in src/greet.py return bonjour.",
            ),
            story(
                "G2",
                2,
                "Shout the greeting",
                "greeting() should return the greeting in capitals.",
            ),
            story(
                "S",
                3,
                "Store in sqlite",
                "The store's database file becomes data.sqlite.",
            ),
        ],
    ));
    p.git(&["checkout", "-qb", "ralph/par"]);
    std::fs::create_dir_all(p.root().join("src")).unwrap();
    std::fs::write(
        p.root().join("src/greet.py"),
        "def greeting():\n    return \"hello\"\n",
    )
    .unwrap();
    std::fs::write(
        p.root().join("src/store.py"),
        "def path():\n    return \"data.db\"\n",
    )
    .unwrap();
    p.commit("code");
    // Each story rewrites line 2 of its file (the greeting stories the same line).
    agent(
        &p,
        &format!(
            "case $id in G1) f=src/greet.py; l='    return \"bonjour\"' ;; G2) f=src/greet.py; l='    return \"HELLO\"' ;; S) f=src/store.py; l='    return \"data.sqlite\"' ;; esac\n\
             awk -v l=\"$l\" 'NR == 2 {{ print l; next }} {{ print }}' $f > $f.new && mv $f.new $f\n\
             {FLIP}\ngit add -A >/dev/null; git commit -qm \"$id\" >/dev/null"
        ),
    );
    p
}

fn send_backs(p: &Project) -> usize {
    p.history()
        .iter()
        .filter(|r| r["outcome"] == "merge-conflict")
        .count()
}

#[test]
fn the_dry_run_prints_the_waves_and_why_a_story_waits() {
    let p = project();
    let out = p
        .ralph()
        .args(["run", "--dry-run", "--parallel", "3", "--explain"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let plan: String = text
        .lines()
        .skip_while(|l| !l.starts_with("parallel:"))
        .take_while(|l| !l.starts_with("preflight") && !l.starts_with("---"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        plan,
        "parallel: up to 3 stories at once; a story waits while a claim's predicted files overlap its own by 0.50 or more (--conflict-threshold)\n\
         wave 1: G1, S\n\
         \x20 G2 waits for G1: both would touch src/greet.py (overlap 0.80)\n\
         wave 2: G2\n\
         wave 1's worktrees:\n\
         \x20 G1: .ralph/worktrees/G1 on ralph/par--G1\n\
         \x20 S: .ralph/worktrees/S on ralph/par--S\n\
         predicted files (named in the story, or ranked for it, with their weight):\n\
         \x20 G1: src/greet.py (named)\n\
         \x20 G2: src/greet.py (0.80)\n\
         \x20 S: src/store.py (0.80)\n"
    );
    let out = p
        .ralph()
        .args([
            "run",
            "--dry-run",
            "--parallel",
            "3",
            "--conflict-threshold",
            "off",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("conflict-awareness off") && text.contains("wave 1: G1, G2, S\n"),
        "{text}"
    );
    assert!(!text.contains("wave 2"), "{text}");
    // Nothing was written.
    assert!(!p.root().join(".ralph/worktrees").exists());
    assert!(p.git(&["branch", "--list", "ralph/par--*"]).is_empty());
}

#[test]
fn stories_predicted_to_touch_the_same_file_run_one_after_the_other() {
    let p = project();
    let (code, err) = finish(spawn(&p, &["--parallel", "3"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("G2 waits for G1: both would touch src/greet.py (overlap 0.80 ≥ 0.50"),
        "{err}"
    );
    assert_eq!(send_backs(&p), 0, "{err}");
    assert_eq!(
        p.git(&["show", "ralph/par:src/greet.py"]),
        "def greeting():\n    return \"HELLO\""
    );
    // G2 started only once G1 was merged: its base holds G1's edit.
    let g1 = p.history().iter().find(|r| r["story"] == "G1").unwrap()["head_after"].clone();
    let g2_base = p.history().iter().find(|r| r["story"] == "G2").unwrap()["base"].clone();
    p.git(&[
        "merge-base",
        "--is-ancestor",
        g1.as_str().unwrap(),
        g2_base.as_str().unwrap(),
    ]);
}

#[test]
fn with_the_threshold_off_they_run_at_once_and_one_is_sent_back() {
    let p = project();
    let (code, err) = finish(spawn(
        &p,
        &["--parallel", "3", "--conflict-threshold", "off"],
    ));
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("waits for"), "{err}");
    assert_eq!(send_backs(&p), 1, "{err}");
    // Also through the environment and ralph.toml (the flag beats both).
    let p = project();
    std::fs::write(
        p.root().join("ralph.toml"),
        "[run]\nconflict_threshold = \"off\"\n",
    )
    .unwrap();
    p.commit("toml");
    let (code, err) = finish(spawn(&p, &["--parallel", "3"]));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(send_backs(&p), 1, "{err}");
}
