//! What an agent's own structured output says: the readable text inside its events and what
//! the run cost (tokens in and out, cached tokens, cost, model, turns, session).
//!
//! Owns the formats ([`Format`]: Claude Code's `--output-format stream-json` and Amp's
//! `--stream-json` (the same format), Codex's `exec --json`, Gemini CLI's `--output-format
//! stream-json`, OpenCode's `run --format json`), turning
//! one output line into the text a person reads, and adding up [`Usage`]. Pure: fed lines, it
//! never reads or writes anything. A line that is not a JSON object (a custom agent's plain
//! text, a warning printed among the events, a malformed line) passes through unchanged. Does
//! not choose the preset's flags (see [`super::AgentSpec::preset`]) nor record or total the
//! usage (`crate::run::history`, `crate::run::iteration::cost`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What one agent run used, as the agent reported it. Tokens count every prompt token:
/// `input_tokens` includes `cached_tokens` (the part read from a prompt cache). `turns` is the
/// number of model calls, where the agent says it (Claude Code, Amp, OpenCode, Copilot; not
/// Codex, whose `turn.completed` is one per `exec`, nor Gemini CLI). `partial`: the run ended
/// before the agent printed its totals (a timeout, Ctrl-C, a crash): the tokens are what it
/// said along the way, a lower bound.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Usage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub cached_tokens: u64,
    /// US dollars, when the agent reports a cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

/// The machine-readable output format an agent was started with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// Text for a person: passed through, nothing recorded.
    Plain,
    /// Claude Code `--output-format stream-json --verbose`.
    Claude,
    /// Amp `--execute --stream-json`: Claude Code's format; each assistant message is printed
    /// once it is complete (with its `stop_reason`), its usage final; the result has no totals
    /// and no cost.
    Amp,
    /// Codex `exec --json`.
    Codex,
    /// Gemini CLI `--output-format stream-json`.
    Gemini,
    /// OpenCode `run --format json`.
    Opencode,
    /// Copilot CLI `--output-format json`: session events; the tokens are in the file
    /// `--usage-output-file` writes (read with [`Telemetry::copilot_usage_file`]).
    Copilot,
}

/// Reads one agent run's output: [`Telemetry::line`] for each stdout line, then
/// [`Telemetry::usage`].
#[derive(Debug, Clone)]
pub(crate) struct Telemetry {
    format: Format,
    usage: Usage,
    /// A structured event carrying usage was seen.
    seen: bool,
    /// The agent printed its totals (Claude's `result`, Codex's `turn.completed`, Gemini's
    /// `result`, OpenCode with no step left open, Copilot's usage file): else `partial`.
    complete: bool,
    /// OpenCode: a step started and has not finished.
    open_step: bool,
    /// Claude and Amp: the usage of messages printed as they started (`stop_reason` null:
    /// one output token each), kept apart from the final ones.
    snapshots: Usage,
    /// Claude and Amp: the assistant messages seen (model calls), when the result does not say.
    messages: u32,
    /// Structured events read (JSON objects), whatever they carried.
    events: u64,
    /// Gemini's assistant text arrives in pieces; whole lines are shown.
    pending: String,
    /// The last assistant text shown (a final result repeating it is not shown again).
    last_text: String,
    /// The id of the last assistant message whose usage was counted (Claude Code repeats a
    /// message, usage included, once per content block).
    last_message: Option<String>,
}

fn str_at<'a>(v: &'a Value, ptr: &str) -> Option<&'a str> {
    v.pointer(ptr).and_then(Value::as_str)
}

fn u64_at(v: &Value, ptr: &str) -> u64 {
    v.pointer(ptr).and_then(Value::as_u64).unwrap_or(0)
}

