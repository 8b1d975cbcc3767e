//! `ralph init`: set ralph up in an existing project (the I/O around [`crate::init`]).
//! Idempotent: a file that exists is never replaced; every step says what it did.

use clap::Args;
use std::path::{Path, PathBuf};

use super::ctx::Ctx;
use crate::exit::Code;
use crate::init;
use crate::prd::{import, to_pretty};

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Create prd.json from this markdown PRD (see `ralph prd import`) instead of a starter.
    #[arg(long, value_name = "PRD.md")]
    pub from: Option<PathBuf>,
}

pub(crate) fn init(ctx: &Ctx, args: InitArgs) -> anyhow::Result<Code> {
    let root = &ctx.root;
    let did: Vec<String> = vec![
        prd_step(ctx, args.from.as_deref())?,
        toml_step(root)?,
        gitignore_step(root)?,
    ];
    for line in &did {
        println!("{line}");
    }
    println!("Pin (specs/INDEX.md):");
    let pin = super::pin::PinArgs {
        command: super::pin::PinCommand::Generate {
            check: false,
            stdout: false,
        },
    };
    let code = super::pin::pin(ctx, pin)?;
    if code != Code::OK {
        return Ok(code);
    }
    println!(
        "next: edit {} (or `ralph prd import PRD.md --force`), `ralph validate`, commit what init wrote (`ralph run` refuses uncommitted changes), then `ralph run`",
        ctx.prd_path.display()
    );
    Ok(Code::OK)
}

fn prd_step(ctx: &Ctx, from: Option<&Path>) -> anyhow::Result<String> {
    let path = &ctx.prd_path;
    if path.exists() {
        return Ok(format!("kept {} (it exists)", path.display()));
    }
    let text = match from {
        Some(md) => {
            let text = super::prd_file::read_text(md)?;
            let imported =
                import::import(&text).map_err(|e| anyhow::anyhow!("{}: {e}", md.display()))?;
            to_pretty(&imported.value)
        }
        None => init::starter_prd(&project_name(&ctx.root)),
    };
    crate::fsutil::atomic_write(path, text.as_bytes())?;
    Ok(match from {
        Some(md) => format!("created {} from {}", path.display(), md.display()),
        None => format!("created {} with a starter story to replace", path.display()),
    })
}

/// The project's directory name, or "project".
fn project_name(root: &Path) -> String {
    std::fs::canonicalize(root)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "project".into())
}

fn toml_step(root: &Path) -> anyhow::Result<String> {
    let path = root.join(crate::config::FILE);
    if path.exists() {
        return Ok(format!("kept {} (it exists)", path.display()));
    }
    let found: Vec<(&str, String)> = init::manifest_names()
        .filter_map(|name| {
            let bytes = crate::fsutil::read(&root.join(name)).ok()?;
            Some((name, String::from_utf8(bytes).ok()?))
        })
        .collect();
    let verify = init::suggest_verify(&found);
    crate::fsutil::atomic_write(&path, init::ralph_toml(&verify).as_bytes())?;
    Ok(if verify.is_empty() {
        format!(
            "created {} (no test command found in the manifests: add yours under [verify])",
            path.display()
        )
    } else {
        let cmds: Vec<&str> = verify.iter().map(|(c, _)| *c).collect();
        format!(
            "created {} with verify: {}",
            path.display(),
            cmds.join(", ")
        )
    })
}

fn gitignore_step(root: &Path) -> anyhow::Result<String> {
    let path = root.join(".gitignore");
    let current = match crate::fsutil::read_if_exists(&path)? {
        None => String::new(),
        Some(bytes) => String::from_utf8(bytes)
            .map_err(|_| anyhow::anyhow!("cannot read {}: not UTF-8 text", path.display()))?,
    };
    Ok(match init::gitignore_with_ralph(&current) {
        None => format!("kept {} (it ignores .ralph/ already)", path.display()),
        Some(text) => {
            crate::fsutil::atomic_write(&path, text.as_bytes())?;
            format!("added .ralph/ to {}", path.display())
        }
    })
}
