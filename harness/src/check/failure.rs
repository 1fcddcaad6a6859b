//! A broken expectation: what was expected, what was observed, and the closest miss.

use serde::Serialize;
use std::fmt;

/// One expectation that did not hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// Where: `op 2 turn`, `journal`, `invocation 1`, `history`, `driver`.
    pub place: String,
    /// Which expectation (`outcome`, `argv_has`, …).
    pub expectation: String,
    /// What the scenario asked for.
    pub expected: String,
    /// What happened.
    pub observed: String,
    /// The nearest thing to what was expected, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closest: Option<String>,
    /// Supporting facts (agy argv, the reply's error, stderr).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<String>,
    /// The seed decision the expectation encodes, when it is an implementation choice
    /// rather than the profile contract (`strict = "…"` in the scenario): advice unless
    /// the adapter config asks for strict mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed_choice: Option<String>,
}

impl Failure {
    /// A failure at `place` of `expectation`.
    pub fn new(
        place: impl Into<String>,
        expectation: impl Into<String>,
        expected: impl Into<String>,
        observed: impl Into<String>,
    ) -> Failure {
        Failure {
            place: place.into(),
            expectation: expectation.into(),
            expected: expected.into(),
            observed: observed.into(),
            closest: None,
            evidence: Vec::new(),
            seed_choice: None,
        }
    }

    /// Adds the closest miss.
    pub fn closest(mut self, c: impl Into<String>) -> Failure {
        self.closest = Some(c.into());
        self
    }

    /// Adds evidence lines.
    pub fn evidence(mut self, lines: impl IntoIterator<Item = String>) -> Failure {
        self.evidence.extend(lines);
        self
    }

    /// Marks the failure as a miss of a seed's implementation choice (`None`: contract).
    pub fn seed_choice(mut self, choice: Option<&String>) -> Failure {
        self.seed_choice = choice.cloned();
        self
    }

    /// `op 1 generate: outcome` — the headline naming the broken expectation.
    pub fn headline(&self) -> String {
        format!("{}: {}", self.place, self.expectation)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.headline())?;
        writeln!(f, "  expected: {}", self.expected)?;
        write!(f, "  observed: {}", self.observed)?;
        if let Some(c) = &self.closest {
            write!(f, "\n  closest:  {c}")?;
        }
        for (i, e) in self.evidence.iter().enumerate() {
            let label = if i == 0 { "evidence:" } else { "         " };
            write!(f, "\n  {label} {e}")?;
        }
        if let Some(s) = &self.seed_choice {
            write!(f, "\n  advice, not contract: {s}")?;
        }
        Ok(())
    }
}
