//! Whether Gemini CLI trusts the project folder: it runs headless only in a folder it trusts
//! (0.61 exits 55 otherwise), and ralph never trusts one for the user.
//!
//! Owns the rule as Gemini CLI documents and applies it, as a pure function of what was read:
//! `GEMINI_CLI_TRUST_WORKSPACE` (`true` trusts, `false` does not) and `GEMINI_RESTRICTED_MODE`,
//! then `security.folderTrust.enabled` in its settings (off: every folder is trusted), then the
//! longest rule of `trustedFolders.json` covering the folder (`TRUST_FOLDER` the folder and what
//! is under it, `TRUST_PARENT` its parent's, `DO_NOT_TRUST`). Reading the files is
//! [`super::gather`]'s.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// What Gemini CLI would decide for the project folder, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Trust {
    Trusted(String),
    NotTrusted(String),
}

/// What was read.
#[derive(Debug, Clone, Default)]
pub(crate) struct Inputs {
    /// `GEMINI_CLI_TRUST_WORKSPACE`, when set.
    pub env: Option<String>,
    /// `GEMINI_RESTRICTED_MODE=true`.
    pub restricted: bool,
    /// `security.folderTrust.enabled` from its settings (`None`: not set; on by default).
    pub enabled: Option<bool>,
    /// trustedFolders.json's text, when the file exists.
    pub folders: Option<String>,
    /// Where that file is (for the messages).
    pub folders_path: PathBuf,
}

/// The decision for `root` (an absolute, canonical path).
pub(crate) fn decide(i: &Inputs, root: &Path) -> Trust {
    if i.restricted || i.env.as_deref() == Some("false") {
        return Trust::NotTrusted(
            "GEMINI_CLI_TRUST_WORKSPACE=false or GEMINI_RESTRICTED_MODE=true".into(),
        );
    }
    if i.env.as_deref() == Some("true") {
        return Trust::Trusted("GEMINI_CLI_TRUST_WORKSPACE=true".into());
    }
    if i.enabled == Some(false) {
        return Trust::Trusted("folder trust is off in its settings".into());
    }
    let file = i.folders_path.display();
    let Some(text) = &i.folders else {
        return Trust::NotTrusted(format!("{} does not exist: no folder is trusted", file));
    };
    match longest_rule(text, root) {
        Some((rule, level)) if level == "DO_NOT_TRUST" => {
            Trust::NotTrusted(format!("{file} says DO_NOT_TRUST for {rule}"))
        }
        Some((rule, level)) => Trust::Trusted(format!("{file}: {level} {rule}")),
        None => Trust::NotTrusted(format!("{file} has no rule for this folder")),
    }
}

/// The rule of trustedFolders.json (`{"/path": "TRUST_FOLDER", …}`) with the longest path
/// that covers `root`: its path and level.
fn longest_rule(text: &str, root: &Path) -> Option<(String, String)> {
    let v: Value = serde_json::from_str(&strip_comments(text)).ok()?;
    let mut best: Option<(String, String)> = None;
    for (rule, level) in v.as_object()? {
        let Some(level) = level.as_str() else {
            continue;
        };
        let rule_path = Path::new(rule);
        let covered = if level == "TRUST_PARENT" {
            rule_path.parent().unwrap_or(rule_path)
        } else {
            rule_path
        };
        let covered = std::fs::canonicalize(covered).unwrap_or_else(|_| covered.to_path_buf());
        if root.starts_with(&covered) && best.as_ref().is_none_or(|(b, _)| rule.len() > b.len()) {
            best = Some((rule.clone(), level.to_string()));
        }
    }
    best
}

/// JSON with `//` line comments (Gemini CLI's files allow them) made plain JSON.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut in_string = false;
        let mut prev = '\0';
        let mut cut = line.len();
        for (i, c) in line.char_indices() {
            match c {
                '"' if prev != '\\' => in_string = !in_string,
                '/' if !in_string && prev == '/' => {
                    cut = i - 1;
                    break;
                }
                _ => {}
            }
            prev = c;
        }
        out.push_str(&line[..cut]);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(folders: Option<&str>) -> Inputs {
        Inputs {
            folders: folders.map(String::from),
            folders_path: PathBuf::from("/h/.gemini/trustedFolders.json"),
            ..Inputs::default()
        }
    }

    #[test]
    fn the_environment_then_the_setting_then_the_longest_rule_decide() {
        let root = Path::new("/work/proj");
        assert!(matches!(decide(&inputs(None), root), Trust::NotTrusted(_)));
        let mut env = inputs(None);
        env.env = Some("true".into());
        assert!(matches!(decide(&env, root), Trust::Trusted(_)));
        env.restricted = true;
        assert!(matches!(decide(&env, root), Trust::NotTrusted(_)));
        let mut off = inputs(None);
        off.enabled = Some(false);
        assert!(matches!(decide(&off, root), Trust::Trusted(_)));
        let rules = r#"{
            // the whole work folder, but not one project
            "/work": "TRUST_FOLDER",
            "/work/proj": "DO_NOT_TRUST"
        }"#;
        assert_eq!(
            decide(&inputs(Some(rules)), root),
            Trust::NotTrusted(
                "/h/.gemini/trustedFolders.json says DO_NOT_TRUST for /work/proj".into()
            )
        );
        assert!(matches!(
            decide(&inputs(Some(rules)), Path::new("/work/other")),
            Trust::Trusted(_)
        ));
        let parent = r#"{"/work/proj/sub": "TRUST_PARENT"}"#;
        assert!(matches!(
            decide(&inputs(Some(parent)), root),
            Trust::Trusted(_)
        ));
        let elsewhere = r#"{"/elsewhere": "TRUST_FOLDER"}"#;
        assert!(matches!(
            decide(&inputs(Some(elsewhere)), root),
            Trust::NotTrusted(_)
        ));
        assert!(matches!(
            decide(&inputs(Some("not json")), root),
            Trust::NotTrusted(_)
        ));
        // A worktree under a trusted project is trusted too.
        let proj = r#"{"/work/proj": "TRUST_FOLDER"}"#;
        assert!(matches!(
            decide(
                &inputs(Some(proj)),
                Path::new("/work/proj/.ralph/worktrees/US-1")
            ),
            Trust::Trusted(_)
        ));
        // "/work/pro" does not cover "/work/proj".
        let prefix = r#"{"/work/pro": "TRUST_FOLDER"}"#;
        assert!(matches!(
            decide(&inputs(Some(prefix)), root),
            Trust::NotTrusted(_)
        ));
    }

    #[test]
    fn comments_outside_strings_go_and_urls_in_strings_stay() {
        assert_eq!(
            strip_comments("{\"a\": \"http://x\", // note\n\"b\": 1}"),
            "{\"a\": \"http://x\", \n\"b\": 1}\n"
        );
    }
}
