//! The HTML report: one self-contained page (inline CSS and script, images as `data:`
//! URIs, no network) for a run, and the page shell and escaping other tables use.

mod escape;
mod page;
mod run;
mod scenario;
mod timeline;

pub use escape::escape;
pub(crate) use page::page;
pub use run::render_html;
