use super::*;

const MD: &str = "# PRD: Tag Search\n\n## Introduction\n\nFind bookmarks by tag.\nFast.\n\n## Goals\n- fast\n\n## User Stories\n\n### US-001: Store tags\n**Description:** As a user, I want tags.\n\n**Acceptance Criteria:**\n- [ ] Tags are saved\n  across restarts\n- [ ] A list:\n  1. first\n  2. second\n- [x] Typecheck passes\n\n**Integration Notes:**\n- touch store.rs\n\n---\n\n### US-002: Filter by tag\nAs a user, I want to filter\nby tag.\n\n**Depends on:** US-001, US-404\n\n**Acceptance Criteria:**\n- Requires the user to pick a tag\n- Filter works\n\n### US-003: Done already\n**Depends on:** —\n**Acceptance Criteria:**\n- [x] it was done\n\n## Non-Goals\n- none\n";

#[test]
fn imports_ids_titles_descriptions_criteria_and_dependencies() {
    let out = import(MD).unwrap();
    let v = &out.value;
    assert_eq!(v["project"], "Tag Search");
    assert_eq!(v["branchName"], "ralph/tag-search");
    assert_eq!(v["description"], "Find bookmarks by tag. Fast.");
    let s = &v["userStories"];
    assert_eq!(s[0]["id"], "US-001");
    assert_eq!(s[0]["title"], "Store tags");
    assert_eq!(s[0]["description"], "As a user, I want tags.");
    assert_eq!(
        s[0]["acceptanceCriteria"],
        json!([
            "Tags are saved across restarts",
            "A list: 1. first 2. second",
            "Typecheck passes"
        ])
    );
    assert_eq!(s[0]["passes"], false);
    assert_eq!(s[0]["notes"], "**Integration Notes:**\n- touch store.rs");
    assert!(s[0].get("blockedBy").is_none());
    assert_eq!(s[1]["description"], "As a user, I want to filter by tag.");
    assert_eq!(s[1]["blockedBy"], json!(["US-001"]));
    assert_eq!(
        s[1]["acceptanceCriteria"],
        json!(["Requires the user to pick a tag", "Filter works"])
    );
    assert_eq!(s[2]["passes"], true);
    assert_eq!(s[2]["priority"], 3);
    let report = out.report.join("\n");
    assert!(report.contains("US-404 is not a story"), "{report}");
    assert!(
        report.contains("Introduction, Goals, Non-Goals"),
        "{report}"
    );
}

#[test]
fn bold_led_user_story_lines_and_h4_stories_under_groups() {
    let md = "# App\n## User Stories\n### Group A\n#### US-1: First\n**As a** user  \n**I want to** log in  \n**So that** I work\n\n**Acceptance Criteria:**\n- works\n### Group B\n#### US-2: Second\n**Description :** second one\n**Acceptance Criteria :**\n- [ ] ok\n";
    let v = import(md).unwrap().value;
    assert_eq!(v["userStories"][0]["id"], "US-1");
    assert_eq!(
        v["userStories"][0]["description"],
        "As a user I want to log in So that I work"
    );
    assert_eq!(v["userStories"][1]["description"], "second one");
    assert_eq!(v["userStories"][1]["acceptanceCriteria"], json!(["ok"]));
}

#[test]
fn no_story_is_an_error_and_output_is_deterministic() {
    assert_eq!(import("# Nothing\n\ntext\n").unwrap_err(), NoStories);
    assert_eq!(import(MD).unwrap().value, import(MD).unwrap().value);
}
