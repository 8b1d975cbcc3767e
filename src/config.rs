//! `ralph.toml` and the settings of `ralph run`, merged: CLI > `RALPH_*` env > file > defaults.
//!
//! Owns the file format (sections `[agent]`, `[run]`, `[verify]`, `[compact]`, `[context]`), its errors (an unknown key
//! names the nearest valid one and its line), the environment variables and the merge. Does
//! not own what the settings do (see `crate::run`).
//!
//! ```toml
//! [agent]
//! name = "claude"          # claude|codex|amp|copilot|gemini|opencode|custom
//! cmd = "my-agent --fast"  # custom command (implies name = "custom")
//! prompt_mode = "stdin"    # stdin|arg|file
//! [run]
//! iterations = 10
//! timeout = "60m"
//! sleep = "2s"
//! max_failures = 3
//! no_wait = false
//! compact = true
//! [verify]
//! commands = ["cargo test"]
//! [compact]
//! threshold = 400          # compact progress.txt when it has more lines than this
//! keep_recent = 200        # lines of recent entries kept verbatim
//! [context]
//! budget = 24000           # prompt token budget (estimated as chars/4 + 15%)
//! top_k = 5                # Pin entries per prompt
//! spec_lines = 100         # lines of each Pin entry's spec
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::agent::{AgentKind, PromptMode};

/// The file name, at the project root.
pub const FILE: &str = "ralph.toml";

const SECTIONS: &[&str] = &["agent", "run", "verify", "compact", "context"];
const AGENT_KEYS: &[&str] = &["name", "cmd", "prompt_mode"];
const RUN_KEYS: &[&str] = &[
    "iterations",
    "timeout",
    "sleep",
    "max_failures",
    "no_wait",
    "compact",
];
const VERIFY_KEYS: &[&str] = &["commands"];
const COMPACT_KEYS: &[&str] = &["threshold", "keep_recent"];
const CONTEXT_KEYS: &[&str] = &["budget", "top_k", "spec_lines"];

/// A bad setting, with where it came from.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error(transparent)]
    Io(#[from] crate::fsutil::FsError),
    #[error("{path}:{line}:{column}: {message}; fix the TOML syntax")]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{place}: unknown key \"{key}\"{}; valid keys: {}", .suggestion.as_ref().map(|s| format!(" (did you mean \"{s}\"?)")).unwrap_or_default(), .valid.join(", "))]
    UnknownKey {
        place: String,
        key: String,
        suggestion: Option<String>,
        valid: Vec<String>,
    },
    #[error("{place}: {message}")]
    BadValue { place: String, message: String },
}

/// One source of settings; `None` means "not set here".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layer {
    pub agent: Option<AgentKind>,
    pub agent_cmd: Option<String>,
    pub prompt_mode: Option<PromptMode>,
    pub iterations: Option<u32>,
    pub timeout: Option<Duration>,
    pub sleep: Option<Duration>,
    pub max_failures: Option<u32>,
    pub no_wait: Option<bool>,
    pub compact: Option<bool>,
    pub verify: Option<Vec<String>>,
    /// progress.txt compaction: line threshold and recent lines kept verbatim.
    pub compact_threshold: Option<usize>,
    pub compact_keep_recent: Option<usize>,
    /// The context builder: token budget, Pin entries, spec lines per entry.
    pub context_budget: Option<usize>,
    pub context_top_k: Option<usize>,
    pub context_spec_lines: Option<usize>,
    /// Hidden: SIGTERM→SIGKILL grace (default 10 s).
    pub grace: Option<Duration>,
    /// Hidden: cap on one rate-limit wait.
    pub max_wait: Option<Duration>,
}

