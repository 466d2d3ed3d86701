//! `diff`'s options read in the order they were given, as git's
//! parse-options acts on them one after the other: the outputs asked for
//! (`-s` wipes those before it; the names alone shut out the rest), the
//! stat's widths and the dirstat's parameters built up option by option,
//! the names' prefixes, the colour and the word diff, where the last one
//! given wins.

use super::DiffArgs;
use super::seen::{ABSENT, strtoul};
use crate::commands::diff::{Formats, Names, StatWidths};
use crate::diff::dirstat::Params;
use crate::diff::words::Mode;
use crate::error::{Error, Result};

/// The outputs asked for, as git's `output_format` ends up after every
/// option acted in turn, and whether `--compact-summary` notes the stat's
/// names.
pub(super) fn formats(a: &DiffArgs, repo: &gix::Repository) -> Result<(Formats, bool)> {
    let seen = &a.seen;
    // `-s` sets "no output" over everything before it.
    let reset = seen.last("no_patch");
    let on = |id: &str| seen.last(id).is_some_and(|i| Some(i) > reset);
    // Every output option but the names turns "no output" off.
    const CLEARS: &[&str] = &[
        "patch",
        "binary",
        "stat",
        "patch_with_stat",
        "numstat",
        "unified",
        "shortstat",
        "summary",
        "compact_summary",
        "dirstat",
        "cumulative",
        "dirstat_by_file",
    ];
    let no_output = reset.is_some_and(|s| CLEARS.iter().all(|id| seen.last(id).is_none_or(|i| i < s)));
    let (name_only, name_status) = (on("name_only"), on("name_status"));
    if [name_only, name_status, no_output].iter().filter(|b| **b).count() > 1 {
        return Err(Error::usage(
            "options '--name-only', '--name-status', '--check', and '-s' cannot be used together",
        ));
    }
    let compact = seen.last("compact_summary") > seen.last("no_compact_summary");
    // git reads the dirstat's parameters as they come, before `-s` or not.
    let dirstat = ["dirstat", "cumulative", "dirstat_by_file"]
        .iter()
        .any(|id| seen.last(id).is_some())
        .then(|| dirstat_params(a, repo))
        .transpose()?;
    let mut f = Formats::default();
    if name_only || name_status {
        f.names = Some(if name_only { Names::Only } else { Names::Status });
        return Ok((f, compact));
    }
    f.patch = ["patch", "binary", "patch_with_stat", "unified"]
        .iter()
        .any(|id| on(id));
    f.stat = ["stat", "patch_with_stat", "compact_summary"]
        .iter()
        .any(|id| on(id));
    f.numstat = on("numstat");
    f.shortstat = on("shortstat");
    f.summary = on("summary");
    if ["dirstat", "cumulative", "dirstat_by_file"]
        .iter()
        .any(|id| on(id))
    {
        f.dirstat = dirstat;
    }
    if f == Formats::default() && !no_output {
        f.patch = true;
    }
    Ok((f, compact))
}

/// `--dirstat`, `--cumulative` and `--dirstat-by-file` in turn over
/// `diff.dirstat` (its unknown parameters left out: git warns of them)
/// over git's default, `changes,noncumulative,3`.
fn dirstat_params(a: &DiffArgs, repo: &gix::Repository) -> Result<Params> {
    let mut p = Params::default();
    if let Some(v) = repo.config_snapshot().string("diff.dirstat") {
        p = p.parse_lenient(&v.to_string()).0;
    }
    let mut given: Vec<(usize, &str)> = Vec::new();
    given.extend(
        a.seen
            .all("dirstat")
            .iter()
            .copied()
            .zip(a.git.dirstat.iter().map(String::as_str)),
    );
    if let Some(i) = a.seen.last("cumulative") {
        given.push((i, "cumulative"));
    }
    for (i, more) in a.seen.all("dirstat_by_file").iter().zip(&a.git.dirstat_by_file) {
        given.push((*i, "files"));
        given.push((*i, more));
    }
    given.sort_by_key(|(i, _)| *i);
    for (_, text) in given {
        p = p
            .parse(text)
            .map_err(|e| Error::usage(format!("--dirstat={text}: {e}")))?;
    }
    Ok(p)
}

