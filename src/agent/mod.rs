//! Agent presets and how one agent run is invoked.
//!
//! Owns: the preset table (each real CLI's headless flags), custom `--agent-cmd` commands (split
//! with shell-words rules, never through a shell), how the prompt reaches the agent (stdin, an
//! argument, a file) including the 128 KiB single-argument cap, and finding the program on PATH.
//! Spawning and supervising the process is in [`process`]; reading its output for completion and
//! rate-limit messages is in [`detect`]; reading its structured events (readable text, usage)
//! is in [`telemetry`]. Does not own the loop or the prompt's content.

pub(crate) mod advice;
pub(crate) mod detect;
pub(crate) mod group;
mod kind;
pub(crate) mod output;
pub(crate) mod preset;
pub(crate) mod probe;
pub(crate) mod process;
pub(crate) mod pump;
pub(crate) mod slots;
pub(crate) mod telemetry;
pub(crate) mod version;

use std::path::{Path, PathBuf};

pub(crate) use kind::{AgentKind, PromptMode};
pub(crate) use version::Version;

/// Linux caps a single argv string at 32 pages (MAX_ARG_STRLEN = 128 KiB, including the NUL).
pub(crate) const MAX_ARG_BYTES: usize = 128 * 1024 - 1;

/// Where the prompt goes within a preset's argv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AgentSpec {
    pub kind: AgentKind,
    /// argv: program first. May contain `{prompt}` / `{prompt_file}` placeholders.
    pub argv: Vec<String>,
    pub prompt_mode: PromptMode,
    /// The structured output the argv turns on (see [`telemetry`]).
    pub format: telemetry::Format,
    /// The installed CLI's version, once read (see [`probe`]); `None` for a custom command or
    /// when it could not be told.
    pub version: Option<Version>,
}

/// Why an agent cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AgentError {
    #[error("--agent custom needs --agent-cmd \"program args…\" (or [agent] cmd in ralph.toml)")]
    CustomWithoutCmd,
    #[error(
        "--agent-cmd {cmd:?}: {reason}; quote it the way a POSIX shell would (it is split, never run by a shell)"
    )]
    BadCmd { cmd: String, reason: String },
    #[error(
        "{program} not found on PATH; install it or choose --agent ({})",
        AgentKind::list()
    )]
    NotFound { program: String },
    #[error("{path}: cannot write the prompt file: {source}")]
    PromptFile {
        path: PathBuf,
        #[source]
        source: crate::fsutil::FsError,
    },
    #[error("cannot start {program}: {source}")]
    Spawn {
        program: String,
        #[source]
        source: std::io::Error,
    },
    #[error("waiting for {program}: {source}")]
    Wait {
        program: String,
        #[source]
        source: std::io::Error,
    },
}

impl AgentSpec {
    /// The preset for a known CLI, with the argv of its newest verified version (see
    /// [`preset`]; [`AgentSpec::for_version`] picks the argv of the installed one).
    pub(crate) fn preset(kind: AgentKind) -> Option<AgentSpec> {
        AgentSpec::preset_at(kind, None)
    }

    /// The preset for a known CLI at `version` (`None`: unknown, the newest argv).
    pub(crate) fn preset_at(kind: AgentKind, version: Option<&Version>) -> Option<AgentSpec> {
        let p = preset::of(kind)?;
        let flags = p.flags_for(version);
        let mut argv = vec![p.program.to_string()];
        argv.extend(flags.args.iter().map(|a| a.to_string()));
        Some(AgentSpec {
            kind,
            argv,
            prompt_mode: p.prompt_mode,
            format: flags.format,
            version: version.cloned(),
        })
    }

    /// This preset's argv for the installed `version`, keeping the program as resolved and a
    /// prompt mode chosen by the user. A custom command is returned as it is.
    pub(crate) fn for_version(&self, version: Option<Version>) -> AgentSpec {
        let Some(mut spec) = AgentSpec::preset_at(self.kind, version.as_ref()) else {
            return AgentSpec {
                version,
                ..self.clone()
            };
        };
        let default_mode = preset::of(self.kind).map(|p| p.prompt_mode);
        if Some(self.prompt_mode) != default_mode {
            spec.prompt_mode = self.prompt_mode;
        }
        spec.argv[0] = self.argv[0].clone();
        spec
    }

