//! git's patch text, all of it: the `diff --git` line, C-quoted names and
//! git's trailing-TAB rule, the extended header (`new file mode`, `deleted
//! file mode`, `old mode`/`new mode`, `similarity index`, `rename from/to`),
//! `index` lines with abbreviated or full ids, `---`/`+++`, `@@ -a,b +c,d @@`
//! ranges with function context, `\ No newline at end of file`, `Binary
//! files … differ` and `GIT binary patch` sections in base85, coloured like
//! `git diff --color` when asked.
//!
//! The facts come from [`crate::diff::patch`]; only their spelling is here.

use std::io::{self, Write};

use gix::ObjectId;
use gix::bstr::{BStr, ByteSlice};
use gix::objs::tree::EntryKind;

use crate::diff::patch::{
    Binary, Body, Event, FilePatch, Header, Hunk, Line, LineKind, Payload, PayloadKind,
};
use crate::diff::style::Look;
use crate::model::color::RESET;
use crate::model::whitespace::{self, Paint};

/// Bytes of deflated data per base85 line.
const BINARY_LINE: usize = 52;
/// What git writes for a side that does not exist.
const DEV_NULL: &[u8] = b"/dev/null";

/// How a patch is written: git's `color.diff` (with the look its config
/// gives) and `core.quotePath`.
#[derive(Debug, Clone, Copy)]
pub struct Style<'a> {
    /// Colour it like git.
    pub color: bool,
    /// Quote bytes above 0x7f as octal escapes (`core.quotePath`, default on).
    pub quote_high: bool,
    /// The colours and whitespace rules.
    pub look: &'a Look,
    /// The old and new names' prefixes (`a/`, `b/`).
    pub prefixes: [&'a str; 2],
    /// An empty context line is written as an empty line
    /// (`diff.suppressBlankEmpty`).
    pub suppress_blank_empty: bool,
    /// Hunks written as a word diff in this mode (`--word-diff`).
    pub words: Option<crate::diff::words::Mode>,
    /// What a word is in the file written (its word regex).
    pub word_regex: Option<&'a crate::diff::posix::Posix>,
}

/// Write the patch of one file in `style`.
pub fn write(p: &FilePatch, style: Style<'_>, out: &mut dyn Write) -> io::Result<()> {
    write_marked(p, style, &[], out)
}

/// Write the patch of one file in `style`, its hunk lines coloured as
/// moved by `moved` (flags of [`crate::diff::moved`], one a hunk line).
pub fn write_marked(p: &FilePatch, style: Style<'_>, moved: &[u8], out: &mut dyn Write) -> io::Result<()> {
    let h = &p.header;
    let a = prefixed(style.prefixes[0], h.old_path.as_bstr(), style.quote_high);
    let b = prefixed(style.prefixes[1], h.new_path.as_bstr(), style.quote_high);
    let meta = style.color.then_some(style.look.palette.meta.as_str());
    for line in header_lines(h, &a, &b, style.quote_high) {
        colored(out, meta, &[&line])?;
    }
    match &p.body {
        Body::Binary(Binary::Differ) => {
            let (from, to) = (old_name(h, &a), new_name(h, &b));
            out.write_all(&[b"Binary files ", from, b" and ", to, b" differ\n"].concat())
        }
        Body::Binary(Binary::Patch { forward, reverse }) => binary_patch(forward, reverse, out),
        Body::Text(hunks) if hunks.is_empty() => Ok(()),
        Body::Text(hunks) => {
            file_pair_line(out, meta, b"--- ", old_name(h, &a))?;
            file_pair_line(out, meta, b"+++ ", new_name(h, &b))?;
            // The file's `whitespace` attribute over `core.whitespace`.
            let own;
            let look = match p.written.whitespace {
                Some(rule) => {
                    own = Look {
                        whitespace: rule,
                        ..style.look.clone()
                    };
                    &own
                }
                None => style.look,
            };
            let style = Style {
                look,
                word_regex: p.written.word_regex.as_deref(),
                ..style
            };
            let blank_at_eof = p.blank_at_eof.filter(|_| look.whitespace.blank_at_eof());
            let mut moved = moved.iter().copied();
            hunks
                .iter()
                .try_for_each(|hunk| write_hunk(hunk, style, blank_at_eof, &mut moved, out))
        }
    }
}

