//! `diff`'s options that mirror `git diff`'s: supported with git's meaning
//! and output, or refused by name (never silently ignored).

use clap::Args;

use crate::error::{Error, Result};

/// git's own diff options beyond format, context and algorithm.
#[derive(Debug, Args, Default)]
pub struct GitDiffArgs {
    /// Slide ambiguous hunks to indentation boundaries (git's default; `diff.indentHeuristic`)
    #[arg(long, overrides_with = "no_indent_heuristic")]
    pub indent_heuristic: bool,
    /// Leave ambiguous hunks where the algorithm put them (`diff.indentHeuristic=false`)
    #[arg(long, overrides_with = "indent_heuristic")]
    pub no_indent_heuristic: bool,
    /// Swap the two sides (show the change from new to old)
    #[arg(short = 'R')]
    pub reverse: bool,
    /// Only files whose status is one of these letters (A, C, D, M, R, T; lowercase: all but these; `*`: all or none)
    #[arg(long, value_name = "FILTER")]
    pub diff_filter: Vec<String>,
    /// Prefix of the old side's names instead of `a/`
    #[arg(long, value_name = "PREFIX", allow_hyphen_values = true)]
    pub src_prefix: Option<String>,
    /// Prefix of the new side's names instead of `b/`
    #[arg(long, value_name = "PREFIX", allow_hyphen_values = true)]
    pub dst_prefix: Option<String>,
    /// No `a/` and `b/` prefixes
    #[arg(long)]
    pub no_prefix: bool,
    /// `a/` and `b/` whatever `diff.noprefix` and `diff.mnemonicPrefix` say
    #[arg(long)]
    pub default_prefix: bool,
    /// Write the diff to FILE instead of standard output
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    pub output: Option<std::path::PathBuf>,
    /// Only the last line of --stat (files changed, insertions, deletions)
    #[arg(long)]
    pub shortstat: bool,
    /// Created, deleted, renamed and mode-changed files, one line each
    #[arg(long)]
    pub summary: bool,
    /// A --stat whose names say "(new)", "(gone)", "(mode +x)", ...
    #[arg(long)]
    pub compact_summary: bool,
    /// Names in --stat without --compact-summary's notes
    #[arg(long)]
    pub no_compact_summary: bool,
    /// Merge hunks this many lines apart or closer (`diff.interHunkContext`)
    #[arg(long, value_name = "N")]
    pub inter_hunk_context: Option<u32>,
    /// Ignore changes in the amount of whitespace (and at line ends)
    #[arg(short = 'b', long)]
    pub ignore_space_change: bool,
    /// Ignore whitespace at line ends
    #[arg(long)]
    pub ignore_space_at_eol: bool,
    /// Show the whole function around each change as context
    #[arg(short = 'W', long, overrides_with = "no_function_context")]
    pub function_context: bool,
    /// Only the context lines asked for (over -W)
    #[arg(long, overrides_with = "function_context")]
    pub no_function_context: bool,
    /// Leave out changes whose lines are all blank
    #[arg(long)]
    pub ignore_blank_lines: bool,
    /// Show changed words: plain (`[-old-]{+new+}`, the default), color, porcelain or none
    #[arg(long, value_name = "MODE", num_args = 0..=1, require_equals = true, default_missing_value = super::seen::ABSENT)]
    pub word_diff: Vec<String>,
    /// Show changed words by colour alone (--word-diff=color), words as REGEX matches them if given
    #[arg(long, value_name = "REGEX", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    pub color_words: Option<String>,
    /// What a word is for --word-diff (a POSIX extended regex; implies --word-diff)
    #[arg(long, value_name = "REGEX")]
    pub word_diff_regex: Vec<String>,
    /// Each directory's share of the change: changes, lines or files, cumulative, a cut-off percentage (-X<PARAM>)
    #[arg(long, value_name = "PARAM", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    pub dirstat: Vec<String>,
    /// --dirstat=cumulative
    #[arg(long)]
    pub cumulative: bool,
    /// --dirstat=files,PARAM
    #[arg(long, value_name = "PARAM", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    pub dirstat_by_file: Vec<String>,
    /// Hex digits of the ids on `index` lines (`core.abbrev`; at least 4)
    #[arg(long, value_name = "N", num_args = 0..=1, require_equals = true, default_missing_value = super::seen::ABSENT, overrides_with = "no_abbrev")]
    pub abbrev: Option<String>,
    /// Colour moved lines: zebra (the default), blocks, plain, dimmed-zebra or no (`diff.colorMoved`)
    #[arg(long, value_name = "MODE", num_args = 0..=1, require_equals = true, default_missing_value = "", overrides_with = "no_color_moved")]
    pub color_moved: Option<String>,
    /// Do not colour moved lines
    #[arg(long, overrides_with = "color_moved")]
    pub no_color_moved: bool,
    /// How moved lines compare: ignore-space-change, ignore-space-at-eol, ignore-all-space, allow-indentation-change, no (`diff.colorMovedWS`)
    #[arg(long, value_name = "MODES", overrides_with = "no_color_moved_ws")]
    pub color_moved_ws: Option<String>,
    /// Moved lines compare byte for byte
    #[arg(long, overrides_with = "color_moved_ws")]
    pub no_color_moved_ws: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub renames: super::renames::RenameArgs,
    /// The ids on `index` lines as `core.abbrev` says (over --abbrev)
    #[arg(long, overrides_with = "abbrev")]
    pub no_abbrev: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub refused: Refused,
}

