//! Unit tests of the branch plan, what counts as dirty, and the messages.

use super::error::list;
use super::*;

fn facts(current: Option<&str>, exists: bool, base: Option<&str>) -> Facts {
    Facts {
        current: current.map(String::from),
        exists,
        base: base.map(String::from),
    }
}

#[test]
fn the_plan_stays_switches_or_creates_from_the_base_or_head() {
    let b = "ralph/x";
    assert_eq!(plan(b, None, &facts(Some(b), true, None)), Plan::Stay);
    // On the branch, a baseBranch that does not exist does not matter.
    assert_eq!(
        plan(b, Some("gone"), &facts(Some(b), true, None)),
        Plan::Stay
    );
    assert_eq!(
        plan(b, None, &facts(Some("main"), true, None)),
        Plan::Switch
    );
    assert_eq!(
        plan(b, Some("gone"), &facts(None, true, None)),
        Plan::Switch
    );
    assert_eq!(
        plan(
            b,
            Some("dev"),
            &facts(Some("main"), false, Some("refs/remotes/origin/dev"))
        ),
        Plan::Create(Some("refs/remotes/origin/dev".into()))
    );
    assert_eq!(plan(b, None, &facts(None, false, None)), Plan::Create(None));
    assert_eq!(
        plan(b, Some("dev"), &facts(Some("main"), false, None)),
        Plan::BaseMissing
    );
}

#[test]
fn porcelain_v1_gives_codes_and_new_paths() {
    let out = b" M src/a b.rs\0R  new.rs\0old.rs\0?? notes.md\0UU both.rs\0A  added\0";
    let e = parse_status(out);
    let got: Vec<(&str, &str)> = e
        .iter()
        .map(|e| (e.code.as_str(), e.path.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (" M", "src/a b.rs"),
            ("R ", "new.rs"),
            ("??", "notes.md"),
            ("UU", "both.rs"),
            ("A ", "added")
        ]
    );
    assert!(parse_status(b"").is_empty());
    assert!(parse_status(b"x\0").is_empty());
}

#[test]
fn ralphs_own_files_are_not_the_persons_changes() {
    let own = Own {
        root: "scripts/ralph/".into(),
        prd: Some("scripts/ralph/prd.json".into()),
    };
    for p in [
        "scripts/ralph/prd.json",
        "scripts/ralph/progress.txt",
        "scripts/ralph/.ralph/lock",
        "scripts/ralph/archive/2026-01-02-login/prd.json",
        "scripts/ralph/archive/2026-01-02-login-2/progress.txt",
        "src/.ralph-tmp-123",
    ] {
        assert!(own.contains(p), "{p}");
    }
    for p in [
        "prd.json",
        "progress.txt",
        "scripts/ralph/notes.md",
        "scripts/ralph/archive/old/prd.json",
        "scripts/ralph/archive/2026-01-02-login/other.txt",
        "scripts/ralph/archive/2026-01-02-x/deep/prd.json",
        "scripts/ralph/archive/2026-1-02-login/prd.json",
        "scripts/ralph/archive/mod.rs",
        "scripts/ralph/.ralphrc",
    ] {
        assert!(!own.contains(p), "{p}");
    }
    let top = Own {
        root: String::new(),
        prd: Some("prd.json".into()),
    };
    assert!(top.contains("prd.json") && top.contains("progress.txt"));
    assert!(!top.contains("src/progress.txt"));
}

#[test]
fn lists_stop_at_ten_and_say_how_many_more() {
    let entries: Vec<Entry> = (0..13)
        .map(|i| Entry {
            code: "??".into(),
            path: format!("f{i}"),
        })
        .collect();
    let l = list(&entries);
    assert_eq!(l.lines().count(), 11);
    assert!(l.starts_with("  ?? f0\n"), "{l}");
    assert!(l.ends_with("and 3 more (`git status` lists them)"), "{l}");
    assert_eq!(list(&entries[..2]), "  ?? f0\n  ?? f1");
    assert_eq!(
        short(&entries),
        "13 uncommitted path(s): f0, f1, f2, f3, f4, f5, f6, f7, f8, f9 and 3 more"
    );
}

#[test]
fn a_dry_run_says_what_would_happen() {
    let dirty = vec![Entry {
        code: " M".into(),
        path: "a.rs".into(),
    }];
    let inside = |plan: Plan, dirty: Vec<Entry>| Inspection::Inside {
        branch: "ralph/x".into(),
        base: Some("dev".into()),
        current: Some("main".into()),
        unborn: false,
        plan,
        dirty,
    };
    assert_eq!(
        describe(
            &inside(Plan::Create(Some("refs/heads/dev".into())), vec![]),
            false
        ),
        ["branch: would create ralph/x from dev and switch to it"]
    );
    assert_eq!(
        describe(&inside(Plan::Create(None), vec![]), false),
        ["branch: would create ralph/x from HEAD (main) and switch to it"]
    );
    let new_repo = Inspection::Inside {
        branch: "ralph/x".into(),
        base: None,
        current: Some("main".into()),
        unborn: true,
        plan: Plan::Create(None),
        dirty: vec![],
    };
    assert_eq!(
        describe(&new_repo, false),
        ["branch: would create ralph/x in a repository with no commits yet and switch to it"]
    );
    assert_eq!(
        describe(&inside(Plan::Stay, vec![]), false),
        ["branch: ralph/x (checked out)"]
    );
    let d = describe(&inside(Plan::Switch, dirty.clone()), false);
    assert_eq!(d[0], "branch: would switch to ralph/x");
    assert!(
        d[1].contains("a.rs; the run would refuse to start"),
        "{d:?}"
    );
    let d = describe(&inside(Plan::BaseMissing, dirty), true);
    assert!(d[0].contains("baseBranch \"dev\" does not exist"), "{d:?}");
    assert!(
        d[1].ends_with("would start anyway (--allow-dirty)"),
        "{d:?}"
    );
    let d = describe(&Inspection::Outside("no git".into()), false);
    assert!(d[0].contains("nothing can be rolled back"), "{d:?}");
}