    /// A custom command, split with POSIX shell-word rules (never run by a shell).
    pub(crate) fn custom(cmd: &str, mode: Option<PromptMode>) -> Result<AgentSpec, AgentError> {
        let argv = shell_words::split(cmd).map_err(|e| AgentError::BadCmd {
            cmd: cmd.to_string(),
            reason: e.to_string(),
        })?;
        if argv.is_empty() {
            return Err(AgentError::BadCmd {
                cmd: cmd.to_string(),
                reason: "it is empty".into(),
            });
        }
        Ok(AgentSpec {
            kind: AgentKind::Custom,
            argv,
            prompt_mode: mode.unwrap_or(PromptMode::Stdin),
            format: telemetry::Format::Plain,
            version: None,
        })
    }

    /// Resolve the agent from the settings: a preset, or custom when a command is given.
    pub(crate) fn resolve(
        kind: AgentKind,
        cmd: Option<&str>,
        mode: Option<PromptMode>,
    ) -> Result<AgentSpec, AgentError> {
        match (kind, cmd) {
            (_, Some(cmd)) => AgentSpec::custom(cmd, mode),
            (AgentKind::Custom, None) => Err(AgentError::CustomWithoutCmd),
            (k, None) => {
                let mut spec = AgentSpec::preset(k).ok_or(AgentError::CustomWithoutCmd)?;
                if let Some(m) = mode {
                    spec.prompt_mode = m;
                }
                Ok(spec)
            }
        }
    }

    /// The machine-readable format the argv turns on (plain text for a custom command: no
    /// documented usage to read).
    pub(crate) fn format(&self) -> telemetry::Format {
        self.format
    }

    pub(crate) fn program(&self) -> &str {
        self.argv.first().map(String::as_str).unwrap_or("")
    }

    /// The program's full path, or a clear error when it is not installed.
    pub(crate) fn locate(&self) -> Result<PathBuf, AgentError> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        which(self.program(), &path).ok_or_else(|| AgentError::NotFound {
            program: self.program().to_string(),
        })
    }
}

/// How one run of the agent is started: the final argv, what goes on stdin, and the prompt file
/// to write first (when the prompt travels as a file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Invocation {
    pub argv: Vec<String>,
    pub stdin: Option<String>,
    pub prompt_file: Option<PathBuf>,
    /// Set when an argument-mode prompt was too long and switched to a file.
    pub switched_to_file: bool,
}

/// What the agent is told when the prompt is in a file.
pub(crate) fn file_pointer(path: &Path) -> String {
    format!(
        "Your full instructions are in the file {}. Read that file now and follow it exactly.",
        path.display()
    )
}

fn place(argv: &[String], placeholder: &str, value: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(argv.len() + 1);
    let mut placed = false;
    for a in argv {
        if a.contains(placeholder) {
            out.push(a.replace(placeholder, value));
            placed = true;
        } else {
            out.push(a.clone());
        }
    }
    if !placed {
        out.push(value.to_string());
    }
    out
}

