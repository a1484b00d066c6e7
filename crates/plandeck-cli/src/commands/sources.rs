//! `plandeck sources [--json]`: which folders Plandeck reads and what it found there.

use clap::Args;
use plandeck_core::ipc::IpcError;
use plandeck_core::overview::overview;

use crate::{print_json, Context, Out};

#[derive(Debug, Args)]
pub struct SourcesArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: SourcesArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let overview = overview(&roots, false);
    if args.json {
        print_json(out, &overview)?;
        return Ok(0);
    }
    let w = |out: &mut Out<'_>, s: String| {
        writeln!(out, "{s}")
            .map_err(|e| IpcError::new(plandeck_core::ipc::ErrorKind::Io, e.to_string()))
    };
    for source in &overview.sources {
        let state = if source.root_exists {
            ""
        } else {
            "  (not found)"
        };
        w(out, format!("{}: {}{state}", source.name, source.root))?;
        for f in &source.folders {
            let found = if f.exists {
                plandeck_core::words::count(f.files, "file", "files")
            } else {
                "missing".to_owned()
            };
            w(out, format!("  {:<18} {found:<10} {}", f.label, f.path))?;
        }
    }
    w(out, format!("Plandeck store: {}", overview.data_dir))?;
    w(out, format!("Settings: {}", overview.settings_file))?;
    Ok(0)
}