/// The merged settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub agent: AgentKind,
    pub agent_cmd: Option<String>,
    pub prompt_mode: Option<PromptMode>,
    pub iterations: u32,
    pub timeout: Duration,
    pub sleep: Duration,
    pub max_failures: u32,
    pub no_wait: bool,
    pub compact: bool,
    pub verify: Vec<String>,
    pub compact_threshold: usize,
    pub compact_keep_recent: usize,
    pub context: crate::context::Options,
    pub grace: Duration,
    pub max_wait: Option<Duration>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            agent: AgentKind::Claude,
            agent_cmd: None,
            prompt_mode: None,
            iterations: 10,
            timeout: Duration::from_secs(60 * 60),
            sleep: Duration::from_secs(2),
            max_failures: 3,
            no_wait: false,
            compact: true,
            verify: vec![],
            compact_threshold: crate::progress::compact::DEFAULT_THRESHOLD,
            compact_keep_recent: crate::progress::compact::DEFAULT_KEEP_RECENT,
            context: crate::context::Options::default(),
            grace: Duration::from_secs(10),
            max_wait: None,
        }
    }
}

/// Parse a duration: plain seconds (`90`, `0.5`) or units (`500ms`, `2s`, `60m`, `1h30m`).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    if let Ok(secs) = t.parse::<f64>() {
        return Duration::try_from_secs_f64(secs)
            .map_err(|_| format!("\"{s}\" is not a non-negative duration of sensible size"));
    }
    let d: jiff::SignedDuration = t
        .parse()
        .map_err(|_| format!("\"{s}\" is not a duration; use e.g. 90, 500ms, 2s, 60m, 1h30m"))?;
    Duration::try_from(d).map_err(|_| format!("\"{s}\" is negative"))
}

/// The merge: the first layer (highest precedence first) that sets a value wins. The agent and
/// its command go together: a layer naming a preset agent overrides a lower layer's command.
pub fn resolve(layers: &[&Layer]) -> Settings {
    let d = Settings::default();
    macro_rules! pick {
        ($f:ident, $default:expr) => {
            layers.iter().find_map(|l| l.$f.clone()).unwrap_or($default)
        };
    }
    let mut agent = d.agent;
    let mut agent_cmd = None;
    for (i, l) in layers.iter().enumerate() {
        if let Some(cmd) = &l.agent_cmd {
            agent = AgentKind::Custom;
            agent_cmd = Some(cmd.clone());
            break;
        }
        if let Some(a) = l.agent {
            agent = a;
            if a == AgentKind::Custom {
                agent_cmd = layers[i + 1..].iter().find_map(|l| l.agent_cmd.clone());
            }
            break;
        }
    }
    Settings {
        agent,
        agent_cmd,
        prompt_mode: layers.iter().find_map(|l| l.prompt_mode),
        iterations: pick!(iterations, d.iterations),
        timeout: pick!(timeout, d.timeout),
        sleep: pick!(sleep, d.sleep),
        max_failures: pick!(max_failures, d.max_failures),
        no_wait: pick!(no_wait, d.no_wait),
        compact: pick!(compact, d.compact),
        verify: pick!(verify, d.verify),
        compact_threshold: pick!(compact_threshold, d.compact_threshold),
        compact_keep_recent: pick!(compact_keep_recent, d.compact_keep_recent),
        context: crate::context::Options {
            budget: pick!(context_budget, d.context.budget),
            top_k: pick!(context_top_k, d.context.top_k),
            spec_lines: pick!(context_spec_lines, d.context.spec_lines),
            ..d.context
        },
        grace: pick!(grace, d.grace),
        max_wait: layers.iter().find_map(|l| l.max_wait),
    }
}

fn bad(place: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::BadValue {
        place: place.to_string(),
        message: message.into(),
    }
}

fn parse_bool(place: &str, s: &str) -> Result<bool, ConfigError> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" | "" => Ok(false),
        _ => Err(bad(place, format!("\"{s}\" is not true/false (or 1/0)"))),
    }
}

fn parse_count(place: &str, s: &str) -> Result<u32, ConfigError> {
    match s.trim().parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(bad(
            place,
            format!("\"{s}\" is not a whole number of at least 1"),
        )),
    }
}

fn parse_agent(place: &str, s: &str) -> Result<AgentKind, ConfigError> {
    AgentKind::parse(s).ok_or_else(|| {
        let hint = crate::suggest::nearest(s, AgentKind::NAMES.iter().copied())
            .map(|n| format!(" (did you mean \"{n}\"?)"))
            .unwrap_or_default();
        bad(
            place,
            format!(
                "unknown agent \"{s}\"{hint}; choose one of {}",
                AgentKind::NAMES.join(", ")
            ),
        )
    })
}

