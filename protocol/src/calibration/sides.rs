//! Reading `[[unrecorded]]` entries and checking each side as it would apply.

use super::root::parse_root;
use super::unrecorded::Unrecorded;
use crate::diag::{deserialize_value, Diagnostic, Diagnostics, SourceFile};
use toml::de::{DeTable, DeValue};
use toml::Spanned;

fn merge_spanned<'i>(base: &mut DeTable<'i>, over: &DeTable<'i>) {
    for (k, v) in over.iter() {
        let both = base.get_mut(k.get_ref().as_ref());
        match (both.map(|b| b.get_mut()), v.get_ref()) {
            (Some(DeValue::Table(b)), DeValue::Table(o)) => merge_spanned(b, o),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

/// The `[[unrecorded]]` entries of `root`, each with its table.
pub(super) fn parse_unrecorded<'a, 'i>(
    src: &SourceFile,
    root: &'a DeTable<'i>,
    diags: &mut Diagnostics,
) -> Vec<(Unrecorded, &'a Spanned<DeValue<'i>>)> {
    let Some(value) = root.get("unrecorded") else {
        return Vec::new();
    };
    let DeValue::Array(items) = value.get_ref() else {
        diags.push(
            Diagnostic::at(
                src,
                value.span().start,
                "`unrecorded` must be a list of tables",
            )
            .with_hint("write `[[unrecorded]]` tables"),
        );
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            let what = format!("`[[unrecorded]]` {}", i + 1);
            deserialize_value::<Unrecorded>(src, item, &what, diags).map(|u| (u, item))
        })
        .collect()
}

/// Checks each side of each entry as it would apply: laid over the calibration, it must
/// read as one, and it changes observables only.
pub(super) fn check_sides(
    src: &SourceFile,
    root: &DeTable<'_>,
    at: usize,
    entries: &[(Unrecorded, &Spanned<DeValue<'_>>)],
    diags: &mut Diagnostics,
) {
    let mut base = root.clone();
    base.remove("unrecorded");
    for (u, raw) in entries {
        let DeValue::Table(entry) = raw.get_ref() else {
            continue;
        };
        if u.before.is_empty() && u.after.is_empty() {
            diags.push(
                Diagnostic::at(
                    src,
                    raw.span().start,
                    format!("`{}` gives neither side", u.change),
                )
                .with_hint(
                    "add `[unrecorded.before]` and `[unrecorded.after]` with what each side shows",
                ),
            );
        }
        for key in ["before", "after"] {
            let Some(DeValue::Table(side)) = entry.get(key).map(|v| v.get_ref()) else {
                continue;
            };
            for fixed in ["calibration", "unrecorded"] {
                if let Some((k, _)) = side.get_key_value(fixed) {
                    diags.push(
                        Diagnostic::at(
                            src,
                            k.span().start,
                            format!("a side cannot change `{fixed}`"),
                        )
                        .with_hint(
                            "a side gives the observables that differ: `[models]`, `[denial]`, …",
                        ),
                    );
                }
            }
            let mut merged = base.clone();
            merge_spanned(&mut merged, side);
            let _ = parse_root(src, &merged, at, diags);
        }
    }
}
