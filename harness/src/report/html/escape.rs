//! Escaping text for HTML. Scenario names, argv, stdin lines and replies come from
//! adapters and scripts, so every text a page shows goes through [`escape`]. It is
//! small enough to read whole, and a proptest checks that no input comes out with a
//! markup character unescaped; a crate would add a dependency for these five lines.

/// `text` with `&`, `<`, `>`, `"` and `'` as character references: safe in element
/// content and in quoted attribute values. Bidi controls, zero-width and control
/// characters other than line breaks are shown escaped (`\u{202e}`), so none reorders
/// or hides what the page shows ([`crate::data_text::escape_invisible`]).
pub fn escape(text: &str) -> String {
    let text = crate::data_text::escape_invisible(text, true);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The reverse of [`escape`], to show nothing is lost.
    fn unescape(html: &str) -> String {
        html.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&")
    }

    proptest! {
        #[test]
        fn no_input_comes_out_with_markup_unescaped(text in any::<String>()) {
            let html = escape(&text);
            prop_assert!(!html.contains(['<', '>', '"', '\'']), "{html}");
            // Every `&` starts one of the references escape writes.
            for (i, _) in html.match_indices('&') {
                let rest = &html[i..];
                prop_assert!(
                    ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"].iter().any(|r| rest.starts_with(r)),
                    "{html}"
                );
            }
            prop_assert_eq!(
                unescape(&html),
                crate::data_text::escape_invisible(&text, true).into_owned()
            );
        }

        #[test]
        fn markup_heavy_input_is_escaped(text in "[<>&\"' a-z/=]{0,64}") {
            prop_assert!(!escape(&text).contains('<'));
        }
    }

    /// HTML reports kept bidi overrides and zero-width characters raw: a file name
    /// could read backwards, a word could hide a character.
    #[test]
    fn bidi_and_zero_width_characters_are_shown_escaped() {
        assert_eq!(
            escape("photo\u{202e}gpj.exe a\u{200b}b\u{1b}[2J\nnext"),
            "photo\\u{202e}gpj.exe a\\u{200b}b\\u{001b}[2J\nnext"
        );
    }

    #[test]
    fn a_script_tag_is_shown_not_run() {
        assert_eq!(
            escape("<script>alert('x')</script>"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"
        );
    }
}
