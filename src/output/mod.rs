//! Rendering outcomes: human text or one JSON document. Only this module
//! formats what commands return; only `main` owns stdout and stderr.
//!
//! Human text by topic: `checkpoints` (capture, list, show), `reports`
//! (revert, verify, install, sync, drop), `diff` (stat, numstat, names),
//! `patch` (git's patch format, the one place it is spelled out),
//! `review` (log, status, rev, restore) and `web` (the page of `git t3
//! review`: its embedded assets, and the patch in pages).

use std::io::{self, Write};

use crate::commands::Outcome;
use crate::error::{EXIT_FAILED, EXIT_OK, Error};

mod checkpoints;
mod diff;
mod disk;
mod figures;
mod names;
mod op;
pub mod pager;
mod patch;
mod reports;
mod review;
mod stat;
pub mod web;
mod word_marks;
mod words;
pub use names::rename_label;

/// How to render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Text for a person.
    Human,
    /// One JSON document.
    Json,
}

/// A line for the person at the terminal on stderr, said while a command
/// runs (which thread it works on): what the binary hands the edge to say
/// it with.
pub fn say(line: &str) {
    eprintln!("{}", safe(line));
}

/// Print `outcome` (warnings on stderr unless `quiet`) and return the exit
/// status: verify fails when it found problems; a closed pipe is no failure.
///
/// A signal stops the writing (between writes) and makes the status git's
/// for it (130 for SIGINT), with nothing more printed.
pub fn finish(
    outcome: &Outcome,
    format: Format,
    quiet: bool,
    term: &pager::Terminal,
    interrupt: crate::interrupt::Interrupt,
) -> i32 {
    // The review server stops on Ctrl-C: that is its end, not a failure.
    let interrupt = match outcome {
        Outcome::Review(_) => crate::interrupt::Interrupt::default(),
        _ => interrupt,
    };
    if let Err(e) = interrupt.check() {
        return fail(&e, format);
    }
    if !quiet {
        for w in outcome.warnings() {
            eprintln!("git t3: {}", safe(&w.to_string()));
        }
    }
    let failed =
        matches!(outcome, Outcome::Verify(v) if !v.ok) || matches!(outcome, Outcome::Sync(s) if s.failed());
    if let Outcome::Diff(d) = outcome
        && d.view.exit_code
    {
        // git's `--exit-code`: 1 with differences, whatever was printed.
        let printed = if d.view.quiet {
            Ok(())
        } else {
            emit(outcome, format, quiet, term, interrupt)
        };
        return match printed {
            Ok(()) if !d.files.is_empty() => EXIT_FAILED,
            Ok(()) => EXIT_OK,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => EXIT_OK,
            Err(_) if interrupt.fired() => stopped(interrupt, format),
            Err(e) => {
                eprintln!("git t3: could not write output: {e}");
                EXIT_FAILED
            }
        };
    }
    match emit(outcome, format, quiet, term, interrupt) {
        Ok(()) if failed => {
            if let Outcome::Verify(v) = outcome {
                let errors = v
                    .findings
                    .iter()
                    .filter(|f| f.severity == crate::commands::verify::Severity::Error)
                    .count();
                eprintln!("git t3: verify found {errors} problem(s) under refs/t3/");
            }
            if let Outcome::Sync(s) = outcome {
                let dir = if s.action == crate::sync::Action::Push {
                    "to"
                } else {
                    "from"
                };
                let mut why = Vec::new();
                if !s.refused.is_empty() {
                    why.push(format!("{} ref(s) refused", s.refused.len()));
                }
                if let Some(t) = &s.transport_error {
                    why.push(format!("git took only part of the refs: {t}"));
                }
                eprintln!(
                    "git t3: {} {dir} {}: {}",
                    s.action,
                    safe(&s.remote),
                    safe(&why.join("; "))
                );
            }
            EXIT_FAILED
        }
        Ok(()) => EXIT_OK,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(_) if interrupt.fired() => stopped(interrupt, format),
        Err(e) => {
            eprintln!("git t3: could not write output: {e}");
            EXIT_FAILED
        }
    }
}