/// Options of `git diff` git-t3 does not do yet: each is refused by name.
#[derive(Debug, Args, Default)]
pub struct Refused {
    /// Not supported yet (refused)
    #[arg(short = 'B', long, value_name = "N", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    pub break_rewrites: Option<String>,
}

impl Refused {
    /// The first option given that git-t3 refuses, as an error naming it.
    pub fn check(&self) -> Result<()> {
        match self.break_rewrites {
            Some(_) => Err(refused("-B/--break-rewrites")),
            None => Ok(()),
        }
    }
}

/// The error for an option or setting git-t3 cannot honour byte for byte.
pub fn refused(name: &str) -> Error {
    crate::compare::not_supported(name)
}

impl GitDiffArgs {
    /// `core.abbrev` as `--abbrev=N` sets it, if it does: read as git's
    /// `strtoul` reads it (`12x` is 12, `x` is 0), then 4 digits at least,
    /// 40 at most.
    pub fn abbrev(&self) -> Option<u32> {
        let n = self.abbrev.as_deref().filter(|n| *n != super::seen::ABSENT)?;
        let (n, _) = super::seen::strtoul(n);
        Some(n.clamp(4, 40) as u32)
    }

    /// The whitespace rule `-b` and `--ignore-space-at-eol` ask for, if any.
    pub fn space(&self) -> Option<crate::diff::lines::Space> {
        use crate::diff::lines::Space;
        if self.ignore_space_change {
            Some(Space::Change)
        } else if self.ignore_space_at_eol {
            Some(Space::AtEol)
        } else {
            None
        }
    }

    /// `--diff-filter`'s statuses, if given: every `--diff-filter` adds its
    /// letters, as in git.
    pub fn filter(&self) -> Result<Option<crate::diff::changes::StatusFilter>> {
        use crate::diff::changes::StatusFilter;
        for each in &self.diff_filter {
            StatusFilter::parse(each).map_err(Error::usage)?;
        }
        if self.diff_filter.is_empty() {
            return Ok(None);
        }
        StatusFilter::parse(&self.diff_filter.concat())
            .map(Some)
            .map_err(Error::usage)
    }

    /// `diff.indentHeuristic` as the flags set it, if they do.
    pub fn indent_heuristic(&self) -> Option<bool> {
        if self.no_indent_heuristic {
            Some(false)
        } else if self.indent_heuristic {
            Some(true)
        } else {
            None
        }
    }
}