fn parse_mode(place: &str, s: &str) -> Result<PromptMode, ConfigError> {
    PromptMode::parse(s).ok_or_else(|| {
        bad(
            place,
            format!("\"{s}\" is not a prompt mode; use stdin, arg or file"),
        )
    })
}

/// Read the `RALPH_*` variables through `get` (so tests need not touch the process env).
pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Result<Layer, ConfigError> {
    let v = |k: &str| get(k).filter(|s| !s.is_empty());
    let dur = |k: &str| -> Result<Option<Duration>, ConfigError> {
        v(k).map(|s| parse_duration(&s).map_err(|m| bad(k, m)))
            .transpose()
    };
    Ok(Layer {
        agent: v("RALPH_AGENT")
            .map(|s| parse_agent("RALPH_AGENT", &s))
            .transpose()?,
        agent_cmd: v("RALPH_AGENT_CMD"),
        prompt_mode: v("RALPH_PROMPT_MODE")
            .map(|s| parse_mode("RALPH_PROMPT_MODE", &s))
            .transpose()?,
        iterations: v("RALPH_ITERATIONS")
            .map(|s| parse_count("RALPH_ITERATIONS", &s))
            .transpose()?,
        timeout: dur("RALPH_TIMEOUT")?,
        sleep: dur("RALPH_SLEEP")?,
        max_failures: v("RALPH_MAX_FAILURES")
            .map(|s| parse_count("RALPH_MAX_FAILURES", &s))
            .transpose()?,
        no_wait: v("RALPH_NO_WAIT")
            .map(|s| parse_bool("RALPH_NO_WAIT", &s))
            .transpose()?,
        compact: v("RALPH_NO_COMPACT")
            .map(|s| parse_bool("RALPH_NO_COMPACT", &s).map(|b| !b))
            .transpose()?,
        verify: v("RALPH_VERIFY").map(|s| {
            s.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect()
        }),
        compact_threshold: v("RALPH_COMPACT_THRESHOLD")
            .map(|s| parse_count("RALPH_COMPACT_THRESHOLD", &s).map(|n| n as usize))
            .transpose()?,
        compact_keep_recent: v("RALPH_COMPACT_KEEP_RECENT")
            .map(|s| parse_count("RALPH_COMPACT_KEEP_RECENT", &s).map(|n| n as usize))
            .transpose()?,
        context_budget: v("RALPH_CONTEXT_BUDGET")
            .map(|s| parse_count("RALPH_CONTEXT_BUDGET", &s).map(|n| n as usize))
            .transpose()?,
        context_top_k: v("RALPH_CONTEXT_TOP_K")
            .map(|s| parse_count("RALPH_CONTEXT_TOP_K", &s).map(|n| n as usize))
            .transpose()?,
        context_spec_lines: v("RALPH_CONTEXT_SPEC_LINES")
            .map(|s| parse_count("RALPH_CONTEXT_SPEC_LINES", &s).map(|n| n as usize))
            .transpose()?,
        grace: dur("RALPH_GRACE")?,
        max_wait: dur("RALPH_MAX_WAIT")?,
    })
}

/// 1-based line of `key` inside `[section]` in the source text (best effort, for messages).
fn line_of(text: &str, section: Option<&str>, key: &str) -> usize {
    let mut current: Option<String> = None;
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if let Some(h) = t.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            current = Some(h.trim().to_string());
            if section.is_none() && h.trim() == key {
                return i + 1;
            }
            continue;
        }
        if current.as_deref() == section
            && t.strip_prefix(key)
                .is_some_and(|r| r.trim_start().starts_with('='))
        {
            return i + 1;
        }
    }
    1
}

fn str_of<'a>(place: &str, v: &'a toml::Value) -> Result<&'a str, ConfigError> {
    v.as_str()
        .ok_or_else(|| bad(place, format!("expected a string, got {v}")))
}

