//! A file's text with a byte-offset → line:column map.

use std::sync::Arc;

/// The text of one input file and where its lines start.
#[derive(Debug, Clone)]
pub struct SourceFile {
    path: String,
    text: Arc<str>,
    line_starts: Arc<[usize]>,
}

impl SourceFile {
    /// Wraps `text`, read from `path` (used only for display).
    pub fn new(path: impl Into<String>, text: impl Into<Arc<str>>) -> SourceFile {
        let text: Arc<str> = text.into();
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            path: path.into(),
            text,
            line_starts: starts.into(),
        }
    }

    /// The display path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The whole text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// 1-based line and column (in characters) of a byte offset; offsets past the end
    /// map to the end of the file.
    pub fn location(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line_idx = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.line_starts[line_idx];
        let mut end = offset;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let col = self.text[start..end].chars().count() + 1;
        (line_idx + 1, col)
    }

    /// The text of a 1-based line, without its newline.
    pub fn line_text(&self, line: usize) -> &str {
        let Some(&start) = self.line_starts.get(line.saturating_sub(1)) else {
            return "";
        };
        let end = self
            .line_starts
            .get(line)
            .map(|e| e.saturating_sub(1))
            .unwrap_or(self.text.len());
        self.text[start..end.max(start)].trim_end_matches('\r')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_to_one_based_lines_and_character_columns() {
        let src = SourceFile::new("f", "ab\nçd\n");
        assert_eq!(src.location(0), (1, 1));
        assert_eq!(src.location(3), (2, 1));
        assert_eq!(src.location(5), (2, 2)); // after the two-byte ç
        assert_eq!(src.location(99), (3, 1));
        assert_eq!(src.line_text(2), "çd");
    }
}
