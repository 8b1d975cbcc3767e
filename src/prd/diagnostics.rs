//! prd.json's diagnostics: one finding ([`Diagnostic`]: a stable code, a JSON pointer, the story
//! id and a fix hint), the findings of one file ([`Diagnostics`]), and their text.
//!
//! A leaf: the checks (`validate`, `schema`, `refs`, `checks`, `dialect`, `stories`, …) build
//! diagnostics, the CLI prints them; this file imports nothing else of [`crate::prd`]. The `--json`
//! form is the envelope's (its problems are built from each [`Diagnostic`] in `cli::envelope`).
//! [`Diagnostics::render_styled`] marks errors and warnings with [`crate::ui`]'s styles; printed
//! through `anstream`, they are stripped when colour is off.

use anstyle::Style;
use serde::Serialize;

/// One finding. `code` is a stable string documented in README.md.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub code: &'static str,
    /// JSON pointer to the offending value ("" for the whole document).
    pub pointer: String,
    /// The story the finding is about, when there is one.
    pub story: Option<String>,
    pub message: String,
    /// How to fix it.
    pub hint: String,
    /// 1-based line:column, for syntax errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl Diagnostic {
    pub fn error(
        code: &'static str,
        pointer: &str,
        story: Option<String>,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            code,
            pointer: pointer.to_string(),
            story,
            message: message.into(),
            hint: hint.into(),
            line: None,
            column: None,
        }
    }
}

/// The outcome of validating one file.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Diagnostics {
    pub file: String,
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }
}

/// The styles of one rendering: all plain, or ralph's colours.
struct Look {
    error: Style,
    warning: Style,
    hint: Style,
}

const PLAIN: Look = Look {
    error: Style::new(),
    warning: Style::new(),
    hint: Style::new(),
};

const STYLED: Look = Look {
    error: crate::ui::ERROR,
    warning: crate::ui::WARNING,
    hint: crate::ui::HINT,
};

fn line(file: &str, severity: &str, style: Style, hint: Style, d: &Diagnostic) -> String {
    let place = match (d.line, d.column) {
        (Some(l), Some(c)) => format!("{file}:{l}:{c}"),
        _ if d.pointer.is_empty() => file.to_string(),
        _ => format!("{file}:{}", d.pointer),
    };
    let story = d
        .story
        .as_deref()
        .map(|s| format!(" ({s})"))
        .unwrap_or_default();
    format!(
        "{place}: {style}{severity}[{}]{style:#}{story}: {}\n  {hint}hint:{hint:#} {}",
        d.code, d.message, d.hint
    )
}

impl Diagnostics {
    /// Every error, one per line with its hint.
    pub fn render_errors(&self) -> String {
        let mut out: Vec<String> = self
            .errors
            .iter()
            .map(|d| line(&self.file, "error", Style::new(), Style::new(), d))
            .collect();
        out.push(format!(
            "{}: {} error(s); fix them and run `ralph validate` again",
            self.file,
            self.errors.len()
        ));
        out.join("\n")
    }

    /// Errors then warnings, then a summary line.
    pub fn render(&self) -> String {
        self.render_with(&PLAIN)
    }

    /// [`Diagnostics::render`] with errors and warnings in colour (for `anstream`).
    pub fn render_styled(&self) -> String {
        self.render_with(&STYLED)
    }

    fn render_with(&self, look: &Look) -> String {
        let mut out = String::new();
        for d in &self.errors {
            out.push_str(&line(&self.file, "error", look.error, look.hint, d));
            out.push('\n');
        }
        for d in &self.warnings {
            out.push_str(&line(&self.file, "warning", look.warning, look.hint, d));
            out.push('\n');
        }
        out.push_str(&format!(
            "{}: {} error(s), {} warning(s)\n",
            self.file,
            self.errors.len(),
            self.warnings.len()
        ));
        out
    }
}
