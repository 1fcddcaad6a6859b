//! Redaction throughput (not a test; figures vary with the machine): a generated corpus
//! shaped like what a live agy run leaves (stream-json lines with escapes, prose, tool
//! output, one line in fifty carrying a secret) redacted whole, line by line and
//! streamed in 4 KiB chunks. Prints MB/s for each and the time the first redactor
//! took to build (the rules compile once per process).
//!
//! Usage: scripts/bench-redact [MB] [--per-rule]

use agy_protocol::redact::{LineRedactor, Redactor};
use std::time::Instant;

/// A small deterministic generator (the corpus is the same on every run).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() as usize) % items.len()]
    }
}

const WORDS: &[&str] = &[
    "the", "file", "reads", "config", "image", "saved", "to", "brain", "tool", "call", "result",
    "ok", "key", "value", "token", "count", "api", "auth", "session", "model", "prompt", "turn",
    "error", "path", "write", "read", "line", "output", "step", "done",
];

const SECRETS: &[&str] = &[
    "ghp_Xq7vR2mK9pL4wN8tY3zBcD5eF6gH7jK1L2Mn",
    "Authorization: Bearer ya29.a0AfB_byCxY3kT9vLmP2wR8sQ7nJ4hG6fD1",
    "GEMINI_API_KEY=AQ.Ab8RN6Kx2vQ9mT4pL7wZ3yB5cD",
    "{\"refresh_token\":\"1//0gXq7vR2mK9pL4wN8tY3zBcD5eF6gH\"}",
    "Cookie: SID=g.a000pQxVb7kR2mN9tL4wY8zC3dF6",
];

fn sentence(g: &mut Lcg, words: usize) -> String {
    (0..words)
        .map(|_| g.pick(WORDS))
        .collect::<Vec<_>>()
        .join(" ")
}

fn line(g: &mut Lcg, i: usize) -> String {
    let words = 8 + (g.next() % 24) as usize;
    let mut text = sentence(g, words);
    if i % 50 == 49 {
        text = format!("{text} {}", g.pick(SECRETS));
    }
    match g.next() % 3 {
        0 => format!(
            "{}\n",
            serde_json::json!({"type": "step_update", "step": {"type": "text", "text": format!("{text}\n\n{}", sentence(g, 6))}})
        ),
        1 => format!("{text}.\n"),
        _ => format!("$ ls -la src/{}\n{text}\n", g.pick(WORDS)),
    }
}

fn corpus(bytes: usize) -> Vec<u8> {
    let mut g = Lcg(37);
    let mut out = Vec::with_capacity(bytes + 1024);
    let mut i = 0;
    while out.len() < bytes {
        out.extend_from_slice(line(&mut g, i).as_bytes());
        i += 1;
    }
    out
}

fn rate(label: &str, bytes: usize, start: Instant) {
    let secs = start.elapsed().as_secs_f64();
    let mb = bytes as f64 / 1e6;
    println!(
        "{label:<28} {mb:>7.1} MB in {secs:>7.3} s  {:>8.1} MB/s",
        mb / secs
    );
}

/// `--per-rule`: each rule's own time over the corpus, slowest first (what a rule
/// costs when its keyword is in every line).
fn per_rule(text: &[u8]) {
    use agy_protocol::redact::gitleaks::gitleaks_rules;
    use agy_protocol::redact::rules::builtin_rules;
    let mut times: Vec<(f64, &str)> = builtin_rules()
        .iter()
        .chain(gitleaks_rules())
        .map(|r| {
            let start = Instant::now();
            let n = text
                .split_inclusive(|&b| b == b'\n')
                .map(|l| r.regex.captures_iter(l).count())
                .sum::<usize>();
            std::hint::black_box(n);
            (start.elapsed().as_secs_f64(), r.id.as_str())
        })
        .collect();
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (t, id) in times.iter().take(25) {
        println!("{t:>8.3} s  {id}");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mb: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(8);
    let text = corpus(mb << 20);
    if args.iter().any(|a| a == "--per-rule") {
        return per_rule(&text);
    }
    let start = Instant::now();
    let r = Redactor::default();
    let _ = r.redact("warm up: the rules compile on first use");
    println!(
        "first redactor built in {:.3} s",
        start.elapsed().as_secs_f64()
    );

    let start = Instant::now();
    let whole = r.redact_bytes(&text);
    rate("whole text", text.len(), start);

    let start = Instant::now();
    let mut total = 0;
    for l in text.split_inclusive(|&b| b == b'\n') {
        total += r.redact_bytes(l).len();
    }
    rate("line by line", text.len(), start);

    let start = Instant::now();
    let mut stream = LineRedactor::new(r.clone());
    let mut streamed = 0;
    for chunk in text.chunks(4096) {
        streamed += stream.push(chunk).iter().map(Vec::len).sum::<usize>();
    }
    streamed += stream.finish().map_or(0, |b| b.len());
    rate("streamed, 4 KiB chunks", text.len(), start);

    let redacted = whole.windows(7).filter(|w| w == b"[TOKEN]").count();
    println!("{redacted} placeholders in the whole text; {total} / {streamed} bytes out");
}
