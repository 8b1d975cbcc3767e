//! Secret redaction: every text is passed through here before it enters a prompt or a log.
//!
//! Owns the patterns (API keys, tokens, JWTs, private keys, credentials in assignments and URLs,
//! and a high-entropy fallback for values assigned to `*_KEY`/`*_TOKEN`/`*_SECRET` names), the
//! order they apply in (Anthropic `sk-ant-` before OpenAI `sk-`, private key blocks first), and
//! the per-kind counts. A redacted secret becomes `[REDACTED:<kind>]`; what surrounds it (a
//! `password=` key, a `Bearer ` prefix, a URL's user and host) is kept so the text still reads.
//! Does not decide which texts are redacted: callers pass everything they show.

use aho_corasick::AhoCorasick;
use regex::Regex;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::{LazyLock, OnceLock};

/// How many secrets of each kind were redacted (kinds in name order, for stable output).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Redactions(BTreeMap<&'static str, usize>);

impl Redactions {
    pub fn total(&self) -> usize {
        self.0.values().sum()
    }

    pub fn get(&self, kind: &str) -> usize {
        self.0.get(kind).copied().unwrap_or(0)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'static str, usize)> + '_ {
        self.0.iter().map(|(k, v)| (*k, *v))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Add another count into this one.
    pub fn merge(&mut self, other: &Redactions) {
        for (k, v) in other.iter() {
            *self.0.entry(k).or_default() += v;
        }
    }

    fn add(&mut self, kind: &'static str) {
        *self.0.entry(kind).or_default() += 1;
    }
}

/// One pattern: what it matches, which capture group is the secret, and a last check on the
/// secret itself (to leave placeholders, references and code alone). `literals`: text every
/// match contains (ASCII, any case); a rule whose literals are absent is never compiled or run.
struct Rule {
    kind: &'static str,
    pattern: &'static str,
    literals: &'static [&'static str],
    re: OnceLock<Regex>,
    group: usize,
    accept: fn(&str) -> bool,
}

impl Rule {
    fn re(&self) -> &Regex {
        self.re.get_or_init(|| {
            // The patterns are constants of this file, compiled and exercised by the tests
            // below; an invalid one is a programming error caught by `every_rule_compiles`.
            #[allow(clippy::expect_used)]
            Regex::new(self.pattern).expect("redaction pattern compiles")
        })
    }
}

fn always(_: &str) -> bool {
    true
}

/// A bearer token is redacted when it looks like one (a digit, or long), not the word after
/// "Bearer" in prose ("Bearer authentication").
fn token_like(v: &str) -> bool {
    v.len() >= 20 || v.bytes().any(|b| b.is_ascii_digit())
}

/// A URL password is redacted unless it is a reference to one (`$PASS`, `${PASS}`, `%s`, `<pw>`)
/// or already masked.
fn real_url_password(v: &str) -> bool {
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

fn secret_value(v: &str) -> bool {
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
fn entropy(v: &str) -> f64 {
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
fn wordy(v: &str) -> bool {
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
fn high_entropy(v: &str) -> bool {
    let v = v.trim_matches(['"', '\'']);
    let classes = [
        v.bytes().any(|b| b.is_ascii_lowercase()),
        v.bytes().any(|b| b.is_ascii_uppercase()),
        v.bytes().any(|b| b.is_ascii_digit()),
    ];
    v.len() >= 16 && classes.iter().filter(|c| **c).count() >= 2 && entropy(v) >= 3.5 && !wordy(v)
}

fn rule(
    kind: &'static str,
    pattern: &'static str,
    literals: &'static [&'static str],
    group: usize,
    accept: fn(&str) -> bool,
) -> Rule {
    Rule {
        kind,
        pattern,
        literals,
        re: OnceLock::new(),
        group,
        accept,
    }
}

/// The rules, in the order they apply. Order matters: private key blocks first (they contain
/// anything), Anthropic keys before OpenAI's (`sk-ant-…` also starts with `sk-`), specific
/// assignments (AWS) before the generic `password=` rule.
static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        rule(
            "private-key",
            r"(?s)-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
            &["-----BEGIN"],
            0,
            always,
        ),
        rule(
            "jwt",
            r"(?-u:\b)eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*",
            &["eyJ"],
            0,
            always,
        ),
        rule(
            "anthropic-key",
            r"(?-u:\b)sk-ant-[A-Za-z0-9_-]{16,}",
            &["sk-ant-"],
            0,
            always,
        ),
        rule(
            "openai-key",
            r"(?-u:\b)sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
            &["sk-"],
            0,
            always,
        ),
        rule(
            "github-token",
            r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
            &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
            0,
            always,
        ),
        rule(
            "aws-access-key",
            r"(?-u:\b)(?:AKIA|ASIA|ABIA|ACCA|AROA|AIDA)[A-Z0-9]{16}(?-u:\b)",
            &["AKIA", "ASIA", "ABIA", "ACCA", "AROA", "AIDA"],
            0,
            always,
        ),
        rule(
            "aws-secret-key",
            r#"(?i)(aws_?secret_?access_?key["']?[ \t]*[=:][ \t]*["']?)([A-Za-z0-9/+=]{40})"#,
            &["secret"],
            2,
            always,
        ),
        rule(
            "slack-token",
            r"(?-u:\b)xox[abposr]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+",
            &["xox", "hooks.slack.com"],
            0,
            always,
        ),
        rule(
            "stripe-key",
            r"(?-u:\b)(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})",
            &["sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"],
            0,
            always,
        ),
        rule(
            "google-api-key",
            r"(?-u:\b)AIza[0-9A-Za-z_-]{35}",
            &["AIza"],
            0,
            always,
        ),
        rule(
            "connection-string",
            r"(?-u:\b)([A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]*:)([^\s@/]+)@",
            &["://"],
            2,
            real_url_password,
        ),
        rule(
            "bearer-token",
            r"(?i)(?-u:\b)(bearer[ \t]+)([A-Za-z0-9._~+/=-]{8,})",
            &["bearer"],
            2,
            token_like,
        ),
        rule(
            "password-assignment",
            r#"(?i)(?-u:\b)([A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|auth[_-]?key|private[_-]?key|client[_-]?secret)["']?[ \t]*[=:][ \t]*)("[^"\n]*"|'[^'\n]*'|[^\s"'`,;]+)"#,
            &[
                "password",
                "passwd",
                "pwd",
                "secret",
                "token",
                "apikey",
                "api_key",
                "api-key",
                "accesskey",
                "access_key",
                "access-key",
                "authkey",
                "auth_key",
                "auth-key",
                "privatekey",
                "private_key",
                "private-key",
            ],
            2,
            secret_value,
        ),
        rule(
            "high-entropy-secret",
            r#"(?i)(?-u:\b)([A-Za-z0-9_.-]*[_.-](?:key|token|secret|credentials?)["']?[ \t]*[=:][ \t]*)("[^"\n]*"|'[^'\n]*'|[^\s"'`,;]+)"#,
            &[
                "_key",
                "-key",
                ".key",
                "_token",
                "-token",
                ".token",
                "_secret",
                "-secret",
                ".secret",
                "_credential",
                "-credential",
                ".credential",
            ],
            2,
            high_entropy,
        ),
    ]
});

/// Every rule's literals in one automaton (ASCII case-insensitive), and the rule each belongs
/// to: one scan tells which rules can match at all, so clean text (the common case) compiles
/// and runs no regex.
static LITERALS: LazyLock<(AhoCorasick, Vec<usize>)> = LazyLock::new(|| {
    let (mut lits, mut owner) = (Vec::new(), Vec::new());
    for (i, r) in RULES.iter().enumerate() {
        for l in r.literals {
            lits.push(*l);
            owner.push(i);
        }
    }
    // Constant, short, valid literals; building can only fail on limits far above these.
    #[allow(clippy::expect_used)]
    let ac = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(lits)
        .expect("redaction literals build");
    (ac, owner)
});

/// Which rules can match `text` (bit `i` for rule `i`). Case-insensitive rules (`(?i)`) fold
/// non-ASCII letters too (`ſ` matches `s`), which an ASCII literal scan would miss: text that is
/// not ASCII tries every rule.
fn candidates(text: &str) -> u32 {
    if !text.is_ascii() {
        return u32::MAX;
    }
    let (ac, owner) = &*LITERALS;
    ac.find_overlapping_iter(text)
        .fold(0, |set, m| set | 1 << owner[m.pattern().as_usize()])
}

/// The kinds of secret ralph redacts, in the order the rules apply.
pub fn kinds() -> Vec<&'static str> {
    RULES.iter().map(|r| r.kind).collect()
}