/// The lines of context `-U<n>`/`--unified=<n>` ask for (the last number
/// given; `-U` alone keeps the one before), if any.
pub(super) fn context(a: &DiffArgs) -> Result<Option<u32>> {
    let mut n = None;
    for value in a.unified.iter().filter(|v| *v != ABSENT) {
        let parsed = if value.is_empty() {
            Ok(0)
        } else {
            value.trim_start().parse()
        };
        n = Some(parsed.map_err(|_| Error::usage(format!("--unified={value}: want a number of lines"))))
            .transpose()?;
    }
    Ok(n)
}

/// `--stat=<width>[,<name-width>[,<count>]]`, each given over the one
/// before as git reads them, over `diff.statNameWidth`,
/// `diff.statGraphWidth` and the terminal's width (else 80).
pub(super) fn stat_widths(
    a: &DiffArgs,
    repo: &gix::Repository,
    term: &crate::output::pager::Terminal,
) -> Result<StatWidths> {
    let config = repo.config_snapshot();
    let number = |key: &str| {
        config
            .integer(key)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0)
    };
    // git's starting values: -1, the terminal's width and the settings.
    let (mut width, mut name, mut count) = (-1i32, -1i32, 0i32);
    for value in a.stat.iter().filter(|v| *v != ABSENT) {
        let bad = || Error::usage(format!("invalid --stat value: {value}"));
        let (w, mut rest) = strtoul(value);
        width = w as i32;
        if let Some(more) = rest.strip_prefix(',') {
            let (n, after) = strtoul(more);
            (name, rest) = (n as i32, after);
        }
        if let Some(more) = rest.strip_prefix(',') {
            let (n, after) = strtoul(more);
            (count, rest) = (n as i32, after);
        }
        if !rest.is_empty() {
            return Err(bad());
        }
    }
    let positive = |n: i32| usize::try_from(n).unwrap_or(0);
    Ok(StatWidths {
        width: match width {
            -1 => term.columns.unwrap_or(80),
            0 => 80,
            n => positive(n),
        },
        name: if name == -1 {
            number("diff.statNameWidth")
        } else {
            positive(name)
        },
        graph: number("diff.statGraphWidth"),
        count: positive(count),
    })
}

/// The names' prefixes in a patch: `--src-prefix`/`--dst-prefix`,
/// `--no-prefix` and `--default-prefix` in the order given, over
/// `diff.noprefix`, `diff.mnemonicPrefix` (`c/` for the commit, `w/` for
/// the live worktree, as `git diff HEAD` writes them; two trees keep `a/`
/// and `b/`) and `diff.srcPrefix`/`diff.dstPrefix`.
pub(super) fn prefixes(a: &DiffArgs, repo: &gix::Repository, live_worktree: bool) -> [String; 2] {
    let config = repo.config_snapshot();
    let setting = |key: &str, default: &str| config.string(key).map_or(default.into(), |v| v.to_string());
    let mut p: [String; 2] = if config.boolean("diff.noprefix").unwrap_or(false) {
        [String::new(), String::new()]
    } else if config.boolean("diff.mnemonicPrefix").unwrap_or(false) {
        if live_worktree {
            ["c/".into(), "w/".into()]
        } else {
            ["a/".into(), "b/".into()]
        }
    } else {
        [setting("diff.srcPrefix", "a/"), setting("diff.dstPrefix", "b/")]
    };
    let g = &a.git;
    let options: [(&str, [Option<&str>; 2]); 4] = [
        ("no_prefix", [Some(""), Some("")]),
        ("default_prefix", [Some("a/"), Some("b/")]),
        ("src_prefix", [g.src_prefix.as_deref(), None]),
        ("dst_prefix", [None, g.dst_prefix.as_deref()]),
    ];
    let mut given: Vec<(usize, [Option<&str>; 2])> = options
        .iter()
        .filter_map(|(id, sides)| a.seen.last(id).map(|i| (i, *sides)))
        .collect();
    given.sort_by_key(|(i, _)| *i);
    for (_, sides) in given {
        for (side, value) in p.iter_mut().zip(sides) {
            if let Some(v) = value {
                *side = v.to_owned();
            }
        }
    }
    if g.reverse {
        // git swaps the prefixes with the sides.
        p.swap(0, 1);
    }
    p
}

