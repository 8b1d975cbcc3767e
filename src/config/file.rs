//! Reading `ralph.toml`: the TOML syntax, the sections and keys (an unknown one names the
//! nearest valid one and its line), each value's type, into a [`Layer`]. Does not merge layers
//! or read the environment (that is the parent module).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{
    AGENT_KEYS, CLEAN_KEYS, COMPACT_KEYS, CONTEXT_AGENT_KEYS, CONTEXT_KEYS, ConfigError,
    ContextOverride, FILE, HOOKS_KEYS, Layer, REVIEW_KEYS, RUN_KEYS, SECTIONS, VERIFY_KEYS, bad,
    parse_age, parse_agent, parse_dollars, parse_duration, parse_mode,
};

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
            "hooks" => HOOKS_KEYS,
            "review" => REVIEW_KEYS,
            "clean" => CLEAN_KEYS,
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
                ("agent", "instructions") => {
                    let file = str_of(&place, v)?;
                    if file.trim().is_empty() {
                        return Err(bad(&place, "expected a file name, like \"prompt.md\""));
                    }
                    layer.instructions = Some(PathBuf::from(file));
                }
                ("agent", "prompt_mode") => {
                    layer.prompt_mode = Some(parse_mode(&place, str_of(&place, v)?)?)
                }
                ("run", "iterations") => layer.iterations = Some(count(v)?),
                ("run", "max_failures") => layer.max_failures = Some(count(v)?),
                ("run", "timeout") => layer.timeout = Some(dur(v)?),
                ("run", "sleep") => layer.sleep = Some(dur(v)?),
                ("run", "no_wait") => layer.no_wait = Some(boolean(v)?),
                ("run", "compact") => layer.compact = Some(boolean(v)?),
                ("run", "parallel") => layer.parallel = Some(count(v)?),
                ("run", "conflict_threshold") => {
                    let text = match v {
                        toml::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    layer.conflict_threshold =
                        Some(super::ConflictThreshold::parse(&text).map_err(|m| bad(&place, m))?);
                }
                ("run", "allow_dirty") => layer.allow_dirty = Some(boolean(v)?),
                ("run", "preflight") => layer.preflight = Some(boolean(v)?),
                ("run", "max_cost") => {
                    layer.max_cost = Some(match v {
                        toml::Value::Integer(n) => parse_dollars(&place, &n.to_string())?,
                        toml::Value::Float(f) => parse_dollars(&place, &f.to_string())?,
                        toml::Value::String(s) => parse_dollars(&place, s)?,
                        other => parse_dollars(&place, &other.to_string())?,
                    })
                }
                ("compact", "threshold") => layer.compact_threshold = Some(count(v)? as usize),
                ("compact", "keep_recent") => layer.compact_keep_recent = Some(count(v)? as usize),
                ("context", "budget") => layer.context_budget = Some(count(v)? as usize),
                ("context", "top_k") => layer.context_top_k = Some(count(v)? as usize),
                ("context", "spec_lines") => layer.context_spec_lines = Some(count(v)? as usize),
                ("context", "files") => layer.context_files = Some(count(v)? as usize),
                ("review", "enabled") => layer.review = Some(boolean(v)?),
                ("review", "agent") => {
                    layer.review_agent = Some(parse_agent(&place, str_of(&place, v)?)?)
                }
                ("review", "cmd") => {
                    let cmd = str_of(&place, v)?;
                    if cmd.trim().is_empty() {
                        return Err(bad(&place, "expected a command, like \"my-reviewer --ci\""));
                    }
                    layer.review_cmd = Some(cmd.to_string());
                }
                ("review", "max_rounds") => layer.review_max_rounds = Some(count(v)?),
                ("review", "instructions") => {
                    let file = str_of(&place, v)?;
                    if file.trim().is_empty() {
                        return Err(bad(&place, "expected a file name, like \"review.md\""));
                    }
                    layer.review_instructions = Some(PathBuf::from(file));
                }
                ("clean", "older_than") => {
                    layer.clean_older_than = Some(match v {
                        toml::Value::String(s) => parse_age(s).map_err(|m| bad(&place, m))?,
                        toml::Value::Integer(0) => Duration::ZERO,
                        other => {
                            return Err(bad(
                                &place,
                                format!("expected an age like \"14d\", got {other}"),
                            ));
                        }
                    })
                }
                ("clean", "keep") => {
                    layer.clean_keep = Some(
                        v.as_integer()
                            .and_then(|n| usize::try_from(n).ok())
                            .ok_or_else(|| {
                                bad(
                                    &place,
                                    format!("expected a whole number (0 or more), got {v}"),
                                )
                            })?,
                    )
                }
                ("clean", "auto") => layer.clean_auto = Some(boolean(v)?),
                ("verify", "red_green") => layer.red_green = Some(boolean(v)?),
                ("verify", "red_green_setup") => {
                    let cmd = str_of(&place, v)?;
                    if cmd.trim().is_empty() {
                        return Err(bad(
                            &place,
                            "expected a command for /bin/sh -c, like \"npm ci\"; remove the key to run none",
                        ));
                    }
                    layer.red_green_setup = Some(cmd.to_string());
                }
                ("verify", "test_patterns") => {
                    let globs = match v {
                        toml::Value::Array(a) => a
                            .iter()
                            .map(|x| str_of(&place, x).map(String::from))
                            .collect::<Result<Vec<_>, _>>()?,
                        other => {
                            return Err(bad(
                                &place,
                                format!(
                                    "expected a list of globs like [\"tests/**\"], got {other}"
                                ),
                            ));
                        }
                    };
                    check_globs(&place, &globs)?;
                    layer.test_patterns = Some(globs);
                }
                ("hooks", "timeout") => {
                    let d = dur(v)?;
                    if d.is_zero() {
                        return Err(bad(
                            &place,
                            "a hook needs some time to run; use e.g. \"30s\"",
                        ));
                    }
                    layer.hook_timeout = Some(d);
                }
                ("hooks", hook) => {
                    let cmd = str_of(&place, v)?;
                    if cmd.trim().is_empty() {
                        return Err(bad(
                            &place,
                            "expected a command for /bin/sh -c, like \"./notify.sh\"; remove the key to run no hook",
                        ));
                    }
                    let slot = match hook {
                        "on_story_done" => &mut layer.hook_story_done,
                        "on_blocked" => &mut layer.hook_blocked,
                        _ => &mut layer.hook_run_end,
                    };
                    *slot = Some(cmd.to_string());
                }
                ("context", agent) => {
                    let t = v.as_table().ok_or_else(|| {
                        bad(
                            &place,
                            format!("expected a [context.{agent}] table, got {v}"),
                        )
                    })?;
                    let mut o = ContextOverride::default();
                    for (k, x) in t {
                        let n = || count(x).map(|n| Some(n as usize));
                        match k.as_str() {
                            "budget" => o.budget = n()?,
                            "top_k" => o.top_k = n()?,
                            "spec_lines" => o.spec_lines = n()?,
                            _ => {
                                return Err(ConfigError::UnknownKey {
                                    place: format!("{place}.{k}"),
                                    key: k.clone(),
                                    suggestion: crate::suggest::nearest(
                                        k,
                                        CONTEXT_AGENT_KEYS.iter().copied(),
                                    )
                                    .map(String::from),
                                    valid: CONTEXT_AGENT_KEYS
                                        .iter()
                                        .map(|s| s.to_string())
                                        .collect(),
                                });
                            }
                        }
                    }
                    layer.context_agents.insert(agent.to_string(), o);
                }
                (_, _) => {
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

/// Every test pattern must be a glob ralph can match (an empty list matches no file).
fn check_globs(place: &str, globs: &[String]) -> Result<(), ConfigError> {
    for g in globs {
        globset::Glob::new(g)
            .map_err(|e| bad(place, format!("\"{g}\" is not a glob: {}", e.kind())))?;
    }
    Ok(())
}

/// Read `<root>/ralph.toml`; a missing file is an empty layer.
pub fn load_file(root: &Path) -> Result<Layer, ConfigError> {
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
