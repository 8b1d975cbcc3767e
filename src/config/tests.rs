//! Unit tests for ralph.toml parsing, env and the merge.

use super::file::parse_file;
use super::*;
use std::path::Path;

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

#[test]
fn context_settings_per_agent_beat_the_general_ones_but_not_flags() {
    let text = "[agent]\nname = \"codex\"\n[context]\nbudget = 9000\ntop_k = 4\n[context.codex]\ntop_k = 2\n[context.claude]\ntop_k = 8\n";
    let file = parse_file(Path::new("ralph.toml"), text).unwrap();
    let s = resolve(&[&file]);
    assert_eq!(
        (s.context.budget, s.context.top_k, s.context.spec_lines),
        (9000, 2, 100)
    );
    let claude = Layer {
        agent: Some(AgentKind::Claude),
        ..Layer::default()
    };
    assert_eq!(resolve(&[&claude, &file]).context.top_k, 8);
    let flag = Layer {
        context_top_k: Some(6),
        ..Layer::default()
    };
    assert_eq!(resolve(&[&flag, &file]).context.top_k, 6);
}

#[test]
fn unknown_key_in_a_per_agent_context_table_names_the_nearest() {
    let err = parse_file(Path::new("ralph.toml"), "[context.codex]\ntopk = 2\n").unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("topk") && msg.contains("top_k"), "{msg}");
}

#[test]
fn allow_dirty_flows_from_flag_env_and_file() {
    let file = parse_file(Path::new("ralph.toml"), "[run]\nallow_dirty = true\n").unwrap();
    assert!(resolve(&[&file]).allow_dirty);
    assert!(!resolve(&[&Layer::default()]).allow_dirty);
    let env = from_env(|k| (k == "RALPH_ALLOW_DIRTY").then(|| "0".into())).unwrap();
    assert!(!resolve(&[&env, &file]).allow_dirty, "env beats the file");
    let flag = Layer {
        allow_dirty: Some(true),
        ..Layer::default()
    };
    assert!(resolve(&[&flag, &env, &file]).allow_dirty);
    let err = parse_file(Path::new("ralph.toml"), "[run]\nallow_dirty = \"yes\"\n").unwrap_err();
    assert!(err.to_string().contains("[run] allow_dirty"), "{err}");
    assert!(from_env(|k| (k == "RALPH_ALLOW_DIRTY").then(|| "maybe".into())).is_err());
}