/// Where the colour comes from, as git's `use_color` goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Colour {
    /// `color.diff`, `color.ui` (nothing given).
    Settings,
    Always,
    Never,
    Auto,
}

/// One option that changes the colour or the word diff.
enum Said<'a> {
    WordDiff(&'a str),
    ColorWords(&'a str),
    WordRegex(&'a str),
    Color(&'a str),
    NoColor,
    Output,
}

/// Whether to colour, and the word diff asked for: `--color`,
/// `--no-color`, `--color-words`, `--word-diff` (`--word-diff=color` and
/// `--color-words` colour; `--word-diff` alone keeps a mode given before)
/// and `--output` (no colour unless it is `always`), in the order given;
/// also the word regex the command line leaves (`--word-diff-regex`, which
/// asks for a plain word diff if none is, and `--color-words[=<regex>]`,
/// each replacing the one before, as git's).
pub(super) fn colour_and_words(
    a: &DiffArgs,
    repo: &gix::Repository,
    term: &crate::output::pager::Terminal,
) -> Result<(bool, Option<Mode>, Option<String>)> {
    let seen = &a.seen;
    let mut said: Vec<(usize, Said<'_>)> = Vec::new();
    said.extend(
        seen.all("word_diff")
            .iter()
            .zip(&a.git.word_diff)
            .map(|(i, v)| (*i, Said::WordDiff(v))),
    );
    said.extend(
        seen.all("word_diff_regex")
            .iter()
            .zip(&a.git.word_diff_regex)
            .map(|(i, v)| (*i, Said::WordRegex(v))),
    );
    if let (Some(i), Some(r)) = (seen.last("color_words"), &a.git.color_words) {
        said.push((i, Said::ColorWords(r)));
    }
    let mut add = |id: &str, s: Said<'static>| {
        if let Some(i) = seen.last(id) {
            said.push((i, s));
        }
    };
    add("no_color", Said::NoColor);
    add("output", Said::Output);
    if let (Some(i), Some(c)) = (seen.last("color"), &a.color) {
        said.push((i, Said::Color(c)));
    }
    said.sort_by_key(|(i, _)| *i);
    let config_always = crate::output::pager::color_setting(repo).as_deref() == Some("always");
    let (mut colour, mut mode, mut regex) = (Colour::Settings, None, None);
    for (_, s) in said {
        match s {
            Said::WordDiff(v) => {
                mode = match v {
                    ABSENT => mode.or(Some(Mode::Plain)),
                    "plain" => Some(Mode::Plain),
                    "porcelain" => Some(Mode::Porcelain),
                    "none" => None,
                    "color" => {
                        colour = Colour::Always;
                        Some(Mode::Color)
                    }
                    _ => {
                        return Err(Error::usage(format!(
                            "--word-diff={v}: use plain, color, porcelain or none"
                        )));
                    }
                }
            }
            Said::ColorWords(r) => {
                (colour, mode) = (Colour::Always, Some(Mode::Color));
                regex = (!r.is_empty()).then(|| r.to_owned());
            }
            Said::WordRegex(r) => {
                mode = mode.or(Some(Mode::Plain));
                regex = Some(r.to_owned());
            }
            Said::NoColor => colour = Colour::Never,
            Said::Color(c) => {
                colour = match c.to_ascii_lowercase().as_str() {
                    "always" => Colour::Always,
                    "never" => Colour::Never,
                    "auto" => Colour::Auto,
                    _ => return Err(Error::usage(format!("--color={c}: use always, never or auto"))),
                }
            }
            Said::Output => {
                if colour != Colour::Always && !(colour == Colour::Settings && config_always) {
                    colour = Colour::Never;
                }
            }
        }
    }
    let color = match colour {
        Colour::Always => true,
        Colour::Never => false,
        Colour::Auto => term.stdout_is_terminal && !term.no_color,
        Colour::Settings => crate::output::pager::use_color(repo, term),
    };
    Ok((color, mode, regex))
}
