//! `ralph init`'s policy (pure): which verify commands a project's manifests suggest, the
//! starter prd.json and ralph.toml texts, and the `.gitignore` line for `.ralph/`.
//!
//! Owns the decisions only; reading the project and writing files (never over an existing one)
//! is `cli::init`.

use serde_json::json;

/// A manifest file name and what to do with its text: the verify command it suggests, if any.
type Rule = (&'static str, fn(&str) -> Option<&'static str>);

/// Manifests in the order their commands are suggested.
const RULES: &[Rule] = &[
    ("Cargo.toml", |_| Some("cargo test")),
    ("go.mod", |_| Some("go test ./...")),
    ("package.json", |text| {
        let v: serde_json::Value = serde_json::from_str(text).ok()?;
        let test = v.get("scripts")?.get("test")?.as_str()?;
        // npm init's placeholder fails on purpose: it is not a test suite.
        (!test.contains("no test specified")).then_some("npm test")
    }),
    ("pyproject.toml", |_| Some("pytest")),
    ("setup.py", |_| Some("pytest")),
    ("pytest.ini", |_| Some("pytest")),
    ("deno.json", |_| Some("deno test")),
    ("pom.xml", |_| Some("mvn -q test")),
    ("build.gradle", |_| Some("./gradlew test")),
    ("build.gradle.kts", |_| Some("./gradlew test")),
    ("mix.exs", |_| Some("mix test")),
    ("Gemfile", |_| Some("bundle exec rake test")),
    ("Package.swift", |_| Some("swift test")),
    ("Makefile", |text| {
        text.lines()
            .any(|l| l.starts_with("test:"))
            .then_some("make test")
    }),
];

/// The manifest names `suggest_verify` looks at.
pub(crate) fn manifest_names() -> impl Iterator<Item = &'static str> {
    RULES.iter().map(|(name, _)| *name)
}

/// The verify commands suggested by the manifests found: (manifest name, its text) pairs.
/// Each command once, in [`RULES`] order; (command, the manifest that suggested it).
pub(crate) fn suggest_verify(found: &[(&str, String)]) -> Vec<(&'static str, &'static str)> {
    let mut out: Vec<(&'static str, &'static str)> = Vec::new();
    for (name, rule) in RULES {
        let Some((_, text)) = found.iter().find(|(n, _)| n == name) else {
            continue;
        };
        if let Some(cmd) = rule(text)
            && !out.iter().any(|(c, _)| *c == cmd)
        {
            out.push((cmd, name));
        }
    }
    out
}

/// The ralph.toml text: the suggested verify commands, and the other settings commented out.
pub(crate) fn ralph_toml(verify: &[(&str, &str)]) -> String {
    let agents = crate::agent::AgentKind::names()
        .collect::<Vec<_>>()
        .join("|");
    let mut s = format!(
        "# ralph.toml: settings for `ralph run` (flags and RALPH_* variables override them).\n\n\
         [agent]\n# name = \"claude\"          # {agents}\n\n\
         [run]\n# iterations = 10\n# timeout = \"60m\"\n\n",
    );
    s.push_str("[verify]\n# Commands that must pass before a story counts as done.\n");
    if verify.is_empty() {
        s.push_str("# No test command found in the project's manifests: add yours, e.g.\n");
        s.push_str("# commands = [\"make test\"]\n");
    } else {
        for (cmd, from) in verify {
            s.push_str(&format!("# {cmd}: suggested by {from}\n"));
        }
        let list: Vec<String> = verify.iter().map(|(c, _)| format!("\"{c}\"")).collect();
        s.push_str(&format!("commands = [{}]\n", list.join(", ")));
    }
    s
}

/// A starter prd.json for `project`: one story that says how to write the real ones. JSON has
/// no comments, so the explanations are the story's own text (`ralph validate` accepts it).
pub(crate) fn starter_prd(project: &str) -> String {
    let v = json!({
        "project": project,
        "branchName": format!("ralph/{}", crate::prd::dialect::slug(project)),
        "description": "Replace this with what the feature is about. Each story below is one agent run: small, testable, independent where it can be.",
        "userStories": [{
            "id": "US-001",
            "title": "Replace this story with your first one",
            "description": "As a <user>, I want <something> so that <benefit>. Give each story a unique id, a short title, checkable acceptance criteria, a priority (lower runs first) and passes: false. Add \"blockedBy\": [\"US-001\"] to a story that needs another one done first.",
            "acceptanceCriteria": [
                "A concrete, checkable outcome",
                "Tests pass"
            ],
            "priority": 1,
            "passes": false,
            "notes": "Or write a markdown PRD and run `ralph prd import PRD.md --force` to replace this file."
        }]
    });
    crate::prd::to_pretty(&v)
}

/// `.gitignore`'s new text with `.ralph/` ignored, or `None` when it already is.
pub(crate) fn gitignore_with_ralph(current: &str) -> Option<String> {
    let ignored = current.lines().map(str::trim).any(|l| {
        matches!(
            l,
            ".ralph" | ".ralph/" | "/.ralph" | "/.ralph/" | ".ralph/*" | "/.ralph/*"
        )
    });
    if ignored {
        return None;
    }
    let mut s = current.to_string();
    if !s.is_empty() && !s.ends_with('\n') {
        s.push('\n');
    }
    s.push_str("# ralph's run state (lock, logs, archives)\n.ralph/\n");
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verify_commands_come_from_manifests_once_each() {
        let found = vec![
            (
                "package.json",
                r#"{"scripts": {"test": "vitest"}}"#.to_string(),
            ),
            ("Cargo.toml", String::new()),
            ("pytest.ini", String::new()),
            ("pyproject.toml", String::new()),
        ];
        assert_eq!(
            suggest_verify(&found),
            [
                ("cargo test", "Cargo.toml"),
                ("npm test", "package.json"),
                ("pytest", "pyproject.toml")
            ]
        );
        let placeholder = vec![(
            "package.json",
            r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}"#.to_string(),
        )];
        assert!(suggest_verify(&placeholder).is_empty());
        assert!(suggest_verify(&[("package.json", "not json".into())]).is_empty());
    }

    #[test]
    fn toml_parses_and_lists_commands() {
        let text = ralph_toml(&[("cargo test", "Cargo.toml")]);
        let t: toml::Table = text.parse().unwrap();
        assert_eq!(t["verify"]["commands"][0].as_str(), Some("cargo test"));
        let none: toml::Table = ralph_toml(&[]).parse().unwrap();
        assert!(none["verify"].get("commands").is_none());
    }

    #[test]
    fn gitignore_gets_one_line_once() {
        assert_eq!(
            gitignore_with_ralph("target"),
            Some("target\n# ralph's run state (lock, logs, archives)\n.ralph/\n".into())
        );
        assert_eq!(gitignore_with_ralph("x\n/.ralph/\n"), None);
    }

    #[test]
    fn starter_prd_validates() {
        let text = starter_prd("My App");
        let (report, _) =
            crate::prd::validate::validate_bytes(std::path::Path::new("prd.json"), text.as_bytes());
        assert!(
            report.errors.is_empty() && report.warnings.is_empty(),
            "{report:?}"
        );
    }
}