#[test]
fn hooks_are_commands_with_a_timeout_and_bad_ones_name_the_key() {
    let p = Path::new("ralph.toml");
    let l = parse_file(
        p,
        "[hooks]\non_story_done = \"echo done\"\non_run_end = \"./end.sh\"\ntimeout = \"5s\"\n",
    )
    .unwrap();
    let s = resolve(&[&l]);
    assert_eq!(s.hooks.on_story_done.as_deref(), Some("echo done"));
    assert_eq!(s.hooks.on_blocked, None);
    assert_eq!(s.hooks.on_run_end.as_deref(), Some("./end.sh"));
    assert_eq!(s.hooks.timeout, Duration::from_secs(5));
    assert!(s.hooks.any());
    assert_eq!(resolve(&[]).hooks.timeout, Duration::from_secs(30));
    assert!(!resolve(&[]).hooks.any());
    let e = parse_file(p, "[hooks]\non_blocked = \"\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("ralph.toml:2: [hooks] on_blocked"), "{e}");
    let e = parse_file(p, "[hooks]\non_story_don = \"x\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("did you mean \"on_story_done\""), "{e}");
    let e = parse_file(p, "[hooks]\ntimeout = 0\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("[hooks] timeout"), "{e}");
    let e = parse_file(p, "[hooks]\non_run_end = 3\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("expected a string"), "{e}");
}

#[test]
fn the_heartbeat_interval_comes_from_the_environment_and_is_never_zero() {
    let env = |v: &'static str| move |k: &str| (k == "RALPH_HEARTBEAT").then(|| v.to_string());
    let l = from_env(env("0.5")).unwrap();
    assert_eq!(resolve(&[&l]).heartbeat, Duration::from_millis(500));
    assert_eq!(resolve(&[]).heartbeat, Duration::from_secs(60));
    let e = from_env(env("0")).unwrap_err().to_string();
    assert!(e.starts_with("RALPH_HEARTBEAT: 0 is no interval"), "{e}");
}

#[test]
fn parallel_comes_from_the_file_the_environment_and_the_flag_and_is_at_least_one() {
    let file = parse_file(Path::new("ralph.toml"), "[run]\nparallel = 3\n").unwrap();
    assert_eq!(file.parallel, Some(3));
    assert_eq!(resolve(&[&file]).parallel, 3);
    assert_eq!(resolve(&[]).parallel, 1);
    let env = from_env(|k| (k == "RALPH_PARALLEL").then(|| "2".to_string())).unwrap();
    assert_eq!(resolve(&[&env, &file]).parallel, 2);
    let e = parse_file(Path::new("ralph.toml"), "[run]\nparallel = 0\n").unwrap_err();
    assert!(e.to_string().contains("at least 1"), "{e}");
    assert!(from_env(|k| (k == "RALPH_PARALLEL").then(|| "0".to_string())).is_err());
}

#[test]
fn max_cost_is_an_amount_of_dollars_above_zero_in_every_layer() {
    assert_eq!(Dollars::parse("5").map(Dollars::usd), Ok(5.0));
    assert_eq!(Dollars::parse(" $2.50 ").map(Dollars::usd), Ok(2.5));
    for bad in ["0", "-1", "NaN", "inf", "lots", "", "$"] {
        assert!(Dollars::parse(bad).is_err(), "{bad}");
    }
    let p = Path::new("ralph.toml");
    for (text, usd) in [("2", 2.0), ("0.75", 0.75), ("\"$3\"", 3.0)] {
        let l = parse_file(p, &format!("[run]\nmax_cost = {text}\n")).unwrap();
        assert_eq!(l.max_cost.map(Dollars::usd), Some(usd), "{text}");
    }
    let err = parse_file(p, "[run]\nmax_cost = 0\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("ralph.toml:2: [run] max_cost"), "{err}");
    assert!(parse_file(p, "[run]\nmax_cost = true\n").is_err());
    let env = from_env(|k| (k == "RALPH_MAX_COST").then(|| "1.5".to_string())).unwrap();
    assert_eq!(env.max_cost.map(Dollars::usd), Some(1.5));
    let cli = Layer {
        max_cost: Dollars::new(0.5),
        ..Layer::default()
    };
    assert_eq!(resolve(&[&cli, &env]).max_cost, Dollars::new(0.5));
    assert_eq!(resolve(&[&Layer::default()]).max_cost, None);
}

#[test]
fn review_settings_come_from_every_layer_and_a_command_beats_a_lower_preset() {
    let p = Path::new("ralph.toml");
    let file = parse_file(
        p,
        "[review]\nenabled = true\nagent = \"codex\"\nmax_rounds = 3\ninstructions = \"review.md\"\n",
    )
    .unwrap();
    let r = resolve(&[&file]).review;
    assert!(r.enabled);
    assert_eq!(
        (r.agent, r.cmd.as_deref(), r.max_rounds),
        (Some(AgentKind::Codex), None, 3)
    );
    assert_eq!(r.instructions.as_deref(), Some(Path::new("review.md")));
    assert_eq!(resolve(&[]).review, Review::default());
    assert_eq!(Review::default().max_rounds, 2);
    let env = from_env(|k| match k {
        "RALPH_REVIEW_CMD" => Some("my-reviewer --ci".into()),
        _ => None,
    })
    .unwrap();
    let r = resolve(&[&env, &file]).review;
    assert_eq!(
        (r.agent, r.cmd.as_deref()),
        (Some(AgentKind::Custom), Some("my-reviewer --ci"))
    );
    let off = from_env(|k| (k == "RALPH_REVIEW").then(|| "0".into())).unwrap();
    assert!(!resolve(&[&off, &file]).review.enabled);
    for (text, want) in [
        ("[review]\nagent = \"codx\"\n", "did you mean \"codex\"?"),
        ("[review]\nmax_rounds = 0\n", "at least 1"),
        ("[review]\ncmd = \" \"\n", "expected a command"),
        ("[review]\nrounds = 2\n", "did you mean \"max_rounds\"?"),
    ] {
        let err = parse_file(p, text).unwrap_err().to_string();
        assert!(
            err.contains(want) && err.contains("ralph.toml:2"),
            "{text}: {err}"
        );
    }
}

#[test]
fn clean_ages_accept_days_weeks_hours_minutes_and_zero() {
    let day = 86_400;
    assert_eq!(parse_age("14d").unwrap(), Duration::from_secs(14 * day));
    assert_eq!(parse_age("2w").unwrap(), Duration::from_secs(14 * day));
    assert_eq!(parse_age("36h").unwrap(), Duration::from_secs(36 * 3600));
    assert_eq!(parse_age("90m").unwrap(), Duration::from_secs(90 * 60));
    assert_eq!(parse_age("0").unwrap(), Duration::ZERO);
    assert_eq!(parse_age("0d").unwrap(), Duration::ZERO);
    assert_eq!(parse_age(" 3 days").unwrap(), Duration::from_secs(3 * day));
    for bad in ["soon", "-1d", "d", "99999999999999999999w", "14x"] {
        let e = parse_age(bad).unwrap_err();
        assert!(e.contains("14d"), "{bad}: {e}");
    }
}

#[test]
fn clean_settings_come_from_the_file_and_the_environment_with_defaults() {
    let p = Path::new("ralph.toml");
    let d = resolve(&[]).clean;
    assert_eq!(d.older_than, Duration::from_secs(14 * 86_400));
    assert_eq!((d.keep, d.auto), (20, true));
    let file = parse_file(p, "[clean]\nolder_than = \"2w\"\nkeep = 0\nauto = false\n").unwrap();
    let s = resolve(&[&file]).clean;
    assert_eq!(s.older_than, Duration::from_secs(14 * 86_400));
    assert_eq!((s.keep, s.auto), (0, false));
    let env = from_env(|k| match k {
        "RALPH_CLEAN_OLDER_THAN" => Some("36h".into()),
        "RALPH_CLEAN_KEEP" => Some("5".into()),
        _ => None,
    })
    .unwrap();
    let s = resolve(&[&env, &file]).clean;
    assert_eq!(s.older_than, Duration::from_secs(36 * 3600));
    assert_eq!((s.keep, s.auto), (5, false));
    let e = parse_file(p, "[clean]\nolder_than = \"soon\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("ralph.toml:2: [clean] older_than"), "{e}");
    let e = parse_file(p, "[clean]\nkeep = -1\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("[clean] keep"), "{e}");
    let e = parse_file(p, "[clean]\nkeepp = 1\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("did you mean \"keep\""), "{e}");
    let e = from_env(|k| (k == "RALPH_CLEAN_KEEP").then(|| "lots".into()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("RALPH_CLEAN_KEEP"), "{e}");
}

#[test]
fn the_conflict_threshold_is_an_overlap_or_off_in_every_layer() {
    let p = Path::new("ralph.toml");
    assert_eq!(resolve(&[]).conflict_threshold.value(), Some(0.5));
    for (text, want) in [
        ("0.3", Some(0.3)),
        ("1", Some(1.0)),
        ("0", Some(0.0)),
        ("\"off\"", None),
        ("\"75%\"", Some(0.75)),
    ] {
        let l = parse_file(p, &format!("[run]\nconflict_threshold = {text}\n")).unwrap();
        assert_eq!(resolve(&[&l]).conflict_threshold.value(), want, "{text}");
    }
    let e = parse_file(p, "[run]\nconflict_threshold = 2\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("conflict_threshold") && e.contains("between 0 and 1"),
        "{e}"
    );
    let env =
        super::env::from_env(|k| (k == "RALPH_CONFLICT_THRESHOLD").then(|| "off".to_string()))
            .unwrap();
    let file = parse_file(p, "[run]\nconflict_threshold = 0.9\n").unwrap();
    assert_eq!(
        resolve(&[&env, &file]).conflict_threshold,
        ConflictThreshold::OFF
    );
    let e = super::env::from_env(|k| (k == "RALPH_CONFLICT_THRESHOLD").then(|| "x".to_string()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("RALPH_CONFLICT_THRESHOLD"), "{e}");
}
