//! One problem in an input file, and the list a parser collects.

use super::source::SourceFile;
use std::fmt;

/// A problem at a place in a file, with a hint on what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Display path of the file.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong, as a lowercase fragment.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
    /// The offending source line, for display.
    pub snippet: Option<String>,
}

impl Diagnostic {
    /// A problem at byte `offset` of `src`.
    pub fn at(src: &SourceFile, offset: usize, message: impl Into<String>) -> Diagnostic {
        let (line, column) = src.location(offset);
        Diagnostic {
            path: src.path().to_string(),
            line,
            column,
            message: message.into(),
            hint: None,
            snippet: Some(src.line_text(line).to_string()),
        }
    }

    /// A problem at a known line and column (formats without spans count lines).
    pub fn at_line(
        path: impl Into<String>,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            path: path.into(),
            line,
            column,
            message: message.into(),
            hint: None,
            snippet: None,
        }
    }

    /// Adds a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    /// Adds a hint when there is one.
    pub fn with_hint_opt(mut self, hint: Option<String>) -> Diagnostic {
        if hint.is_some() {
            self.hint = hint;
        }
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "error: {}", self.message)?;
        write!(f, "  --> {}:{}:{}", self.path, self.line, self.column)?;
        if let Some(snippet) = &self.snippet {
            let gutter = self.line.to_string();
            let pad = " ".repeat(gutter.len());
            write!(f, "\n {pad} |\n {gutter} | {snippet}\n {pad} | ")?;
            write!(f, "{}^", " ".repeat(self.column.saturating_sub(1)))?;
        }
        if let Some(hint) = &self.hint {
            write!(f, "\nhelp: {hint}")?;
        }
        Ok(())
    }
}

/// All problems found in one or more files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// No problems yet.
    pub fn new() -> Diagnostics {
        Diagnostics(Vec::new())
    }

    /// Records a problem.
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of problems.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The problems, in file order.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }

    /// Appends another list.
    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }

    /// Sorts by file, line, column, keeping the first of exact duplicates.
    pub fn sort(&mut self) {
        self.0
            .sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
        self.0.dedup();
    }

    /// `Ok(value)` when nothing was recorded, otherwise the sorted problems.
    pub fn into_result<T>(mut self, value: T) -> Result<T, Diagnostics> {
        if self.is_empty() {
            Ok(value)
        } else {
            self.sort();
            Err(self)
        }
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            writeln!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_shows_location_snippet_caret_and_hint() {
        let src = SourceFile::new("s.toml", "a = 1\nexti = 3\n");
        let d = Diagnostic::at(&src, 6, "unknown key `exti`").with_hint("did you mean `exit`?");
        assert_eq!(
            d.to_string(),
            "error: unknown key `exti`\n  --> s.toml:2:1\n   |\n 2 | exti = 3\n   | ^\nhelp: did you mean `exit`?"
        );
    }
}
