//! Markdown to sanitized HTML. (Being built: see issue 3.)

/// TypeScript declarations of the types this module sends over IPC.
pub(crate) fn ts_declarations() -> Vec<String> {
    Vec::new()
}
