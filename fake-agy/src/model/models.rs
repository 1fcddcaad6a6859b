//! The model catalogue by version and `--model`/`--effort` validation, with agy's
//! error texts (docs/agy-reference.md §1.4, docs/spike-records.md S6b).

use crate::model::help::listed_values;
#[cfg(test)]
use crate::model::version_model::Behaviour;
use agy_protocol::calibration::{Calibration, TierlessAlone};
use agy_protocol::AgyVersion;

/// One selectable model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    /// Id with its effort tier (`gemini-3.8-flash-high`).
    pub id: String,
    /// Display label (`Gemini 3.8 Flash (High)`).
    pub label: String,
}

const TIERS3: &[(&str, &str)] = &[("high", "High"), ("medium", "Medium"), ("low", "Low")];

/// The models `version` lists (docs/agy-versions.md, "Models"). 1.1.7:
/// `fp-1.1.7-models-piped` (11, Gemini 3.6/3.5 Flash); 1.1.18: the gobby
/// `models` capture (14, Gemini 3.7/3.6/3.5 Flash); 1.2.6: docs/spike-records.md S6b (14); 1.2.17 and
/// 1.3.1: the PB `error-model-rejected` traces (18 labels); 1.3.3: `ng-1.3.3-models` (the
/// Claude 5.5 ids); 1.0.16: `ua-1.0.16-models` (8 labels). `*-preview` ids are never listed: no agy
/// capture shows one (they are gemini-cli's), so the fake rejects them as unknown.
pub fn catalogue(c: &Calibration) -> Vec<Model> {
    c.models
        .model
        .iter()
        .map(|m| Model {
            id: m.id.clone(),
            label: m.label.clone(),
        })
        .collect()
}

/// The catalogue of an agy with the behaviours `has` says (the version table's).
#[cfg(test)]
pub fn catalogue_with(has: &dyn Fn(Behaviour) -> bool) -> Vec<Model> {
    let mut out = Vec::new();
    let mut push = |id: String, label: String| out.push(Model { id, label });
    let three = has(Behaviour::Gemini36Flash);
    let flash: &[&str] = if has(Behaviour::Gemini38Family) {
        &["3.8", "3.7", "3.6"]
    } else if has(Behaviour::ThreeFlashGenerations) {
        &["3.7", "3.6", "3.5"]
    } else if three {
        &["3.6", "3.5"]
    } else {
        &["3.5"]
    };
    // ua-1.0.16-models: Medium, High, Low; later High, Medium, Low.
    let tiers: &[(&str, &str)] = if three {
        TIERS3
    } else {
        &[("medium", "Medium"), ("high", "High"), ("low", "Low")]
    };
    for v in flash {
        for (t, l) in tiers {
            push(
                format!("gemini-{v}-flash-{t}"),
                format!("Gemini {v} Flash ({l})"),
            );
        }
    }
    let pro_high = || {
        (
            "gemini-3.1-pro-high".to_string(),
            "Gemini 3.1 Pro (High)".to_string(),
        )
    };
    let pro_low = || {
        (
            "gemini-3.1-pro-low".to_string(),
            "Gemini 3.1 Pro (Low)".to_string(),
        )
    };
    let pro = if three {
        [pro_high(), pro_low()]
    } else {
        [pro_low(), pro_high()]
    };
    for (id, label) in pro {
        push(id, label);
    }
    if has(Behaviour::Claude55Models) {
        for (name, slug) in [("Opus", "opus"), ("Sonnet", "sonnet")] {
            for (t, l) in [("low", "Low"), ("medium", "Medium"), ("high", "High")] {
                // Ids recorded in ng-1.3.3-models.
                push(
                    format!("claude-{slug}-5-5-{t}"),
                    format!("Claude {name} 5.5 ({l})"),
                );
            }
        }
    } else {
        // Ids recorded in gb-1.1.18-models-text and kp-1.2.3-effort-unsupported.
        push(
            "claude-sonnet-4-6".into(),
            "Claude Sonnet 4.6 (Thinking)".into(),
        );
        push(
            "claude-opus-4-6-thinking".into(),
            "Claude Opus 4.6 (Thinking)".into(),
        );
    }
    push("gpt-oss-120b-medium".into(), "GPT-OSS 120B (Medium)".into());
    out
}

/// A rejected `--model`/`--effort` pair: the text of the envelope's `error` (stderr
/// adds `error: `).
pub fn validate(
    c: &Calibration,
    version: AgyVersion,
    model: Option<&str>,
    effort: Option<&str>,
) -> Result<(), String> {
    let Some(m) = model else {
        return effort.map_or(Ok(()), |e| validate_effort_alone(version, e));
    };
    let e = effort.unwrap_or("");
    let models = catalogue(c);
    if let Some(known) = models.iter().find(|x| x.id == m || x.label == m) {
        if effort.is_none() {
            return Ok(());
        }
        let tiered = TIERS3
            .iter()
            .any(|(t, _)| known.id.ends_with(&format!("-{t}")));
        return Err(prefix(
            m,
            e,
            &if tiered {
                // PB error-model-effort-conflict.
                format!("--model {m} conflicts with --effort={e}")
            } else {
                // kp-1.2.3-effort-unsupported: a model without effort tiers.
                format!("--effort is not supported for model {m:?}")
            },
        ));
    }
    let tiers: Vec<&str> = models
        .iter()
        .filter_map(|x| x.id.strip_prefix(m).and_then(|r| r.strip_prefix('-')))
        .collect();
    if !tiers.is_empty() {
        return match effort {
            // 1.3.2 accepts a tier-less id on its own (ut-1.3.2-slash-prompt-literal).
            None if c.models.tierless_alone == TierlessAlone::Accepted => Ok(()),
            None => Err(prefix(
                m,
                e,
                &format!(
                    "--model {m} requires --effort (available: {})",
                    order_tiers(&tiers)
                ),
            )),
            Some(eff) if tiers.contains(&eff) => Ok(()),
            // fp-1.1.7-effort-unlisted (the only record of an unlisted tier).
            Some(eff) => Err(prefix(
                m,
                e,
                &format!(
                    "{m} has no {eff:?} effort (available: {})",
                    order_tiers(&tiers)
                ),
            )),
        };
    }
    let mut text = prefix(
        m,
        e,
        &format!("model {m} is not recognized as a known model or custom model in settings"),
    );
    text.push_str("\nAvailable models:");
    for x in &models {
        text.push_str("\n  ");
        text.push_str(&x.label);
    }
    Err(text)
}

