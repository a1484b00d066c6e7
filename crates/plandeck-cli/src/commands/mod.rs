//! One module per subcommand (or group of subcommands).

pub mod sources;
