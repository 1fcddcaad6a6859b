//! The prompt wrapper (ADR 0013 decision 1): one `generate_image` call, the aspect ratio
//! in words, the reference paths, no shell commands, and no output path (the tool has no
//! path parameter, docs/spike-records.md S2/S3, so asking for one only makes the agent apologise).

use std::path::PathBuf;

/// The aspect ratio in words; "16:9 widescreen" is the only measured lever on size (S3).
pub fn aspect_words(aspect: &str) -> String {
    match aspect.trim() {
        "16:9" => "16:9 widescreen".to_string(),
        "9:16" => "9:16 tall portrait".to_string(),
        "1:1" => "1:1 square".to_string(),
        "4:3" => "4:3 landscape".to_string(),
        "3:4" => "3:4 portrait".to_string(),
        "21:9" => "21:9 ultra-widescreen".to_string(),
        other => format!("{other} aspect ratio"),
    }
}

/// The text passed to `agy -p`.
pub fn wrap_prompt(prompt: &str, aspect: Option<&str>, references: &[PathBuf]) -> String {
    let mut out = String::new();
    out.push_str("Create exactly one image by calling the generate_image tool exactly once.\n\n");
    out.push_str("Image description:\n");
    out.push_str(prompt.trim());
    out.push_str("\n\n");
    if let Some(aspect) = aspect.filter(|a| !a.trim().is_empty()) {
        out.push_str(&format!(
            "Aspect ratio: {}. State this aspect ratio in the generate_image prompt.\n\n",
            aspect_words(aspect)
        ));
    }
    if !references.is_empty() {
        out.push_str(
            "Reference images (open each with view_file and describe what matters in the generate_image prompt):\n",
        );
        for r in references {
            out.push_str(&format!("- {}\n", r.display()));
        }
        out.push('\n');
    }
    // Worded as a prohibition that cannot be read as a request for a command.
    out.push_str("Shell commands are not allowed. No tool other than generate_image may be used");
    if references.is_empty() {
        out.push_str(".\n");
    } else {
        out.push_str(", apart from view_file on the reference images above.\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widescreen_is_stated_in_words() {
        let text = wrap_prompt("a purple hexagon", Some("16:9"), &[]);
        assert!(text.contains("16:9 widescreen"), "{text}");
        assert!(text.contains("a purple hexagon"));
    }

    #[test]
    fn generate_image_is_asked_for_exactly_once_and_shell_is_forbidden() {
        let text = wrap_prompt("x", None, &[]);
        assert!(text.contains("calling the generate_image tool exactly once"));
        assert!(text.contains("Shell commands are not allowed"));
        assert!(text.contains("No tool other than generate_image"));
        assert!(!text.contains("Aspect ratio"));
    }

    #[test]
    fn references_are_listed_by_absolute_path_and_no_output_path_is_named() {
        let text = wrap_prompt("x", Some("1:1"), &[PathBuf::from("/refs/a.png")]);
        assert!(text.contains("- /refs/a.png"), "{text}");
        assert!(text.contains("view_file"));
        assert!(text.contains("1:1 square"));
        assert!(!text.to_lowercase().contains("save"), "{text}");
    }

    #[test]
    fn unknown_ratios_are_passed_through() {
        assert_eq!(aspect_words("5:4"), "5:4 aspect ratio");
    }
}
