//! Human text of the review commands: `log` (blocks or one line per turn,
//! dates in local time and relative), `status`, `rev` and `restore`.

use std::io::{self, Write};

use super::{quote_path, safe};
use crate::commands::log::LogOutcome;
use crate::commands::restore::RestoreOutcome;
use crate::commands::rev::RevOutcome;
use crate::commands::status::StatusOutcome;
use crate::model::color::RESET;
use crate::model::note::{ChangeKind, NO_BASELINE_WARNING, Note};

/// `log`: one block per turn (or one line with `--oneline`), newest first.
pub fn log(l: &LogOutcome, out: &mut dyn Write) -> io::Result<()> {
    let (y, e) = if l.view.color {
        (l.view.look.palette.commit.as_str(), RESET)
    } else {
        ("", "")
    };
    for (i, cp) in l.turns.iter().enumerate() {
        let n = &cp.note;
        let when = When::of(n, l);
        let title = n
            .title
            .as_deref()
            .map(|t| format!("  {}", safe(t)))
            .unwrap_or_default();
        if l.view.oneline {
            let line = format!(
                "{y}{:>4}{e}  {:<7}  {:<14}  {}{title}",
                n.turn,
                status_of(n),
                when.relative,
                stat_short(cp)
            );
            writeln!(out, "{}", line.trim_end())?;
        } else {
            if i > 0 {
                writeln!(out)?;
            }
            writeln!(out, "{y}turn {}{e}{title}", n.turn)?;
            writeln!(out, "Agent:   {}", safe(agent(n)))?;
            writeln!(out, "Date:    {} ({})", when.local, when.relative)?;
            writeln!(out, "Status:  {}", status_of(n))?;
            writeln!(out, " {}", stat_long(cp))?;
            if let Some(aside) = super::figures::left_out(cp) {
                writeln!(out, " {aside}")?;
            }
        }
        if let Some(Some(patch)) = l.patches.get(i) {
            if !l.view.oneline {
                writeln!(out)?;
            }
            for p in patch {
                let style = super::patch::Style {
                    color: l.view.color,
                    quote_high: l.view.quote_path,
                    look: &l.view.look,
                    prefixes: ["a/", "b/"],
                    suppress_blank_empty: false,
                    words: None,
                    word_regex: None,
                };
                super::patch::write(p, style, out)?;
            }
        }
    }
    for p in &l.problems {
        writeln!(out, "unreadable: {}", safe(p))?;
    }
    Ok(())
}

fn status_of(n: &Note) -> &'static str {
    if n.placeholder {
        "pending"
    } else {
        n.status.as_str()
    }
}

/// Who drove the turn: the note's agent, else the thread's provider.
fn agent(n: &Note) -> &str {
    n.agent.as_deref().or(n.provider.as_deref()).unwrap_or("-")
}

/// A note's summary, or why it has none, for `log`.
fn no_summary(n: &Note) -> Option<&'static str> {
    if n.placeholder {
        Some("no snapshot yet (placeholder)")
    } else if n.warnings.iter().any(|w| w == NO_BASELINE_WARNING) {
        Some("summary unavailable (no baseline)")
    } else if n.from_turn.is_none() && n.files.is_empty() {
        Some("baseline")
    } else {
        None
    }
}

/// `2 files changed, 3 insertions(+), 1 deletion(-)`, as git's diffstat ends
/// (the turn's figures as `diff --turn N` counts them, when known).
fn stat_long(cp: &crate::store::Checkpoint) -> String {
    let n = &cp.note;
    if cp.counts.is_none()
        && let Some(why) = no_summary(n)
    {
        return why.to_owned();
    }
    let (files, a, d) = super::figures::figures(cp);
    let plural = |k: u64| if k == 1 { "" } else { "s" };
    // Only the note's record can leave files unlisted.
    let unlisted = match n.files_omitted.map(|o| o.files).filter(|_| cp.counts.is_none()) {
        None | Some(0) => String::new(),
        Some(k) => format!(" ({k} of them not listed: the note keeps a bounded summary)"),
    };
    format!(
        "{files} file{} changed, {a} insertion{}(+), {d} deletion{}(-){unlisted}",
        plural(files),
        plural(a),
        plural(d)
    )
}

/// `2 files +3 -1`.
fn stat_short(cp: &crate::store::Checkpoint) -> String {
    if cp.note.placeholder {
        return "placeholder".into();
    }
    let (files, a, d) = super::figures::figures(cp);
    format!("{files} file{} +{a} -{d}", if files == 1 { "" } else { "s" })
}

/// A checkpoint's time, shown two ways.
struct When {
    local: String,
    relative: String,
}

impl When {
    fn of(n: &Note, l: &LogOutcome) -> Self {
        When::at(&n.completed_at, l.view.time_zone.as_ref(), l.now)
    }

