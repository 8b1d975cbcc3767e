//! Priorities that are not plain integers (pure): fractions that slot a sub-story (1.5), words
//! ("high"), numbers written as strings, or no priority at all (file order is the order).
//!
//! Owns turning them into the canonical integer ranks the selection rule compares; the file
//! itself keeps what the person wrote (writes never touch priorities).

use serde_json::Value;

use super::diagnostics::Diagnostic;

/// Words people use for a priority, and the number each is ordered as.
const WORDS: &[(&str, f64)] = &[
    ("critical", 0.0),
    ("urgent", 0.0),
    ("highest", 0.0),
    ("p0", 0.0),
    ("high", 1.0),
    ("p1", 1.0),
    ("medium", 2.0),
    ("normal", 2.0),
    ("p2", 2.0),
    ("low", 3.0),
    ("p3", 3.0),
    ("lowest", 4.0),
    ("p4", 4.0),
];

/// What a priority is read as: a number, missing (last), or a type the schema rejects.
enum Read {
    Number(f64),
    Word(f64),
    Missing,
    Wrong,
}

fn read(v: Option<&Value>) -> Read {
    match v {
        None | Some(Value::Null) => Read::Missing,
        Some(Value::Number(n)) => n.as_f64().map_or(Read::Wrong, Read::Number),
        Some(Value::String(s)) => {
            let s = s.trim().to_lowercase();
            match s.parse::<f64>() {
                Ok(n) if n.is_finite() => Read::Word(n),
                _ => WORDS
                    .iter()
                    .find(|(w, _)| *w == s)
                    .map_or(Read::Word(f64::INFINITY), |(_, n)| Read::Word(*n)),
            }
        }
        Some(_) => Read::Wrong,
    }
}

/// Replace non-integer priorities by their rank (1 = first) when any story has one; returns the
/// phrase that says how they were ordered, or `None` when every priority is an integer already.
/// A priority of a wrong type (an object, a boolean) is left for the schema to report.
pub(crate) fn normalize(stories: &mut [Value], warnings: &mut Vec<Diagnostic>) -> Option<String> {
    let reads: Vec<Read> = stories.iter().map(|s| read(s.get("priority"))).collect();
    if reads.iter().any(|r| matches!(r, Read::Wrong)) {
        return None;
    }
    let all_int = stories
        .iter()
        .all(|s| s.get("priority").is_some_and(|p| p.is_i64()));
    if all_int {
        return None;
    }
    let keys: Vec<f64> = reads
        .iter()
        .map(|r| match r {
            Read::Number(n) | Read::Word(n) => *n,
            Read::Missing | Read::Wrong => f64::INFINITY,
        })
        .collect();
    let mut distinct = keys.clone();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    for (s, k) in stories.iter_mut().zip(&keys) {
        let rank = distinct.partition_point(|d| d < k) + 1;
        if let Some(map) = s.as_object_mut() {
            map.insert("priority".into(), Value::from(rank as i64));
        }
    }
    let words: Vec<String> = stories
        .iter()
        .zip(&reads)
        .filter(|(_, r)| matches!(r, Read::Word(_)))
        .filter_map(|(s, _)| s.get("id").and_then(Value::as_str).map(String::from))
        .collect();
    if !words.is_empty() {
        warnings.push(Diagnostic::error(
            "priority-word",
            "",
            None,
            format!(
                "priority given as a word or a string in {}: critical/urgent = 0, high = 1, \
                 medium/normal = 2, low = 3, lowest = 4, numbers in strings as numbers, \
                 any other word after every number",
                words.join(", ")
            ),
            "write priorities as numbers to say exactly where a story goes",
        ));
    }
    let missing = reads.iter().filter(|r| matches!(r, Read::Missing)).count();
    Some(if missing == stories.len() {
        "no \"priority\": file order is the order".to_string()
    } else if missing > 0 {
        format!("{missing} story(ies) without \"priority\" run after the others, in file order")
    } else {
        "non-integer priorities ordered by value (1.5 runs between 1 and 2)".to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ranks(v: &[Value]) -> Vec<i64> {
        v.iter().map(|s| s["priority"].as_i64().unwrap()).collect()
    }

    #[test]
    fn fractions_slot_between_integers() {
        let mut v = vec![
            json!({"id": "a", "priority": 2}),
            json!({"id": "b", "priority": 1.1}),
            json!({"id": "c", "priority": 1}),
            json!({"id": "d", "priority": 2}),
        ];
        let mut w = vec![];
        assert!(normalize(&mut v, &mut w).is_some());
        assert_eq!(ranks(&v), [3, 2, 1, 3]);
        assert!(w.is_empty());
    }

    #[test]
    fn words_missing_and_integers() {
        let mut v = vec![
            json!({"id": "a", "priority": 1}),
            json!({"id": "b", "priority": "high"}),
            json!({"id": "c"}),
            json!({"id": "d", "priority": "someday"}),
        ];
        let mut w = vec![];
        normalize(&mut v, &mut w).unwrap();
        assert_eq!(ranks(&v), [1, 1, 2, 2]);
        assert_eq!(w[0].code, "priority-word");
        let mut ints = vec![json!({"priority": 5}), json!({"priority": -1})];
        assert!(normalize(&mut ints, &mut w).is_none());
        let mut none = vec![json!({"id": "a"}), json!({"id": "b"})];
        assert_eq!(
            normalize(&mut none, &mut w).unwrap(),
            "no \"priority\": file order is the order"
        );
        assert_eq!(ranks(&none), [1, 1]);
        let mut wrong = vec![json!({"priority": true}), json!({"priority": 1.5})];
        assert!(normalize(&mut wrong, &mut w).is_none());
    }
}
