//! Requests from agent hooks waiting for a reviewer's decision. (Being built: see issue 5.)

/// TypeScript declarations of the types this module sends over IPC.
pub(crate) fn ts_declarations() -> Vec<String> {
    Vec::new()
}
