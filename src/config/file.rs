//! Reading `ralph.toml` into a [`Layer`] with serde: one struct per section, derived with
//! `deny_unknown_fields`, so the sections and their keys are the structs' fields (the order
//! of the fields is the order messages list them in); each value is one of the types of
//! [`super::value`], which says what it expected. A TOML error's span gives the place: the
//! line, and the section and key found at that span in the parsed document. Does not merge
//! layers or read the environment (that is the parent module).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::LazyLock;

use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};
use toml::de::{DeTable, DeValue};

use super::layer::{ConfigError, ContextOverride, FILE, Layer};
use super::value::{
    Age, Agent, Commands, Cost, Count, Flag, Globs, HookCmd, HookTimeout, Keep, Mode, Overlap,
    PromptFile, ReviewCmd, ReviewFile, Secs, SetupCmd, Text,
};
use crate::agent::AgentKind;

/// The whole file.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct File {
    agent: AgentSection,
    run: RunSection,
    verify: VerifySection,
    compact: CompactSection,
    context: ContextSection,
    hooks: HooksSection,
    review: ReviewSection,
    clean: CleanSection,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct AgentSection {
    name: Option<Agent>,
    cmd: Option<Text>,
    prompt_mode: Option<Mode>,
    instructions: Option<PromptFile>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct RunSection {
    iterations: Option<Count>,
    timeout: Option<Secs>,
    sleep: Option<Secs>,
    max_failures: Option<Count>,
    no_wait: Option<Flag>,
    compact: Option<Flag>,
    parallel: Option<Count>,
    conflict_threshold: Option<Overlap>,
    allow_dirty: Option<Flag>,
    max_cost: Option<Cost>,
    preflight: Option<Flag>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct VerifySection {
    commands: Option<Commands>,
    red_green: Option<Flag>,
    test_patterns: Option<Globs>,
    red_green_setup: Option<SetupCmd>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct CompactSection {
    threshold: Option<Count>,
    keep_recent: Option<Count>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct HooksSection {
    on_story_done: Option<HookCmd>,
    on_blocked: Option<HookCmd>,
    on_run_end: Option<HookCmd>,
    timeout: Option<HookTimeout>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct ReviewSection {
    enabled: Option<Flag>,
    agent: Option<Agent>,
    cmd: Option<ReviewCmd>,
    max_rounds: Option<Count>,
    instructions: Option<ReviewFile>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct CleanSection {
    older_than: Option<Age>,
    keep: Option<Keep>,
    auto: Option<Flag>,
}

/// `[context.<agent>]`: what one agent overrides of `[context]`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields, expecting = "a [context.<agent>] table")]
struct AgentContext {
    budget: Option<Count>,
    top_k: Option<Count>,
    spec_lines: Option<Count>,
}

/// `[context]`: its own keys, and a `[context.<agent>]` table per agent. Its keys include the
/// agents' names (clap's `ValueEnum` lists them), so it is read key by key rather than derived.
#[derive(Debug, Default)]
struct ContextSection {
    budget: Option<Count>,
    top_k: Option<Count>,
    spec_lines: Option<Count>,
    files: Option<Count>,
    agents: BTreeMap<&'static str, AgentContext>,
}

/// A key of `[context]`. Read as a key, so that an unknown one is reported at its own span.
enum ContextKey {
    Budget,
    TopK,
    SpecLines,
    Files,
    Agent(AgentKind),
}

/// The keys of `[context]`, in the order messages list them.
static CONTEXT_KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    ["budget", "top_k", "spec_lines", "files"]
        .into_iter()
        .chain(AgentKind::names())
        .collect()
});

impl<'de> Deserialize<'de> for ContextKey {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<ContextKey, D::Error> {
        let key = String::deserialize(d)?;
        Ok(match key.as_str() {
            "budget" => ContextKey::Budget,
            "top_k" => ContextKey::TopK,
            "spec_lines" => ContextKey::SpecLines,
            "files" => ContextKey::Files,
            other => match AgentKind::from_name(other) {
                Some(a) => ContextKey::Agent(a),
                None => return Err(de::Error::unknown_field(other, CONTEXT_KEYS.as_slice())),
            },
        })
    }
}

impl<'de> Deserialize<'de> for ContextSection {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<ContextSection, D::Error> {
        d.deserialize_map(ContextVisitor)
    }
}

struct ContextVisitor;

impl<'de> Visitor<'de> for ContextVisitor {
    type Value = ContextSection;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a [context] section")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ContextSection, A::Error> {
        let mut s = ContextSection::default();
        while let Some(key) = map.next_key::<ContextKey>()? {
            match key {
                ContextKey::Budget => s.budget = map.next_value()?,
                ContextKey::TopK => s.top_k = map.next_value()?,
                ContextKey::SpecLines => s.spec_lines = map.next_value()?,
                ContextKey::Files => s.files = map.next_value()?,
                ContextKey::Agent(a) => {
                    s.agents.insert(a.name(), map.next_value()?);
                }
            }
        }
        Ok(s)
    }
}

fn usize_of(c: Option<Count>) -> Option<usize> {
    c.map(|c| c.0 as usize)
}

impl From<File> for Layer {
    fn from(f: File) -> Layer {
        let File {
            agent,
            run,
            verify,
            compact,
            context,
            hooks,
            review,
            clean,
        } = f;
        Layer {
            agent: agent.name.map(|a| a.0),
            agent_cmd: agent.cmd.map(|c| c.0),
            prompt_mode: agent.prompt_mode.map(|m| m.0),
            instructions: agent.instructions.map(|p| p.0),
            iterations: run.iterations.map(|c| c.0),
            timeout: run.timeout.map(|d| d.0),
            sleep: run.sleep.map(|d| d.0),
            max_failures: run.max_failures.map(|c| c.0),
            no_wait: run.no_wait.map(|b| b.0),
            compact: run.compact.map(|b| b.0),
            parallel: run.parallel.map(|c| c.0),
            conflict_threshold: run.conflict_threshold.map(|o| o.0),
            allow_dirty: run.allow_dirty.map(|b| b.0),
            max_cost: run.max_cost.map(|c| c.0),
            preflight: run.preflight.map(|b| b.0),
            verify: verify.commands.map(|c| c.0),
            red_green: verify.red_green.map(|b| b.0),
            test_patterns: verify.test_patterns.map(|g| g.0),
            red_green_setup: verify.red_green_setup.map(|c| c.0),
            compact_threshold: usize_of(compact.threshold),
            compact_keep_recent: usize_of(compact.keep_recent),
            context_budget: usize_of(context.budget),
            context_top_k: usize_of(context.top_k),
            context_spec_lines: usize_of(context.spec_lines),
            context_files: usize_of(context.files),
            context_agents: context
                .agents
                .into_iter()
                .map(|(name, o)| (name.to_string(), o.into()))
                .collect(),
            hook_story_done: hooks.on_story_done.map(|c| c.0),
            hook_blocked: hooks.on_blocked.map(|c| c.0),
            hook_run_end: hooks.on_run_end.map(|c| c.0),
            hook_timeout: hooks.timeout.map(|d| d.0),
            review: review.enabled.map(|b| b.0),
            review_agent: review.agent.map(|a| a.0),
            review_cmd: review.cmd.map(|c| c.0),
            review_max_rounds: review.max_rounds.map(|c| c.0),
            review_instructions: review.instructions.map(|p| p.0),
            clean_older_than: clean.older_than.map(|a| a.0),
            clean_keep: clean.keep.map(|k| k.0),
            clean_auto: clean.auto.map(|b| b.0),
            ..Layer::default()
        }
    }
}

impl From<AgentContext> for ContextOverride {
    fn from(o: AgentContext) -> ContextOverride {
        ContextOverride {
            budget: usize_of(o.budget),
            top_k: usize_of(o.top_k),
            spec_lines: usize_of(o.spec_lines),
        }
    }
}

/// Parse the text of a ralph.toml (`path` only names it in errors).
pub fn parse_file(path: &Path, text: &str) -> Result<Layer, ConfigError> {
    let syntax = |e: toml::de::Error| {
        let (line, column) = line_column(text, e.span().map_or(0, |s| s.start));
        ConfigError::Syntax {
            path: path.to_path_buf(),
            line,
            column,
            message: e.message().to_string(),
        }
    };
    // The TOML as a whole first, every value read (a number out of range is a TOML error),
    // then the same document with its spans, into the sections.
    text.parse::<toml::Table>().map_err(syntax)?;
    let doc = DeTable::parse(text).map_err(syntax)?;
    let file = File::deserialize(toml::de::Deserializer::from(doc.clone()))
        .map_err(|e| misread(path, text, doc.get_ref(), &e))?;
    Ok(file.into())
}

/// 1-based line and column (in bytes) of byte `at` of `text`.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..at.min(text.len())];
    let line_start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |n| n + 1);
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    (line, before.len() - line_start + 1)
}

/// The keys leading to byte `at` of the document (`["run", "timeout"]`), outermost first:
/// the entry whose key or value holds it, in the deepest table that has one.
fn locate<'a>(table: &'a DeTable, at: usize, path: &mut Vec<&'a str>) -> bool {
    for (key, value) in table {
        path.push(key.get_ref());
        if let DeValue::Table(inner) = value.get_ref()
            && locate(inner, at, path)
        {
            return true;
        }
        if key.span().contains(&at) || value.span().contains(&at) {
            return true;
        }
        path.pop();
    }
    false
}

