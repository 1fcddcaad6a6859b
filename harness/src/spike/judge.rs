//! Judging facts: each fact's recorded expectation against the runs of its probe.

use super::measure::MeasureValue;
use super::model::{Comparator, Expectation, Fact, Spike};
use super::observation::Observation;
use agy_protocol::AgyVersion;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// A fact's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Enough runs showed what was recorded.
    Holds,
    /// The runs showed something else.
    Drifted,
    /// Could not be checked; never counted as holds.
    Unverified,
}

/// The judgement of one fact, with its evidence.
#[derive(Debug, Clone, Serialize)]
pub struct FactReport {
    /// Spike id.
    pub spike: String,
    /// Fact id.
    pub fact: String,
    /// The claim in words.
    pub claim: String,
    /// The probe measured.
    pub probe: String,
    /// The measure.
    pub measure: String,
    /// Verdict.
    pub verdict: Verdict,
    /// Why it is unverified, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What was expected (`equals "SUCCESS" in at least 4 of 5 runs`).
    pub expected: String,
    /// The record judged against: version, date, source.
    pub recorded: Option<RecordRef>,
    /// What each judged run showed.
    pub observed: Vec<RunValue>,
    /// Runs that passed / runs judged / runs needed.
    pub passed: u32,
    /// Runs judged.
    pub judged: u32,
    /// Runs needed to hold.
    pub needed: u32,
    /// Set when the fact is a quirk: its name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quirk: Option<String>,
    /// Set when a quirk drifted: what can be retired.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quirk_gone: Option<String>,
}

/// Which record a fact was judged against.
#[derive(Debug, Clone, Serialize)]
pub struct RecordRef {
    /// agy version.
    pub agy: String,
    /// Date.
    pub date: String,
    /// Source.
    pub source: String,
}

/// One run's value.
#[derive(Debug, Clone, Serialize)]
pub struct RunValue {
    /// Run number.
    pub run: u32,
    /// The value.
    pub value: MeasureValue,
    /// Whether it passed.
    pub pass: bool,
    /// The value as a drift report shows it (`super::excerpt`).
    #[serde(skip)]
    pub shown: String,
}

/// Judges every fact of `spike` against the observed runs of its probes.
pub fn judge_spike(
    spike: &Spike,
    runs: &BTreeMap<String, Vec<Observation>>,
    baseline: AgyVersion,
) -> Vec<FactReport> {
    spike
        .facts
        .iter()
        .map(|f| {
            judge_fact(
                &spike.id,
                f,
                runs.get(&f.probe).map(Vec::as_slice).unwrap_or(&[]),
                baseline,
            )
        })
        .collect()
}

/// Judges one fact.
pub fn judge_fact(
    spike: &str,
    fact: &Fact,
    runs: &[Observation],
    baseline: AgyVersion,
) -> FactReport {
    let record = fact.recorded_for(baseline);
    let mut report = FactReport {
        spike: spike.to_string(),
        fact: fact.id.clone(),
        claim: fact.claim.clone(),
        probe: fact.probe.clone(),
        measure: fact.measure.to_string(),
        verdict: Verdict::Unverified,
        reason: None,
        expected: record
            .map(|r| describe(&r.expect.comparator))
            .unwrap_or_default(),
        recorded: record.map(|r| RecordRef {
            agy: r.agy.to_string(),
            date: r.date.clone(),
            source: r.source.clone(),
        }),
        observed: Vec::new(),
        passed: 0,
        judged: 0,
        needed: 0,
        quirk: fact.quirk.as_ref().map(|q| q.name.clone()),
        quirk_gone: None,
    };
    let Some(record) = record else {
        report.reason = Some("no recorded expectation".into());
        return report;
    };
    if let Some(why) = &fact.manual {
        report.reason = Some(format!("checked by hand: {why}"));
        return report;
    }
    let ran: Vec<&Observation> = runs.iter().filter(|o| o.was_run()).collect();
    if ran.is_empty() {
        report.reason = Some(
            runs.iter()
                .find_map(|o| o.not_run.clone())
                .unwrap_or_else(|| "the probe did not run".into()),
        );
        return report;
    }
    let judged: Vec<&Observation> = match &fact.only_when {
        Some((m, c)) => ran
            .iter()
            .copied()
            .filter(|o| compare(c, &m.value(o, runs)))
            .collect(),
        None => ran.clone(),
    };
    if judged.is_empty() {
        let (m, c) = fact
            .only_when
            .as_ref()
            .map(|(m, c)| (m.to_string(), describe(c)))
            .unwrap_or_default();
        report.reason = Some(format!("no run met the condition: {m} {c}"));
        return report;
    }
    judge_runs(&mut report, fact, &record.expect, &judged, runs);
    report
}

