//! The fixed reply a prompt's instruction asks for: "Reply with exactly the word pong."
//! asks for `pong`, `Say "hi"` for `hi`. The fakes' own heuristic (agy's model decides),
//! listed in docs/fake-agy.md: it reads the instruction's grammar, never its words, so
//! the reply is never a word of the instruction itself (`exactly`, `only`, `word`, …).
//! When the instruction is unclear (no target, a target that runs on into a sentence,
//! two instructions asking for different replies) there is no fixed reply and the
//! default turn answers `Done.`.
//!
//! The grammar: a verb (`reply`, `respond`, `say`, `answer`, `output`, `print`) that
//! starts a clause, then any of `with`, `exactly`, `only`, `just`, … and `the`/`a`/`one`
//! /`single` … `word`/`string`/`text`, then the target: a quoted text, or one word that
//! ends the clause (punctuation, the end of the prompt, or "and nothing else").

/// The verbs that ask for a reply.
const VERBS: &[&str] = &["reply", "respond", "say", "answer", "output", "print"];

/// Words between the verb and the target that only shape the instruction.
const ADVERBS: &[&str] = &[
    "with",
    "back",
    "exactly",
    "only",
    "just",
    "precisely",
    "simply",
    "solely",
    "literally",
    "verbatim",
    "strictly",
];

/// Words that announce a noun (`the word`, `a single word`, `one word`).
const DETERMINERS: &[&str] = &["the", "a", "an", "one", "single", "exact", "following"];

/// The nouns that name the target (`the word X`).
const NOUNS: &[&str] = &[
    "word", "string", "text", "token", "phrase", "reply", "response", "answer",
];

/// Words that may stand before the verb at the start of an instruction.
const LEADS: &[&str] = &[
    "please", "then", "and", "just", "simply", "now", "only", "also", "kindly", "must", "should",
    "always", "finally", "so",
];

/// What may follow a bare target and still end the instruction.
const TAILS: &[&[&str]] = &[
    &["and", "nothing", "else"],
    &["nothing", "else"],
    &["and", "nothing", "more"],
    &["nothing", "more"],
    &["only"],
    &["alone"],
    &["exactly"],
    &["verbatim"],
];

/// Words that never are the reply: they read as grammar, not as a target.
const STOP: &[&str] = &[
    "and", "or", "to", "if", "your", "their", "its", "my", "our", "this", "that", "these", "those",
    "it", "in", "on", "as", "for", "of", "from", "nothing", "else", "more", "alone", "no", "not",
    "all", "any", "some", "me", "you", "them", "us", "what", "which", "who", "whether", "when",
    "how", "then", "please",
];

/// Determiners that are also replies people ask for ("reply ONE", "reply A"): one of
/// these that ends the instruction is its target.
const ANSWERABLE: &[&str] = &["a", "an", "one"];

/// True when `word` (lowercase) belongs to the instruction's own vocabulary, and so is
/// never the reply.
pub fn is_instruction_word(word: &str) -> bool {
    !ANSWERABLE.contains(&word)
        && [VERBS, ADVERBS, DETERMINERS, NOUNS, LEADS, STOP]
            .iter()
            .any(|set| set.contains(&word))
}

/// One whitespace-separated token and where it starts in the prompt.
#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    start: usize,
    raw: &'a str,
}

fn tokens(prompt: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in prompt.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push(Token {
                    start: s,
                    raw: &prompt[s..i],
                });
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(Token {
            start: s,
            raw: &prompt[s..],
        });
    }
    out
}

/// Punctuation and quotes around a word that are not part of it.
fn is_wrapping(c: char) -> bool {
    matches!(
        c,
        '"' | '\''
            | '`'
            | '('
            | ')'
            | '['
            | ']'
            | '{'
            | '}'
            | '.'
            | ','
            | ';'
            | ':'
            | '!'
            | '?'
            | '*'
            | '“'
            | '”'
            | '‘'
            | '’'
            | '«'
            | '»'
    )
}

/// The token as a word: lowercase, without the punctuation around it.
fn norm(raw: &str) -> String {
    raw.trim_matches(is_wrapping).to_lowercase()
}

/// True when the token ends a clause (`ok.`, `"ok",`, `done!`).
fn ends_clause(raw: &str) -> bool {
    let closed = raw.trim_end_matches(|c: char| {
        matches!(c, '"' | '\'' | '`' | ')' | ']' | '*' | '”' | '’' | '»')
    });
    closed.ends_with(['.', ',', ';', '!', '?', ':'])
}

