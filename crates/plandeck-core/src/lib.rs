//! Plandeck's domain, with no Tauri dependency.
//!
//! The desktop shell (`src-tauri/`) and the command-line companion (`plandeck-cli`) are thin
//! adapters over this crate: they parse arguments, call one function here, and map errors.
//!
//! - [`config`]: where each agent keeps its files and where Plandeck keeps its own (roots, settings).
//! - [`durable`]: atomic writes, fsynced appends and private files; every write Plandeck makes goes through it.
//! - [`stamped`]: a file's stamp, and the stamped caches the store keeps of files read in part.
//! - [`ipc`]: the one serializable error type that crosses IPC and the CLI's `--json`.
//! - [`bindings`]: the TypeScript declarations generated from the types that cross IPC.
//! - [`plans`]: plan files of every agent: discovery, linking to sessions, search.
//! - [`render`]: markdown to sanitized HTML.
//! - [`visible`]: the characters a person cannot see, marked for people and dropped for agents.
//! - [`watch`]: debounced file watching with a handle that stops it when dropped.
//! - [`review`]: approved versions, decisions, diffs.
//! - [`comments`]: comments on quoted plan text, re-anchored on each version, carried by decisions.
//! - [`sessions`]: agent sessions from transcripts and registries, and their state.
//! - [`shell`]: command lines read and written by `sh`'s rules (hook commands, commands an agent ran).
//! - [`worktrees`]: agent worktrees, their changed files and unmerged commits, safe removal.
//! - [`agents`]: each agent's home: folder layout, plan locations, hook shape, approval card.
//! - [`hooks`]: Plandeck's hooks in the agents' settings files: preview, token, apply.
//! - [`gate`]: requests from agent hooks waiting for a reviewer's decision.
//! - [`terminal`]: typing into a live agent's tmux pane, checked and bounded.
//! - [`verify`]: the approved plan against what the agent did after the approval.
//! - [`demo`]: a scratch workspace filled with sample data of every kind.
//! - [`deck`]: every call of the window over one set of roots and their live state, ids resolved.
//! - [`live`]: the app's watchers and liveness tick as one handle that reports typed events.
//! - [`ipc_table`]: every call (wire name, params, result, its deck call, whether another machine
//!   may be asked it) and every event, written once: the shell's commands, the server's dispatch,
//!   the typed client and the UI's `commands.ts` are made from it.
//! - [`wire`]: the frames of `plandeck serve`, the events' names and the typed client, read by the
//!   server and its client alike.
//! - [`workspace`]: what a window holds: its roots (the demo or the person's), their live state,
//!   the other machines.
//! - [`serve`]: the window's calls and events as line-delimited JSON frames (`plandeck serve`).

// System calls go through rustix; nothing here needs `unsafe`.
#![forbid(unsafe_code)]

pub mod acp;
pub mod agents;
pub mod bindings;
pub mod comments;
pub mod config;
pub mod control;
pub mod daemon_home;
pub mod deck;
pub mod demo;
pub mod durable;
pub mod elsewhere;
pub mod gate;
pub mod history;
pub mod hooks;
pub mod ids;
pub mod ipc;
pub mod ipc_table;
pub mod links;
pub mod live;
pub mod machines;
pub mod mirror;
pub mod overview;
pub mod phone;
pub mod phone_elsewhere;
pub mod plan_state;
pub mod plans;
pub mod process;
pub mod remote;
pub mod render;
pub mod review;
pub mod route;
pub mod serve;
pub mod sessions;
pub mod shell;
pub mod stamped;
pub mod standing;
mod sync;
pub mod terminal;
pub mod timestamp;
pub mod verify;
pub mod visible;
pub mod watch;
pub mod wire;
pub mod words;
pub mod workspace;
pub mod worktrees;