/// A tool call in one line: `→ Bash: cargo test` (the input's most telling field, cut short).
fn tool_line(name: &str, input: Option<&Value>) -> String {
    const KEYS: &[&str] = &[
        "command",
        "file_path",
        "path",
        "filePath",
        "pattern",
        "query",
        "url",
        "description",
    ];
    let detail = input.and_then(|i| {
        KEYS.iter()
            .find_map(|k| i.get(*k).and_then(Value::as_str))
            .map(str::to_string)
    });
    let mut line = format!("→ {name}");
    if let Some(d) = detail {
        let d: String = d.replace('\n', " ").chars().take(160).collect();
        line.push_str(": ");
        line.push_str(&d);
    }
    line
}

/// The key of the object at `models` whose value has the most at `ptr` (ties: the first).
fn busiest(models: Option<&Value>, ptr: &str) -> Option<String> {
    let models = models?.as_object()?;
    let mut best: Option<(&String, u64)> = None;
    for (name, m) in models {
        let n = u64_at(m, ptr);
        if best.is_none_or(|(_, b)| n > b) {
            best = Some((name, n));
        }
    }
    best.map(|(name, _)| name.clone())
}

fn join(parts: Vec<String>) -> Option<String> {
    let parts: Vec<String> = parts.into_iter().filter(|p| !p.is_empty()).collect();
    (!parts.is_empty()).then(|| parts.join("\n"))
}

impl Telemetry {
    pub(crate) fn new(format: Format) -> Telemetry {
        Telemetry {
            format,
            usage: Usage::default(),
            seen: false,
            complete: false,
            open_step: false,
            snapshots: Usage::default(),
            messages: 0,
            events: 0,
            pending: String::new(),
            last_text: String::new(),
            last_message: None,
        }
    }

    /// The readable text for one output line (without its newline): `None` when the line is an
    /// event with nothing to show. Plain text is returned as is.
    pub(crate) fn line(&mut self, line: &str) -> Option<String> {
        if self.format == Format::Plain {
            return Some(line.to_string());
        }
        let event = match serde_json::from_str::<Value>(line.trim()) {
            Ok(v @ Value::Object(_)) => v,
            _ => {
                let mut out = self.flush();
                out.push(line.to_string());
                return join(out).or(Some(String::new()));
            }
        };
        self.events += 1;
        let kind = str_at(&event, "/type").unwrap_or("").to_string();
        let mut out = if self.format == Format::Gemini && kind == "message" {
            vec![]
        } else {
            self.flush()
        };
        let shown = match self.format {
            Format::Plain => None,
            Format::Claude | Format::Amp => self.claude(&kind, &event),
            Format::Codex => self.codex(&kind, &event),
            Format::Gemini => self.gemini(&kind, &event),
            Format::Opencode => self.opencode(&kind, &event),
            Format::Copilot => self.copilot(&kind, &event),
        };
        out.extend(shown);
        join(out)
    }

    /// What is left at the end of the output (a last piece of text without a newline).
    pub(crate) fn finish(&mut self) -> Option<String> {
        let out = self.flush();
        join(out)
    }

    /// How many structured events were read: none means the agent never started its session.
    pub(crate) fn events(&self) -> u64 {
        self.events
    }

    /// What the run used, when the agent reported any usage: its totals, or what it said along
    /// the way marked `partial` when it ended before them.
    pub(crate) fn usage(&self) -> Option<Usage> {
        // A session that started but never said what it used is partial too (Copilot's
        // tokens come from its file: without it, nothing is known).
        if !self.seen && (self.events == 0 || self.format == Format::Copilot) {
            return None;
        }
        let mut u = self.usage.clone();
        if self.complete && !self.open_step {
            return Some(u);
        }
        if matches!(self.format, Format::Claude | Format::Amp) {
            Self::add(&mut u, &self.snapshots);
            if u.turns.is_none() && self.messages > 0 {
                u.turns = Some(self.messages);
            }
        }
        u.partial = true;
        Some(u)
    }

    fn add(u: &mut Usage, more: &Usage) {
        u.input_tokens = u.input_tokens.saturating_add(more.input_tokens);
        u.output_tokens = u.output_tokens.saturating_add(more.output_tokens);
        u.cached_tokens = u.cached_tokens.saturating_add(more.cached_tokens);
    }

