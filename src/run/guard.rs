//! The integrity guard's I/O: re-read prd.json after the agent, restore the pre-iteration copy
//! when the agent broke the rules, and re-apply its legitimate `passes` flips on top.
//! The rules themselves are pure, in [`super::integrity`].

use std::path::Path;

use super::RunError;
use super::integrity::{self, Violation};
use crate::prd::{Prd, PrdError};

/// prd.json after the guard.
#[derive(Debug, Clone)]
pub struct Guarded {
    pub prd: Prd,
    pub bytes: Vec<u8>,
    /// What was wrong, when the file was restored (empty otherwise).
    pub restored: Vec<Violation>,
    /// `passes` changes the agent made to existing stories (kept, or re-applied).
    pub flips: Vec<(String, bool)>,
}

fn first_error(e: &PrdError) -> String {
    match e {
        PrdError::Invalid(report) => report
            .errors
            .first()
            .map(|d| {
                let at = match (d.line, d.column) {
                    (Some(l), Some(c)) => format!("line {l}:{c}: "),
                    _ if !d.pointer.is_empty() => format!("{}: ", d.pointer),
                    _ => String::new(),
                };
                format!("{at}{}", d.message)
            })
            .unwrap_or_else(|| "invalid".into()),
        other => other.to_string(),
    }
}

/// Check prd.json against the copy taken before the iteration that worked on story `current`,
/// and repair it if needed. `None` when the file is byte-for-byte unchanged (the common case,
/// and the cheap one).
pub fn after_agent(
    path: &Path,
    before: &Prd,
    before_bytes: &[u8],
    current: &str,
) -> Result<Option<Guarded>, RunError> {
    let read = match std::fs::read(path) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => {
            return Err(RunError::Fs(crate::fsutil::FsError {
                path: path.to_path_buf(),
                action: "read",
                source,
            }));
        }
    };
    let (violations, flips) = match &read {
        None => (vec![Violation::Deleted], vec![]),
        Some(b) if b.as_slice() == before_bytes => return Ok(None),
        Some(b) => match Prd::from_bytes(path, b) {
            Err(e) => (vec![Violation::Invalid(first_error(&e))], vec![]),
            Ok(after) => {
                let v = integrity::check(&before.value, &after.value, current);
                let flips = integrity::passes_flips(&before.value, &after.value, current);
                if v.is_empty() {
                    return Ok(Some(Guarded {
                        prd: after,
                        bytes: b.clone(),
                        restored: vec![],
                        flips,
                    }));
                }
                if v.iter().all(|x| x.passes_only().is_some()) {
                    // Only `passes` set where it may not be: set those back, keep the rest.
                    let mut fixed = after;
                    for id in v.iter().filter_map(Violation::passes_only) {
                        fixed.set_passes(id, false)?;
                    }
                    fixed.save()?;
                    let bytes = fixed.to_pretty().into_bytes();
                    return Ok(Some(Guarded {
                        prd: fixed,
                        bytes,
                        restored: v,
                        flips,
                    }));
                }
                (v, flips)
            }
        },
    };
    let mut restored = before.clone();
    let bytes = if flips.is_empty() {
        crate::fsutil::atomic_write(path, before_bytes)?;
        before_bytes.to_vec()
    } else {
        for (id, passes) in &flips {
            restored.set_passes(id, *passes)?;
        }
        restored.save()?;
        restored.to_pretty().into_bytes()
    };
    Ok(Some(Guarded {
        prd: restored,
        bytes,
        restored: violations,
        flips,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"{
  "project": "p",
  "branchName": "ralph/x",
  "userStories": [
    {"id": "A", "title": "a", "description": "", "acceptanceCriteria": [], "priority": 1, "passes": false},
    {"id": "B", "title": "b", "description": "", "acceptanceCriteria": [], "priority": 2, "passes": false}
  ]
}
"#;

    fn setup() -> (tempfile::TempDir, std::path::PathBuf, Prd) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prd.json");
        std::fs::write(&path, SRC).unwrap();
        let prd = Prd::load(&path).unwrap();
        (dir, path, prd)
    }

    #[test]
    fn deleted_or_corrupt_prd_is_restored_byte_for_byte() {
        let (_d, path, prd) = setup();
        std::fs::remove_file(&path).unwrap();
        let g = after_agent(&path, &prd, SRC.as_bytes(), "A")
            .unwrap()
            .unwrap();
        assert_eq!(g.restored, [Violation::Deleted]);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), SRC);
        std::fs::write(&path, "{ not json").unwrap();
        let g = after_agent(&path, &prd, SRC.as_bytes(), "A")
            .unwrap()
            .unwrap();
        assert!(matches!(&g.restored[0], Violation::Invalid(m) if m.contains("line 1")));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), SRC);
    }

    #[test]
    fn illegal_edit_is_reverted_but_the_passes_flip_kept() {
        let (_d, path, prd) = setup();
        let edited = SRC
            .replace("\"title\": \"b\"", "\"title\": \"easier b\"")
            .replacen("\"passes\": false", "\"passes\": true", 1);
        std::fs::write(&path, edited).unwrap();
        let g = after_agent(&path, &prd, SRC.as_bytes(), "A")
            .unwrap()
            .unwrap();
        assert_eq!(g.restored.len(), 1);
        assert_eq!(g.flips, [("A".to_string(), true)]);
        let now = Prd::load(&path).unwrap();
        assert!(now.story("A").unwrap().passes);
        assert_eq!(now.story("B").unwrap().title, "b");
    }

    #[test]
    fn legitimate_edit_is_kept() {
        let (_d, path, prd) = setup();
        let edited = SRC.replacen("\"passes\": false", "\"passes\": true", 1);
        std::fs::write(&path, &edited).unwrap();
        let g = after_agent(&path, &prd, SRC.as_bytes(), "A")
            .unwrap()
            .unwrap();
        assert!(g.restored.is_empty());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
        std::fs::write(&path, SRC).unwrap();
        assert!(
            after_agent(&path, &prd, SRC.as_bytes(), "A")
                .unwrap()
                .is_none()
        );
    }
}
