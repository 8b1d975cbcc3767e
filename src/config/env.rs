//! The `RALPH_*` environment variables, read into a [`Layer`] (each bad value names its
//! variable). Does not read ralph.toml ([`super::file`]) nor merge layers (the parent module).

use std::time::Duration;

use super::{
    ConfigError, Layer, bad, parse_age, parse_agent, parse_bool, parse_count, parse_dollars,
    parse_duration, parse_mode,
};

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
        parallel: v("RALPH_PARALLEL")
            .map(|s| parse_count("RALPH_PARALLEL", &s))
            .transpose()?,
        conflict_threshold: v("RALPH_CONFLICT_THRESHOLD")
            .map(|s| {
                super::ConflictThreshold::parse(&s).map_err(|m| bad("RALPH_CONFLICT_THRESHOLD", m))
            })
            .transpose()?,
        allow_dirty: v("RALPH_ALLOW_DIRTY")
            .map(|s| parse_bool("RALPH_ALLOW_DIRTY", &s))
            .transpose()?,
        preflight: v("RALPH_PREFLIGHT")
            .map(|s| parse_bool("RALPH_PREFLIGHT", &s))
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
        context_files: v("RALPH_CONTEXT_FILES")
            .map(|s| parse_count("RALPH_CONTEXT_FILES", &s).map(|n| n as usize))
            .transpose()?,
        context_spec_lines: v("RALPH_CONTEXT_SPEC_LINES")
            .map(|s| parse_count("RALPH_CONTEXT_SPEC_LINES", &s).map(|n| n as usize))
            .transpose()?,
        grace: dur("RALPH_GRACE")?,
        max_wait: dur("RALPH_MAX_WAIT")?,
        max_cost: v("RALPH_MAX_COST")
            .map(|s| parse_dollars("RALPH_MAX_COST", &s))
            .transpose()?,
        red_green: v("RALPH_RED_GREEN")
            .map(|s| parse_bool("RALPH_RED_GREEN", &s))
            .transpose()?,
        review: v("RALPH_REVIEW")
            .map(|s| parse_bool("RALPH_REVIEW", &s))
            .transpose()?,
        review_agent: v("RALPH_REVIEW_AGENT")
            .map(|s| parse_agent("RALPH_REVIEW_AGENT", &s))
            .transpose()?,
        review_cmd: v("RALPH_REVIEW_CMD"),
        heartbeat: match dur("RALPH_HEARTBEAT")? {
            Some(d) if d.is_zero() => {
                return Err(bad(
                    "RALPH_HEARTBEAT",
                    "0 is no interval; use e.g. 1s or 60s",
                ));
            }
            d => d,
        },
        clean_older_than: v("RALPH_CLEAN_OLDER_THAN")
            .map(|s| parse_age(&s).map_err(|m| bad("RALPH_CLEAN_OLDER_THAN", m)))
            .transpose()?,
        clean_keep: v("RALPH_CLEAN_KEEP")
            .map(|s| {
                s.trim().parse::<usize>().map_err(|_| {
                    bad(
                        "RALPH_CLEAN_KEEP",
                        format!("\"{s}\" is not a whole number (0 or more)"),
                    )
                })
            })
            .transpose()?,
        clean_auto: v("RALPH_CLEAN_AUTO")
            .map(|s| parse_bool("RALPH_CLEAN_AUTO", &s))
            .transpose()?,
        ..Layer::default()
    })
}
