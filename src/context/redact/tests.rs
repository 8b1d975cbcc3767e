//! Tests of redaction: every rule, its order, and what it must leave alone.

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
    // `\u{7b}` is `{`: written so, the source's braces pair up for tools that count them.
    untouched("JWTs start with eyJ (base64 of \u{7b}\"); see src/auth/jwt.rs");
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
    untouched("if token == other \u{7b}");
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

#[test]
fn only_these_letters_fold_to_ascii() {
    // What the literal prefilter assumes: outside `FOLDS_TO_ASCII`, no character matches an
    // ASCII letter case-insensitively, so text without them needs its ASCII literals.
    let letter = regex::Regex::new("(?i)^[a-z]$").unwrap();
    let folding: Vec<char> = (128..=0x10FFFF_u32)
        .filter_map(char::from_u32)
        .filter(|c| letter.is_match(c.encode_utf8(&mut [0; 4])))
        .collect();
    assert!(
        folding
            .iter()
            .all(|c| super::rules::FOLDS_TO_ASCII.contains(c)),
        "{folding:?}"
    );
    assert!(
        !folding.is_empty(),
        "ſ and the Kelvin sign fold: {folding:?}"
    );
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
            "pass — word", "é", "TO\u{212A}EN=abcdef", "pa\u{17F}\u{17F}word: hunter22",
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