/// What git's options change in what is compared and how hunks are cut
/// (`modes`: the files' modes are shown, by `--summary` or
/// `--compact-summary`).
pub(super) fn shape(
    g: &crate::cli::GitDiffArgs,
    filter: Option<crate::diff::changes::StatusFilter>,
    inter_hunk_setting: Option<u32>,
    modes: bool,
) -> Result<crate::commands::diff::Shape> {
    Ok(crate::commands::diff::Shape {
        reverse: g.reverse,
        function_context: g.function_context,
        ignore_blank_lines: g.ignore_blank_lines,
        space: g.space().unwrap_or_default(),
        filter,
        summary: modes,
        inter_hunk: g.inter_hunk_context.or(inter_hunk_setting).unwrap_or(0),
        renames: g.renames.asked()?,
        ignore_driver_algorithm: false,
    })
}

/// What git's options and settings change in how the diff is written.
pub(super) fn git_view(view: &mut crate::commands::diff::DiffView, g: &GitDiffArgs, repo: &gix::Repository) {
    view.suppress_blank_empty = repo
        .config_snapshot()
        .boolean("diff.suppressBlankEmpty")
        .unwrap_or(false);
    view.output.clone_from(&g.output);
}

/// A non-negative number setting of git's diff (`diff.context`), refused
/// like git refuses a bad one.
pub(super) fn diff_number(repo: &gix::Repository, key: &str) -> Result<Option<u32>> {
    let config = repo.config_snapshot();
    let Some(raw) = config.string(key) else {
        return Ok(None);
    };
    let bad = || Error::BadConfig {
        key: key.into(),
        value: raw.to_string(),
        origin: "git config".into(),
        problem: "want a number of lines, 0 or more".into(),
    };
    let n = config.integer(key).ok_or_else(bad)?;
    u32::try_from(n).map(Some).map_err(|_| bad())
}

/// How moved lines are coloured, if they are: `--color-moved[=<mode>]`
/// and `--color-moved-ws=<modes>` over `diff.colorMoved` and
/// `diff.colorMovedWS`. Like git, a setting it cannot parse stops the diff
/// even when the diff is not coloured.
pub(super) fn moved(g: &GitDiffArgs, repo: &gix::Repository) -> Result<Option<crate::diff::moved::Settings>> {
    use crate::diff::moved::{self, Mode, Settings};
    let config = repo.config_snapshot();
    let bad = |key: &str, value: String, problem: String| Error::BadConfig {
        key: key.into(),
        value,
        origin: "git config".into(),
        problem,
    };
    let setting = |key: &str| config.string(key).map(|v| v.to_string());
    let configured = match setting("diff.colorMoved") {
        Some(v) => Mode::parse(&v).map_err(|p| bad("diff.colorMoved", v, p))?,
        None => None,
    };
    let ws_configured = match setting("diff.colorMovedWS") {
        Some(v) => Some(moved::parse_ws(&v).map_err(|p| bad("diff.colorMovedWS", v, p))?),
        None => None,
    };
    let mode = match (g.no_color_moved, g.color_moved.as_deref()) {
        (true, _) => None,
        (false, Some("")) => Some(configured.unwrap_or(Mode::Zebra)),
        (false, Some(v)) => {
            Mode::parse(v).map_err(|p| Error::usage(format!("bad --color-moved argument: {v} ({p})")))?
        }
        (false, None) => configured,
    };
    let (space, indentation) = match (g.no_color_moved_ws, g.color_moved_ws.as_deref()) {
        (true, _) => Default::default(),
        (false, Some(v)) => moved::parse_ws(v)
            .map_err(|p| Error::usage(format!("invalid mode '{v}' in --color-moved-ws: {p}")))?,
        (false, None) => ws_configured.unwrap_or_default(),
    };
    Ok(mode.map(|mode| Settings {
        mode,
        space,
        indentation,
    }))
}
