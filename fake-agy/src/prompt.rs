//! What the default behaviour reads from a prompt: does it ask for an image, at which
//! ratio, for a permission-gated tool, for a fixed reply. These are the fake's own
//! heuristics (agy's model decides); docs/fake-agy.md lists them.

use regex::Regex;
use std::sync::OnceLock;

/// A tool the prompt asks for that headless mode gates (PROTOCOL.md §2.5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GatedTool {
    /// A terminal command (`run_command`, action `command`).
    Command,
    /// An MCP tool (`call_mcp_tool`, action `mcp`).
    Mcp,
}

/// What the prompt asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptReading {
    /// An image is asked for.
    pub wants_image: bool,
    /// Image size from the prompt's ratio words (SPIKES.md S3).
    pub image_size: (u32, u32),
    /// The tool's `ImageName`, from the prompt's first words.
    pub image_name: String,
    /// A gated tool is asked for.
    pub gated: Option<GatedTool>,
    /// A fixed reply word ("reply PONG" → `PONG`).
    pub reply_word: Option<String>,
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| {
        Regex::new(pattern).unwrap_or_else(|_| Regex::new("$^").expect("empty regex"))
    })
}

/// Reads a prompt.
pub fn read_prompt(prompt: &str) -> PromptReading {
    static IMAGE: OnceLock<Regex> = OnceLock::new();
    static WIDE: OnceLock<Regex> = OnceLock::new();
    static COMMAND: OnceLock<Regex> = OnceLock::new();
    static MCP: OnceLock<Regex> = OnceLock::new();
    static REPLY: OnceLock<Regex> = OnceLock::new();
    let wants_image = re(
        &IMAGE,
        r"(?i)\b(images?|pictures?|photos?|drawings?|draw|illustrations?|thumbnails?|posters?|logos?|icons?|generate_image)\b",
    )
    .is_match(prompt);
    // S3: "16:9 widescreen" → 1376×768 in 5 of 5 runs; no ratio → 1024×1024 (also
    // 1264×848 seen; the fake picks the first).
    let image_size = if re(&WIDE, r"(?i)16\s*:\s*9|widescreen").is_match(prompt) {
        (1376, 768)
    } else {
        (1024, 1024)
    };
    let gated = if re(&MCP, r"(?i)\bmcp\b").is_match(prompt) {
        Some(GatedTool::Mcp)
    } else if re(
        &COMMAND,
        r"(?i)\b(run|execute)\b.{0,40}\b(command|shell|script)\b|\b(create|write|delete|edit|modify)\b.{0,30}\bfiles?\b",
    )
    .is_match(prompt)
    {
        Some(GatedTool::Command)
    } else {
        None
    };
    let reply_word = re(
        &REPLY,
        r#"(?i)\breply(?:\s+with)?(?:\s+the)?(?:\s+single)?(?:\s+word)?\s+["'`]?([A-Za-z0-9_-]+)"#,
    )
    .captures(prompt)
    .and_then(|c| c.get(1))
    .map(|m| m.as_str().to_string());
    PromptReading {
        wants_image,
        image_size,
        image_name: image_name(prompt),
        gated,
        reply_word,
    }
}

/// An `ImageName` like agy's (`red_circle`): the prompt's first content words.
fn image_name(prompt: &str) -> String {
    const SKIP: &[&str] = &[
        "a",
        "an",
        "the",
        "of",
        "please",
        "generate",
        "create",
        "make",
        "draw",
        "image",
        "picture",
        "photo",
        "with",
        "in",
        "and",
        "for",
        "me",
        "an",
        "one",
        "single",
        "16",
        "9",
        "widescreen",
    ];
    let words: Vec<String> = prompt
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .filter(|w| !SKIP.contains(&w.as_str()))
        .take(3)
        .collect();
    if words.is_empty() {
        "generated_image".to_string()
    } else {
        words.join("_")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widescreen_prompt_asks_for_a_1376_by_768_image() {
        let r = read_prompt("a purple hexagon, 16:9 widescreen");
        assert!(!r.wants_image, "no image word");
        let r = read_prompt("Generate an image of a purple hexagon, 16:9 widescreen");
        assert!(r.wants_image);
        assert_eq!(r.image_size, (1376, 768));
        assert_eq!(r.image_name, "purple_hexagon");
        assert_eq!(read_prompt("draw a red circle").image_size, (1024, 1024));
    }

    #[test]
    fn reply_word_and_gated_tools_are_read() {
        assert_eq!(
            read_prompt("reply PONG, no tools").reply_word.as_deref(),
            Some("PONG")
        );
        assert_eq!(
            read_prompt("reply with the single word ok")
                .reply_word
                .as_deref(),
            Some("ok")
        );
        assert_eq!(
            read_prompt("create a file named x.txt").gated,
            Some(GatedTool::Command)
        );
        assert_eq!(read_prompt("call the mcp tool").gated, Some(GatedTool::Mcp));
        assert_eq!(read_prompt("say hi").gated, None);
    }
}