/// `diff --git a/… b/…` and the extended header lines, without newlines.
fn header_lines(h: &Header, a: &[u8], b: &[u8], quote_high: bool) -> Vec<Vec<u8>> {
    let mut lines = vec![[b"diff --git ", a, b" ", b].concat()];
    match h.event {
        Event::Added { mode } => lines.push(format!("new file mode {}", mode_digits(mode)).into_bytes()),
        Event::Deleted { mode } => {
            lines.push(format!("deleted file mode {}", mode_digits(mode)).into_bytes())
        }
        Event::Modified { old_mode, new_mode } => mode_change(&mut lines, old_mode, new_mode),
        Event::Renamed {
            old_mode,
            new_mode,
            similarity,
        }
        | Event::Copied {
            old_mode,
            new_mode,
            similarity,
        } => {
            let what = if matches!(h.event, Event::Copied { .. }) {
                "copy"
            } else {
                "rename"
            };
            mode_change(&mut lines, old_mode, new_mode);
            lines.push(format!("similarity index {similarity}%").into_bytes());
            lines.push(
                [
                    format!("{what} from ").as_bytes(),
                    &quote_as(h.old_path.as_bstr(), quote_high),
                ]
                .concat(),
            );
            lines.push(
                [
                    format!("{what} to ").as_bytes(),
                    &quote_as(h.new_path.as_bstr(), quote_high),
                ]
                .concat(),
            );
        }
    }
    // Same content (a pure rename or mode change): no index line.
    if h.old_id != h.new_id {
        lines.push(index_line(h));
    }
    lines
}

/// `old mode` and `new mode`, when they differ.
fn mode_change(lines: &mut Vec<Vec<u8>>, old: EntryKind, new: EntryKind) {
    if old != new {
        lines.push(format!("old mode {}", mode_digits(old)).into_bytes());
        lines.push(format!("new mode {}", mode_digits(new)).into_bytes());
    }
}

/// `index <old>..<new>`, followed by the mode when both sides share it.
fn index_line(h: &Header) -> Vec<u8> {
    let mut index = format!(
        "index {}..{}",
        abbrev(h.old_id, h.full_ids, h.abbrev[0]),
        abbrev(h.new_id, h.full_ids, h.abbrev[1])
    );
    if let Event::Modified { old_mode, new_mode }
    | Event::Renamed {
        old_mode, new_mode, ..
    }
    | Event::Copied {
        old_mode, new_mode, ..
    } = h.event
        && old_mode == new_mode
    {
        index.push(' ');
        index.push_str(mode_digits(old_mode));
    }
    index.into_bytes()
}

use crate::model::mode::digits as mode_digits;

/// An id in full, or its first `len` hex digits.
fn abbrev(id: ObjectId, full: bool, len: usize) -> String {
    if full {
        id.to_string()
    } else {
        id.to_hex_with_len(len).to_string()
    }
}

/// The quoted `a/` name, or `/dev/null` for a new file.
fn old_name<'a>(h: &Header, a: &'a [u8]) -> &'a [u8] {
    match h.event {
        Event::Added { .. } => DEV_NULL,
        _ => a,
    }
}

/// The quoted `b/` name, or `/dev/null` for a deleted file.
fn new_name<'a>(h: &Header, b: &'a [u8]) -> &'a [u8] {
    match h.event {
        Event::Deleted { .. } => DEV_NULL,
        _ => b,
    }
}

/// `a/` or `b/` joined to `path`, C-quoted as a whole when needed.
fn prefixed(prefix: &str, path: &BStr, quote_high: bool) -> Vec<u8> {
    let mut raw = prefix.as_bytes().to_vec();
    raw.extend_from_slice(path);
    quote_as(raw.as_bstr(), quote_high)
}

/// A `---`/`+++` line: git appends a TAB to a name that contains a space,
/// after the colour's reset.
fn file_pair_line(out: &mut dyn Write, meta: Option<&str>, sign: &[u8], name: &[u8]) -> io::Result<()> {
    if let Some(c) = meta {
        out.write_all(c.as_bytes())?;
    }
    out.write_all(sign)?;
    out.write_all(name)?;
    if meta.is_some() {
        out.write_all(RESET.as_bytes())?;
    }
    if name.contains(&b' ') {
        out.write_all(b"\t")?;
    }
    out.write_all(b"\n")
}

