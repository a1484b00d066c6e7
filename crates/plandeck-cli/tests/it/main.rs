//! The CLI's integration tests, one binary (built and linked once): each module is what was one
//! test file. They share one process: a test never changes the process's environment (a command
//! that needs another PATH, locale or tmux runs as a process of its own, `common::plandeck_process`).

mod agents;
mod comments;
mod common;
mod control;
mod decisions;
mod demo;
mod gate;
mod gate_codex;
mod gate_team;
mod history;
mod hostile;
mod hung_tmux;
mod locale;
mod machines;
mod phone;
mod phone_machines;
mod phone_trust;
mod plans;
mod remote;
mod review;
mod serve;
mod sessions;
mod sources;
mod store;
mod terminal_output;
mod verify;
mod window_start;
mod worktrees;