    /// Copilot: the usage file `--usage-output-file` wrote (its `modelMetrics`: tokens and
    /// requests per model) makes the totals; the model is the one with the most tokens.
    pub(crate) fn copilot_usage_file(&mut self, text: &str) {
        let Ok(v) = serde_json::from_str::<Value>(text) else {
            return;
        };
        let Some(models) = v.get("modelMetrics").and_then(Value::as_object) else {
            return;
        };
        let u = &mut self.usage;
        let (mut requests, mut best) = (0u64, (0u64, None::<&String>));
        for (name, m) in models {
            let input = u64_at(m, "/usage/inputTokens");
            u.input_tokens = u.input_tokens.saturating_add(input);
            u.output_tokens = u
                .output_tokens
                .saturating_add(u64_at(m, "/usage/outputTokens"));
            u.cached_tokens = u
                .cached_tokens
                .saturating_add(u64_at(m, "/usage/cacheReadTokens"));
            requests = requests.saturating_add(u64_at(m, "/requests/count"));
            if input >= best.0 {
                best = (input, Some(name));
            }
        }
        if let Some(m) = best.1 {
            u.model = Some(m.clone());
        }
        u.turns = u32::try_from(requests).ok().filter(|n| *n > 0);
        self.seen = true;
        self.complete = true;
    }

    fn flush(&mut self) -> Vec<String> {
        if self.pending.is_empty() {
            return vec![];
        }
        let text = std::mem::take(&mut self.pending);
        self.last_text = text.clone();
        vec![text]
    }

    fn text(&mut self, t: &str) -> String {
        self.last_text = t.trim().to_string();
        t.trim_end().to_string()
    }

    fn add_turn(&mut self) {
        self.usage.turns = Some(self.usage.turns.unwrap_or(0).saturating_add(1));
    }

    /// Claude's token counts (input, cache creation, cache read, output) into `u`: every prompt
    /// token is input, the cache reads are the cached ones.
    fn add_claude_tokens(u: &mut Usage, usage: &Value) {
        let read = u64_at(usage, "/cache_read_input_tokens");
        u.input_tokens = u
            .input_tokens
            .saturating_add(u64_at(usage, "/input_tokens"))
            .saturating_add(u64_at(usage, "/cache_creation_input_tokens"))
            .saturating_add(read);
        u.output_tokens = u
            .output_tokens
            .saturating_add(u64_at(usage, "/output_tokens"));
        u.cached_tokens = u.cached_tokens.saturating_add(read);
    }

    /// Claude Code (and Amp): `system` (init: model, session), `assistant` (message.content:
    /// text and tool_use blocks; message.usage once per message id: final when the message has
    /// its `stop_reason` (Amp), a snapshot taken at its start otherwise (Claude Code: one output
    /// token), kept apart), `user` (tool results: not shown), `result` (the totals when it has
    /// them, Claude Code's; Amp's has none: its final messages add up).
    fn claude(&mut self, kind: &str, e: &Value) -> Option<String> {
        if let Some(id) = str_at(e, "/session_id") {
            self.usage.session_id = Some(id.to_string());
        }
        match kind {
            "system" => {
                if let Some(m) = str_at(e, "/model") {
                    self.usage.model = Some(m.to_string());
                }
                None
            }
            "assistant" => self.claude_assistant(e),
            "result" => self.claude_result(e),
            _ => None,
        }
    }