/// Parse the text of a ralph.toml (`path` only names it in errors).
pub fn parse_file(path: &Path, text: &str) -> Result<Layer, ConfigError> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let (line, column) = e
            .span()
            .map(|s| {
                let before = text.get(..s.start).unwrap_or(text);
                let line = before.matches('\n').count() + 1;
                let col = before.len() - before.rfind('\n').map(|n| n + 1).unwrap_or(0) + 1;
                (line, col)
            })
            .unwrap_or((1, 1));
        ConfigError::Syntax {
            path: path.to_path_buf(),
            line,
            column,
            message: e.message().to_string(),
        }
    })?;
    let file = path.display().to_string();
    let mut layer = Layer::default();
    for (section, value) in &table {
        let valid: &[&str] = match section.as_str() {
            "agent" => AGENT_KEYS,
            "run" => RUN_KEYS,
            "verify" => VERIFY_KEYS,
            "compact" => COMPACT_KEYS,
            "context" => CONTEXT_KEYS,
            _ => {
                return Err(ConfigError::UnknownKey {
                    place: format!("{file}:{}", line_of(text, None, section)),
                    key: section.clone(),
                    suggestion: crate::suggest::nearest(section, SECTIONS.iter().copied())
                        .map(String::from),
                    valid: SECTIONS.iter().map(|s| format!("[{s}]")).collect(),
                });
            }
        };
        let Some(t) = value.as_table() else {
            return Err(bad(
                &format!("{file}:{}", line_of(text, None, section)),
                format!("\"{section}\" must be a [{section}] section"),
            ));
        };
        for (key, v) in t {
            let place = format!(
                "{file}:{}: [{section}] {key}",
                line_of(text, Some(section), key)
            );
            if !valid.contains(&key.as_str()) {
                return Err(ConfigError::UnknownKey {
                    place: format!("{file}:{} [{section}]", line_of(text, Some(section), key)),
                    key: key.clone(),
                    suggestion: crate::suggest::nearest(key, valid.iter().copied())
                        .map(String::from),
                    valid: valid.iter().map(|s| s.to_string()).collect(),
                });
            }
            let dur = |v: &toml::Value| -> Result<Duration, ConfigError> {
                match v {
                    toml::Value::Integer(n) if *n >= 0 => Ok(Duration::from_secs(*n as u64)),
                    toml::Value::Float(f) => Duration::try_from_secs_f64(*f)
                        .map_err(|_| bad(&place, format!("{f} is not a non-negative duration"))),
                    toml::Value::String(s) => parse_duration(s).map_err(|m| bad(&place, m)),
                    other => Err(bad(
                        &place,
                        format!("expected a duration like \"2s\", got {other}"),
                    )),
                }
            };
            let count = |v: &toml::Value| -> Result<u32, ConfigError> {
                v.as_integer()
                    .and_then(|n| u32::try_from(n).ok())
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| {
                        bad(
                            &place,
                            format!("expected a whole number of at least 1, got {v}"),
                        )
                    })
            };
            let boolean = |v: &toml::Value| {
                v.as_bool()
                    .ok_or_else(|| bad(&place, format!("expected true or false, got {v}")))
            };
            match (section.as_str(), key.as_str()) {
                ("agent", "name") => layer.agent = Some(parse_agent(&place, str_of(&place, v)?)?),
                ("agent", "cmd") => layer.agent_cmd = Some(str_of(&place, v)?.to_string()),
                ("agent", "prompt_mode") => {
                    layer.prompt_mode = Some(parse_mode(&place, str_of(&place, v)?)?)
                }
                ("run", "iterations") => layer.iterations = Some(count(v)?),
                ("run", "max_failures") => layer.max_failures = Some(count(v)?),
                ("run", "timeout") => layer.timeout = Some(dur(v)?),
                ("run", "sleep") => layer.sleep = Some(dur(v)?),
                ("run", "no_wait") => layer.no_wait = Some(boolean(v)?),
                ("run", "compact") => layer.compact = Some(boolean(v)?),
                ("compact", "threshold") => layer.compact_threshold = Some(count(v)? as usize),
                ("compact", "keep_recent") => layer.compact_keep_recent = Some(count(v)? as usize),
                ("context", "budget") => layer.context_budget = Some(count(v)? as usize),
                ("context", "top_k") => layer.context_top_k = Some(count(v)? as usize),
                ("context", "spec_lines") => layer.context_spec_lines = Some(count(v)? as usize),
                _ => {
                    // [verify] commands: a string or a list of strings.
                    let cmds = match v {
                        toml::Value::String(s) => vec![s.clone()],
                        toml::Value::Array(a) => a
                            .iter()
                            .map(|x| str_of(&place, x).map(String::from))
                            .collect::<Result<_, _>>()?,
                        other => {
                            return Err(bad(
                                &place,
                                format!("expected a list of commands, got {other}"),
                            ));
                        }
                    };
                    layer.verify = Some(cmds);
                }
            }
        }
    }
    Ok(layer)
}