    /// `time` (RFC 3339) in `tz` (`None`: UTC) and relative to `now`.
    fn at(time: &str, tz: Option<&jiff::tz::TimeZone>, now: jiff::Timestamp) -> Self {
        let Ok(ts) = time.parse::<jiff::Timestamp>() else {
            return When {
                local: safe(time).into_owned(),
                relative: "unknown time".into(),
            };
        };
        let tz = tz.cloned().unwrap_or(jiff::tz::TimeZone::UTC);
        When {
            local: ts
                .to_zoned_datetime(tz)
                .strftime("%Y-%m-%d %H:%M:%S %z")
                .to_string(),
            relative: relative(now.as_second().saturating_sub(ts.as_second())),
        }
    }
}

/// "2026-12-03 16:10:30 +0100 (2 hours ago)" for an RFC 3339 `time`
/// (`now` unknown: no relative part).
pub fn local_and_relative(
    time: &str,
    tz: Option<&jiff::tz::TimeZone>,
    now: Option<jiff::Timestamp>,
) -> String {
    let w = When::at(time, tz, now.unwrap_or_else(jiff::Timestamp::now));
    match now {
        Some(_) => format!("{} ({})", w.local, w.relative),
        None => w.local,
    }
}

/// `seconds` ago as git's relative dates say it ("2 hours ago").
pub fn relative(seconds: i64) -> String {
    if seconds < 0 {
        return "in the future".into();
    }
    let unit = |k: i64, name: &str| format!("{k} {name}{} ago", if k == 1 { "" } else { "s" });
    let days = (seconds + 43_200) / 86_400;
    match seconds {
        s if s < 90 => unit(s, "second"),
        s if s < 90 * 60 => unit((s + 30) / 60, "minute"),
        s if s < 36 * 3600 => unit((s + 1800) / 3600, "hour"),
        s if s < 14 * 86_400 => unit(days, "day"),
        s if s < 70 * 86_400 => unit((days + 3) / 7, "week"),
        s if s < 365 * 86_400 => unit((days + 15) / 30, "month"),
        _ => unit((days + 183) / 365, "year"),
    }
}

/// `status`: one block per thread of this worktree.
pub fn status(s: &StatusOutcome, out: &mut dyn Write) -> io::Result<()> {
    if s.threads.is_empty() {
        return writeln!(out, "no threads in this worktree");
    }
    for t in &s.threads {
        let against = t
            .compared_with
            .map(|c| format!(" (a placeholder; compared with turn {c})"))
            .unwrap_or_default();
        writeln!(
            out,
            "thread {}: latest turn {}{against}",
            safe(&t.thread),
            t.latest
        )?;
        if t.uncaptured.is_empty() {
            writeln!(out, "  nothing changed since it")?;
        } else {
            let n = t.uncaptured.len();
            writeln!(
                out,
                "  {n} path{} changed since it, not captured:",
                if n == 1 { "" } else { "s" }
            )?;
            for (p, k) in t.uncaptured.iter().zip(&t.kinds) {
                writeln!(out, "    {} {}", letter(*k), quote_path(&p.0))?;
            }
        }
        if t.revert_in_progress {
            writeln!(
                out,
                "  a revert stopped half-way: git t3 revert --continue --thread {} (or --abort)",
                safe(&t.thread)
            )?;
        }
    }
    Ok(())
}

fn letter(k: ChangeKind) -> char {
    match k {
        ChangeKind::Added => 'A',
        ChangeKind::Deleted => 'D',
        ChangeKind::Modified => 'M',
        ChangeKind::Renamed => 'R',
        ChangeKind::Copied => 'C',
        ChangeKind::TypeChanged => 'T',
    }
}

/// `rev`: the commit id alone, for `$(git t3 rev …)`.
pub fn rev(r: &RevOutcome, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{}", r.commit)
}

/// `restore`: one line per path written or deleted.
pub fn restore(r: &RestoreOutcome, quiet: bool, out: &mut dyn Write) -> io::Result<()> {
    if quiet {
        return Ok(());
    }
    let files = &r.restored.files;
    for p in &files.write {
        writeln!(out, "restored {}", quote_path(&p.0))?;
    }
    for p in &files.delete {
        writeln!(out, "deleted {}", quote_path(&p.0))?;
    }
    for p in &files.kept {
        writeln!(out, "kept {} (ignored by the turn's rules)", quote_path(&p.0))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::relative;

    #[test]
    fn relative_dates_read_like_git() {
        assert_eq!(relative(1), "1 second ago");
        assert_eq!(relative(89), "89 seconds ago");
        assert_eq!(relative(90), "2 minutes ago");
        assert_eq!(relative(2 * 3600), "2 hours ago");
        assert_eq!(relative(3 * 86_400), "3 days ago");
        assert_eq!(relative(21 * 86_400), "3 weeks ago");
        assert_eq!(relative(100 * 86_400), "3 months ago");
        assert_eq!(relative(800 * 86_400), "2 years ago");
        assert_eq!(relative(-5), "in the future");
    }
}