/// C-quote `path` like git's `quote_c_style`; bytes above 0x7f are escaped
/// only with `quote_high` (`core.quotePath`).
pub fn quote_as(path: &BStr, quote_high: bool) -> Vec<u8> {
    crate::model::path::quote_as(path, quote_high)
}

/// One `@@` hunk and its lines; `blank_at_eof` as in
/// [`FilePatch::blank_at_eof`], when that rule is on.
fn write_hunk(
    hunk: &Hunk,
    style: Style<'_>,
    blank_at_eof: Option<[u32; 2]>,
    moved: &mut dyn Iterator<Item = u8>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let (old, new) = (
        span(hunk.old_start, hunk.old_len),
        span(hunk.new_start, hunk.new_len),
    );
    let range = format!("@@ -{old} +{new} @@");
    let palette = &style.look.palette;
    if style.color {
        write!(out, "{}{range}{RESET}", palette.frag)?;
        if let Some(f) = &hunk.function {
            write!(out, "{} {RESET}{}", palette.context, palette.func)?;
            out.write_all(f)?;
            out.write_all(RESET.as_bytes())?;
        }
    } else {
        out.write_all(range.as_bytes())?;
        if let Some(f) = &hunk.function {
            out.write_all(b" ")?;
            out.write_all(f)?;
        }
    }
    out.write_all(b"\n")?;
    if let Some(mode) = style.words {
        let look = super::words::Look {
            color: style.color,
            palette: &style.look.palette,
            suppress_blank_empty: style.suppress_blank_empty,
            regex: style.word_regex,
        };
        return super::words::write_body(hunk, look, mode, out);
    }
    // Line numbers as the range line reads, for `blank-at-eof`: the old
    // side's next line and the new side's current one.
    let (mut old_no, mut new_no) = (start_number(&old), start_number(&new));
    for l in &hunk.lines {
        let flags = moved.next().unwrap_or(0);
        if style.suppress_blank_empty && l.kind == LineKind::Context && l.text.is_empty() && !l.no_newline {
            // git's suppress-blank-empty: the line without its space, uncoloured.
            out.write_all(b"\n")?;
        } else if style.color {
            let at_eof = l.kind == LineKind::Added
                && blank_at_eof.is_some_and(|[o, n]| o <= old_no && n <= new_no)
                && whitespace::is_blank(&l.text);
            colored_line(l, style, at_eof, flags, out)?;
        } else {
            let origin = match l.kind {
                LineKind::Context => b' ',
                LineKind::Removed => b'-',
                LineKind::Added => b'+',
            };
            out.write_all(&[origin])?;
            out.write_all(&l.text)?;
            out.write_all(b"\n")?;
        }
        match l.kind {
            LineKind::Context => (old_no, new_no) = (old_no + 1, new_no + 1),
            LineKind::Removed => old_no += 1,
            LineKind::Added => new_no += 1,
        }
        if l.no_newline {
            if style.color {
                colored(out, Some(&palette.context), &[b"\\ No newline at end of file"])?;
            } else {
                out.write_all(b"\\ No newline at end of file\n")?;
            }
        }
    }
    Ok(())
}

/// The first number of a printed range (`5` of `5,3`).
fn start_number(span: &str) -> u32 {
    span.split(',').next().and_then(|n| n.parse().ok()).unwrap_or(0)
}

