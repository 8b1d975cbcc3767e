use super::*;

/// A repo on branch `main` with f.txt and g.txt committed, and a story worktree `wt` on
/// `main--A`.
fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("p");
    std::fs::create_dir_all(&root).unwrap();
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["config", "user.email", "t@example.com"],
        &["config", "user.name", "t"],
        &["config", "commit.gpgsign", "false"],
    ] {
        git(&root, args).unwrap();
    }
    std::fs::write(root.join("f.txt"), "1\n").unwrap();
    std::fs::write(root.join("g.txt"), "g\n").unwrap();
    std::fs::write(root.join(".gitignore"), ".ralph/\nbuild/\n").unwrap();
    git(&root, &["add", "-A"]).unwrap();
    git(&root, &["commit", "-qm", "init"]).unwrap();
    let wt = root.join(".ralph/worktrees/A");
    std::fs::create_dir_all(wt.parent().unwrap()).unwrap();
    git(
        &root,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "main--A",
            &wt.to_string_lossy(),
        ],
    )
    .unwrap();
    (d, root, wt)
}

fn show(root: &Path, spec: &str) -> String {
    git(root, &["show", spec]).unwrap()
}

#[test]
fn a_clean_worktree_needs_no_save() {
    let (_d, root, wt) = setup();
    let h = head(&wt).unwrap();
    let s = save(&root, &wt, "main--A", "m").unwrap();
    assert_eq!(s.head, h);
    assert_eq!(s.files, 0);
    assert_eq!(s.kept_at, "refs/heads/main--A");
}

#[test]
fn uncommitted_files_become_a_commit_on_the_story_branch() {
    let (_d, root, wt) = setup();
    let before = head(&wt).unwrap();
    std::fs::write(wt.join("f.txt"), "2\n").unwrap();
    std::fs::write(wt.join("new file.txt"), "n\n").unwrap();
    std::fs::remove_file(wt.join("g.txt")).unwrap();
    std::fs::create_dir_all(wt.join("build")).unwrap();
    std::fs::write(wt.join("build/out"), "ignored").unwrap();
    let s = save(&root, &wt, "main--A", "ralph: left").unwrap();
    assert_eq!(s.files, 3);
    assert_eq!(s.kept_at, "refs/heads/main--A");
    assert_eq!(resolve(&root, "refs/heads/main--A").unwrap(), s.head);
    assert_eq!(
        git(&root, &["rev-parse", &format!("{}^", s.head)]).unwrap(),
        before
    );
    assert_eq!(show(&root, "main--A:f.txt"), "2");
    assert_eq!(show(&root, "main--A:new file.txt"), "n");
    assert!(git(&root, &["show", "main--A:g.txt"]).is_err());
    assert!(git(&root, &["show", "main--A:build/out"]).is_err());
    // The worktree is consistent again: nothing left to save.
    assert!(dirty_paths(&wt).unwrap().is_empty());
    assert_eq!(save(&root, &wt, "main--A", "m").unwrap().files, 0);
}

#[test]
fn a_half_done_merge_is_kept_whole_under_an_attempt_ref() {
    let (_d, root, wt) = setup();
    // main and the story branch both change f.txt; the agent's merge stops on the conflict.
    std::fs::write(root.join("f.txt"), "main\n").unwrap();
    git(&root, &["commit", "-qam", "main"]).unwrap();
    std::fs::write(wt.join("f.txt"), "story\n").unwrap();
    git(&wt, &["commit", "-qam", "story"]).unwrap();
    let story_head = head(&wt).unwrap();
    assert!(git(&wt, &["merge", "-q", "main"]).is_err());
    std::fs::write(wt.join("resolving.txt"), "half\n").unwrap();
    let s = save(&root, &wt, "main--A", "ralph: left").unwrap();
    assert_eq!(s.kept_at, "refs/ralph/attempts/main--A/1");
    // The branch did not move; the attempt holds HEAD plus the files as they were.
    assert_eq!(resolve(&root, "refs/heads/main--A").unwrap(), story_head);
    let f = show(&root, "refs/ralph/attempts/main--A/1:f.txt");
    assert!(
        f.contains("<<<<<<<") && f.contains("story") && f.contains("main"),
        "{f}"
    );
    assert_eq!(
        show(&root, "refs/ralph/attempts/main--A/1:resolving.txt"),
        "half"
    );
    // The worktree itself was not touched: the merge is still there.
    assert!(git_ok(&wt, &["rev-parse", "-q", "--verify", "MERGE_HEAD"]));
}