    /// A Claude `assistant` event: its usage counted once per message id, its text and tool
    /// calls shown.
    fn claude_assistant(&mut self, e: &Value) -> Option<String> {
        if let Some(m) = str_at(e, "/message/model") {
            self.usage.model = Some(m.to_string());
        }
        let id = str_at(e, "/message/id").map(str::to_string);
        if let Some(usage) = e.pointer("/message/usage").filter(|u| u.is_object())
            && (id.is_none() || id != self.last_message)
        {
            self.seen = true;
            self.messages = self.messages.saturating_add(1);
            let done = e
                .pointer("/message/stop_reason")
                .is_some_and(|r| !r.is_null());
            let into = if done {
                &mut self.usage
            } else {
                &mut self.snapshots
            };
            Self::add_claude_tokens(into, usage);
            self.last_message = id;
        }
        let blocks = e.pointer("/message/content").and_then(Value::as_array)?;
        let mut out = vec![];
        for b in blocks {
            match str_at(b, "/type") {
                Some("text") => {
                    if let Some(t) = str_at(b, "/text") {
                        out.push(self.text(t));
                    }
                }
                Some("tool_use") => {
                    let name = str_at(b, "/name").unwrap_or("tool");
                    out.push(tool_line(name, b.get("input")));
                }
                _ => {}
            }
        }
        join(out)
    }

    /// A Claude `result` event: the run's totals (or the messages' when it has none), its
    /// final text unless it repeats the last one, and the summary line.
    fn claude_result(&mut self, e: &Value) -> Option<String> {
        self.seen = true;
        self.complete = true;
        let snapshots = std::mem::take(&mut self.snapshots);
        let u = &mut self.usage;
        // The result's totals, when it has them, replace what the messages said.
        if let Some(usage) = e.get("usage").filter(|u| u.is_object()) {
            (u.input_tokens, u.output_tokens, u.cached_tokens) = (0, 0, 0);
            Self::add_claude_tokens(u, usage);
        } else {
            Self::add(u, &snapshots);
        }
        if self.messages > 0 {
            u.turns = Some(self.messages);
        }
        u.cost_usd = e.get("total_cost_usd").and_then(Value::as_f64);
        if let Some(n) = e.get("num_turns").and_then(Value::as_u64) {
            u.turns = u32::try_from(n).ok();
        }
        // The model that cost the most, when the result breaks the cost down by model.
        if let Some(models) = e.get("modelUsage").and_then(Value::as_object) {
            let cost = |v: &Value| v.get("costUSD").and_then(Value::as_f64).unwrap_or(0.0);
            if let Some((m, _)) = models.iter().max_by(|a, b| cost(a.1).total_cmp(&cost(b.1))) {
                u.model = Some(m.clone());
            }
        }
        let mut out = vec![];
        if let Some(r) = str_at(e, "/result")
            && r.trim() != self.last_text
        {
            out.push(r.trim_end().to_string());
        }
        let subtype = str_at(e, "/subtype").unwrap_or("done");
        out.push(self.summary(subtype));
        join(out)
    }

