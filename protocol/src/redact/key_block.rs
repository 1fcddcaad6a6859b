//! Private keys written over several lines (PEM). The rules match within a line, so
//! the lines between a `-----BEGIN … PRIVATE KEY-----` line and its `-----END` line are
//! replaced here, each keeping its own line end: a recorded trace still has the lines
//! agy wrote, only their content is gone.

/// The most lines one key block may span (a 4096-bit RSA key has about 50); after that
/// the block is taken to have ended, so a lone BEGIN line does not hide all that
/// follows.
const MAX_KEY_LINES: usize = 200;

/// Where a stream is: outside a key, or inside one after `lines` of it.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyBlock {
    inside: Option<usize>,
}

impl KeyBlock {
    /// `text` (whole lines; the last may lack its end) with the lines of a private key
    /// replaced by `[TOKEN]`.
    pub(crate) fn redact(&mut self, text: &[u8]) -> Vec<u8> {
        if self.inside.is_none() && !contains(text, b"PRIVATE KEY") {
            return text.to_vec();
        }
        let mut out = Vec::with_capacity(text.len());
        for line in text.split_inclusive(|&b| b == b'\n') {
            match self.inside {
                Some(n) if n < MAX_KEY_LINES && !contains(line, b"-----END") => {
                    self.inside = Some(n + 1);
                    out.extend_from_slice(b"[TOKEN]");
                    out.extend_from_slice(line_end(line));
                }
                Some(_) => {
                    self.inside = None;
                    out.extend_from_slice(line);
                }
                None => {
                    out.extend_from_slice(line);
                    let opens = contains(line, b"-----BEGIN")
                        && contains(line, b"PRIVATE KEY")
                        && !contains(line, b"-----END")
                        && line.ends_with(b"\n");
                    if opens {
                        self.inside = Some(0);
                    }
                }
            }
        }
        out
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The `\n` or `\r\n` a line ends with (nothing for a last line without one).
fn line_end(line: &[u8]) -> &[u8] {
    if line.ends_with(b"\r\n") {
        b"\r\n"
    } else if line.ends_with(b"\n") {
        b"\n"
    } else {
        b""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_inside_a_key_are_replaced_and_keep_their_ends() {
        let text = b"a\n-----BEGIN EC PRIVATE KEY-----\r\nMHcCAQEE\r\nIDAwMDAw\r\n-----END EC PRIVATE KEY-----\r\nb\n";
        let out = KeyBlock::default().redact(text);
        assert_eq!(
            String::from_utf8_lossy(&out),
            "a\n-----BEGIN EC PRIVATE KEY-----\r\n[TOKEN]\r\n[TOKEN]\r\n-----END EC PRIVATE KEY-----\r\nb\n"
        );
    }

    #[test]
    fn a_block_without_an_end_stops_after_the_cap() {
        let mut block = KeyBlock::default();
        let mut text = b"-----BEGIN PRIVATE KEY-----\n".to_vec();
        text.extend(b"x\n".repeat(MAX_KEY_LINES + 5));
        let out = String::from_utf8_lossy(&block.redact(&text)).into_owned();
        assert_eq!(out.matches("[TOKEN]").count(), MAX_KEY_LINES, "{out}");
        assert!(out.ends_with("x\nx\n"), "{out}");
    }
}
