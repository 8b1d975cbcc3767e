//! What `ralph doctor` looks at, read from the machine and the project: the agent CLI (found,
//! `--version`, its answer to the preset's flags with `--help`, credentials as far as can be
//! told offline), root, git's identity, the verify commands' programs, prd.json, `.ralph/`,
//! free disk. Reads only: it writes nothing but a temp file it removes (to try `.ralph/`).
//! The judgement is the parent module's.

use std::path::{Path, PathBuf};

use super::{AgentFacts, Facts};
use crate::agent::{self, AgentKind, AgentSpec, probe};

/// Where and with what to look.
pub(crate) struct Scope<'a> {
    pub root: &'a Path,
    pub prd_path: &'a Path,
    pub agent: &'a AgentSpec,
    pub verify: &'a [String],
    /// The environment ralph gives the agent on top of its own.
    pub env: &'a [(String, String)],
    /// Ask the CLI (`--version`, the flags with `--help`): off for `--no-preflight`'s version
    /// read alone.
    pub probe_argv: bool,
}

/// Gather everything the checks judge.
pub(crate) fn facts(s: &Scope<'_>) -> Facts {
    Facts {
        agent: agent_facts(s),
        // SAFETY: geteuid has no preconditions and touches no memory.
        root: unsafe { libc::geteuid() } == 0,
        is_sandbox: env_set("IS_SANDBOX"),
        git_identity: git_identity(s.root),
        verify_missing: s
            .verify
            .iter()
            .filter_map(|c| missing_program(c, s.root).map(|p| (c.clone(), p)))
            .collect(),
        verify_count: s.verify.len(),
        prd_error: crate::prd::Prd::load(s.prd_path)
            .err()
            .map(|e| e.to_string().lines().next().unwrap_or_default().to_string()),
        state_error: state_error(s.root),
        free_bytes: free_bytes(s.root),
        branch: None,
    }
}

fn env_set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty())
}

/// The agent: found, its version, its answer to the flags, its credentials.
pub(crate) fn agent_facts(s: &Scope<'_>) -> AgentFacts {
    let spec = s.agent;
    let Ok(path) = spec.locate() else {
        return AgentFacts::default();
    };
    let mut a = AgentFacts {
        path: Some(path),
        ..AgentFacts::default()
    };
    if spec.kind == AgentKind::Custom {
        return a;
    }
    a.version = probe::version(spec, s.root, s.env);
    if s.probe_argv {
        let spec = spec.for_version(a.version.clone());
        let mut inv = agent::plan(
            &spec,
            "ralph doctor",
            &s.root.join(".ralph/doctor-prompt.md"),
        );
        // The run's slots, filled as a run fills them (asked only for its help, the CLI
        // writes no usage file).
        inv.argv = agent::slots::fill(
            &inv.argv,
            &agent::slots::Slots {
                usage_file: Some(s.root.join(".ralph/doctor-usage.json")),
                git_dirs: agent::slots::git_dirs(s.root),
            },
        );
        a.argv_help = probe::ask(
            &probe::argv_check(&inv),
            s.root,
            s.env,
            probe::PROBE_TIMEOUT,
        )
        .ok();
    }
    let (found, looked) = credentials(spec.kind, &home());
    a.credentials = found;
    a.looked_at = looked;
    if spec.kind == AgentKind::Gemini {
        let root = std::fs::canonicalize(s.root).unwrap_or_else(|_| s.root.to_path_buf());
        a.trust = Some(super::trust::decide(&gemini_trust_inputs(s.env), &root));
    }
    a
}

