//! Decoding before matching: a secret hidden under JSON escapes (`\u0067hp_…`, `\/`,
//! an object escaped twice), URL encoding (`%5F`, `%2540`) or base64 is matched in a
//! decoded view of the text, and the span it came from is redacted in the text as it
//! was: every byte of a view knows the bytes of the original it was decoded from.

use base64::Engine;
use regex::bytes::Regex;
use std::sync::OnceLock;

/// How many decoding steps are chained (an escape of an escape of base64, …).
const MAX_STEPS: usize = 6;
/// The shortest base64 run decoded: shorter ones hold no token a rule knows.
const MIN_RUN: usize = 20;
/// The longest run decoded; longer ones (images, archives) are no credential.
const MAX_RUN: usize = 16 * 1024;

/// A decoded form of a text: `bytes[i]` came from `origin[i]` of the original.
#[derive(Debug, Clone)]
pub(crate) struct View {
    pub bytes: Vec<u8>,
    origin: Vec<(u32, u32)>,
}

impl View {
    /// The original bytes `start..end` of this view came from.
    pub fn original(&self, start: usize, end: usize) -> (usize, usize) {
        let s = self.origin[start].0 as usize;
        let e = self.origin[end.max(start + 1) - 1].1 as usize;
        (s, e)
    }
}

/// A decoding step's output: each byte with the range of its input it came from.
#[derive(Default)]
struct Decoded {
    bytes: Vec<u8>,
    from: Vec<(u32, u32)>,
}

impl Decoded {
    fn push(&mut self, b: u8, start: usize, end: usize) {
        self.bytes.push(b);
        self.from.push((start as u32, end as u32));
    }
}

type Step = fn(&[u8]) -> Option<Decoded>;

/// The decoded views of `text` (not `text` itself): JSON escapes, URL encoding and
/// base64 undone, one layer after another, each view the next step's input.
pub(crate) fn views(text: &[u8]) -> Vec<View> {
    let steps: [Step; 3] = [json_unescape, percent_decode, base64_decode];
    let mut out: Vec<View> = Vec::new();
    if text.len() > u32::MAX as usize {
        return out;
    }
    let mut idle = 0;
    for step in steps.iter().cycle().take(MAX_STEPS * steps.len()) {
        let input = out.last().map_or(text, |v| v.bytes.as_slice());
        match step(input) {
            Some(d) => {
                idle = 0;
                let origin = match out.last() {
                    Some(prev) => d
                        .from
                        .iter()
                        .map(|&(s, e)| {
                            let (s, e) = prev.original(s as usize, e as usize);
                            (s as u32, e as u32)
                        })
                        .collect(),
                    None => d.from,
                };
                out.push(View {
                    bytes: d.bytes,
                    origin,
                });
                if out.len() >= MAX_STEPS {
                    break;
                }
            }
            None => {
                idle += 1;
                if idle == steps.len() {
                    break;
                }
            }
        }
    }
    out
}

/// JSON string escapes undone: `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`,
/// `\uXXXX` (with surrogate pairs); other backslashes kept.
fn json_unescape(s: &[u8]) -> Option<Decoded> {
    if !s.contains(&b'\\') {
        return None;
    }
    let mut d = Decoded::default();
    let mut changed = false;
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'\\' && i + 1 < s.len() {
            let simple = match s[i + 1] {
                b'"' => Some(b'"'),
                b'\\' => Some(b'\\'),
                b'/' => Some(b'/'),
                b'b' => Some(8),
                b'f' => Some(12),
                b'n' => Some(b'\n'),
                b'r' => Some(b'\r'),
                b't' => Some(b'\t'),
                _ => None,
            };
            if let Some(b) = simple {
                d.push(b, i, i + 2);
                (i, changed) = (i + 2, true);
                continue;
            }
            if let Some((c, len)) = unicode_escape(&s[i..]) {
                let mut buf = [0u8; 4];
                for &b in c.encode_utf8(&mut buf).as_bytes() {
                    d.push(b, i, i + len);
                }
                (i, changed) = (i + len, true);
                continue;
            }
        }
        d.push(s[i], i, i + 1);
        i += 1;
    }
    changed.then_some(d)
}

