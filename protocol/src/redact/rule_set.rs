//! Every rule, run only where it can match: one Aho-Corasick pass finds which rule
//! keywords a text holds (any case), and only the rules with one of them (or with none
//! at all) run their regex. Hundreds of regexes over every line would otherwise cost
//! hundreds of passes.

use super::gitleaks::gitleaks_rules;
use super::rules::{builtin_rules, Label, Rule};
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use std::sync::OnceLock;

/// A secret found: bytes `start..end` of the text scanned, and what they become.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found {
    pub start: usize,
    pub end: usize,
    pub label: Label,
}

/// The rules and their keyword index.
#[derive(Debug)]
pub(crate) struct RuleSet {
    rules: Vec<&'static Rule>,
    /// For each keyword of `prefilter`, the rules that name it.
    by_keyword: Vec<Vec<usize>>,
    /// Rules without keywords: they always run.
    always: Vec<usize>,
    prefilter: Option<AhoCorasick>,
}

impl RuleSet {
    /// The set of `rules`.
    pub fn new(rules: Vec<&'static Rule>) -> RuleSet {
        let mut keywords: Vec<String> = Vec::new();
        let mut by_keyword: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        for (i, r) in rules.iter().enumerate() {
            if r.keywords.is_empty() {
                always.push(i);
            }
            for k in &r.keywords {
                let k = k.to_ascii_lowercase();
                match keywords.iter().position(|x| *x == k) {
                    Some(at) => by_keyword[at].push(i),
                    None => {
                        keywords.push(k);
                        by_keyword.push(vec![i]);
                    }
                }
            }
        }
        let prefilter = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&keywords)
            .ok();
        RuleSet {
            rules,
            by_keyword,
            always,
            prefilter,
        }
    }

    /// Every rule the redactor applies: the kit's, then the maintained list's.
    pub fn builtin() -> &'static RuleSet {
        static SET: OnceLock<RuleSet> = OnceLock::new();
        SET.get_or_init(|| RuleSet::new(builtin_rules().iter().chain(gitleaks_rules()).collect()))
    }

    /// The rules that may match `text`, in declaration order.
    fn candidates(&self, text: &[u8]) -> Vec<usize> {
        let mut wanted = vec![false; self.rules.len()];
        self.always.iter().for_each(|&i| wanted[i] = true);
        match &self.prefilter {
            Some(ac) => {
                let mut seen = vec![false; self.by_keyword.len()];
                for m in ac.find_overlapping_iter(text) {
                    let k = m.pattern().as_usize();
                    if !std::mem::replace(&mut seen[k], true) {
                        self.by_keyword[k].iter().for_each(|&i| wanted[i] = true);
                    }
                }
            }
            // No prefilter: every rule runs.
            None => wanted.iter_mut().for_each(|w| *w = true),
        }
        (0..self.rules.len()).filter(|&i| wanted[i]).collect()
    }

    /// Appends every secret the rules find in `text`.
    pub fn find(&self, text: &[u8], out: &mut Vec<Found>) {
        for i in self.candidates(text) {
            find_rule(self.rules[i], text, out);
        }
    }
}

/// Appends the secrets `rule` finds in `text`. A match whose name is no secret name
/// (`a=(TOKEN=…`) is searched again from the end of that name, so it does not hide a
/// secret assignment inside its value.
fn find_rule(rule: &Rule, text: &[u8], out: &mut Vec<Found>) {
    let mut at = 0;
    // Most runs find nothing: a search without captures says so without allocating.
    while at <= text.len() && rule.regex.find_at(text, at).is_some() {
        let Some(caps) = rule.regex.captures_at(text, at) else {
            break;
        };
        let Some(whole) = caps.get(0) else {
            break;
        };
        let next = match (rule.secret_of(&caps), caps.name("name")) {
            (Some(m), _) => {
                out.push(Found {
                    start: m.start(),
                    end: m.end(),
                    label: rule.label,
                });
                whole.end()
            }
            (None, Some(name)) => name.end(),
            (None, None) => whole.end(),
        };
        at = next.max(whole.start() + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_runs_only_when_its_keyword_is_there_in_any_case() {
        let set = RuleSet::builtin();
        let glpat = set
            .rules
            .iter()
            .position(|r| r.id == "gitleaks:gitlab-pat")
            .expect("rule");
        assert!(set.candidates(b"x GLPAT-abc").contains(&glpat));
        assert!(!set.candidates(b"nothing here").contains(&glpat));
    }

    #[test]
    fn a_maintained_rule_finds_its_secret_group() {
        let mut found = Vec::new();
        let text = b"token hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh end";
        RuleSet::builtin().find(text, &mut found);
        let start = 6;
        assert!(
            found
                .iter()
                .any(|f| f.start == start && f.end == start + 37),
            "{found:?}"
        );
    }
}