    /// Codex: `thread.started` (session), `turn.completed` (the usage of the turn, which is the
    /// whole `exec`: its model calls are not counted), `item.completed` (agent messages,
    /// commands, file changes; an `error` item is a warning, the run goes on), `turn.failed`
    /// and `error`.
    fn codex(&mut self, kind: &str, e: &Value) -> Option<String> {
        match kind {
            "thread.started" => {
                if let Some(id) = str_at(e, "/thread_id") {
                    self.usage.session_id = Some(id.to_string());
                }
                None
            }
            "turn.completed" => {
                self.seen = true;
                self.complete = true;
                let u = &mut self.usage;
                u.input_tokens = u
                    .input_tokens
                    .saturating_add(u64_at(e, "/usage/input_tokens"));
                u.cached_tokens = u
                    .cached_tokens
                    .saturating_add(u64_at(e, "/usage/cached_input_tokens"));
                u.output_tokens = u
                    .output_tokens
                    .saturating_add(u64_at(e, "/usage/output_tokens"));
                None
            }
            "turn.failed" => str_at(e, "/error/message").map(|m| format!("error: {m}")),
            "error" => str_at(e, "/message").map(|m| format!("error: {m}")),
            "item.completed" => {
                let item = e.get("item")?;
                match str_at(item, "/type")? {
                    "agent_message" => str_at(item, "/text").map(|t| self.text(t)),
                    "command_execution" => {
                        let cmd = str_at(item, "/command").unwrap_or("");
                        let mut line =
                            tool_line("shell", Some(&serde_json::json!({"command": cmd})));
                        if let Some(c) = item.get("exit_code").and_then(Value::as_i64) {
                            line.push_str(&format!(" (exit {c})"));
                        }
                        Some(line)
                    }
                    "file_change" => {
                        let paths: Vec<&str> = item
                            .get("changes")
                            .and_then(Value::as_array)
                            .map(|c| c.iter().filter_map(|x| str_at(x, "/path")).collect())
                            .unwrap_or_default();
                        Some(format!("→ edit: {}", paths.join(", ")))
                    }
                    "mcp_tool_call" => {
                        let tool = str_at(item, "/tool").unwrap_or("tool");
                        Some(tool_line(tool, item.get("arguments")))
                    }
                    "web_search" => Some(tool_line("search", Some(item))),
                    "error" => str_at(item, "/message").map(|m| format!("warning: {m}")),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Gemini CLI: `init` (session; its model is `auto` when the router picks), `message`
    /// (assistant text, possibly in pieces), `tool_use`, `tool_result` (failures only), `error`,
    /// `result` (the totals in `stats`, every call's, the router's included; the models used in
    /// `stats.models`: the one with the most tokens is recorded).
    fn gemini(&mut self, kind: &str, e: &Value) -> Option<String> {
        match kind {
            "init" => {
                if let Some(id) = str_at(e, "/session_id") {
                    self.usage.session_id = Some(id.to_string());
                }
                if let Some(m) = str_at(e, "/model") {
                    self.usage.model = Some(m.to_string());
                }
                None
            }
            "message" if str_at(e, "/role") == Some("assistant") => {
                let piece = str_at(e, "/content").unwrap_or("");
                if e.get("delta").and_then(Value::as_bool) != Some(true) {
                    let mut out = self.flush();
                    out.push(self.text(piece));
                    return join(out);
                }
                self.pending.push_str(piece);
                // Whole lines are shown as they complete; the rest waits.
                let cut = self.pending.rfind('\n')?;
                let rest = self.pending.split_off(cut + 1);
                let done = std::mem::replace(&mut self.pending, rest);
                Some(done.trim_end_matches('\n').to_string())
            }
            "tool_use" => {
                let name = str_at(e, "/tool_name").unwrap_or("tool");
                Some(tool_line(name, e.get("parameters")))
            }
            "tool_result" if str_at(e, "/status") == Some("error") => {
                let msg = str_at(e, "/error/message").unwrap_or("failed");
                Some(format!("tool error: {msg}"))
            }
            "error" => str_at(e, "/message").map(|m| format!("error: {m}")),
            "result" => {
                self.seen = true;
                self.complete = true;
                let u = &mut self.usage;
                if let Some(m) = busiest(e.pointer("/stats/models"), "/total_tokens") {
                    u.model = Some(m);
                }
                u.input_tokens = u64_at(e, "/stats/input_tokens");
                u.output_tokens = u64_at(e, "/stats/output_tokens");
                u.cached_tokens = u64_at(e, "/stats/cached");
                let mut out = vec![];
                if let Some(m) = str_at(e, "/error/message") {
                    out.push(format!("error: {m}"));
                }
                out.push(self.summary(str_at(e, "/status").unwrap_or("done")));
                join(out)
            }
            _ => None,
        }
    }

    /// OpenCode: `text` (part.text), `tool_use` (part.tool, part.state.input), `step_finish`
    /// (part.tokens and part.cost per step, added up), `error`.
    fn opencode(&mut self, kind: &str, e: &Value) -> Option<String> {
        if let Some(id) = str_at(e, "/sessionID") {
            self.usage.session_id = Some(id.to_string());
        }
        match kind {
            "step_start" => {
                self.open_step = true;
                None
            }
            "text" => str_at(e, "/part/text").map(|t| self.text(t)),
            "tool_use" => {
                let name = str_at(e, "/part/tool").unwrap_or("tool");
                Some(tool_line(name, e.pointer("/part/state/input")))
            }
            "step_finish" => {
                self.seen = true;
                self.complete = true;
                self.open_step = false;
                let u = &mut self.usage;
                let read = u64_at(e, "/part/tokens/cache/read");
                u.input_tokens = u
                    .input_tokens
                    .saturating_add(u64_at(e, "/part/tokens/input"))
                    .saturating_add(u64_at(e, "/part/tokens/cache/write"))
                    .saturating_add(read);
                u.cached_tokens = u.cached_tokens.saturating_add(read);
                u.output_tokens = u
                    .output_tokens
                    .saturating_add(u64_at(e, "/part/tokens/output"))
                    .saturating_add(u64_at(e, "/part/tokens/reasoning"));
                if let Some(c) = e.pointer("/part/cost").and_then(Value::as_f64) {
                    u.cost_usd = Some(u.cost_usd.unwrap_or(0.0) + c);
                }
                self.add_turn();
                None
            }
            "error" => str_at(e, "/error/data/message")
                .or_else(|| str_at(e, "/error/message"))
                .or_else(|| str_at(e, "/message"))
                .map(|m| format!("error: {m}")),
            _ => None,
        }
    }

    /// Copilot CLI: `session.tools_updated` (the model), `assistant.message` (its text and
    /// tool requests, whole; the `_delta` events are skipped), `tool.execution_complete`
    /// (failures only), `session.error`, `result` (the session: no tokens, they come from the
    /// usage file).
    fn copilot(&mut self, kind: &str, e: &Value) -> Option<String> {
        match kind {
            "session.tools_updated" => {
                if let Some(m) = str_at(e, "/data/model") {
                    self.usage.model = Some(m.to_string());
                }
                None
            }
            "assistant.message" => {
                let mut out = vec![];
                if let Some(t) = str_at(e, "/data/content").filter(|t| !t.trim().is_empty()) {
                    out.push(self.text(t));
                }
                for r in e
                    .pointer("/data/toolRequests")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let name = str_at(r, "/name").unwrap_or("tool");
                    out.push(tool_line(name, r.get("arguments")));
                }
                join(out)
            }
            "tool.execution_complete"
                if e.pointer("/data/success") == Some(&Value::Bool(false)) =>
            {
                let msg = str_at(e, "/data/error/message")
                    .or_else(|| str_at(e, "/data/result/content"))
                    .unwrap_or("failed");
                Some(format!("tool error: {msg}"))
            }
            "session.error" => str_at(e, "/data/message").map(|m| format!("error: {m}")),
            "result" => {
                if let Some(id) = str_at(e, "/sessionId") {
                    self.usage.session_id = Some(id.to_string());
                }
                // Its tokens are in the usage file, read once the CLI has exited.
                let code = e.get("exitCode").and_then(Value::as_i64).unwrap_or(0);
                Some(format!(
                    "[result: {}]",
                    if code == 0 { "success" } else { "error" }
                ))
            }
            _ => None,
        }
    }

    /// "[result: success · 3 turns · 1,234 in (1,000 cached) / 56 out · $0.0123]".
    fn summary(&self, status: &str) -> String {
        let u = &self.usage;
        let mut parts = vec![format!("result: {status}")];
        if let Some(t) = u.turns {
            parts.push(format!("{t} turn(s)"));
        }
        parts.push(format!(
            "{} tokens in ({} cached) / {} out",
            u.input_tokens, u.cached_tokens, u.output_tokens
        ));
        if let Some(c) = u.cost_usd {
            parts.push(format!("${c:.4}"));
        }
        format!("[{}]", parts.join(" · "))
    }
}

#[cfg(test)]
mod tests;
