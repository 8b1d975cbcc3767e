//! The value types of `ralph.toml`: each reads any TOML value, checks it, and when it cannot use
//! it says what it expected and what it got (`expected a whole number of at least 1, got 0`).
//! serde calls them for the keys of the sections in [`super::file`], which adds the place (file,
//! line, section, key) to the message. Does not know any key or section.

use std::path::PathBuf;
use std::time::Duration;

use super::scalar::{
    ConflictThreshold, Dollars, parse_age, parse_agent, parse_duration, parse_mode,
};
use crate::agent::{AgentKind, PromptMode};

/// A value type: a newtype serde reads as a `toml::Value` and converts with `TryFrom`, whose
/// error (a `String`) is the message.
macro_rules! value_type {
    ($(#[$doc:meta])* $name:ident($inner:ty), |$v:ident| $check:expr) => {
        $(#[$doc])*
        #[derive(Debug, serde::Deserialize)]
        #[serde(try_from = "toml::Value")]
        pub(super) struct $name(pub(super) $inner);

        impl TryFrom<toml::Value> for $name {
            type Error = String;
            fn try_from($v: toml::Value) -> Result<$name, String> {
                $check.map($name)
            }
        }
    };
}

value_type!(
    /// A whole number of at least 1 (iterations, limits, budgets).
    Count(u32),
    |v| v
        .as_integer()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| *n >= 1)
        .ok_or_else(|| format!("expected a whole number of at least 1, got {v}"))
);

value_type!(
    /// A whole number, 0 or more (`[clean] keep`).
    Keep(usize),
    |v| v
        .as_integer()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| format!("expected a whole number (0 or more), got {v}"))
);

value_type!(
    /// `true` or `false`.
    Flag(bool),
    |v| v
        .as_bool()
        .ok_or_else(|| format!("expected true or false, got {v}"))
);

value_type!(
    /// Any string (`[agent] cmd`).
    Text(String),
    |v| text(&v).map(String::from)
);

value_type!(
    /// An agent preset's name, with the nearest one when unknown.
    Agent(AgentKind),
    |v| parse_agent(text(&v)?)
);

value_type!(
    /// How the prompt reaches the agent: `stdin`, `arg`, `file`.
    Mode(PromptMode),
    |v| parse_mode(text(&v)?)
);

value_type!(
    /// A duration: seconds (`90`, `0.5`) or a string with units (`"2s"`, `"1h30m"`).
    Secs(Duration),
    |v| duration(&v)
);

value_type!(
    /// A hook's time limit: a duration above zero.
    HookTimeout(Duration),
    |v| match duration(&v)? {
        d if d.is_zero() => Err("a hook needs some time to run; use e.g. \"30s\"".to_string()),
        d => Ok(d),
    }
);

value_type!(
    /// An age (`"14d"`, `"2w"`, `"36h"`, or 0).
    Age(Duration),
    |v| match &v {
        toml::Value::String(s) => parse_age(s),
        toml::Value::Integer(0) => Ok(Duration::ZERO),
        other => Err(format!("expected an age like \"14d\", got {other}")),
    }
);

value_type!(
    /// US dollars above 0: `5`, `2.50`, `"$2.50"`.
    Cost(Dollars),
    |v| Dollars::parse(&match &v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(n) => n.to_string(),
        toml::Value::Float(f) => f.to_string(),
        other => other.to_string(),
    })
);

value_type!(
    /// An overlap between 0 and 1 (`0.5`, `"50%"`) or `"off"` (`[run] conflict_threshold`).
    Overlap(ConflictThreshold),
    |v| ConflictThreshold::parse(&match &v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    })
);

value_type!(
    /// Verify commands: one string or a list of strings.
    Commands(Vec<String>),
    |v| match &v {
        toml::Value::String(s) => Ok(vec![s.clone()]),
        toml::Value::Array(a) => strings(a),
        other => Err(format!("expected a list of commands, got {other}")),
    }
);

value_type!(
    /// Globs naming test files; each must be a glob ralph can match (an empty list matches
    /// no file).
    Globs(Vec<String>),
    |v| match &v {
        toml::Value::Array(a) => strings(a).and_then(|globs| {
            for g in &globs {
                globset::Glob::new(g).map_err(|e| format!("\"{g}\" is not a glob: {}", e.kind()))?;
            }
            Ok(globs)
        }),
        other => Err(format!(
            "expected a list of globs like [\"tests/**\"], got {other}"
        )),
    }
);

value_type!(
    /// `[agent] instructions`: a file name.
    PromptFile(PathBuf),
    |v| nonempty(&v, "expected a file name, like \"prompt.md\"").map(PathBuf::from)
);

value_type!(
    /// `[review] instructions`: a file name.
    ReviewFile(PathBuf),
    |v| nonempty(&v, "expected a file name, like \"review.md\"").map(PathBuf::from)
);

value_type!(
    /// `[review] cmd`: the reviewer as a custom command.
    ReviewCmd(String),
    |v| nonempty(&v, "expected a command, like \"my-reviewer --ci\"")
);

value_type!(
    /// `[verify] red_green_setup`: a command run before the red run.
    SetupCmd(String),
    |v| nonempty(
        &v,
        "expected a command for /bin/sh -c, like \"npm ci\"; remove the key to run none"
    )
);

value_type!(
    /// A `[hooks]` command.
    HookCmd(String),
    |v| nonempty(
        &v,
        "expected a command for /bin/sh -c, like \"./notify.sh\"; remove the key to run no hook"
    )
);

fn text(v: &toml::Value) -> Result<&str, String> {
    v.as_str()
        .ok_or_else(|| format!("expected a string, got {v}"))
}

/// A string with something in it; `empty` says what to write instead.
fn nonempty(v: &toml::Value, empty: &str) -> Result<String, String> {
    match text(v)? {
        s if s.trim().is_empty() => Err(empty.to_string()),
        s => Ok(s.to_string()),
    }
}

fn strings(a: &[toml::Value]) -> Result<Vec<String>, String> {
    a.iter().map(|x| text(x).map(String::from)).collect()
}

fn duration(v: &toml::Value) -> Result<Duration, String> {
    match v {
        toml::Value::Integer(n) if *n >= 0 => Ok(Duration::from_secs(n.unsigned_abs())),
        toml::Value::Float(f) => Duration::try_from_secs_f64(*f)
            .map_err(|_| format!("{f} is not a non-negative duration")),
        toml::Value::String(s) => parse_duration(s),
        other => Err(format!("expected a duration like \"2s\", got {other}")),
    }
}
