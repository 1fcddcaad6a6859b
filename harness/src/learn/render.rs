//! The learned calibration as a file: what was learned, what was inherited and from
//! which built-in, as comments above the TOML.

use super::apply::Applied;
use super::observe::Learned;

/// The file: a comment block, then the calibration.
pub fn render_calibration(
    applied: &Applied,
    learned: &Learned,
    base: &str,
    recordings: usize,
) -> Result<String, toml::ser::Error> {
    let mut out = format!(
        "# Learned by `agy-harness learn` from {recordings} recording(s) (docs/harness.md, \"Learning a calibration\").\n"
    );
    let taught: Vec<&str> = learned.fields.keys().map(String::as_str).collect();
    out.push_str(&comment_list("learned (evidence: the recording)", &taught));
    let inherited: Vec<&str> = applied.inherited.iter().map(String::as_str).collect();
    out.push_str(&comment_list(&format!("inherited from {base}"), &inherited));
    for (field, f) in &learned.fields {
        for d in &f.disagreements {
            out.push_str(&format!(
                "# disagreement: {field} from {}; also {d}\n",
                f.evidence
            ));
        }
    }
    out.push('\n');
    out.push_str(&toml::to_string(&applied.table)?);
    Ok(out)
}

fn comment_list(title: &str, items: &[&str]) -> String {
    let mut out = format!("# {title}:");
    let mut width = out.len();
    for item in items {
        if width + item.len() + 1 > 90 {
            out.push_str("\n#  ");
            width = 3;
        }
        out.push(' ');
        out.push_str(item);
        width += item.len() + 1;
    }
    if items.is_empty() {
        out.push_str(" none");
    }
    out.push('\n');
    out
}