/// `--effort` without `--model`: one of the levels the version's help lists (1.3.3 adds
/// `xhigh` and `max`, ng-1.3.3-help), else the three of gb-1.1.18-effort-bogus.
fn validate_effort_alone(version: AgyVersion, e: &str) -> Result<(), String> {
    let levels = listed_values(version, "--effort").unwrap_or(vec!["low", "medium", "high"]);
    if levels.contains(&e) {
        return Ok(());
    }
    // gb-1.1.18-effort-bogus.
    Err(prefix(
        "",
        e,
        &format!("invalid --effort {e:?} (valid: {})", levels.join(", ")),
    ))
}

fn order_tiers(tiers: &[&str]) -> String {
    let mut v: Vec<&str> = ["low", "medium", "high"]
        .into_iter()
        .filter(|t| tiers.contains(t))
        .collect();
    v.extend(
        tiers
            .iter()
            .filter(|t| !["low", "medium", "high"].contains(t)),
    );
    v.join(", ")
}

fn prefix(m: &str, e: &str, reason: &str) -> String {
    format!("invalid model selection (--model \"{m}\" --effort \"{e}\"): {reason}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builtin::builtin_for;

    fn calibrated(v: AgyVersion) -> Calibration {
        builtin_for(v).expect("covered")
    }

    #[test]
    fn conflict_text_matches_the_recorded_trace() {
        // joiomi__playbook-plugin__error-model-effort-conflict.stderr (1.2.17).
        let err = validate(
            &calibrated(AgyVersion::new(1, 2, 17)),
            AgyVersion::new(1, 2, 17),
            Some("gemini-3.8-flash-low"),
            Some("high"),
        )
        .expect_err("conflict");
        assert_eq!(err, "invalid model selection (--model \"gemini-3.8-flash-low\" --effort \"high\"): --model gemini-3.8-flash-low conflicts with --effort=high");
    }

    #[test]
    fn unknown_model_lists_the_versions_models() {
        let err = validate(
            &calibrated(AgyVersion::new(1, 2, 6)),
            AgyVersion::new(1, 2, 6),
            Some("does-not-exist"),
            None,
        )
        .expect_err("unknown");
        assert!(err.starts_with("invalid model selection (--model \"does-not-exist\" --effort \"\"): model does-not-exist is not recognized"));
        assert_eq!(
            err.lines().filter(|l| l.starts_with("  ")).count(),
            14,
            "S6b lists 14"
        );
        let err17 = validate(
            &calibrated(AgyVersion::new(1, 2, 17)),
            AgyVersion::new(1, 2, 17),
            Some("x"),
            None,
        )
        .expect_err("unknown");
        assert_eq!(err17.lines().filter(|l| l.starts_with("  ")).count(), 18);
    }

    #[test]
    fn the_1_1_7_catalogue_and_unlisted_effort_are_the_recorded_ones() {
        let v117 = AgyVersion::new(1, 1, 7);
        let ids: Vec<String> = catalogue(&calibrated(v117))
            .into_iter()
            .map(|m| m.id)
            .collect();
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "../traces/upstream/femoral__parley__antigravity-cli-automation__models-piped-1.1.7.stdout",
        );
        let recorded = std::fs::read_to_string(path).expect("capture");
        assert_eq!(ids, recorded.lines().collect::<Vec<_>>());
        let err = validate(
            &calibrated(v117),
            v117,
            Some("gemini-3.1-pro"),
            Some("medium"),
        )
        .expect_err("unlisted");
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "../traces/upstream/femoral__parley__antigravity-cli-automation__effort-unlisted-1.1.7.stderr",
        );
        let recorded = std::fs::read_to_string(path).expect("capture");
        assert_eq!(format!("Error: {err}\n"), recorded);
    }

    #[test]
    fn from_1_3_2_a_tierless_id_alone_is_accepted() {
        assert_eq!(
            validate(
                &calibrated(AgyVersion::new(1, 3, 2)),
                AgyVersion::new(1, 3, 2),
                Some("gemini-3.8-flash"),
                None
            ),
            Ok(())
        );
        assert!(validate(
            &calibrated(AgyVersion::new(1, 3, 1)),
            AgyVersion::new(1, 3, 1),
            Some("gemini-3.8-flash"),
            None
        )
        .is_err());
    }

    #[test]
    fn tierless_id_needs_effort_and_labels_are_accepted() {
        let v = AgyVersion::DEFAULT;
        assert!(validate(&calibrated(v), v, Some("gemini-3.8-flash"), None)
            .expect_err("needs effort")
            .ends_with(
                "--model gemini-3.8-flash requires --effort (available: low, medium, high)"
            ));
        assert_eq!(
            validate(&calibrated(v), v, Some("gemini-3.8-flash"), Some("low")),
            Ok(())
        );
        assert_eq!(
            validate(&calibrated(v), v, Some("Gemini 3.7 Flash (Low)"), None),
            Ok(())
        );
    }
}