/// What decides Gemini CLI's trust, read from ralph's environment (and the agent's extra
/// environment) and Gemini's files under `GEMINI_CLI_HOME` or HOME.
fn gemini_trust_inputs(extra: &[(String, String)]) -> super::trust::Inputs {
    let var = |name: &str| {
        extra
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(name).ok())
    };
    let home = var("GEMINI_CLI_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(home);
    let dir = home.join(".gemini");
    let settings: Option<serde_json::Value> = std::fs::read_to_string(dir.join("settings.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let folders_path = dir.join("trustedFolders.json");
    super::trust::Inputs {
        env: var("GEMINI_CLI_TRUST_WORKSPACE"),
        restricted: var("GEMINI_RESTRICTED_MODE").as_deref() == Some("true"),
        enabled: settings
            .as_ref()
            .and_then(|v| v.pointer("/security/folderTrust/enabled"))
            .and_then(serde_json::Value::as_bool),
        folders: std::fs::read_to_string(&folders_path).ok(),
        folders_path,
    }
}

fn home() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// Where each CLI keeps credentials it can use offline: environment variables, then files
/// under `home`. The first found, and everything looked at.
pub(crate) fn credentials(kind: AgentKind, home: &Path) -> (Option<String>, Vec<String>) {
    let (vars, files): (&[&str], &[&str]) = match kind {
        AgentKind::Claude => (
            &[
                "ANTHROPIC_API_KEY",
                "ANTHROPIC_AUTH_TOKEN",
                "CLAUDE_CODE_OAUTH_TOKEN",
                "CLAUDE_CODE_USE_BEDROCK",
                "CLAUDE_CODE_USE_VERTEX",
            ],
            &[".claude/.credentials.json"],
        ),
        AgentKind::Codex => (&["OPENAI_API_KEY", "CODEX_API_KEY"], &[".codex/auth.json"]),
        AgentKind::Gemini => (
            &[
                "GEMINI_API_KEY",
                "GOOGLE_API_KEY",
                "GOOGLE_GENAI_USE_VERTEXAI",
                "GOOGLE_GENAI_USE_GCA",
            ],
            &[".gemini/oauth_creds.json"],
        ),
        AgentKind::Copilot => (
            &[
                "COPILOT_GITHUB_TOKEN",
                "GH_TOKEN",
                "GITHUB_TOKEN",
                "COPILOT_PROVIDER_API_KEY",
            ],
            &[".copilot/config.json", ".config/gh/hosts.yml"],
        ),
        AgentKind::Amp => (&["AMP_API_KEY"], &[".local/share/amp/secrets.json"]),
        AgentKind::Opencode => (
            &["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENCODE_CONFIG"],
            &[".local/share/opencode/auth.json"],
        ),
        AgentKind::Custom => (&[], &[]),
    };
    let mut looked: Vec<String> = vars.iter().map(|v| format!("${v}")).collect();
    looked.extend(files.iter().map(|f| format!("~/{f}")));
    let found = vars
        .iter()
        .find(|v| env_set(v))
        .map(|v| format!("${v} is set"))
        .or_else(|| {
            files
                .iter()
                .find(|f| home.join(f).is_file())
                .map(|f| format!("~/{f}"))
        });
    (found, looked)
}

/// `Some(true)`: git has an author and committer identity here; `Some(false)`: it has not;
/// `None`: not a git repository (or no git).
fn git_identity(root: &Path) -> Option<bool> {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .ok()
            .map(|s| s.success())
    };
    if git(&["rev-parse", "--git-dir"]) != Some(true) {
        return None;
    }
    Some(
        git(&["var", "GIT_AUTHOR_IDENT"]) == Some(true)
            && git(&["var", "GIT_COMMITTER_IDENT"]) == Some(true),
    )
}

/// The program a verify command runs, when it cannot be found (`sh -c` runs the command:
/// leading `VAR=value` words are skipped, shell builtins and keywords are always there).
pub(crate) fn missing_program(cmd: &str, root: &Path) -> Option<String> {
    const BUILTINS: &[&str] = &[
        "cd", "test", "[", "true", "false", ":", "exit", "echo", "printf", "export", "set", "if",
        "for", "while", "case", "!", "{", "(", "exec", "command", "type", "eval", ".", "source",
        "env", "time", "nice", "timeout",
    ];
    let words = shell_words::split(cmd).ok()?;
    let first = words.iter().find(|w| !is_assignment(w))?;
    if BUILTINS.contains(&first.as_str()) || first.contains(['$', '`', '(', ';', '&', '|']) {
        return None;
    }
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    let found = if first.contains('/') {
        let p = root.join(first);
        agent::which(&p.to_string_lossy(), &path_var).is_some()
    } else {
        agent::which(first, &path_var).is_some()
    };
    (!found).then(|| first.clone())
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(k, _)| {
        !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Why ralph could not write its state under `root` (tried with a temp file it removes).
fn state_error(root: &Path) -> Option<String> {
    let state = crate::state::state_dir(root);
    let dir = if state.is_dir() {
        state
    } else {
        root.to_path_buf()
    };
    tempfile::NamedTempFile::new_in(&dir)
        .err()
        .map(|e| format!("{}: cannot write ({e})", dir.display()))
}

/// Free bytes for an unprivileged user on the file system holding `root`.
fn free_bytes(root: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(root.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: statvfs writes into `st`, a properly sized, owned struct; `c` is NUL-terminated.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verify_command_names_its_program_unless_the_shell_has_it() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        assert_eq!(
            missing_program("no-such-tool-xyz --check", r).as_deref(),
            Some("no-such-tool-xyz")
        );
        assert_eq!(
            missing_program("CI=1 RUST_LOG=x no-such-tool-xyz", r).as_deref(),
            Some("no-such-tool-xyz")
        );
        assert_eq!(missing_program("sh check.sh", r), None);
        assert_eq!(missing_program("test -f A.txt", r), None);
        assert_eq!(missing_program("cd sub && make", r), None);
        assert_eq!(
            missing_program("./scripts/missing.sh", r).as_deref(),
            Some("./scripts/missing.sh")
        );
        std::fs::create_dir_all(r.join("scripts")).unwrap();
        let s = r.join("scripts/ok.sh");
        std::fs::write(&s, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&s, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(missing_program("./scripts/ok.sh --fast", r), None);
        assert_eq!(missing_program("$(echo x)", r), None, "the shell decides");
        assert_eq!(missing_program("'unbalanced", r), None, "left to the shell");
    }

    #[test]
    fn credentials_come_from_files_under_home_and_say_where() {
        let home = tempfile::tempdir().unwrap();
        let (found, looked) = credentials(AgentKind::Amp, home.path());
        assert!(looked.contains(&"~/.local/share/amp/secrets.json".to_string()));
        if !env_set("AMP_API_KEY") {
            assert_eq!(found, None);
        }
        std::fs::create_dir_all(home.path().join(".local/share/amp")).unwrap();
        std::fs::write(home.path().join(".local/share/amp/secrets.json"), "{}").unwrap();
        let (found, _) = credentials(AgentKind::Amp, home.path());
        assert!(found.is_some());
    }
}