/// The fixed reply the prompt's instruction asks for, or `None` when no instruction
/// asks for one clearly (docs/fake-agy.md, "Answer").
pub fn asked_reply(prompt: &str) -> Option<String> {
    let toks = tokens(prompt);
    let mut found: Option<String> = None;
    for i in 0..toks.len() {
        if !VERBS.contains(&norm(toks[i].raw).as_str()) || !starts_instruction(prompt, &toks, i) {
            continue;
        }
        if let Some(target) = target_after(prompt, &toks, i) {
            match &found {
                Some(f) if *f != target => return None,
                _ => found = Some(target),
            }
        }
    }
    found
}

/// True when the verb at `i` starts an instruction: the prompt's first word, after a
/// clause's end or a line break, or after a lead word (`please`, `then`, …).
fn starts_instruction(prompt: &str, toks: &[Token<'_>], i: usize) -> bool {
    let Some(prev) = i.checked_sub(1).map(|p| toks[p]) else {
        return true;
    };
    let gap = &prompt[prev.start + prev.raw.len()..toks[i].start];
    gap.contains('\n') || ends_clause(prev.raw) || LEADS.contains(&norm(prev.raw).as_str())
}

/// The target of the verb at `i`, when the words after it name one clearly.
fn target_after(prompt: &str, toks: &[Token<'_>], i: usize) -> Option<String> {
    let mut needs_noun = false;
    let mut j = i + 1;
    if ends_clause(toks[i].raw) && !toks[i].raw.ends_with(':') {
        return None;
    }
    while let Some(t) = toks.get(j) {
        let w = norm(t.raw);
        let shaping = ADVERBS.contains(&w.as_str()) || w.is_empty();
        let determiner = DETERMINERS.contains(&w.as_str());
        let noun = NOUNS.contains(&w.as_str());
        if opens_quote(t.raw) || !(shaping || determiner || noun) {
            break;
        }
        if ANSWERABLE.contains(&w.as_str()) && bare(toks, j).is_some() {
            // "reply ONE": a determiner that ends the instruction is its target.
            break;
        }
        if ends_clause(t.raw) && !t.raw.ends_with(':') {
            return None;
        }
        needs_noun = (needs_noun || determiner) && !noun;
        j += 1;
    }
    if needs_noun {
        return None;
    }
    let t = toks.get(j)?;
    let target = match opens_quote(t.raw) {
        true => quoted(prompt, t.start)?,
        false => bare(toks, j)?,
    };
    let grammar_only = target
        .split_whitespace()
        .all(|w| is_instruction_word(&norm(w)));
    (!grammar_only).then_some(target)
}

/// The closing quote of an opening one.
fn closing(open: char) -> Option<&'static [char]> {
    match open {
        '"' => Some(&['"', '”']),
        '\'' => Some(&['\'', '’']),
        '`' => Some(&['`']),
        '“' => Some(&['”', '"']),
        '‘' => Some(&['’', '\'']),
        '«' => Some(&['»']),
        _ => None,
    }
}

fn opens_quote(raw: &str) -> bool {
    raw.chars().next().and_then(closing).is_some()
}

/// The text between the quote opening at `start` and its closing quote, on one line.
fn quoted(prompt: &str, start: usize) -> Option<String> {
    let rest = &prompt[start..];
    let open = rest.chars().next()?;
    let inner = &rest[open.len_utf8()..];
    let end = inner.find(closing(open)?)?;
    let text = inner[..end].trim();
    let readable = text.chars().any(char::is_alphanumeric) && !text.contains('\n');
    readable.then(|| text.to_string())
}

/// A bare target: one word that ends the instruction.
fn bare(toks: &[Token<'_>], j: usize) -> Option<String> {
    let raw = toks[j].raw;
    let word = raw.trim_matches(is_wrapping);
    if !word.chars().any(char::is_alphanumeric) {
        return None;
    }
    let rest: Vec<String> = toks[j + 1..].iter().map(|t| norm(t.raw)).collect();
    let tail_follows = TAILS
        .iter()
        .any(|tail| rest.len() >= tail.len() && rest.iter().zip(tail.iter()).all(|(a, b)| a == b));
    (ends_clause(raw) || rest.is_empty() || tail_follows).then(|| word.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn published_smoke_prompts_get_their_word() {
        for (prompt, want) in [
            // The most common smoke check in published clients.
            ("Reply with exactly the word pong.", "pong"),
            ("reply PONG", "PONG"),
            ("reply PONG, no tools", "PONG"),
            ("reply with the single word ok", "ok"),
            ("Reply with exactly: PONG", "PONG"),
            ("Reply with exactly one word: PONG", "PONG"),
            ("Reply with exactly the word: OK", "OK"),
            ("Reply exactly: AGY_STDOUT_TEST", "AGY_STDOUT_TEST"),
            ("Reply with exactly the word OK and nothing else.", "OK"),
            (
                "Reply with the single word PONG. Do not use any tool.",
                "PONG",
            ),
            (
                "STEP 2: reply with exactly: TWO_STEPS_DONE",
                "TWO_STEPS_DONE",
            ),
            ("Run `pwd`, then reply with exactly: PWD_OK", "PWD_OK"),
            ("Respond with just the word hello", "hello"),
            ("Say \"hi there\"", "hi there"),
            ("Please answer with 'yes'.", "yes"),
            ("Output only: READY", "READY"),
            ("print the word done!", "done"),
            ("reply ONE", "ONE"),
            ("Reply with the word a and nothing else", "a"),
        ] {
            assert_eq!(asked_reply(prompt).as_deref(), Some(want), "{prompt}");
        }
    }

    #[test]
    fn unclear_instructions_ask_for_no_fixed_reply() {
        for prompt in [
            "What was the secret word? Reply with the word only.",
            "Read notes.txt and reply with the secret word only.",
            "Read one.txt and two.txt and reply with their line counts as A,B.",
            "Reply with exactly two lines: CODE=x and CMD=y",
            "Then reply WRITE=ok or WRITE=failed with the reason.",
            "Answer with yes or no.",
            "Reply with the answer.",
            "What did I say earlier?",
            "Say hello, then reply with exactly: DONE",
            "draw a red circle",
            "Reply with exactly",
        ] {
            assert_eq!(asked_reply(prompt), None, "{prompt}");
        }
    }

    /// Instruction templates: `{v}` the verb, `{t}` the target as written (quoted or
    /// bare), `{p}` the punctuation that ends the instruction.
    const TEMPLATES: &[&str] = &[
        "{v} {t}{p}",
        "{v} with {t}{p}",
        "{v} with exactly {t}{p}",
        "{v} with exactly the word {t}{p}",
        "{v} with only the word {t}{p}",
        "{v} with just the word {t}{p}",
        "{v} with exactly: {t}{p}",
        "{v} with exactly one word: {t}{p}",
        "{v} exactly: {t}{p}",
        "{v} with the single word {t}{p}",
        "{v} with a single word: {t}{p}",
        "{v} with exactly the word {t} and nothing else{p}",
        "{v} just {t}, nothing else{p}",
        "{v} only {t}{p}",
        "Please {v} with {t}{p}",
        "Look at the notes first. Then {v} with exactly {t}{p}",
        "{v} with exactly the word {t}. Do not use any tool.",
    ];

    /// Random capitals, as people type instructions.
    fn recase(text: &str, mask: u64) -> String {
        text.chars()
            .enumerate()
            .map(|(i, c)| match (mask >> (i % 64)) & 1 {
                1 => c.to_ascii_uppercase(),
                _ => c,
            })
            .collect()
    }

    fn arb_target() -> impl Strategy<Value = String> {
        "[A-Za-z][A-Za-z0-9_]{0,11}".prop_filter("a target, not grammar", |t| {
            !is_instruction_word(&t.to_lowercase())
        })
    }

    proptest! {
        #[test]
        fn the_reply_is_the_instructions_target(
            template in proptest::sample::select(TEMPLATES),
            verb in proptest::sample::select(VERBS),
            target in arb_target(),
            quote in proptest::sample::select(&["", "\"", "'", "`"][..]),
            punct in proptest::sample::select(&["", ".", "!", ";", ","][..]),
            mask in any::<u64>(),
        ) {
            // Placeholders that `recase` leaves alone.
            let shaped = template
                .replace("{v}", verb)
                .replace("{t}", "\u{1}")
                .replace("{p}", "\u{2}");
            let prompt = recase(&shaped, mask)
                .replace('\u{1}', &format!("{quote}{target}{quote}"))
                .replace('\u{2}', punct);
            prop_assert_eq!(asked_reply(&prompt), Some(target), "{}", prompt);
        }

        #[test]
        fn the_reply_is_never_a_word_of_the_instruction(
            words in proptest::collection::vec(
                proptest::sample::select(
                    [VERBS, ADVERBS, DETERMINERS, NOUNS, LEADS, STOP].concat()
                ),
                0..12,
            ),
            seps in proptest::collection::vec(
                proptest::sample::select(&[" ", ": ", ". ", ", ", "\n", " \"", "\" "][..]),
                12,
            ),
            mask in any::<u64>(),
        ) {
            let prompt: String = words
                .iter()
                .zip(seps.iter())
                .map(|(w, s)| format!("{w}{s}"))
                .collect();
            let prompt = recase(&prompt, mask);
            if let Some(reply) = asked_reply(&prompt) {
                prop_assert!(
                    !reply.split_whitespace().all(|w| is_instruction_word(&norm(w))),
                    "{:?} answered {:?}", prompt, reply
                );
            }
        }

        #[test]
        fn arbitrary_text_never_panics(prompt in "\\PC{0,80}") {
            let _ = asked_reply(&prompt);
        }
    }
}
