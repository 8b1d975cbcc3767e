//! The integration tests: one test binary that runs the real `ralph` binary, one module per
//! area. A new test file is a new `mod` line here (cargo links one binary instead of one per
//! file). Shared helpers live in `support`; data stays in `tests/fixtures/` and
//! `tests/fuzz/`, snapshots in `snapshots/` beside this file.

mod clean;
mod cli_conventions;
mod closed_output;
mod compact_bad_input;
mod compact_cli;
mod context_cli;
mod context_files;
mod convert_init;
mod demo;
mod doctor;
mod fuzz_parsers;
mod json_envelope;
mod parallel_kept;
mod parallel_schedule;
mod pin_check;
mod pin_edits;
mod pin_generate;
mod pin_search;
mod prd_import;
mod report_cli;
mod reported;
mod run_agents;
mod run_basic;
mod run_branch;
mod run_compact;
mod run_context;
mod run_cost;
mod run_faults;
mod run_gate;
mod run_guard;
mod run_hooks;
mod run_integrity;
mod run_json;
mod run_output;
mod run_parallel;
mod run_patterns;
mod run_processes;
mod run_red_green;
mod run_review;
mod run_signals;
mod run_start;
mod run_state;
mod run_state_files;
mod run_steer;
mod run_watch;
mod show;
mod support;
mod validate;
mod views;
mod wild_prd;
mod wild_progress;
