//! The `RALPH_*` environment variables, read into a [`Layer`] (each bad value names its
//! variable). Does not read ralph.toml ([`super::file`]) nor merge layers (the parent module).

use std::time::Duration;

use super::{
    ConfigError, Dollars, Layer, bad, parse_age, parse_agent, parse_bool, parse_count,
    parse_duration, parse_mode,
};

fn at<T>(var: &str, r: Result<T, String>) -> Result<T, ConfigError> {
    r.map_err(|m| bad(var, m))
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
            .map(|s| at("RALPH_AGENT", parse_agent(&s)))
            .transpose()?,
        agent_cmd: v("RALPH_AGENT_CMD"),
        prompt_mode: v("RALPH_PROMPT_MODE")
            .map(|s| at("RALPH_PROMPT_MODE", parse_mode(&s)))
            .transpose()?,
        iterations: v("RALPH_ITERATIONS")
            .map(|s| at("RALPH_ITERATIONS", parse_count(&s)))
            .transpose()?,
        timeout: dur("RALPH_TIMEOUT")?,
        sleep: dur("RALPH_SLEEP")?,
        max_failures: v("RALPH_MAX_FAILURES")
            .map(|s| at("RALPH_MAX_FAILURES", parse_count(&s)))
            .transpose()?,
        no_wait: v("RALPH_NO_WAIT")
            .map(|s| at("RALPH_NO_WAIT", parse_bool(&s)))
            .transpose()?,
        compact: v("RALPH_NO_COMPACT")
            .map(|s| at("RALPH_NO_COMPACT", parse_bool(&s)).map(|b| !b))
            .transpose()?,
        parallel: v("RALPH_PARALLEL")
            .map(|s| at("RALPH_PARALLEL", parse_count(&s)))
            .transpose()?,
        allow_dirty: v("RALPH_ALLOW_DIRTY")
            .map(|s| at("RALPH_ALLOW_DIRTY", parse_bool(&s)))
            .transpose()?,
        preflight: v("RALPH_PREFLIGHT")
            .map(|s| at("RALPH_PREFLIGHT", parse_bool(&s)))
            .transpose()?,
        verify: v("RALPH_VERIFY").map(|s| {
            s.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect()
        }),
        compact_threshold: v("RALPH_COMPACT_THRESHOLD")
            .map(|s| at("RALPH_COMPACT_THRESHOLD", parse_count(&s)).map(|n| n as usize))
            .transpose()?,
        compact_keep_recent: v("RALPH_COMPACT_KEEP_RECENT")
            .map(|s| at("RALPH_COMPACT_KEEP_RECENT", parse_count(&s)).map(|n| n as usize))
            .transpose()?,
        context_budget: v("RALPH_CONTEXT_BUDGET")
            .map(|s| at("RALPH_CONTEXT_BUDGET", parse_count(&s)).map(|n| n as usize))
            .transpose()?,
        context_top_k: v("RALPH_CONTEXT_TOP_K")
            .map(|s| at("RALPH_CONTEXT_TOP_K", parse_count(&s)).map(|n| n as usize))
            .transpose()?,
        context_files: v("RALPH_CONTEXT_FILES")
            .map(|s| at("RALPH_CONTEXT_FILES", parse_count(&s)).map(|n| n as usize))
            .transpose()?,
        context_spec_lines: v("RALPH_CONTEXT_SPEC_LINES")
            .map(|s| at("RALPH_CONTEXT_SPEC_LINES", parse_count(&s)).map(|n| n as usize))
            .transpose()?,
        grace: dur("RALPH_GRACE")?,
        max_wait: dur("RALPH_MAX_WAIT")?,
        max_cost: v("RALPH_MAX_COST")
            .map(|s| at("RALPH_MAX_COST", Dollars::parse(&s)))
            .transpose()?,
        red_green: v("RALPH_RED_GREEN")
            .map(|s| at("RALPH_RED_GREEN", parse_bool(&s)))
            .transpose()?,
        review: v("RALPH_REVIEW")
            .map(|s| at("RALPH_REVIEW", parse_bool(&s)))
            .transpose()?,
        review_agent: v("RALPH_REVIEW_AGENT")
            .map(|s| at("RALPH_REVIEW_AGENT", parse_agent(&s)))
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
            .map(|s| at("RALPH_CLEAN_AUTO", parse_bool(&s)))
            .transpose()?,
        ..Layer::default()
    })
}