/// Judges the runs that meet the fact's condition against the record's expectation:
/// the values seen, how many passed, how many had to, and the verdict.
fn judge_runs(
    report: &mut FactReport,
    fact: &Fact,
    expect: &Expectation,
    judged: &[&Observation],
    runs: &[Observation],
) {
    for o in judged {
        let value = fact.measure.value(o, runs);
        let pass = compare(&expect.comparator, &value);
        report.passed += u32::from(pass);
        let shown = super::excerpt::excerpt(&expect.comparator, &value);
        report.observed.push(RunValue {
            run: o.run,
            value,
            pass,
            shown,
        });
    }
    report.judged = judged.len() as u32;
    report.needed = expect.at_least.unwrap_or(report.judged).min(report.judged);
    report.expected = match expect.at_least {
        Some(n) => format!(
            "{} in at least {n} of {} runs",
            describe(&expect.comparator),
            report.judged
        ),
        None if report.judged > 1 => format!("{} in every run", describe(&expect.comparator)),
        None => describe(&expect.comparator),
    };
    if report.passed >= report.needed {
        report.verdict = Verdict::Holds;
    } else {
        report.verdict = Verdict::Drifted;
        // A quirk is gone only when completed agy turns show it: a run that crashed or
        // printed no envelope says nothing about agy's behaviour.
        if judged.iter().all(|o| o.completed_turn()) {
            report.quirk_gone = fact.quirk.as_ref().map(|q| q.gone.clone());
        }
    }
}

/// Applies a comparator to one value.
pub fn compare(c: &Comparator, v: &Value) -> bool {
    match c {
        Comparator::Equals(want) => values_equal(want, v),
        Comparator::OneOf(options) => options.iter().any(|o| values_equal(o, v)),
        Comparator::Contains(want) => contains(v, want),
        Comparator::Lacks(want) => !v.is_null() && lacks(v, want),
        Comparator::SetEquals(want) => match v.as_array() {
            Some(items) => {
                let mut a: Vec<String> = items.iter().map(Value::to_string).collect();
                let mut b: Vec<String> = want.iter().map(Value::to_string).collect();
                a.sort();
                b.sort();
                a == b
            }
            None => false,
        },
        Comparator::StartsWith(prefix) => {
            v.as_str().is_some_and(|s| s.starts_with(prefix.as_str()))
        }
        Comparator::Matches(re) => match regex::Regex::new(re) {
            Ok(re) => match v {
                Value::String(s) => re.is_match(s),
                Value::Array(items) => {
                    !items.is_empty()
                        && items
                            .iter()
                            .all(|i| i.as_str().is_some_and(|s| re.is_match(s)))
                }
                _ => false,
            },
            Err(_) => false,
        },
        Comparator::Min(n) => v.as_f64().is_some_and(|x| x >= *n),
        Comparator::Max(n) => v.as_f64().is_some_and(|x| x <= *n),
        Comparator::Between([lo, hi]) => v.as_f64().is_some_and(|x| x >= *lo && x <= *hi),
    }
}