/// The valid keys in serde's message for an unknown one (`unknown field `x`, expected one of
/// `a`, `b``; `expected `a``; `expected `a` or `b``): the names between backquotes after
/// the key. A unit test holds this to serde's wording.
fn valid_keys<'m>(message: &'m str, key: &str) -> Option<Vec<&'m str>> {
    let rest = message.strip_prefix(&format!("unknown field `{key}`"))?;
    Some(rest.split('`').skip(1).step_by(2).collect())
}

/// A document that parsed but that ralph cannot use, with its place.
fn misread(path: &Path, text: &str, doc: &DeTable, e: &toml::de::Error) -> ConfigError {
    let at = e.span().map_or(0, |s| s.start);
    let line = line_column(text, at).0;
    let mut keys = Vec::new();
    locate(doc, at, &mut keys);
    let file = path.display();
    if let Some((key, parents)) = keys.split_last()
        && let Some(valid) = valid_keys(e.message(), key)
    {
        let suggestion = crate::suggest::nearest(key, valid.iter().copied()).map(String::from);
        let (place, valid) = if parents.is_empty() {
            let sections = valid.iter().map(|s| format!("[{s}]")).collect();
            (format!("{file}:{line}"), sections)
        } else {
            let keys = valid.iter().map(|s| s.to_string()).collect();
            (format!("{file}:{line} [{}]", parents.join(".")), keys)
        };
        return ConfigError::UnknownKey {
            place,
            key: key.to_string(),
            suggestion,
            valid,
        };
    }
    let (place, message) = match keys.as_slice() {
        [section] => (
            format!("{file}:{line}"),
            format!("\"{section}\" must be a [{section}] section"),
        ),
        [section, key] => (
            format!("{file}:{line}: [{section}] {key}"),
            e.message().into(),
        ),
        [section, table, key, ..] => (
            format!("{file}:{line}: [{section}.{table}] {key}"),
            e.message().into(),
        ),
        [] => (format!("{file}:{line}"), e.message().into()),
    };
    ConfigError::BadValue { place, message }
}