/// `text` with every secret replaced by `[REDACTED:<kind>]`; the count of each kind is added to
/// `counts`. Text without secrets comes back unchanged.
pub fn redact_into(text: &str, counts: &mut Redactions) -> String {
    redact_rules(text, candidates(text), counts)
}

/// [`redact_into`] trying only the rules in `candidates` (bit `i` for rule `i`).
fn redact_rules(text: &str, candidates: u32, counts: &mut Redactions) -> String {
    let mut cur = text.to_string();
    for (i, r) in RULES.iter().enumerate() {
        // A replacement only ever inserts a marker, which no rule accepts, so rules that could
        // not match the original text cannot match now.
        if candidates & (1 << i) == 0 || !r.re().is_match(&cur) {
            continue;
        }
        let mut out = String::with_capacity(cur.len());
        let mut last = 0;
        for caps in r.re().captures_iter(&cur) {
            let Some(m) = caps.get(r.group) else {
                continue;
            };
            let secret = m.as_str();
            if !(r.accept)(secret) {
                continue;
            }
            out.push_str(&cur[last..m.start()]);
            let quote = secret
                .chars()
                .next()
                .filter(|q| r.group != 0 && (*q == '"' || *q == '\'') && secret.len() >= 2);
            match quote {
                Some(q) => {
                    out.push(q);
                    out.push_str(&format!("[REDACTED:{}]", r.kind));
                    out.push(q);
                }
                None => out.push_str(&format!("[REDACTED:{}]", r.kind)),
            }
            last = m.end();
            counts.add(r.kind);
        }
        out.push_str(&cur[last..]);
        cur = out;
    }
    cur
}

