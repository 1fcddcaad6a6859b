//! The page around a report: one self-contained HTML document with its CSS and script
//! inline. A Content-Security-Policy forbids every load that is not inline or a
//! `data:` image, so the page reaches no network even when opened in a browser.

use super::escape::escape;

const STYLE: &str = r#"
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em; color: #1b1b1b; }
h1 { font-size: 1.4em; margin: 0 0 .3em; }
h3 { font-size: 1.05em; margin: 1em 0 .3em; }
code, pre, .detail { font-family: ui-monospace, monospace; font-size: 12.5px; }
pre, .detail { white-space: pre-wrap; word-break: break-word; margin: 0; }
.summary { margin: .2em 0 1em; }
.counts span { margin-right: 1em; }
details.scenario { border: 1px solid #ccc; border-radius: 4px; margin: .4em 0; }
details.scenario > summary { cursor: pointer; padding: .4em .6em; }
details.scenario[open] > summary { border-bottom: 1px solid #ccc; }
details.fails > summary { background: #fde8e8; }
details.aside > summary { background: #fff6db; }
.explanation { padding: .3em 1em 1em; }
.verdict { font-weight: 600; display: inline-block; min-width: 8em; }
.headline { color: #7a1d1d; margin-left: 1em; }
.failure { border-left: 3px solid #c0392b; padding-left: .8em; margin: .6em 0; }
.advice .failure, .unverified .failure { border-left-color: #d4a017; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .15em 1em; margin: .3em 0; }
dt { font-weight: 600; }
dd { margin: 0; }
table { border-collapse: collapse; width: 100%; }
td, th { border-bottom: 1px solid #eee; padding: .2em .5em; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
img.thumb { max-width: 240px; max-height: 240px; border: 1px solid #ccc; display: block; margin-top: .3em; }
.muted { color: #666; }
.pass { background: #e6f4ea; } .fail { background: #fde8e8; } .xfail { background: #fff6db; }
"#;

const SCRIPT: &str = r#"
(function () {
  var box = document.getElementById('only-failing');
  if (!box) { return; }
  box.addEventListener('change', function () {
    var rows = document.querySelectorAll('details.scenario:not(.fails)');
    for (var i = 0; i < rows.length; i++) { rows[i].hidden = box.checked; }
  });
})();
"#;

/// A whole page titled `title` around `body` (already HTML).
pub(crate) fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\n\
         <script>{SCRIPT}</script>\n</body>\n</html>\n",
        escape(title)
    )
}
