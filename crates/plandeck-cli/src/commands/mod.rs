//! One module per subcommand (or group of subcommands).

pub mod agents;
pub mod comments;
pub mod control;
pub mod demo;
pub mod gate;
pub mod hosts;
pub mod phone;
pub mod plans;
pub mod remote;
pub mod review;
pub mod serve;
pub mod sessions;
pub mod sources;
pub mod verify;
pub mod worktrees;