fn values_equal(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

fn contains(v: &Value, want: &Value) -> bool {
    match (v, want) {
        (Value::String(s), Value::String(w)) => s.contains(w.as_str()),
        (Value::Array(items), Value::Array(ws)) => {
            ws.iter().all(|w| items.iter().any(|i| values_equal(i, w)))
        }
        (Value::Array(items), w) => items.iter().any(|i| values_equal(i, w)),
        _ => false,
    }
}

fn lacks(v: &Value, want: &Value) -> bool {
    match (v, want) {
        (Value::String(s), Value::String(w)) => !s.contains(w.as_str()),
        (Value::Array(items), Value::Array(ws)) => {
            ws.iter().all(|w| !items.iter().any(|i| values_equal(i, w)))
        }
        (Value::Array(items), w) => !items.iter().any(|i| values_equal(i, w)),
        _ => false,
    }
}

/// The comparator in words, for reports.
pub fn describe(c: &Comparator) -> String {
    let j = |v: &Value| v.to_string();
    let js = |vs: &[Value]| {
        vs.iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    match c {
        Comparator::Equals(v) => format!("equals {}", j(v)),
        Comparator::OneOf(vs) => format!("one of [{}]", js(vs)),
        Comparator::Contains(v) => format!("contains {}", j(v)),
        Comparator::Lacks(v) => format!("lacks {}", j(v)),
        Comparator::SetEquals(vs) => format!("has exactly [{}] in any order", js(vs)),
        Comparator::StartsWith(s) => format!("starts with {:?}", s),
        Comparator::Matches(re) => format!("matches {}", super::excerpt::shown_regex(re)),
        Comparator::Min(n) => format!("≥ {n}"),
        Comparator::Max(n) => format!("≤ {n}"),
        Comparator::Between([a, b]) => format!("between {a} and {b}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spike::model::{Expectation, Quirk, Recorded};
    use crate::spike::Measure;
    use serde_json::json;

    fn fact(comparator: Comparator, at_least: Option<u32>) -> Fact {
        Fact {
            id: "S3.size".into(),
            claim: "c".into(),
            probe: "p".into(),
            measure: Measure::Field("status".into()),
            only_when: None,
            quirk: Some(Quirk {
                name: "q".into(),
                gone: "retire the workaround".into(),
            }),
            manual: None,
            recorded: vec![Recorded {
                agy: AgyVersion::new(1, 2, 6),
                date: "d".into(),
                source: "s".into(),
                expect: Expectation {
                    comparator,
                    at_least,
                },
            }],
        }
    }

    fn run(n: u32, status: &str) -> Observation {
        Observation {
            run: n,
            envelope: Some(json!({ "status": status })),
            ..Default::default()
        }
    }

    #[test]
    fn tolerance_lets_one_noisy_run_pass() {
        let f = fact(Comparator::Equals(json!("SUCCESS")), Some(4));
        let runs: Vec<_> = (1..=5)
            .map(|i| run(i, if i == 3 { "ERROR" } else { "SUCCESS" }))
            .collect();
        let r = judge_fact("S3", &f, &runs, AgyVersion::DEFAULT);
        assert_eq!(r.verdict, Verdict::Holds);
        assert_eq!((r.passed, r.judged, r.needed), (4, 5, 4));
    }

    #[test]
    fn a_drifted_quirk_says_what_can_be_retired() {
        let f = fact(Comparator::Equals(json!("SUCCESS")), None);
        let r = judge_fact("S6", &f, &[run(1, "ERROR")], AgyVersion::DEFAULT);
        assert_eq!(r.verdict, Verdict::Drifted);
        assert_eq!(r.quirk_gone.as_deref(), Some("retire the workaround"));
        assert_eq!(r.observed[0].value, json!("ERROR"));
    }

    #[test]
    fn a_quirk_is_never_called_gone_from_runs_that_were_no_agy_turn() {
        let f = fact(Comparator::Equals(json!("SUCCESS")), None);
        let crashed = Observation {
            run: 1,
            exit_code: Some(1),
            ..Default::default()
        };
        let r = judge_fact("S6", &f, &[crashed], AgyVersion::DEFAULT);
        assert_eq!(r.verdict, Verdict::Drifted);
        assert_eq!(r.quirk_gone, None);
    }

    #[test]
    fn runs_that_never_happened_are_unverified_not_holds() {
        let f = fact(Comparator::Equals(json!("SUCCESS")), None);
        let skipped = Observation {
            run: 1,
            not_run: Some("skipped for budget".into()),
            ..Default::default()
        };
        let r = judge_fact("S1", &f, &[skipped], AgyVersion::DEFAULT);
        assert_eq!(r.verdict, Verdict::Unverified);
        assert_eq!(r.reason.as_deref(), Some("skipped for budget"));
    }

    #[test]
    fn the_record_for_the_baseline_is_the_newest_not_after_it() {
        let mut f = fact(Comparator::Equals(json!(57)), None);
        f.recorded.push(Recorded {
            agy: AgyVersion::new(1, 2, 17),
            date: "d".into(),
            source: "s".into(),
            expect: Expectation {
                comparator: Comparator::Equals(json!(60)),
                at_least: None,
            },
        });
        let pick = |v| f.recorded_for(v).map(|r| r.agy.to_string());
        assert_eq!(pick(AgyVersion::new(1, 2, 6)).as_deref(), Some("1.2.6"));
        assert_eq!(pick(AgyVersion::new(1, 2, 10)).as_deref(), Some("1.2.6"));
        assert_eq!(pick(AgyVersion::new(1, 3, 1)).as_deref(), Some("1.2.17"));
        assert_eq!(pick(AgyVersion::new(1, 0, 0)).as_deref(), Some("1.2.6"));
    }

    #[test]
    fn comparators_behave_on_lists_and_strings() {
        assert!(compare(
            &Comparator::Contains(json!(["a", "b"])),
            &json!(["b", "c", "a"])
        ));
        assert!(!compare(&Comparator::Contains(json!("z")), &json!(["a"])));
        assert!(compare(&Comparator::Lacks(json!("price")), &json!(["a"])));
        assert!(!compare(&Comparator::Lacks(json!("x")), &Value::Null));
        assert!(compare(
            &Comparator::SetEquals(vec![json!("b"), json!("a")]),
            &json!(["a", "b"])
        ));
        assert!(compare(&Comparator::Equals(json!(0)), &json!(0.0)));
        assert!(compare(
            &Comparator::Matches("^x_\\d+\\.jpg$".into()),
            &json!(["x_1.jpg"])
        ));
        assert!(!compare(&Comparator::Matches("^x$".into()), &json!([])));
        assert!(compare(&Comparator::Between([1.0, 2.0]), &json!(1.5)));
    }
}