/// One hunk line in colour, as git writes it. A line whose whitespace
/// errors are highlighted (`diff.wsErrorHighlight`, default: added lines)
/// has its sign and its parts in separate runs; a blank line added at the
/// end of the file (`at_eof`) is wholly in the whitespace colour; any
/// other line is one run, a CR before its end written after the run. A
/// moved line (`moved`: its [`crate::diff::moved`] flags) has its moved
/// colour.
fn colored_line(l: &Line, style: Style<'_>, at_eof: bool, moved: u8, out: &mut dyn Write) -> io::Result<()> {
    use crate::diff::moved::{ALT, DIM, MOVED};
    let look = style.look;
    let p = &look.palette;
    let (sign, mut set, highlight) = match l.kind {
        LineKind::Context => (" ", &p.context, look.highlight.context),
        LineKind::Removed => ("-", &p.old, look.highlight.old),
        LineKind::Added => ("+", &p.new, look.highlight.new),
    };
    if moved & MOVED != 0 && l.kind != LineKind::Context {
        let side = if l.kind == LineKind::Added { 4 } else { 0 };
        let alt = if moved & ALT != 0 { 1 } else { 0 };
        let dim = if moved & DIM != 0 { 2 } else { 0 };
        set = p.moved.get(side + alt + dim).unwrap_or(set);
    }
    // An empty whitespace colour turns the highlighting off.
    let highlight = highlight && !p.whitespace.is_empty();
    if !highlight || at_eof {
        let set = if highlight { &p.whitespace } else { set };
        let (text, cr) = match l.text.strip_suffix(b"\r") {
            Some(t) => (t, true),
            None => (l.text.as_slice(), false),
        };
        write!(out, "{set}{sign}")?;
        out.write_all(text)?;
        out.write_all(RESET.as_bytes())?;
        if cr {
            out.write_all(b"\r")?;
        }
        return out.write_all(b"\n");
    }
    write!(out, "{set}{sign}{RESET}")?;
    for (paint, range) in whitespace::paint(&l.text, look.whitespace) {
        let text = l.text.get(range).unwrap_or_default();
        match paint {
            Paint::Plain => out.write_all(text)?,
            Paint::Line | Paint::Error => {
                let c = if paint == Paint::Line { set } else { &p.whitespace };
                out.write_all(c.as_bytes())?;
                out.write_all(text)?;
                out.write_all(RESET.as_bytes())?;
            }
        }
    }
    out.write_all(b"\n")
}

/// `start,len` as git prints it: `,1` omitted, and an empty range named by
/// the line before it (`0,0` for an empty file).
fn span(start: u32, len: u32) -> String {
    match len {
        0 => format!("{},0", start.saturating_sub(1)),
        1 => format!("{start}"),
        _ => format!("{start},{len}"),
    }
}

/// A `GIT binary patch` section: the forward payload (old to new), then the
/// reverse one, each `literal <size>` or `delta <size>` and base85 lines.
fn binary_patch(forward: &Payload, reverse: &Payload, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(b"GIT binary patch\n")?;
    for payload in [forward, reverse] {
        let kind = match payload.kind {
            PayloadKind::Literal => "literal",
            PayloadKind::Delta => "delta",
        };
        writeln!(out, "{kind} {}", payload.size)?;
        for chunk in payload.deflated.chunks(BINARY_LINE) {
            // The line's length as one letter: A-Z for 1-26, a-z for 27-52.
            let len = u8::try_from(chunk.len()).unwrap_or(52);
            let mut line = vec![if len <= 26 {
                b'A' + len - 1
            } else {
                b'a' + len - 27
            }];
            base85(chunk, &mut line);
            line.push(b'\n');
            out.write_all(&line)?;
        }
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// git's base85: 4 bytes (zero padded) to 5 characters, most significant first.
fn base85(data: &[u8], out: &mut Vec<u8>) {
    const ALPHABET: &[u8; 85] =
        b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
    for chunk in data.chunks(4) {
        let mut word = [0u8; 4];
        word[..chunk.len()].copy_from_slice(chunk);
        let mut n = u32::from_be_bytes(word);
        let mut digits = [0u8; 5];
        for d in digits.iter_mut().rev() {
            *d = ALPHABET[(n % 85) as usize];
            n /= 85;
        }
        out.extend_from_slice(&digits);
    }
}

/// One line: `parts` in `color` (when given), then a newline.
fn colored(out: &mut dyn Write, color: Option<&str>, parts: &[&[u8]]) -> io::Result<()> {
    if let Some(c) = color {
        out.write_all(c.as_bytes())?;
    }
    for p in parts {
        out.write_all(p)?;
    }
    if color.is_some() {
        out.write_all(RESET.as_bytes())?;
    }
    out.write_all(b"\n")
}

#[cfg(test)]
#[path = "patch_tests.rs"]
mod tests;
