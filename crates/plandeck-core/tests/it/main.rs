//! The core's integration tests, one binary (built and linked once): each module is what was one
//! test file. They share one process: a test never changes the process's environment, and
//! `store_private` sets the umask to 0 for all of them.

mod acp;
mod crash;
mod layers;
mod one_tmux;
mod sessions;
mod store_private;