/// Read `<root>/ralph.toml`; a missing file is an empty layer.
pub(crate) fn load_file(root: &Path) -> Result<Layer, ConfigError> {
    let path = root.join(FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let layer = parse_file(&path, &text)?;
            tracing::debug!(path = %path.display(), ?layer, "read the settings file");
            Ok(layer)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            tracing::debug!(path = %path.display(), "no settings file; defaults apply");
            Ok(Layer::default())
        }
        Err(source) => Err(crate::fsutil::FsError {
            path,
            action: "read",
            source,
        }
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serdes_unknown_field_message_gives_the_valid_keys() {
        let e = <de::value::Error as de::Error>::unknown_field("x", &["a", "b", "c"]);
        assert_eq!(valid_keys(&e.to_string(), "x"), Some(vec!["a", "b", "c"]));
        let e = <de::value::Error as de::Error>::unknown_field("x", &["a", "b"]);
        assert_eq!(valid_keys(&e.to_string(), "x"), Some(vec!["a", "b"]));
        let e = <de::value::Error as de::Error>::unknown_field("x`y", &["a"]);
        assert_eq!(valid_keys(&e.to_string(), "x`y"), Some(vec!["a"]));
        assert_eq!(valid_keys("invalid type: integer `3`", "x"), None);
    }

    #[test]
    fn each_place_names_the_line_the_section_and_the_key() {
        let p = Path::new("r.toml");
        let msg = |text: &str| parse_file(p, text).unwrap_err().to_string();
        assert_eq!(
            msg("[run]\niterations = 5\nmax_failure = 2\n"),
            "r.toml:3 [run]: unknown key \"max_failure\" (did you mean \"max_failures\"?); \
             valid keys: iterations, timeout, sleep, max_failures, no_wait, compact, parallel, \
             conflict_threshold, allow_dirty, max_cost, preflight"
        );
        assert_eq!(
            msg("\n[verfy]\ncommands = []\n"),
            "r.toml:2: unknown key \"verfy\" (did you mean \"verify\"?); valid keys: [agent], \
             [run], [verify], [compact], [context], [hooks], [review], [clean]"
        );
        assert_eq!(
            msg("run = 3\n"),
            "r.toml:1: \"run\" must be a [run] section"
        );
        assert_eq!(
            msg("[run]\nsleep = 1\ntimeout = true\n"),
            "r.toml:3: [run] timeout: expected a duration like \"2s\", got true"
        );
        assert_eq!(
            msg("[context]\ntop_k = 2\n[context.codex]\ntopk = 2\n"),
            "r.toml:4 [context.codex]: unknown key \"topk\" (did you mean \"top_k\"?); \
             valid keys: budget, top_k, spec_lines"
        );
        assert_eq!(
            msg("[context.codex]\nbudget = 9\ntop_k = 0\n"),
            "r.toml:3: [context.codex] top_k: expected a whole number of at least 1, got 0"
        );
        assert_eq!(
            msg("[context]\nclaud = 1\n"),
            "r.toml:2 [context]: unknown key \"claud\" (did you mean \"claude\"?); valid keys: \
             budget, top_k, spec_lines, files, claude, codex, amp, copilot, gemini, opencode, \
             custom"
        );
        assert_eq!(
            msg("[verify]\ncommands = [\"make\", 3]\n"),
            "r.toml:2: [verify] commands: expected a string, got 3"
        );
        assert_eq!(
            msg("[context]\nbudget = = 3\n"),
            "r.toml:2:10: extra `=`, expected nothing; fix the TOML syntax"
        );
    }

    #[test]
    fn every_agent_has_its_context_table() {
        for name in AgentKind::names() {
            let text = format!("[context.{name}]\ntop_k = 2\n");
            let layer = parse_file(Path::new("r.toml"), &text).unwrap();
            assert_eq!(layer.context_agents[name].top_k, Some(2), "{name}");
        }
    }
}
