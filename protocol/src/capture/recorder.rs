//! Undoing what a publisher's recorder did to agy's lines, for the corpus transforms
//! `drop-json-key`, `drop-lines-prefixed` and `keep-lines-prefixed`: each works line by
//! line and leaves every byte it does not remove as stored.

/// The file's lines, each with its terminator (the last may have none).
fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes.split_inclusive(|b| *b == b'\n')
}

/// Drops every line that starts with `prefix`.
pub fn drop_lines_prefixed(bytes: &[u8], prefix: &[u8]) -> Vec<u8> {
    lines(bytes)
        .filter(|l| !l.starts_with(prefix))
        .flatten()
        .copied()
        .collect()
}

/// Keeps the lines that start with `prefix`, without the prefix and one space after it.
pub fn keep_lines_prefixed(bytes: &[u8], prefix: &[u8]) -> Vec<u8> {
    lines(bytes)
        .filter_map(|l| l.strip_prefix(prefix))
        .flat_map(|rest| rest.strip_prefix(b" ").unwrap_or(rest))
        .copied()
        .collect()
}

/// Removes the top-level member `key` from every line that is a JSON object; a line
/// that is not one, or has no such member, stays as it is.
pub fn drop_json_key(bytes: &[u8], key: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for line in lines(bytes) {
        match member_span(line, key) {
            Some((start, end)) => {
                out.extend_from_slice(&line[..start]);
                out.extend_from_slice(&line[end..]);
            }
            None => out.extend_from_slice(line),
        }
    }
    out
}

/// The byte range to cut to remove member `key` of the object `line` holds: the member
/// with the comma after it, or, for the last member, with the comma before it.
fn member_span(line: &[u8], key: &str) -> Option<(usize, usize)> {
    let text = std::str::from_utf8(line).ok()?;
    let value: serde_json::Value = serde_json::from_str(text.trim_end()).ok()?;
    value.as_object()?.get(key)?;
    let open = line.iter().position(|b| *b == b'{')?;
    let mut at = open + 1;
    let mut prev_comma: Option<usize> = None;
    loop {
        let k_start = skip_ws(line, at);
        if line.get(k_start) != Some(&b'"') {
            return None;
        }
        let k_end = string_end(line, k_start)?;
        let colon = skip_ws(line, k_end);
        let v_end = value_end(line, skip_ws(line, colon + 1))?;
        let after = skip_ws(line, v_end);
        let name: String = serde_json::from_slice(&line[k_start..k_end]).ok()?;
        let last = line.get(after) != Some(&b',');
        if name == key {
            return match (last, prev_comma) {
                (false, _) => Some((k_start, skip_ws(line, after + 1))),
                (true, Some(c)) => Some((c, v_end)),
                (true, None) => Some((k_start, v_end)),
            };
        }
        if last {
            return None;
        }
        prev_comma = Some(after);
        at = after + 1;
    }
}

fn skip_ws(line: &[u8], mut at: usize) -> usize {
    while line.get(at).is_some_and(|b| b" \t\r\n".contains(b)) {
        at += 1;
    }
    at
}

/// The index just past the JSON string opening at `start`.
fn string_end(line: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    loop {
        match line.get(at)? {
            b'\\' => at += 2,
            b'"' => return Some(at + 1),
            _ => at += 1,
        }
    }
}

/// The index just past the JSON value starting at `start` (the line parsed as JSON, so
/// only nesting and strings need following).
fn value_end(line: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut at = start;
    loop {
        match line.get(at) {
            Some(b'"') => at = string_end(line, at)?,
            Some(b'{' | b'[') => {
                depth += 1;
                at += 1;
            }
            Some(b'}' | b']') if depth == 0 => return Some(at),
            Some(b'}' | b']') => {
                depth -= 1;
                at += 1;
            }
            Some(b',') if depth == 0 => return Some(at),
            Some(b' ' | b'\t' | b'\r' | b'\n') if depth == 0 => return Some(at),
            Some(_) => at += 1,
            None => return Some(at),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_recorder_key_is_removed_wherever_it_stands_and_nothing_else_moves() {
        let file = b"{\"offsetMs\":0,\"event\":\"init\",\"init\":{\"offsetMs\":1}}\n\
{\"event\":\"result\",\"offsetMs\":220}\r\n{\"offsetMs\":{\"a\":[1,\"}\"]}, \"b\":2}\nnot json\n";
        let want = b"{\"event\":\"init\",\"init\":{\"offsetMs\":1}}\n\
{\"event\":\"result\"}\r\n{\"b\":2}\nnot json\n";
        assert_eq!(drop_json_key(file, "offsetMs"), want);
        assert_eq!(drop_json_key(b"{\"offsetMs\":3}", "offsetMs"), b"{}");
        assert_eq!(drop_json_key(b"{\"a\":1}\n", "offsetMs"), b"{\"a\":1}\n");
    }

    #[test]
    fn one_recorded_stream_is_kept_or_dropped_by_its_prefix() {
        let file = b"# note\n>> {\"in\":1}\n{\"out\":1}\n!! Error: x\n!!bare\n# exit=1\n";
        assert_eq!(keep_lines_prefixed(file, b"!!"), b"Error: x\nbare\n");
        let out = drop_lines_prefixed(file, b"#");
        let out = drop_lines_prefixed(&out, b">>");
        assert_eq!(drop_lines_prefixed(&out, b"!!"), b"{\"out\":1}\n");
    }

    proptest! {
        #[test]
        fn the_recorder_transforms_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300), key in "[a-zA-Z\"\\\\]{0,6}") {
            let _ = drop_json_key(&bytes, &key);
            let _ = drop_lines_prefixed(&bytes, key.as_bytes());
            let _ = keep_lines_prefixed(&bytes, key.as_bytes());
        }

        #[test]
        fn dropping_a_key_leaves_a_json_object_without_it(obj in proptest::collection::btree_map("[a-z\"\\\\]{1,4}", any::<i32>(), 0..5), key in "[a-z]{1,4}") {
            let line = serde_json::to_string(&obj).expect("serialises");
            let out = drop_json_key(line.as_bytes(), &key);
            let mut want = obj.clone();
            want.remove(&key);
            let got: std::collections::BTreeMap<String, i32> = serde_json::from_slice(&out).expect("still JSON");
            prop_assert_eq!(got, want);
        }
    }
}