/// Redact one text on its own: the redacted text and its counts.
pub fn redact(text: &str) -> (String, Redactions) {
    let mut counts = Redactions::default();
    let out = redact_into(text, &mut counts);
    (out, counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(input: &str, kind: &str) -> String {
        let (out, counts) = redact(input);
        assert_eq!(counts.get(kind), 1, "{kind} in {input:?} -> {out:?}");
        assert_eq!(counts.total(), 1, "only {kind} in {input:?} -> {out:?}");
        out
    }

    fn untouched(input: &str) {
        let (out, counts) = redact(input);
        assert_eq!(out, input);
        assert!(counts.is_empty(), "{input:?} -> {counts:?}");
    }

    #[test]
    fn every_rule_compiles() {
        assert_eq!(kinds().len(), 14);
        assert!(RULES.len() <= 32, "candidates() keeps one bit per rule");
        for r in RULES.iter() {
            assert!(
                !r.re().as_str().is_empty() && !r.literals.is_empty(),
                "{}",
                r.kind
            );
        }
    }

    #[test]
    fn anthropic_key_before_openai() {
        let out = one(
            "key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx_yz-0123456789 end",
            "anthropic-key",
        );
        assert_eq!(out, "key [REDACTED:anthropic-key] end");
    }

    #[test]
    fn openai_keys_classic_and_project() {
        assert_eq!(
            one("OPENAI sk-abcdefghijklmnopqrstuvwxyz012345", "openai-key"),
            "OPENAI [REDACTED:openai-key]"
        );
        one("sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34", "openai-key");
        untouched("task-list is a word, so is sk-short");
    }

    #[test]
    fn github_tokens() {
        one("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github-token");
        one("gho_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "github-token");
        one(
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
            "github-token",
        );
    }

    #[test]
    fn aws_access_and_secret_keys() {
        assert_eq!(
            one("id=AKIAIOSFODNN7EXAMPLE,", "aws-access-key"),
            "id=[REDACTED:aws-access-key],"
        );
        assert_eq!(
            one(
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "aws-secret-key"
            ),
            "aws_secret_access_key = [REDACTED:aws-secret-key]"
        );
    }

    #[test]
    fn private_key_blocks_whole_or_truncated() {
        let block =
            "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAK\n-----END RSA PRIVATE KEY-----\nb";
        assert_eq!(one(block, "private-key"), "a\n[REDACTED:private-key]\nb");
        let open = "x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA";
        assert_eq!(one(open, "private-key"), "x\n[REDACTED:private-key]");
        untouched("-----BEGIN PUBLIC KEY-----\nMFkwEwYH\n-----END PUBLIC KEY-----");
    }

    #[test]
    fn slack_tokens_and_webhooks() {
        one("xoxb-123456789012-abcdefABCDEF", "slack-token");
        one(
            "post to https://hooks.slack.com/services/T000/B000/XXXXXXXX now",
            "slack-token",
        );
    }

    #[test]
    fn stripe_keys() {
        one("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe-key");
        one("rk_test_4eC39HqLyjWDarjtT1zdp7dc", "stripe-key");
        one("whsec_abcdefghijklmnopqrstuvwxyz12", "stripe-key");
    }

    #[test]
    fn google_api_key() {
        one("AIzaSyA-1234567890abcdefghijklmnopqrstu", "google-api-key");
    }

    #[test]
    fn bearer_headers_keep_the_prefix() {
        assert_eq!(
            one("Authorization: Bearer abc123.def456.ghi789", "bearer-token"),
            "Authorization: Bearer [REDACTED:bearer-token]"
        );
        assert_eq!(
            one(
                "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc123",
                "jwt"
            ),
            "Authorization: Bearer [REDACTED:jwt]"
        );
        untouched("We use Bearer authentication for the API.");
    }

    #[test]
    fn bare_jwts_are_redacted_anywhere() {
        let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
        assert_eq!(
            one(&format!("got {jwt} from the login call"), "jwt"),
            "got [REDACTED:jwt] from the login call"
        );
        one(&format!("session={jwt}"), "jwt");
        one(&format!("{{\"id_token\": \"{jwt}\"}}"), "jwt");
        // An unsigned token (alg none) has an empty signature.
        one("eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", "jwt");
        untouched("JWTs start with eyJ (base64 of {\"); see src/auth/jwt.rs");
    }

    #[test]
    fn random_values_of_key_token_secret_names_are_redacted() {
        assert_eq!(
            one(
                "STRIPE_PUBLISHABLE_KEY=Xk29fQp7LmZr4TbW8vNc",
                "high-entropy-secret"
            ),
            "STRIPE_PUBLISHABLE_KEY=[REDACTED:high-entropy-secret]"
        );
        one(
            "export SENDGRID_KEY='SG7hT2kLp9QwZx4VbN3m'",
            "high-entropy-secret",
        );
        one(
            "signing.key: 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
            "high-entropy-secret",
        );
        one(
            "VENDOR_CREDENTIALS=aZ3kP9qL2mX7wR4tY8uB",
            "high-entropy-secret",
        );
    }

    #[test]
    fn ordinary_code_and_git_hashes_in_progress_txt_are_not_redacted() {
        untouched(
            "## 2026-11-20 10:02 - US-003\n\
             - Commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 (feat: cache user profiles)\n\
             - Reverted 9c1d8e7 and e7d6c5b after the flaky test\n\
             - PRIMARY_KEY = \"id\"; SORT_KEY: created_at_desc_index\n\
             - let cache_key = format!(\"{user_id}:{version}\");\n\
             - CACHE_KEY=userProfileCacheVersion2 and LOCK_KEY=ralph-project-lock\n\
             - const MAX_TOKENS: usize = 4096; NEXT_TOKEN=Some(tok)\n\
             - ENCRYPTION_KEY=${ENCRYPTION_KEY} from the environment\n\
             - storage.key: src/storage/keys.rs::KeyRing\n\
             - JWT parsing lives in src/auth/jwt.rs (tokens start with eyJ)\n\
             - sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n",
        );
    }

    #[test]
    fn password_style_assignments_keep_the_key() {
        assert_eq!(
            one("DB_PASSWORD=hunter2!", "password-assignment"),
            "DB_PASSWORD=[REDACTED:password-assignment]"
        );
        assert_eq!(
            one(r#"{"api_key": "abc123xyz"}"#, "password-assignment"),
            r#"{"api_key": "[REDACTED:password-assignment]"}"#
        );
        one("client_secret: 'q9w8e7'", "password-assignment");
        one("export SECRET_TOKEN=abcdef", "password-assignment");
    }

    #[test]
    fn code_types_and_references_are_not_secrets() {
        untouched("password: String,");
        untouched("let token = parse_token(input);");
        untouched("token: Option<String>");
        untouched("password = self.password");
        untouched("DB_PASSWORD=${DB_PASSWORD}");
        untouched("if token == other {");
        untouched("api_key: &str");
        untouched("password=\"\"");
        untouched("max_tokens=4096 and token_count: 12");
        untouched("Secret redaction happens first.\npassword:\n  hunter2");
    }

    #[test]
    fn connection_strings_lose_only_the_password() {
        assert_eq!(
            one(
                "DATABASE_URL postgres://app:s3cr3t@db.internal:5432/app",
                "connection-string"
            ),
            "DATABASE_URL postgres://app:[REDACTED:connection-string]@db.internal:5432/app"
        );
        one(
            "mongodb+srv://user:p%40ss@cluster0.example.net",
            "connection-string",
        );
        one("redis://:topsecret@localhost:6379", "connection-string");
        untouched("postgres://app:$DB_PASS@db/app");
        untouched("see https://example.com/a:b and user@example.com");
    }

    #[test]
    fn counts_add_up_across_kinds_and_calls() {
        let mut counts = Redactions::default();
        let text =
            "sk-ant-aaaaaaaaaaaaaaaaaaaa sk-bbbbbbbbbbbbbbbbbbbbbbbb sk-ant-cccccccccccccccccccc";
        let out = redact_into(text, &mut counts);
        redact_into("password=abcdef", &mut counts);
        assert_eq!(counts.get("anthropic-key"), 2);
        assert_eq!(counts.get("openai-key"), 1);
        assert_eq!(counts.get("password-assignment"), 1);
        assert_eq!(counts.total(), 4);
        assert!(!out.contains("sk-"));
        // Redacting again finds nothing new: markers are not secrets.
        let (again, more) = redact(&out);
        assert_eq!(again, out);
        assert!(more.is_empty());
    }

    proptest::proptest! {
        /// The literal prefilter never skips a rule that would have redacted something.
        #[test]
        fn prefilter_skips_only_rules_that_cannot_match(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx", "sk-abcdefghijklmnopqrstuvwxyz0123",
                "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "AKIAABCDEFGHIJKLMNOP",
                "AWS_SECRET_ACCESS_KEY=abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123",
                "xoxb-1234567890-abc", "sk_live_abcdefghijklmnop1234",
                "AIzaSyA1234567890abcdefghijklmnopqrstuv", "postgres://user:hunter2@db",
                "Authorization: BEARER abc.def.ghi123", "PassWord=\"s3cret!\"", "api-KEY: x9y8z7",
                "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----",
                "token = self.token", "plain words",
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig", "MY_KEY=Xk29fQp7LmZr4TbW8vNc",
                "x.secret: 'aZ3kP9qL2mX7wR4tY8uB'", " ", "\n", "=", ":", "keywords", "ſecret=abcdef",
            ]), 0..8)
        ) {
            let text = parts.concat();
            let (mut a, mut b) = (Redactions::default(), Redactions::default());
            let fast = redact_into(&text, &mut a);
            let full = redact_rules(&text, u32::MAX, &mut b);
            proptest::prop_assert_eq!(fast, full);
            proptest::prop_assert_eq!(a, b);
        }
    }
}
