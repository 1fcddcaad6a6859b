//! Reading a format that lives either in a file of its own or as one table of another
//! file (an agy script as a scenario's `[agy]`, an ACP script as its `[acp]`), with
//! errors located in whichever file it is.

use super::diagnostic::{Diagnostic, Diagnostics};
use super::source::SourceFile;
use super::toml_walk::parse_toml_document;
use std::path::Path;
use toml::de::DeValue;
use toml::Spanned;

/// A parser of one spanned table: `(source, value, what, diagnostics) -> model`.
pub type ValueParser<'f, T> =
    &'f dyn Fn(&SourceFile, &Spanned<DeValue<'_>>, &str, &mut Diagnostics) -> T;

/// Where a format's file comes from, for messages: its name (`script`, `ACP script`) and
/// the environment variables that name its path and table.
#[derive(Debug, Clone, Copy)]
pub struct EmbeddedFormat {
    /// What the file is, in messages (`script`).
    pub name: &'static str,
    /// The variable naming the file (`FAKE_AGY_SCRIPT`).
    pub path_env: &'static str,
    /// The variable naming the table (`FAKE_AGY_SCRIPT_TABLE`).
    pub table_env: &'static str,
}

/// Parses the whole document of `src` with `parse`.
pub fn parse_whole_document<T>(
    src: &SourceFile,
    what: &str,
    parse: ValueParser<'_, T>,
) -> Result<T, Diagnostics> {
    let mut diags = Diagnostics::new();
    let Some(doc) = parse_toml_document(src, &mut diags) else {
        return Err(diags);
    };
    let span = doc.span();
    let root = Spanned::new(span, DeValue::Table(doc.into_inner()));
    let model = parse(src, &root, what, &mut diags);
    diags.into_result(model)
}

/// Reads `path` and parses it with `parse`: the whole file, or with `table` that
/// top-level table of it.
pub fn parse_embedded_file<T: Default>(
    path: &Path,
    table: Option<&str>,
    format: EmbeddedFormat,
    parse: ValueParser<'_, T>,
) -> Result<T, Diagnostics> {
    let display = path.display().to_string();
    let text = crate::file::read_file_located(path, crate::file::FILE_CAP).map_err(|e| {
        let d = e.diagnostic(&display, &format!("read {}", format.name));
        let d = match e {
            crate::file::FileError::Io(_) => {
                d.with_hint(format!("check the path in `{}`", format.path_env))
            }
            _ => d,
        };
        Diagnostics(vec![d])
    })?;
    let src = SourceFile::new(display, text);
    let Some(key) = table else {
        return parse_whole_document(&src, &format!("the {}", format.name), parse);
    };
    let mut diags = Diagnostics::new();
    let Some(doc) = parse_toml_document(&src, &mut diags) else {
        return Err(diags);
    };
    let model = match doc.get_ref().get(key) {
        Some(value) => parse(&src, value, &format!("`[{key}]`"), &mut diags),
        None => {
            diags.push(
                Diagnostic::at(&src, 0, format!("no `[{key}]` table in this file"))
                    .with_hint(format!("check `{}`", format.table_env)),
            );
            T::default()
        }
    };
    diags.into_result(model)
}