/// Read `<root>/ralph.toml`; a missing file is an empty layer.
pub fn load_file(root: &Path) -> Result<Layer, ConfigError> {
    let path = root.join(FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => parse_file(&path, &text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Layer::default()),
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
    fn durations_accept_seconds_and_units() {
        assert_eq!(parse_duration("90").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("0.5").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("60m").unwrap(), Duration::from_secs(3600));
        assert_eq!(parse_duration("1h30m").unwrap(), Duration::from_secs(5400));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("-3").is_err());
        assert!(parse_duration("1e30").is_err());
        assert!(parse_duration("NaN").is_err());
    }

    #[test]
    fn file_sections_parse_and_unknown_keys_name_the_nearest() {
        let p = Path::new("ralph.toml");
        let l = parse_file(
            p,
            "[agent]\nname = \"codex\"\n[run]\niterations = 5\ntimeout = \"30m\"\nsleep = 0\n[verify]\ncommands = [\"cargo test\"]\n",
        )
        .unwrap();
        assert_eq!(l.agent, Some(AgentKind::Codex));
        assert_eq!(l.iterations, Some(5));
        assert_eq!(l.timeout, Some(Duration::from_secs(1800)));
        assert_eq!(l.sleep, Some(Duration::ZERO));
        assert_eq!(l.verify, Some(vec!["cargo test".to_string()]));
        let err = parse_file(p, "[run]\niterations = 5\nmax_failure = 2\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("ralph.toml:3 [run]"), "{err}");
        assert!(err.contains("did you mean \"max_failures\"?"), "{err}");
        let err = parse_file(p, "[verfy]\ncommands = []\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("did you mean \"verify\"?"), "{err}");
        let err = parse_file(p, "[run]\ntimeout = \"soon\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("ralph.toml:2: [run] timeout"), "{err}");
        let err = parse_file(p, "[run\n").unwrap_err().to_string();
        assert!(err.starts_with("ralph.toml:1:"), "{err}");
        let err = parse_file(p, "[agent]\nname = \"cladue\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("did you mean \"claude\"?"), "{err}");
    }

    #[test]
    fn cli_beats_env_beats_file_beats_defaults() {
        let file = Layer {
            iterations: Some(5),
            sleep: Some(Duration::from_secs(9)),
            agent_cmd: Some("file-agent".into()),
            verify: Some(vec!["make".into()]),
            ..Layer::default()
        };
        let env = from_env(|k| match k {
            "RALPH_ITERATIONS" => Some("7".into()),
            "RALPH_AGENT" => Some("codex".into()),
            "RALPH_NO_COMPACT" => Some("1".into()),
            _ => None,
        })
        .unwrap();
        let cli = Layer {
            iterations: Some(2),
            ..Layer::default()
        };
        let s = resolve(&[&cli, &env, &file]);
        assert_eq!(s.iterations, 2);
        assert_eq!(s.sleep, Duration::from_secs(9));
        assert_eq!(s.agent, AgentKind::Codex);
        assert_eq!(s.agent_cmd, None);
        assert!(!s.compact);
        assert_eq!(s.verify, ["make"]);
        assert_eq!(s.timeout, Duration::from_secs(3600));
        let s = resolve(&[&Layer::default(), &file]);
        assert_eq!(s.agent, AgentKind::Custom);
        assert_eq!(s.agent_cmd.as_deref(), Some("file-agent"));
        let custom = Layer {
            agent: Some(AgentKind::Custom),
            ..Layer::default()
        };
        assert_eq!(
            resolve(&[&custom, &file]).agent_cmd.as_deref(),
            Some("file-agent")
        );
        assert!(from_env(|k| (k == "RALPH_TIMEOUT").then(|| "x".into())).is_err());
    }
}