#[test]
fn a_detached_head_is_kept_under_an_attempt_ref() {
    let (_d, root, wt) = setup();
    git(&wt, &["checkout", "-q", "--detach"]).unwrap();
    std::fs::write(wt.join("d.txt"), "d\n").unwrap();
    git(&wt, &["add", "-A"]).unwrap();
    git(&wt, &["commit", "-qm", "detached work"]).unwrap();
    let h = head(&wt).unwrap();
    let s = save(&root, &wt, "main--A", "m").unwrap();
    assert_eq!(s.files, 0);
    assert_eq!(s.head, h);
    assert_eq!(resolve(&root, &s.kept_at).unwrap(), h);
}

#[test]
fn attempt_refs_are_never_overwritten() {
    let (_d, root, _wt) = setup();
    let a = head(&root).unwrap();
    std::fs::write(root.join("f.txt"), "x\n").unwrap();
    git(&root, &["commit", "-qam", "x"]).unwrap();
    let b = head(&root).unwrap();
    assert_eq!(
        keep_attempt(&root, "main--A", &a).unwrap(),
        "refs/ralph/attempts/main--A/1"
    );
    assert_eq!(
        keep_attempt(&root, "main--A", &b).unwrap(),
        "refs/ralph/attempts/main--A/2"
    );
    // The same commit again: the ref that has it.
    assert_eq!(
        keep_attempt(&root, "main--A", &a).unwrap(),
        "refs/ralph/attempts/main--A/1"
    );
    let got: Vec<u32> = attempts(&root, "main--A").iter().map(|a| a.0).collect();
    assert_eq!(got, [1, 2]);
}

#[test]
fn only_ralphs_worktrees_are_listed_and_removed() {
    let (d, root, wt) = setup();
    // A person's own worktree, elsewhere, and one whose folder is gone for now.
    let mine = d.path().join("mine");
    git(
        &root,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "mine",
            &mine.to_string_lossy(),
        ],
    )
    .unwrap();
    std::fs::write(mine.join("wip.txt"), "mine").unwrap();
    let away = d.path().join("away");
    git(
        &root,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "away",
            &away.to_string_lossy(),
        ],
    )
    .unwrap();
    std::fs::remove_dir_all(&away).unwrap();
    // A folder under .ralph/worktrees that git does not know.
    std::fs::create_dir_all(root.join(".ralph/worktrees/stray")).unwrap();
    let dir = root.join(".ralph/worktrees");
    let listed = ralph_worktrees(&root, &dir);
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert_eq!(listed[0].path, wt);
    assert!(listed[0].registered);
    assert_eq!(listed[0].branch.as_deref(), Some("refs/heads/main--A"));
    assert!(!listed[1].registered);
    // A folder that is no worktree (its parent, say) is neither saved nor removed.
    let dir_err = save(&root, &dir, "main--A", "m").unwrap_err().to_string();
    assert!(dir_err.contains("is not a worktree"), "{dir_err}");
    assert!(remove_worktree(&root, &dir).is_err());
    assert!(remove_worktree(&root, &dir.join("stray")).is_err());
    assert!(dir.join("stray").exists() && wt.exists());
    remove_worktree(&root, &wt).unwrap();
    assert!(!wt.exists());
    let all = git(&root, &["worktree", "list", "--porcelain"]).unwrap();
    assert!(!all.contains("worktrees/A"), "{all}");
    assert!(all.contains("mine") && all.contains("away"), "{all}");
    assert_eq!(
        std::fs::read_to_string(mine.join("wip.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn kept_refs_are_listed_with_their_story_and_what_the_branch_lacks() {
    let (_d, root, wt) = setup();
    std::fs::write(wt.join("a.txt"), "a\n").unwrap();
    git(&wt, &["add", "-A"]).unwrap();
    git(&wt, &["commit", "-qm", "A's work"]).unwrap();
    let a = head(&wt).unwrap();
    keep_attempt(&root, "main--A", &head(&root).unwrap()).unwrap();
    let keys = [("A".to_string(), "A".to_string())].into();
    let mut got = list(&root, "main", &keys);
    got.sort_by(|x, y| x.name.cmp(&y.name));
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].name, "refs/heads/main--A");
    assert_eq!(got[0].kind, Kind::StoryBranch);
    assert_eq!((got[0].ahead, got[0].commit.as_str()), (1, a.as_str()));
    assert_eq!(got[0].subject, "A's work");
    assert_eq!(got[0].story.as_deref(), Some("A"));
    assert_eq!(got[1].kind, Kind::Attempt);
    assert_eq!(got[1].ahead, 0);
    delete(&root, &got[1]).unwrap();
    assert!(resolve(&root, &got[1].name).is_none());
}