/// Plan an invocation (pure): where the prompt goes, switching an over-long argument to a file.
/// `prompt_file` is where the prompt would be written if a file is needed.
pub(crate) fn plan(spec: &AgentSpec, prompt: &str, prompt_file: &Path) -> Invocation {
    let strip = |argv: &[String]| -> Vec<String> {
        argv.iter()
            .filter(|a| a.as_str() != "{prompt}" && a.as_str() != "{prompt_file}")
            .cloned()
            .collect()
    };
    match spec.prompt_mode {
        PromptMode::Stdin => Invocation {
            argv: strip(&spec.argv),
            stdin: Some(prompt.to_string()),
            prompt_file: None,
            switched_to_file: false,
        },
        PromptMode::Arg if prompt.len() <= MAX_ARG_BYTES && !prompt.contains('\0') => Invocation {
            argv: place(&spec.argv, "{prompt}", prompt),
            stdin: None,
            prompt_file: None,
            switched_to_file: false,
        },
        PromptMode::Arg => {
            // Too long for one argument: the agent gets a pointer to the file instead.
            let pointer = file_pointer(prompt_file);
            Invocation {
                argv: place(&spec.argv, "{prompt}", &pointer),
                stdin: None,
                prompt_file: Some(prompt_file.to_path_buf()),
                switched_to_file: true,
            }
        }
        PromptMode::File => {
            let has_file_slot = spec.argv.iter().any(|a| a.contains("{prompt_file}"));
            let base: Vec<String> = if has_file_slot {
                spec.argv
                    .iter()
                    .filter(|a| a.as_str() != "{prompt}")
                    .cloned()
                    .collect()
            } else {
                strip(&spec.argv)
            };
            let value = if has_file_slot || spec.kind == AgentKind::Custom {
                prompt_file.display().to_string()
            } else {
                // A preset that expects prompt text gets a sentence pointing to the file.
                file_pointer(prompt_file)
            };
            Invocation {
                argv: place(&base, "{prompt_file}", &value),
                stdin: None,
                prompt_file: Some(prompt_file.to_path_buf()),
                switched_to_file: false,
            }
        }
    }
}

