//! Human-readable rendering of validation reports. The `--json` form is the envelope's (its
//! problems are built from each [`Diagnostic`] in `cli::envelope`).
//! [`Report::render_styled`] marks errors and warnings with [`crate::ui`]'s styles; printed
//! through `anstream`, they are stripped when colour is off.

use anstyle::Style;

use super::validate::{Diagnostic, Report};

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

impl Report {
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

    /// [`Report::render`] with errors and warnings in colour (for `anstream`).
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
