//! What the default behaviour reads from a prompt: does it ask for an image, at which
//! ratio, for a permission-gated tool, for a fixed reply. These are the fakes' own
//! heuristics (agy's model decides); docs/fake-agy.md lists them. fake-agy and
//! fake-agy-acp both read prompts here, so the two fakes answer a prompt alike.

/// A tool the prompt asks for that headless mode gates (docs/agy-reference.md §2.5).
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
    /// Image size from the prompt's ratio words (docs/spike-records.md S3).
    pub image_size: (u32, u32),
    /// The tool's `ImageName`, from the prompt's first words.
    pub image_name: String,
    /// A gated tool is asked for.
    pub gated: Option<GatedTool>,
    /// The fixed reply the prompt's instruction asks for ("Reply with exactly the word
    /// pong." → `pong`; [`crate::reply`]).
    pub reply_word: Option<String>,
    /// Absolute paths of image files the prompt names (reference images, docs/spike-records.md S4).
    pub references: Vec<String>,
}

/// The prompt's words, split at anything but letters, digits, `_` and `-`.
fn words(prompt: &str) -> Vec<&str> {
    prompt
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// True when a word of `first` is followed within `window` words by a word of `then`.
fn followed_by(lower: &[String], first: &[&str], then: &[&str], window: usize) -> bool {
    lower.iter().enumerate().any(|(i, w)| {
        first.contains(&w.as_str())
            && lower
                .iter()
                .skip(i + 1)
                .take(window)
                .any(|n| then.contains(&n.as_str()))
    })
}

/// Words that make the request after them a prohibition: "Do not invoke MCP servers",
/// "don't run any command" (`don't` splits into `don` and `t`).
const NEGATIONS: &[&str] = &[
    "not", "no", "never", "without", "avoid", "nor", "don", "dont", "cannot", "t",
];

/// Words after which a clause asks again: "Don't edit files, but use the MCP tool".
const TURNS: &[&str] = &["but", "instead", "then", "rather"];

/// The prompt's clauses (split at `.`, `;`, `:`, `!`, `?` and line ends), each as its
/// lower-case words: a negation reaches to the end of its clause ("Do not edit files,
/// execute commands, invoke MCP servers"), unless a word of [`TURNS`] comes first.
fn clauses(prompt: &str) -> Vec<Vec<String>> {
    prompt
        .split(['.', ';', ':', '!', '?', '\n'])
        .map(|c| words(c).iter().map(|w| w.to_lowercase()).collect())
        .collect()
}

/// Whether the word at `i` of a clause is under a negation before it.
fn negated(clause: &[String], i: usize) -> bool {
    let before = &clause[..i];
    let last_negation = before.iter().rposition(|w| NEGATIONS.contains(&w.as_str()));
    let last_turn = before.iter().rposition(|w| TURNS.contains(&w.as_str()));
    match (last_negation, last_turn) {
        (Some(n), Some(t)) => n > t,
        (Some(_), None) => true,
        (None, _) => false,
    }
}

/// [`followed_by`] for a request, clause by clause: a word of `verbs` followed within
/// `window` words by a word of `objects`, the verb not [`negated`].
fn asks_for(clauses: &[Vec<String>], verbs: &[&str], objects: &[&str], window: usize) -> bool {
    clauses.iter().any(|lower| {
        lower.iter().enumerate().any(|(i, w)| {
            verbs.contains(&w.as_str())
                && !negated(lower, i)
                && followed_by(&lower[i..], &[w.as_str()], objects, window)
        })
    })
}

/// Reads a prompt. Plain word matching, no regexes: this runs on every default turn
/// and a regex compile would dominate fake-agy's start-up.
pub fn read_prompt(prompt: &str) -> PromptReading {
    const IMAGE_WORDS: &[&str] = &[
        "image",
        "images",
        "picture",
        "pictures",
        "photo",
        "photos",
        "drawing",
        "drawings",
        "draw",
        "illustration",
        "illustrations",
        "thumbnail",
        "thumbnails",
        "poster",
        "posters",
        "logo",
        "logos",
        "icon",
        "icons",
        "generate_image",
    ];
    let lower: Vec<String> = words(prompt).iter().map(|w| w.to_lowercase()).collect();
    let has = |set: &[&str]| lower.iter().any(|w| set.contains(&w.as_str()));
    let wants_image = has(IMAGE_WORDS);
    // S3: "16:9 widescreen" → 1376×768 in 5 of 5 runs; no ratio → 1024×1024 (also
    // 1264×848 seen; the fake picks the first).
    let compact: String = prompt.chars().filter(|c| !c.is_whitespace()).collect();
    let image_size = if compact.contains("16:9") || has(&["widescreen"]) {
        (1376, 768)
    } else {
        (1024, 1024)
    };
    let clauses = clauses(prompt);
    let gated = if asks_for(&clauses, &["use", "call", "invoke", "query"], &["mcp"], 4) {
        Some(GatedTool::Mcp)
    } else if asks_for(
        &clauses,
        &["run", "execute"],
        &["command", "shell", "script"],
        6,
    ) || asks_for(
        &clauses,
        &["create", "write", "delete", "edit", "modify"],
        &["file", "files"],
        5,
    ) {
        Some(GatedTool::Command)
    } else {
        None
    };
    let reply_word = crate::reply::asked_reply(prompt);
    PromptReading {
        wants_image,
        image_size,
        image_name: image_name(prompt),
        gated,
        reply_word,
        references: references(prompt),
    }
}

/// Absolute paths in the prompt that name an existing image file. S4: the agent opens a
/// reference named by absolute path with `view_file` before calling `generate_image`.
fn references(prompt: &str) -> Vec<String> {
    const IMAGE_EXTENSIONS: &[&str] = &[".png", ".jpg", ".jpeg", ".webp", ".gif"];
    prompt
        .split_whitespace()
        .map(|t| {
            t.trim_matches(|c: char| {
                matches!(
                    c,
                    '"' | '\'' | '`' | ',' | ';' | ':' | '(' | ')' | '[' | ']'
                )
            })
        })
        .map(|t| t.trim_end_matches('.'))
        .filter(|t| t.starts_with('/'))
        .filter(|t| {
            let lower = t.to_ascii_lowercase();
            IMAGE_EXTENSIONS.iter().any(|e| lower.ends_with(e))
        })
        .filter(|t| std::path::Path::new(t).is_file())
        .map(str::to_string)
        .collect()
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

    // Regression: orchestrator-mcp-server's preamble ("Do not … invoke MCP servers")
    // read as a request for an MCP tool, so every unscripted turn was denied.
    #[test]
    fn a_prohibition_is_not_a_request_for_a_gated_tool() {
        for prompt in [
            "Do not invoke MCP servers; review the diff.",
            "Do not edit files, execute commands, invoke MCP servers, or browse.",
            "Answer only. Don't run any shell command.",
            "Never create files, just explain.",
            "Which MCP servers are configured?",
        ] {
            assert_eq!(read_prompt(prompt).gated, None, "{prompt}");
        }
        assert_eq!(
            read_prompt("Do not guess: use the MCP tool to look it up").gated,
            Some(GatedTool::Mcp)
        );
        assert_eq!(
            read_prompt("Please run the shell command ls").gated,
            Some(GatedTool::Command)
        );
        assert_eq!(
            read_prompt("Don't edit files, but use the MCP tool").gated,
            Some(GatedTool::Mcp)
        );
    }

    #[test]
    fn existing_image_paths_are_references() {
        let dir = tempfile::tempdir().expect("tempdir");
        let png = dir.path().join("ref.png");
        std::fs::write(&png, b"x").expect("write");
        let prompt = format!(
            "Look at {}, and /no/such/file.png, then draw it.",
            png.display()
        );
        assert_eq!(
            read_prompt(&prompt).references,
            vec![png.display().to_string()]
        );
    }
}
