//! The redaction patterns, the order they apply in, and the literal prefilter that tells which
//! of them can match a text at all. What a matched value must look like to count as a secret is
//! in `accept.rs`.

use aho_corasick::AhoCorasick;
use regex::Regex;
use std::sync::{LazyLock, OnceLock};

use super::accept::*;

/// One pattern: what it matches, which capture group is the secret, and a last check on the
/// secret itself (to leave placeholders, references and code alone). `literals`: text every
/// match contains (ASCII, any case); a rule whose literals are absent is never compiled or run.
pub(super) struct Rule {
    pub(super) kind: &'static str,
    pub(super) pattern: &'static str,
    pub(super) literals: &'static [&'static str],
    re: OnceLock<Regex>,
    pub(super) group: usize,
    pub(super) accept: fn(&str) -> bool,
}

impl Rule {
    pub(super) fn re(&self) -> &Regex {
        self.re.get_or_init(|| {
            // The patterns are constants of this file, compiled and exercised by the tests
            // in tests.rs; an invalid one is a programming error caught by `every_rule_compiles`.
            #[allow(clippy::expect_used)]
            Regex::new(self.pattern).expect("redaction pattern compiles")
        })
    }
}

pub(super) fn rule(
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
pub(super) static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
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

/// The letters outside ASCII that a case-insensitive pattern may take for ASCII ones: `ſ` for
/// `s` and the Kelvin sign for `k` (the regex crate's simple case folding; the test
/// `only_these_letters_fold_to_ascii` checks every character), and the Turkish dotted and
/// dotless `i` (which other engines fold), to be safe.
pub(super) const FOLDS_TO_ASCII: [char; 4] = ['\u{130}', '\u{131}', '\u{17F}', '\u{212A}'];

/// Which rules can match `text` (bit `i` for rule `i`). Case-insensitive rules (`(?i)`) fold
/// a few non-ASCII letters too (`ſ` matches `s`, see [`FOLDS_TO_ASCII`]), which an ASCII literal
/// scan would miss: text holding one tries every rule. Any other text is scanned for the
/// literals as it is (an em dash or an accent cannot be part of an ASCII literal).
pub(super) fn candidates(text: &str) -> u32 {
    if !text.is_ascii() && text.contains(FOLDS_TO_ASCII) {
        return u32::MAX;
    }
    let (ac, owner) = &*LITERALS;
    ac.find_overlapping_iter(text)
        .fold(0, |set, m| set | 1 << owner[m.pattern().as_usize()])
}
