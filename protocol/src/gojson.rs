//! JSON rendering that matches Go's `encoding/json`, byte for byte.
//!
//! agy is a Go program: its envelopes escape `<`, `>` and `&` as `\u003c` and friends,
//! print floats in shortest round-trip form, and print integer-valued floats without a
//! decimal point (docs/agy-reference.md §2.1, "Go encoder details"). A fake that claims to be agy
//! must render the same bytes, so every line fake-agy writes goes through [`to_go_json`].

use serde::Serialize;
use serde_json::ser::{CharEscape, Formatter, Serializer};
use std::io::{self, Write};

/// A `serde_json` formatter that writes what Go's `json.Marshal` writes.
#[derive(Debug, Default, Clone, Copy)]
pub struct GoFormatter;

impl Formatter for GoFormatter {
    fn write_f64<W: ?Sized + Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        writer.write_all(format_go_float(value).as_bytes())
    }

    fn write_f32<W: ?Sized + Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        self.write_f64(writer, f64::from(value))
    }

    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // serde_json escapes quotes, backslashes and control characters itself; Go also
        // escapes the HTML-sensitive characters and the two JavaScript line separators.
        let mut start = 0;
        for (i, ch) in fragment.char_indices() {
            let escaped = match ch {
                '<' => "\\u003c",
                '>' => "\\u003e",
                '&' => "\\u0026",
                '\u{2028}' => "\\u2028",
                '\u{2029}' => "\\u2029",
                _ => continue,
            };
            writer.write_all(&fragment.as_bytes()[start..i])?;
            writer.write_all(escaped.as_bytes())?;
            start = i + ch.len_utf8();
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }

    fn write_char_escape<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        char_escape: CharEscape,
    ) -> io::Result<()> {
        let s: &[u8] = match char_escape {
            CharEscape::Quote => b"\\\"",
            CharEscape::ReverseSolidus => b"\\\\",
            CharEscape::Solidus => b"/",
            CharEscape::Backspace => b"\\b",
            CharEscape::FormFeed => b"\\f",
            CharEscape::LineFeed => b"\\n",
            CharEscape::CarriageReturn => b"\\r",
            CharEscape::Tab => b"\\t",
            CharEscape::AsciiControl(byte) => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let buf = [
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[(byte >> 4) as usize],
                    HEX[(byte & 0xF) as usize],
                ];
                return writer.write_all(&buf);
            }
        };
        writer.write_all(s)
    }
}

/// Formats a float the way Go's `encoding/json` does: shortest round-trip digits,
/// plain decimal between 1e-6 and 1e21, exponent form (`1e-7`, `1e+21`) outside.
pub fn format_go_float(value: f64) -> String {
    if !value.is_finite() {
        // Go refuses to encode these; agy never emits them. Render as null so the
        // output stays valid JSON instead of failing the whole line.
        return "null".to_string();
    }
    let abs = value.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let s = format!("{value:e}");
        return match s.split_once('e') {
            Some((mantissa, exp)) if !exp.starts_with('-') => format!("{mantissa}e+{exp}"),
            _ => s,
        };
    }
    // `Display` prints the shortest round-trip form and no `.0` for whole numbers,
    // which is exactly Go's 'f' format with precision -1. Negative zero prints as "-0"
    // in both.
    format!("{value}")
}

/// Serializes `value` as compact JSON with Go's encoding rules (no trailing newline).
pub fn to_go_json<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::with_capacity(256);
    let mut ser = Serializer::with_formatter(&mut out, GoFormatter);
    // Serializing our own plain data types into a Vec cannot fail: they hold no maps
    // with non-string keys and no fallible custom serializers.
    if value.serialize(&mut ser).is_err() {
        return "null".to_string();
    }
    String::from_utf8(out).unwrap_or_default()
}

/// [`to_go_json`] followed by `\n`, the way agy terminates every stdout line.
pub fn to_go_json_line<T: Serialize + ?Sized>(value: &T) -> String {
    let mut s = to_go_json(value);
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn html_characters_are_escaped_like_go() {
        // From the denied-command trace: "pwd \u0026\u0026 ls -la /mnt".
        assert_eq!(
            to_go_json(&json!({"c": "pwd && ls <a>"})),
            r#"{"c":"pwd \u0026\u0026 ls \u003ca\u003e"}"#
        );
    }

    #[test]
    fn floats_use_shortest_round_trip_and_no_trailing_zero() {
        assert_eq!(format_go_float(0.0), "0");
        assert_eq!(format_go_float(1.0), "1");
        assert_eq!(format_go_float(2.6566104900000003), "2.6566104900000003");
        assert_eq!(format_go_float(305.595893508), "305.595893508");
        assert_eq!(format_go_float(1e-7), "1e-7");
        assert_eq!(format_go_float(1.5e21), "1.5e+21");
        assert_eq!(format_go_float(0.000001), "0.000001");
    }

    #[test]
    fn control_characters_use_short_escapes() {
        assert_eq!(
            to_go_json(&json!("a\nb\tc\u{1}\u{8}")),
            r#""a\nb\tc\u0001\b""#
        );
    }

    #[test]
    fn next_line_character_is_written_raw() {
        // docs/agy-reference.md §2.1: U+0085 is written raw inside strings.
        assert_eq!(to_go_json(&json!("\u{85}")), "\"\u{85}\"");
    }
}
