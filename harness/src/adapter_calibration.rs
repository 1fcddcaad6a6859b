//! The adapter config's `agy_calibration`: the calibration file (docs/calibration-format.md)
//! fake-agy presents as agy in every scenario the adapter runs. Relative to the config
//! file; a config of the user's must name a file that is there and reads cleanly.

use agy_protocol::diag::{Diagnostic, Diagnostics, SourceFile};
use std::path::{Path, PathBuf};
use toml::de::DeValue;
use toml::Spanned;

/// `file` resolved against the config's folder `base`.
pub(crate) fn resolve_calibration(file: &Path, base: &Path) -> PathBuf {
    if file.is_absolute() {
        file.to_path_buf()
    } else {
        base.join(file)
    }
}

/// The problems of the resolved calibration `file`: a missing one located at the
/// config's `agy_calibration`, a malformed one's own problems located in it.
pub(crate) fn check_config_calibration(
    src: &SourceFile,
    section: Option<&Spanned<DeValue<'_>>>,
    file: &Path,
    base: &Path,
) -> Diagnostics {
    let mut diags = Diagnostics::new();
    if !file.is_file() {
        let at = value_offset(section).unwrap_or(0);
        diags.push(
            Diagnostic::at(
                src,
                at,
                format!("`agy_calibration` names no file `{}`", file.display()),
            )
            .with_hint(format!(
                "the path is relative to the config's folder `{}`; write one with \
                 `agy-harness calibrate … --out FILE` or `agy-harness learn`",
                base.display()
            )),
        );
        return diags;
    }
    if let Err(d) = agy_protocol::calibration::read_calibration(file) {
        diags.extend(d);
    }
    diags
}

/// Where `agy_calibration`'s value starts in `[adapter]`.
fn value_offset(section: Option<&Spanned<DeValue<'_>>>) -> Option<usize> {
    let DeValue::Table(t) = section?.get_ref() else {
        return None;
    };
    t.get("agy_calibration").map(|v| v.span().start)
}