/// The status (and one line) of output stopped by a signal.
fn stopped(interrupt: crate::interrupt::Interrupt, format: Format) -> i32 {
    match interrupt.check() {
        Err(e) => fail(&e, format),
        Ok(()) => EXIT_FAILED,
    }
}

/// A writer that fails once a signal asked us to stop, so a long render
/// ends at the next write.
struct Stoppable<W> {
    inner: W,
    interrupt: crate::interrupt::Interrupt,
}

impl<W: Write> Write for Stoppable<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.interrupt.fired() {
            // Not `ErrorKind::Interrupted`: `write_all` retries that.
            return Err(io::Error::other("interrupted by a signal"));
        }
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Report `e` on stderr — one line, or with `--json` one JSON object
/// `{"error": {"kind", "message"}}` — and return its exit status.
pub fn fail(e: &Error, format: Format) -> i32 {
    if e.is_broken_pipe() {
        return EXIT_OK;
    }
    // Messages quote data from others (notes, ref names, payloads): no
    // control or bidi character reaches the terminal.
    let message = safe(&crate::error::one_line(e)).into_owned();
    if format == Format::Json {
        eprintln!("{}", error_json(e.kind().as_str(), &message));
    } else {
        eprintln!("git t3: {message}");
    }
    e.exit_code()
}

/// An error as `--json` reports it: `{"error": {"kind", "message"}}`.
pub fn error_json(kind: &str, message: &str) -> serde_json::Value {
    serde_json::json!({"error": {"kind": kind, "message": message}})
}

/// Write `outcome` to stdout, through a pager when it asks for one.
pub fn emit(
    outcome: &Outcome,
    format: Format,
    quiet: bool,
    term: &pager::Terminal,
    interrupt: crate::interrupt::Interrupt,
) -> io::Result<()> {
    if let Outcome::Diff(d) = outcome
        && let Some(path) = &d.view.output
    {
        // `--output=FILE`: the diff goes there, never through a pager.
        let file = std::fs::File::create(path)
            .map_err(|e| io::Error::new(e.kind(), format!("could not write {}: {e}", path.display())))?;
        let mut out = io::BufWriter::new(file);
        return render(outcome, format, quiet, &mut out).and_then(|()| out.flush());
    }
    let pager = match outcome {
        Outcome::Diff(d) => d.view.pager.as_ref(),
        Outcome::Log(l) => l.view.pager.as_ref(),
        _ => None,
    };
    if format == Format::Human
        && let Some(cmd) = pager
        && let Ok(mut child) = pager::Pager::new(cmd.clone(), term).spawn()
        && let Some(stdin) = child.stdin.take()
    {
        let mut pipe = io::BufWriter::new(Stoppable {
            inner: stdin,
            interrupt,
        });
        let written = render(outcome, format, quiet, &mut pipe).and_then(|()| pipe.flush());
        drop(pipe);
        let _ = child.wait();
        return match written {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            other => other,
        };
    }
    // Block-buffered: stdout alone would write (and sync) line by line.
    let stdout = Stoppable {
        inner: io::stdout().lock(),
        interrupt,
    };
    let mut out = io::BufWriter::with_capacity(64 * 1024, stdout);
    render(outcome, format, quiet, &mut out).and_then(|()| out.flush())
}

