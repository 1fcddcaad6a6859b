//! A scenario's timeline as an HTML table, with delivered images as thumbnails.

use super::escape::escape;
use crate::report::timeline::{DeliveredImage, TimelineEntry};

/// The timeline section (nothing when there is no timeline).
pub(super) fn timeline_html(timeline: &[TimelineEntry]) -> String {
    if timeline.is_empty() {
        return String::new();
    }
    let rows: String = timeline.iter().map(row_html).collect();
    format!(
        "<section class=\"timeline\"><h3>Timeline</h3><table><tr><th>at</th><th>who</th>\
         <th>what</th><th>detail</th></tr>{rows}</table></section>\n"
    )
}

fn row_html(e: &TimelineEntry) -> String {
    format!(
        "<tr class=\"event-{}\"><td>{:.1} ms</td><td>{}</td><td>{}</td><td><div class=\"detail\">{}</div>{}</td></tr>",
        e.event.word().replace(' ', "-"),
        e.at_us as f64 / 1000.0,
        escape(&e.actor),
        escape(e.event.word()),
        escape(&e.detail),
        e.image.as_ref().map(image_html).unwrap_or_default()
    )
}

/// A thumbnail, or why there is none.
fn image_html(i: &DeliveredImage) -> String {
    let size = i.bytes.map(|b| format!(", {b} B")).unwrap_or_default();
    match (&i.data_uri, &i.not_inlined) {
        // Only a `data:` URI built by the report is ever put in `src`.
        (Some(uri), _) if uri.starts_with("data:image/") => format!(
            "<img class=\"thumb\" src=\"{}\" alt=\"{}\" title=\"{}{size}\">",
            escape(uri),
            escape(&i.path),
            escape(&i.path)
        ),
        (_, why) => format!(
            "<p class=\"muted\">image <code>{}</code>{size}: not shown ({})</p>",
            escape(&i.path),
            escape(why.as_deref().unwrap_or("not inlined"))
        ),
    }
}
