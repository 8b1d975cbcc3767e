//! Checks on story ids and the references between stories (pure): unique ids, dependencies that
//! resolve, dependencies on removed stories, `discoveredFrom`, and cycles.
//!
//! Part of `validate`. Pointers are canonical (`/userStories/3/blockedBy/0`); `validate`
//! translates them into the file's own keys. `dep` is the file's name for the dependency field,
//! so messages say `dependsOn` in a file that says `dependsOn`.

use foldhash::{HashMap, HashMapExt};

use super::diagnostics::Diagnostic;
use super::story_ref::StoryRef;
use crate::dag::{DepGraph, MAX_CYCLES};

pub(super) fn check_ids(stories: &[StoryRef], errors: &mut Vec<Diagnostic>) {
    let mut seen: HashMap<String, &StoryRef> = HashMap::new();
    for s in stories {
        let Some(id) = s.id.filter(|id| !id.is_empty()) else {
            continue; // the schema reported it
        };
        let pointer = || format!("/userStories/{}/id", s.index);
        if id.trim() != id {
            errors.push(Diagnostic::error(
                "id-whitespace",
                &pointer(),
                Some(id.to_string()),
                format!("story id \"{id}\" has leading or trailing whitespace"),
                format!("use \"{}\"", id.trim()),
            ));
        }
        let key = id.trim().to_lowercase();
        match seen.get(&key) {
            Some(first) if first.id == Some(id) => errors.push(Diagnostic::error(
                "duplicate-id",
                &pointer(),
                Some(id.to_string()),
                format!("story id \"{id}\" is used again (first at /userStories/{})", first.index),
                "give every story a unique id",
            )),
            Some(first) => errors.push(Diagnostic::error(
                "duplicate-id",
                &pointer(),
                Some(id.to_string()),
                format!(
                    "story id \"{id}\" differs from \"{}\" (/userStories/{}) only in case or whitespace",
                    first.id_str(),
                    first.index
                ),
                "ids that look alike get confused by agents and people: make them clearly different",
            )),
            None => {
                seen.insert(key, s);
            }
        }
    }
}

pub(super) fn check_refs(
    stories: &[StoryRef],
    field: &str,
    errors: &mut Vec<Diagnostic>,
    warnings: &mut Vec<Diagnostic>,
) {
    let by_id: HashMap<&str, &StoryRef> = stories
        .iter()
        .rev()
        .filter_map(|s| Some((s.id?, s)))
        .collect();
    for s in stories {
        let id = s.id_str();
        let story = || Some(id.to_string());
        for (j, &dep) in s.blocked_by.iter().enumerate() {
            let pointer = || format!("/userStories/{}/blockedBy/{j}", s.index);
            if dep == id {
                errors.push(Diagnostic::error(
                    "self-ref",
                    &pointer(),
                    story(),
                    format!("story {id} is blocked by itself"),
                    format!("remove its own id from {field}"),
                ));
                continue;
            }
            let Some(blocker) = by_id.get(dep) else {
                errors.push(unknown_ref(stories, field, s, dep, &pointer()));
                continue;
            };
            if blocker.removed {
                let (d, open) = removed_dep(field, s, dep, &pointer());
                if open {
                    errors.push(d)
                } else {
                    warnings.push(d)
                }
            } else if s.passes && !blocker.passes {
                warnings.push(Diagnostic::error(
                    "passes-before-blocker",
                    &format!("/userStories/{}/passes", s.index),
                    story(),
                    format!("{id} passes but its blocker {dep} does not"),
                    format!("check {id}: set passes to false, or finish {dep}"),
                ));
            }
        }
        if let Some(from) = s.discovered_from
            && !by_id.contains_key(from)
        {
            warnings.push(Diagnostic::error(
                "unknown-discovered-from",
                &format!("/userStories/{}/discoveredFrom", s.index),
                story(),
                format!("discoveredFrom names \"{from}\", which is not a story id"),
                "name the story it was discovered during, or remove the field",
            ));
        }
    }
}

/// `dep`, named in `field` of `s`, is no story's id: the nearest id as the fix.
fn unknown_ref(
    stories: &[StoryRef],
    field: &str,
    s: &StoryRef,
    dep: &str,
    pointer: &str,
) -> Diagnostic {
    let ids = stories.iter().filter_map(|s| s.id);
    let hint = match crate::suggest::nearest(dep.trim(), ids) {
        Some(near) => format!("did you mean \"{near}\"?"),
        None => "name an existing story id, or remove the entry".into(),
    };
    Diagnostic::error(
        "unknown-ref",
        pointer,
        Some(s.id_str().to_string()),
        format!("{field} names \"{dep}\", which is not a story id"),
        hint,
    )
}

/// `s` waits for `dep`, which is removed; true with it when `s` is still open.
fn removed_dep(field: &str, s: &StoryRef, dep: &str, pointer: &str) -> (Diagnostic, bool) {
    // A story that still has to run can never start: an error, like a cycle. One that is
    // done or out of scope itself is only worth a warning.
    let id = s.id_str();
    let open = !s.passes && !s.removed;
    let d = Diagnostic::error(
        "removed-dep",
        pointer,
        Some(id.to_string()),
        format!(
            "{id} depends on {dep}, which is removed: {}",
            if open {
                "it can never run"
            } else {
                "that can never be satisfied"
            }
        ),
        format!("drop {dep} from {field} of {id}, or restore {dep}"),
    );
    (d, open)
}

/// One error per dependency cycle, with its full path.
pub(super) fn check_cycles(stories: &[StoryRef], dep: &str, errors: &mut Vec<Diagnostic>) {
    let cycles = DepGraph::new(stories).cycles();
    let capped = cycles.len() >= MAX_CYCLES;
    for cycle in cycles {
        let first = &stories[cycle[0]];
        let path: Vec<&str> = cycle
            .iter()
            .chain(std::iter::once(&cycle[0]))
            .map(|&i| stories[i].id_str())
            .collect();
        errors.push(Diagnostic::error(
            "cycle",
            &format!("/userStories/{}/blockedBy", first.index),
            Some(first.id_str().to_string()),
            format!("cycle: {}", path.join(" → ")),
            format!(
                "a cycle deadlocks the loop (no story in it can ever start): remove one {dep} link in it{}",
                if capped { " (only the first cycles are listed)" } else { "" }
            ),
        ));
    }
}