/// Write `outcome` to `out`. With `quiet`, commands that only report what
/// they did print nothing in human format.
pub fn render(outcome: &Outcome, format: Format, quiet: bool, out: &mut dyn Write) -> io::Result<()> {
    // A hook answers in the agent's terms, whatever `--json` and `-q` say.
    if let Outcome::Hook(h) = outcome {
        return reports::hook(h, out);
    }
    if format == Format::Json {
        serde_json::to_writer_pretty(&mut *out, outcome).map_err(io::Error::other)?;
        return writeln!(out);
    }
    match outcome {
        Outcome::Checkpoint(_) if quiet => Ok(()),
        Outcome::Checkpoint(c) => checkpoints::captured(c, out),
        Outcome::Turns(t) => checkpoints::turns(t, out),
        Outcome::Threads(t) => checkpoints::threads(t, out),
        Outcome::Remote(r) => checkpoints::remote(r, out),
        Outcome::Show(s) => checkpoints::show(s, out),
        Outcome::Diff(d) => diff::render(d, out),
        Outcome::Log(l) => review::log(l, out),
        Outcome::Status(s) => review::status(s, out),
        Outcome::Rev(r) => review::rev(r, out),
        Outcome::Restore(r) => review::restore(r, quiet, out),
        Outcome::Revert(r) => reports::revert(r, quiet, out),
        Outcome::Op(o) => op::render(o, quiet, out, &|r, out| reports::revert(r, false, out)),
        Outcome::Verify(v) => reports::verify(v, quiet, out),
        Outcome::Text(t) => out.write_all(t.as_bytes()),
        Outcome::Install(i) => reports::install(i, quiet, out),
        Outcome::Files(files) => reports::files(files, quiet, out),
        Outcome::Hook(h) => reports::hook(h, out),
        Outcome::Sync(s) => reports::sync(s, quiet, out),
        Outcome::Drop(d) => reports::drop(d, quiet, out),
        Outcome::Review(r) => web::stopped(r, quiet, out),
        Outcome::Notes(n) => reports::backfill(n, quiet, out),
        Outcome::Du(d) => disk::du(d, out),
        Outcome::Prune(p) => disk::prune(p, quiet, out),
        Outcome::Maintenance(m) => disk::maintenance(m, quiet, out),
    }
}

/// Text from data (a note, a ref name) made safe for a terminal: control
/// characters (C0, DEL, C1) and bidi controls are written as escapes, so a
/// fetched note can neither move the cursor nor hide text.
pub fn safe(text: &str) -> std::borrow::Cow<'_, str> {
    let bad = |c: char| c.is_control() || crate::model::thread::is_bidi_control(c);
    if !text.chars().any(bad) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if bad(c) => out.push_str(&format!("\\u{{{:04x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Quote a path like git's `core.quotePath` does: in double quotes with C
/// escapes when it holds a quote, backslash, control or non-ASCII byte.
/// Bytes that are not UTF-8 come out as octal escapes, so the text is exact.
pub fn quote_path(path: impl AsRef<[u8]>) -> String {
    crate::model::path::quoted(path)
}

pub use crate::model::units::human_size;

#[cfg(test)]
mod tests {
    use super::quote_path;

    #[test]
    fn sizes_read_like_git() {
        use super::human_size;
        assert_eq!(human_size(1), "1 byte");
        assert_eq!(human_size(1000), "1000 bytes");
        assert_eq!(human_size(10 << 20), "10 MiB");
        assert_eq!(human_size(200 << 20), "200 MiB");
        assert_eq!(human_size((3 << 30) / 2), "1.5 GiB");
        assert_eq!(human_size((10 << 20) + 1), "10 MiB");
        assert_eq!(human_size(u64::MAX), "16777215.9 TiB");
    }

    #[test]
    fn quotes_like_git() {
        assert_eq!(quote_path("src/lib.rs"), "src/lib.rs");
        assert_eq!(quote_path("tab\there.txt"), "\"tab\\there.txt\"");
        assert_eq!(quote_path("日本.txt"), "\"\\346\\227\\245\\346\\234\\254.txt\"");
        assert_eq!(quote_path("q\"uote"), "\"q\\\"uote\"");
        assert_eq!(quote_path(b"caf\xe9"), "\"caf\\351\"");
    }
}