/// Find `program` like a shell would: a name with a `/` is used as is, otherwise each PATH entry
/// is tried in order; only executable regular files count.
pub(crate) fn which(program: &str, path_var: &std::ffi::OsStr) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let is_exec = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    };
    if program.is_empty() {
        return None;
    }
    if program.contains('/') {
        let p = PathBuf::from(program);
        return is_exec(&p).then_some(p);
    }
    std::env::split_paths(path_var)
        .map(|dir| {
            if dir.as_os_str().is_empty() {
                PathBuf::from(".").join(program)
            } else {
                dir.join(program)
            }
        })
        .find(|p| is_exec(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_agents_name_is_the_one_clap_takes_and_reads_back() {
        use clap::ValueEnum;
        for k in AgentKind::value_variants() {
            let pv = k.to_possible_value().expect("no agent is skipped");
            assert_eq!(pv.get_name(), k.name());
            assert_eq!(AgentKind::from_name(k.name()), Some(*k));
        }
        assert_eq!(
            AgentKind::list(),
            "claude, codex, amp, copilot, gemini, opencode, custom"
        );
        assert_eq!(AgentKind::from_name("Claude"), None);
        assert_eq!(
            AgentKind::did_you_mean("cladue"),
            " (did you mean \"claude\"?)"
        );
        assert_eq!(PromptMode::from_name("file"), Some(PromptMode::File));
    }

    #[test]
    fn presets_put_the_prompt_where_each_cli_expects_it() {
        let f = Path::new("/p/prompt.md");
        let claude = plan(&AgentSpec::preset(AgentKind::Claude).unwrap(), "hi", f);
        assert_eq!(
            claude.argv,
            [
                "claude",
                "--print",
                "--output-format",
                "stream-json",
                "--verbose",
                "--dangerously-skip-permissions"
            ]
        );
        assert_eq!(claude.stdin.as_deref(), Some("hi"));
        let codex = plan(&AgentSpec::preset(AgentKind::Codex).unwrap(), "hi", f);
        assert_eq!(
            codex.argv,
            [
                "codex",
                "exec",
                "--json",
                "--sandbox",
                "workspace-write",
                "-c",
                "sandbox_workspace_write.writable_roots={git_dirs}",
                "-"
            ]
        );
    }

    #[test]
    fn presets_that_take_the_prompt_as_an_argument_get_it_there() {
        let f = Path::new("/p/prompt.md");
        let copilot = plan(&AgentSpec::preset(AgentKind::Copilot).unwrap(), "hi", f);
        assert_eq!(
            copilot.argv,
            [
                "copilot",
                "-p",
                "hi",
                "--allow-all-tools",
                "--output-format",
                "json",
                "--usage-output-file",
                "{usage_file}"
            ]
        );
        let old = AgentSpec::preset_at(AgentKind::Copilot, Version::find("1.0.89").as_ref());
        assert_eq!(
            plan(&old.unwrap(), "hi", f).argv,
            ["copilot", "-p", "hi", "--allow-all-tools"]
        );
        assert_eq!(copilot.stdin, None);
        let gemini = plan(&AgentSpec::preset(AgentKind::Gemini).unwrap(), "a b", f);
        assert_eq!(
            gemini.argv,
            [
                "gemini",
                "--yolo",
                "--output-format",
                "stream-json",
                "-p",
                "a b"
            ]
        );
        let oc = plan(&AgentSpec::preset(AgentKind::Opencode).unwrap(), "x", f);
        assert_eq!(oc.argv, ["opencode", "run", "--format", "json", "x"]);
        assert!(AgentSpec::preset(AgentKind::Custom).is_none());
    }

    #[test]
    fn over_long_argument_switches_to_a_file_pointer() {
        let big = "x".repeat(MAX_ARG_BYTES + 1);
        let f = Path::new("/p/prompt.md");
        let inv = plan(&AgentSpec::preset(AgentKind::Gemini).unwrap(), &big, f);
        assert!(inv.switched_to_file);
        assert_eq!(inv.prompt_file.as_deref(), Some(f));
        assert!(inv.argv[5].contains("/p/prompt.md"));
        assert!(inv.argv.iter().all(|a| a.len() < 1000));
        let fits = "x".repeat(MAX_ARG_BYTES);
        assert!(!plan(&AgentSpec::preset(AgentKind::Gemini).unwrap(), &fits, f).switched_to_file);
    }

    #[test]
    fn custom_commands_split_like_a_shell_without_running_one() {
        let spec = AgentSpec::custom("my-agent --model 'big one' \"$HOME\"", None).unwrap();
        assert_eq!(spec.argv, ["my-agent", "--model", "big one", "$HOME"]);
        assert_eq!(spec.prompt_mode, PromptMode::Stdin);
        assert!(matches!(
            AgentSpec::custom("bad 'quote", None),
            Err(AgentError::BadCmd { .. })
        ));
        assert!(AgentSpec::custom("  ", None).is_err());
        let f = Path::new("/t/p.md");
        let arg = AgentSpec::custom("a --x", Some(PromptMode::Arg)).unwrap();
        assert_eq!(
            plan(&arg, "P; rm -rf /", f).argv,
            ["a", "--x", "P; rm -rf /"]
        );
        let file = AgentSpec::custom("a --in {prompt_file} -v", Some(PromptMode::File)).unwrap();
        assert_eq!(plan(&file, "P", f).argv, ["a", "--in", "/t/p.md", "-v"]);
        let file2 = AgentSpec::custom("a", Some(PromptMode::File)).unwrap();
        assert_eq!(plan(&file2, "P", f).argv, ["a", "/t/p.md"]);
    }

    #[test]
    fn resolve_needs_a_command_for_custom() {
        assert!(matches!(
            AgentSpec::resolve(AgentKind::Custom, None, None),
            Err(AgentError::CustomWithoutCmd)
        ));
        let s = AgentSpec::resolve(AgentKind::Claude, Some("x y"), None).unwrap();
        assert_eq!(s.kind, AgentKind::Custom);
    }

    #[test]
    fn which_finds_executables_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("tool");
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(dir.path().join("plain"), "").unwrap();
        let path = std::env::join_paths([Path::new("/nonexistent"), dir.path()]).unwrap();
        assert_eq!(which("tool", &path), Some(exe));
        assert_eq!(which("plain", &path), None);
        assert_eq!(which("missing", &path), None);
        let err = AgentSpec::preset(AgentKind::Claude).unwrap();
        let msg = AgentError::NotFound {
            program: err.program().into(),
        }
        .to_string();
        assert!(msg.starts_with("claude not found on PATH; install it or choose --agent"));
    }
}
