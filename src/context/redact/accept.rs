//! The last check on a matched value: is it a secret, or a placeholder, a reference, a type
//! name, code or prose that only looks like one. Pure functions of the value; the patterns that
//! find the values are in `rules.rs`.

pub(super) fn always(_: &str) -> bool {
    true
}

/// A bearer token is redacted when it looks like one (a digit, or long), not the word after
/// "Bearer" in prose ("Bearer authentication").
pub(super) fn token_like(v: &str) -> bool {
    v.len() >= 20 || v.bytes().any(|b| b.is_ascii_digit())
}

/// A URL password is redacted unless it is a reference to one (`$PASS`, `${PASS}`, `%s`, `<pw>`)
/// or already masked.
pub(super) fn real_url_password(v: &str) -> bool {
    !(v.starts_with(['$', '%', '<', '{', '*', '[']))
}

/// Values after `password=`-style keys that are not secrets: types, empties, references, code.
const NOT_SECRETS: &[&str] = &[
    "string",
    "str",
    "&str",
    "number",
    "int",
    "integer",
    "bool",
    "boolean",
    "bytes",
    "any",
    "unknown",
    "none",
    "null",
    "nil",
    "undefined",
    "true",
    "false",
    "option",
    "secret",
    "secretstring",
    "required",
    "optional",
    "self",
    "this",
];

pub(super) fn secret_value(v: &str) -> bool {
    let quoted = v.len() >= 2
        && ((v.starts_with('"') && v.ends_with('"')) || (v.starts_with('\'') && v.ends_with('\'')));
    let inner = if quoted { &v[1..v.len() - 1] } else { v };
    if inner.is_empty() || (!quoted && inner.chars().count() < 3) {
        return false;
    }
    if inner.starts_with(['$', '%', '<', '{', '[', '(', '&', '*', '=', '>', '#']) {
        return false; // a reference, a template, a placeholder, an operator, a comment
    }
    if NOT_SECRETS.contains(&inner.to_ascii_lowercase().as_str()) {
        return false;
    }
    if !quoted {
        // Code, not a value: a call, a path, a field access (`self.token`, `cfg::KEY`).
        let dotted_ident = inner.contains('.')
            && inner.split('.').all(|p| {
                p.chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
        if inner.contains('(') || inner.contains("::") || dotted_ident || inner.contains('<') {
            return false;
        }
    }
    true
}

/// Shannon entropy of `v` in bits per byte.
pub(super) fn entropy(v: &str) -> f64 {
    let mut freq = [0u32; 256];
    for b in v.bytes() {
        freq[b as usize] += 1;
    }
    let n = v.len() as f64;
    freq.iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// An identifier made of words (`created_at_desc`, `userProfileCacheV2`, `SORT_ORDER`): code,
/// not a random value.
pub(super) fn wordy(v: &str) -> bool {
    let parts: Vec<&str> = v.split(['_', '-', '.']).filter(|p| !p.is_empty()).collect();
    let upper = v.bytes().filter(u8::is_ascii_uppercase).count();
    let digits = v.bytes().filter(u8::is_ascii_digit).count();
    // snake/kebab/dotted words, or camelCase with few capitals and digits.
    (parts.len() > 1 && parts.iter().all(|p| p.len() >= 2) && digits * 4 <= v.len())
        || (upper * 5 <= v.len() && digits * 8 <= v.len())
}

/// The fallback for values assigned to `*_KEY`, `*_TOKEN`, `*_SECRET` names that no specific
/// pattern knows: redacted when long and random-looking (high entropy, letters mixed with
/// digits or both cases), never when it reads as code or words.
pub(super) fn high_entropy(v: &str) -> bool {
    let v = v.trim_matches(['"', '\'']);
    let classes = [
        v.bytes().any(|b| b.is_ascii_lowercase()),
        v.bytes().any(|b| b.is_ascii_uppercase()),
        v.bytes().any(|b| b.is_ascii_digit()),
    ];
    v.len() >= 16 && classes.iter().filter(|c| **c).count() >= 2 && entropy(v) >= 3.5 && !wordy(v)
}
