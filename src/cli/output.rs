//! Writing a command's results: to stdout in the chosen format, or atomically to --out.

use super::args::OutputArgs;
use crate::results::{render, write_atomic, Format, ResultsFile};
use anyhow::{Context, Result};

pub fn emit(results: &ResultsFile, out: &OutputArgs) -> Result<()> {
    match &out.out {
        Some(path) => {
            // A file gets JSON unless another format was asked for explicitly.
            let fmt = match out.format() {
                Format::Table => Format::Json,
                f => f,
            };
            let text = render(results, fmt)?;
            write_atomic(path, text.as_bytes())
                .with_context(|| format!("writing {}", path.display()))?;
            eprintln!(
                "wrote {} record(s) to {}",
                results.records.len(),
                path.display()
            );
        }
        None => println!("{}", render(results, out.format())?),
    }
    Ok(())
}
