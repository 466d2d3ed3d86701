//! The page of `git t3 review`: its assets, embedded in the binary (no CDN,
//! no build step, works offline), the page with its first data, the patch
//! cut into pages, and the lines `review` prints.

use std::io::{self, Write};

use serde::Serialize;

use crate::commands::review::{ReviewOutcome, Stopped};

const INDEX_HTML: &str = include_str!("web/index.html");
const APP_JS: &str = include_str!("web/app.js");
const APP_CSS: &str = include_str!("web/app.css");

/// The Content-Security-Policy of every response: the page's own script and
/// style only, requests to itself only, no frames, no forms elsewhere.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                       connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The patch text sent in one `/api/patch` answer, at most (a file is never
/// split across pages; a page holds at least one file).
pub const PAGE_BYTES: usize = 1 << 20;
/// The most of one file's patch sent; the rest is cut (and said so).
pub const FILE_BYTES: usize = 512 << 10;

/// An embedded asset's content type and text.
pub fn asset(name: &str) -> (&'static str, &'static str) {
    match name {
        "app.js" => ("text/javascript; charset=utf-8", APP_JS),
        "app.css" => ("text/css; charset=utf-8", APP_CSS),
        _ => ("text/plain; charset=utf-8", ""),
    }
}

/// The page, with `threads` (the JSON of `git t3 --json list`) in it so
/// that it shows them at once, the thread to open first, and the CSRF token
/// of the revert form when reverting is allowed.
pub fn page(threads: &[u8], thread: Option<&str>, csrf: Option<&str>) -> String {
    let threads: serde_json::Value = serde_json::from_slice(threads).unwrap_or(serde_json::Value::Null);
    let initial = serde_json::json!({
        "threads": threads,
        "thread": thread,
        "revert": csrf.is_some(),
    });
    fill(
        INDEX_HTML,
        &[
            ("{{CSRF}}", html_escape(csrf.unwrap_or_default())),
            ("{{INITIAL}}", script_safe(&initial.to_string())),
            ("{{THREADS}}", thread_items(&threads)),
        ],
    )
}

