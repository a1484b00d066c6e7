//! Plandeck's command-line companion (placeholder while the skeleton lands).
