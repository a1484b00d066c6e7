//! TypeScript declarations for every type that crosses IPC, generated from the Rust types.
//!
//! The output is checked in at `ui/src/lib/bindings.ts`; the test below fails when it is stale.
//! Regenerate with `UPDATE_BINDINGS=1 cargo test -p plandeck-core bindings`.

use ts_rs::TS;

macro_rules! declarations {
    ($($ty:ty),* $(,)?) => {
        vec![$(<$ty as TS>::decl()),*]
    };
}

/// The whole `bindings.ts` file.
pub fn typescript() -> String {
    let mut decls: Vec<String> = declarations![
        crate::ipc::ErrorKind,
        crate::ipc::IpcError,
        crate::overview::Overview,
        crate::overview::SourceStatus,
        crate::overview::Folder,
    ];
    // Each module lists its own IPC types, so modules grow without touching this file.
    decls.extend(crate::agents::ts_declarations());
    decls.extend(crate::plans::ts_declarations());
    decls.extend(crate::render::ts_declarations());
    decls.extend(crate::review::ts_declarations());
    decls.extend(crate::route::ts_declarations());
    decls.extend(crate::comments::ts_declarations());
    decls.extend(crate::history::ts_declarations());
    decls.extend(crate::sessions::ts_declarations());
    decls.extend(crate::worktrees::ts_declarations());
    decls.extend(crate::gate::ts_declarations());
    decls.extend(crate::acp::host::ts_declarations());
    decls.extend(crate::acp::catalog::ts_declarations());
    decls.extend(crate::control::ts_declarations());
    decls.extend(crate::verify::ts_declarations());
    decls.extend(crate::live::ts_declarations());
    decls.extend(crate::mirror::ts_declarations());
    decls.extend(crate::elsewhere::ts_declarations());
    decls.extend(crate::visible::ts_declarations());
    decls.extend(crate::phone::settings::ts_declarations());
    let mut out = String::from(
        "// Generated from the Rust types by `UPDATE_BINDINGS=1 cargo test -p plandeck-core bindings`.\n// Do not edit by hand: a test fails when this file is stale.\n\n",
    );
    for decl in decls {
        out.push_str("export ");
        out.push_str(&decl);
        out.push_str("\n\n");
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// Checks that the generated file `name` (under `ui/src/lib/`) holds `fresh`, or writes it when
/// `UPDATE_BINDINGS` is set: the one check behind both generated files' tests.
#[cfg(test)]
pub(crate) fn assert_fresh(name: &str, fresh: &str) {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../ui/src/lib")
        .join(name);
    if std::env::var_os("UPDATE_BINDINGS").is_some() {
        crate::durable::write_atomic(&path, fresh.as_bytes()).unwrap();
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == fresh,
        "ui/src/lib/{name} is stale: run `UPDATE_BINDINGS=1 cargo test -p plandeck-core bindings`"
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn bindings_are_fresh() {
        super::assert_fresh("bindings.ts", &super::typescript());
    }
}