/// `template` with each placeholder replaced, in one pass over the
/// template: what one value holds (a thread named `{{THREADS}}`) is never
/// taken for a placeholder.
fn fill(template: &str, values: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        let here = &rest[at..];
        match values.iter().find(|(name, _)| here.starts_with(name)) {
            Some((name, value)) => {
                out.push_str(value);
                rest = &here[name.len()..];
            }
            None => {
                out.push_str("{{");
                rest = &here[2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The threads as list items, for a page read before (or without) its script.
fn thread_items(threads: &serde_json::Value) -> String {
    let rows = threads
        .get("threads")
        .and_then(|t| t.as_array())
        .cloned()
        .unwrap_or_default();
    rows.iter()
        .filter_map(|row| row.get("thread").and_then(|t| t.as_str()))
        .map(|t| format!("<li>{}</li>", html_escape(t)))
        .collect()
}

/// JSON inside a `<script>` element: no `<`, `>` or `&` that could end it.
fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// `s` as HTML text or an attribute value: no markup, no quote that ends it.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
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

/// One page of a patch (`/api/patch`).
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct PatchPage {
    /// The index of its first file.
    pub start: usize,
    /// The `start` of the next page, if there is more.
    pub next: Option<usize>,
    /// Files in the whole patch.
    pub total: usize,
    /// Its files' patches, in the order of `git t3 --json diff`'s `files`.
    pub files: Vec<PatchFile>,
}

/// One file's patch.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct PatchFile {
    /// Its index among the patch's files.
    pub index: usize,
    /// Its text, from `diff --git` on (lossily UTF-8).
    pub text: String,
    /// Lines left out, past [`FILE_BYTES`].
    pub truncated_lines: usize,
    /// For each `-` and `+` line of `text`, in order: the changed words,
    /// as `[start, end)` in UTF-16 units of the line without its sign —
    /// `git diff --color-words`' own engine ([`crate::diff::words`]), for
    /// runs that remove and add lines.
    pub words: Vec<Vec<[usize; 2]>>,
}

/// Cut `patch` (git's patch format, no colour) into files and return those
/// from `start` that fit in a page.
pub fn patch_page(patch: &[u8], start: usize) -> PatchPage {
    let text = String::from_utf8_lossy(patch);
    let mut files: Vec<&str> = Vec::new();
    let mut begin = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with("diff --git ") {
            if let Some(b) = begin {
                files.push(&text[b..at]);
            }
            begin = Some(at);
        }
        at += line.len();
    }
    if let Some(b) = begin {
        files.push(&text[b..]);
    }
    let total = files.len();
    let mut page = Vec::new();
    let mut used = 0;
    let mut index = start;
    while index < total {
        let (text, cut) = cut_file(files[index]);
        if !page.is_empty() && used + text.len() > PAGE_BYTES {
            break;
        }
        used += text.len();
        page.push(PatchFile {
            index,
            text: text.to_owned(),
            truncated_lines: cut,
            words: super::word_marks::marks(text),
        });
        index += 1;
    }
    PatchPage {
        start,
        next: (index < total).then_some(index),
        total,
        files: page,
    }
}

/// A file's patch up to [`FILE_BYTES`] at a line's end, and the lines cut.
fn cut_file(file: &str) -> (&str, usize) {
    if file.len() <= FILE_BYTES {
        return (file, 0);
    }
    let mut end = 0;
    for line in file.split_inclusive('\n') {
        if end + line.len() > FILE_BYTES {
            break;
        }
        end += line.len();
    }
    (&file[..end], file[end..].lines().count())
}

/// The first line of `review`'s stdout: its URL (flushed at once, since the
/// server then runs until stopped).
pub fn announce(url: &str) {
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "{url}");
    let _ = out.flush();
}

/// What `review` says when it stops.
pub fn stopped(r: &ReviewOutcome, quiet: bool, out: &mut dyn Write) -> io::Result<()> {
    if quiet {
        return Ok(());
    }
    let why = match r.stopped {
        Stopped::Idle => "idle",
        Stopped::Interrupted => "interrupted",
    };
    writeln!(
        out,
        "review stopped ({why}) after {} request{}{}",
        r.requests,
        if r.requests == 1 { "" } else { "s" },
        if r.reverts > 0 {
            format!(", {} revert{}", r.reverts, if r.reverts == 1 { "" } else { "s" })
        } else {
            String::new()
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patch_pages_split_at_files() {
        let one = "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\n";
        let two = "diff --git a/b b/b\nBinary files a/b and b/b differ\n";
        let patch = format!("{one}{two}");
        let p = patch_page(patch.as_bytes(), 0);
        assert_eq!((p.total, p.next, p.files.len()), (2, None, 2));
        assert_eq!(p.files[0].text, one);
        assert_eq!(p.files[1].text, two);
        let p = patch_page(patch.as_bytes(), 1);
        assert_eq!((p.start, p.files.len(), p.files[0].index), (1, 1, 1));
        assert!(patch_page(patch.as_bytes(), 5).files.is_empty());
        assert_eq!(patch_page(b"", 0).total, 0);
    }

    #[test]
    fn large_patches_are_paged_and_cut() {
        let big = |name: &str, lines: usize| {
            let mut s = format!("diff --git a/{name} b/{name}\n@@ -0,0 +1,{lines} @@\n");
            for i in 0..lines {
                s.push_str(&format!("+line {i:>60}\n"));
            }
            s
        };
        let patch = format!("{}{}{}", big("a", 7000), big("b", 7000), big("c", 20000));
        let p = patch_page(patch.as_bytes(), 0);
        assert_eq!((p.files.len(), p.next), (2, Some(2)));
        let p = patch_page(patch.as_bytes(), 2);
        assert_eq!(p.next, None);
        assert!(p.files[0].text.len() <= FILE_BYTES && p.files[0].text.ends_with('\n'));
        assert!(p.files[0].truncated_lines > 0);
    }

    #[test]
    fn a_thread_named_like_a_placeholder_stays_a_name() {
        let threads = br#"{"threads":[{"thread":"{{THREADS}}"},{"thread":"a\\q\"<b>"}]}"#;
        let html = page(threads, Some("{{CSRF}}"), None);
        let start = html.find(r#"id="t3-initial">"#).unwrap() + r#"id="t3-initial">"#.len();
        let end = start + html[start..].find("</script>").unwrap();
        let initial: serde_json::Value = serde_json::from_str(&html[start..end]).unwrap();
        assert_eq!(initial["threads"]["threads"][0]["thread"], "{{THREADS}}");
        assert_eq!(initial["threads"]["threads"][1]["thread"], "a\\q\"<b>");
        assert_eq!(initial["thread"], "{{CSRF}}");
        assert!(html.contains("<li>{{THREADS}}</li>"));
    }

    #[test]
    fn page_data_cannot_end_its_script() {
        let threads = br#"{"threads":[{"thread":"</script><b>x&y"}]}"#;
        let html = page(threads, Some("t"), Some("csrf\"tok"));
        assert!(!html.contains("</script><b>"));
        assert!(html.contains("&lt;/script&gt;&lt;b&gt;x&amp;y"));
        assert!(html.contains("csrf&quot;tok"));
        assert!(!html.contains("{{"));
    }
}