/// The character of a `\uXXXX` escape (or a surrogate pair of two) at the start of
/// `s`, and the bytes it spans.
fn unicode_escape(s: &[u8]) -> Option<(char, usize)> {
    let unit = |at: usize| -> Option<u32> {
        let hex = s.get(at..at + 6)?;
        if &hex[..2] != b"\\u" {
            return None;
        }
        u32::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    };
    let high = unit(0)?;
    if (0xD800..0xDC00).contains(&high) {
        let low = unit(6).filter(|l| (0xDC00..0xE000).contains(l))?;
        let c = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
        return char::from_u32(c).map(|c| (c, 12));
    }
    char::from_u32(high).map(|c| (c, 6))
}

/// `%XX` sequences undone.
fn percent_decode(s: &[u8]) -> Option<Decoded> {
    if !s.contains(&b'%') {
        return None;
    }
    let hex = |b: u8| (b as char).to_digit(16);
    let mut d = Decoded::default();
    let mut changed = false;
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' && i + 2 < s.len() {
            if let (Some(h), Some(l)) = (hex(s[i + 1]), hex(s[i + 2])) {
                d.push((h * 16 + l) as u8, i, i + 3);
                (i, changed) = (i + 3, true);
                continue;
            }
        }
        d.push(s[i], i, i + 1);
        i += 1;
    }
    changed.then_some(d)
}

/// Runs of base64 (standard or URL-safe) that decode to printable text replaced by
/// that text; each decoded byte comes from the whole run, so a secret found in it
/// redacts the run.
fn base64_decode(s: &[u8]) -> Option<Decoded> {
    static RUN: OnceLock<Option<Regex>> = OnceLock::new();
    let run = RUN
        .get_or_init(|| super::rules::compile(r"[A-Za-z0-9+/_\-]{20,}={0,2}").ok())
        .as_ref()?;
    let mut d = Decoded::default();
    let mut changed = false;
    let mut at = 0;
    for m in run.find_iter(s) {
        let Some(text) = printable_base64(m.as_bytes()) else {
            continue;
        };
        (at..m.start()).for_each(|i| d.push(s[i], i, i + 1));
        text.iter().for_each(|&b| d.push(b, m.start(), m.end()));
        (at, changed) = (m.end(), true);
    }
    (at..s.len()).for_each(|i| d.push(s[i], i, i + 1));
    changed.then_some(d)
}

/// What a run of base64 decodes to, when that is printable UTF-8 text.
fn printable_base64(run: &[u8]) -> Option<Vec<u8>> {
    if run.len() < MIN_RUN || run.len() > MAX_RUN {
        return None;
    }
    let trimmed: Vec<u8> = run.iter().copied().filter(|&b| b != b'=').collect();
    let engines = [
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    engines.iter().find_map(|e| {
        let bytes = e.decode(&trimmed).ok()?;
        let text = std::str::from_utf8(&bytes).ok()?;
        let printable = text
            .chars()
            .all(|c| !c.is_control() || matches!(c, '\n' | '\r' | '\t'));
        printable.then_some(bytes)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last(text: &str) -> (String, View) {
        let v = views(text.as_bytes()).pop().expect("a view");
        (String::from_utf8_lossy(&v.bytes).into_owned(), v)
    }

    #[test]
    fn an_object_escaped_twice_decodes_and_maps_back_to_its_escapes() {
        let text = r#"{\"k\":\"a\\u0062c\"}"#;
        let (decoded, view) = last(text);
        assert_eq!(decoded, r#"{"k":"abc"}"#);
        let b = decoded.find('b').expect("b");
        assert_eq!(view.original(b, b + 1), (10, 17), "`\\\\u0062`");
    }

    #[test]
    fn url_encoding_twice_and_base64_inside_it_decode() {
        let wrapped =
            base64::engine::general_purpose::STANDARD.encode("glpat-AbCdEfGhIjKlMnOpQrSt");
        let text = format!("a%2540b x={}", wrapped.replace('=', "%3D"));
        let (decoded, view) = last(&text);
        assert_eq!(decoded, "a@b x=glpat-AbCdEfGhIjKlMnOpQrSt");
        let at = decoded.find("glpat").expect("token");
        assert_eq!(view.original(at, at + 5), (10, text.len()));
    }

    #[test]
    fn plain_text_has_no_view_and_bad_escapes_are_kept() {
        assert!(views(b"nothing to decode here").is_empty());
        let (decoded, _) = last(r"\x \u12 \ud800 \n");
        assert_eq!(decoded, "\\x \\u12 \\ud800 \n");
    }
}
