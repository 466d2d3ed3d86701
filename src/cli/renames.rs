//! `diff`'s rename and copy options, as git's: `-M[<n>]`/`--find-renames`,
//! `-C[<n>]`/`--find-copies`, `--no-renames` (kept in their order: git
//! applies each in turn), `--find-copies-harder`, `-l<n>`,
//! `--[no-]rename-empty`. Only parsed here; `diff::changes::Detection`
//! decides what they mean with `diff.renames`.

use std::ffi::OsString;

use clap::{Arg, ArgAction, ArgMatches, Command};

use crate::diff::changes::{Asked, Step, parse_score};
use crate::error::{Error, Result};

/// The rename and copy options as given.
#[derive(Debug, Clone, Default)]
pub struct RenameArgs {
    /// `(position, letter, value)` of each `-M` (`M`), `-C` (`C`) and
    /// `--no-renames` (`N`), in command-line order.
    steps: Vec<(usize, char, String)>,
    harder: bool,
    limit: Option<i64>,
    empty: Option<bool>,
}

impl RenameArgs {
    /// What they ask of rename detection; a score git would refuse is a
    /// usage error.
    pub fn asked(&self) -> Result<Asked> {
        let mut steps = Vec::with_capacity(self.steps.len());
        for (_, letter, value) in &self.steps {
            let score = || {
                parse_score(value).ok_or_else(|| {
                    let name = if *letter == 'M' {
                        "find-renames"
                    } else {
                        "find-copies"
                    };
                    Error::usage(format!("invalid argument to {name}: {value}"))
                })
            };
            steps.push(match letter {
                'M' => Step::Renames(score()?),
                'C' => Step::Copies(score()?),
                _ => Step::Off,
            });
        }
        Ok(Asked {
            steps,
            harder: self.harder,
            limit: self.limit,
            empty: self.empty,
        })
    }
}

const RENAMES: &str = "find_renames";
const COPIES: &str = "find_copies";
const NO_RENAMES: &str = "no_renames";
const HARDER: &str = "find_copies_harder";
const LIMIT: &str = "rename_limit";
const EMPTY: &str = "rename_empty";
const NO_EMPTY: &str = "no_rename_empty";

impl clap::Args for RenameArgs {
    fn augment_args(cmd: Command) -> Command {
        let scored = |id: &'static str, long: &'static str, help: &'static str| {
            Arg::new(id)
                .long(long)
                .value_name("N")
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("")
                .action(ArgAction::Append)
                .help(help)
        };
        let flag = |id: &'static str, long: &'static str, help: &'static str| {
            Arg::new(id)
                .long(long)
                .action(ArgAction::SetTrue)
                .overrides_with(id)
                .help(help)
        };
        cmd.arg(
            scored(RENAMES, "find-renames", "Find renames of N% similarity or more (default 50%); -M[<N>]")
                .short('M'),
        )
        .arg(scored(
            COPIES,
            "find-copies",
            "Find copies of changed files, and renames (default 50%); -C[<N>] after diff, twice: --find-copies-harder",
        ))
        .arg(flag(
            HARDER,
            "find-copies-harder",
            "Find copies of unchanged files too",
        ))
        .arg(
            // Each one counts (its place among -M and -C): values, not a flag.
            Arg::new(NO_RENAMES)
                .long("no-renames")
                .num_args(0)
                .default_missing_value("")
                .action(ArgAction::Append)
                .help("Find no renames (over diff.renames)"),
        )
        .arg(
            Arg::new(LIMIT)
                .short('l')
                .value_name("N")
                .allow_negative_numbers(true)
                .value_parser(clap::value_parser!(i64))
                .help("Past N\u{b2} candidate pairs, find exact renames and copies only (diff.renameLimit)"),
        )
        .arg(flag(EMPTY, "rename-empty", "Empty files may be renamed or copied (git's default)").overrides_with(NO_EMPTY))
        .arg(flag(NO_EMPTY, "no-rename-empty", "Empty files are never renamed or copied").overrides_with(EMPTY))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl clap::FromArgMatches for RenameArgs {
    fn from_arg_matches(m: &ArgMatches) -> std::result::Result<Self, clap::Error> {
        let mut steps = Vec::new();
        for (id, letter) in [(RENAMES, 'M'), (COPIES, 'C')] {
            if let (Some(values), Some(at)) = (m.get_many::<String>(id), m.indices_of(id)) {
                steps.extend(at.zip(values).map(|(i, v)| (i, letter, v.clone())));
            }
        }
        if let Some(at) = m.indices_of(NO_RENAMES) {
            steps.extend(at.map(|i| (i, 'N', String::new())));
        }
        steps.sort_by_key(|s| s.0);
        let on = |id: &str| m.get_flag(id);
        Ok(RenameArgs {
            steps,
            harder: on(HARDER),
            limit: m.get_one::<i64>(LIMIT).copied(),
            empty: if on(NO_EMPTY) {
                Some(false)
            } else {
                on(EMPTY).then_some(true)
            },
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> std::result::Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

/// git's `-C[<n>]`, `-M[<n>]` and `-B[<n>]` after `diff`, as `--find-copies[=<n>]`,
/// `--find-renames[=<n>]` and `--break-rewrites[=<n>]` (`-C <path>` before the command stays the
/// directory to run in, as git's).
pub fn git_diff_shorts(args: Vec<OsString>) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut iter = args.into_iter();
    out.extend(iter.next());
    // The global options before the command; `-C` takes a value.
    let mut command = None;
    while let Some(arg) = iter.next() {
        let is_dir_flag = arg == "-C";
        let is_diff = arg == "diff";
        let plain = !arg.to_string_lossy().starts_with('-');
        out.push(arg);
        if is_dir_flag {
            out.extend(iter.next());
        } else if plain {
            command = Some(is_diff);
            break;
        }
    }
    if command != Some(true) {
        out.extend(iter);
        return out;
    }
    for arg in iter.by_ref() {
        if arg == "--" {
            out.push(arg);
            break;
        }
        let text = arg.to_str().unwrap_or_default();
        let long = match text.get(..2) {
            Some("-C") => Some("--find-copies"),
            Some("-M") => Some("--find-renames"),
            Some("-B") => Some("--break-rewrites"),
            _ => None,
        };
        match (long, text.get(2..)) {
            (Some(long), Some("")) => out.push(long.into()),
            (Some(long), Some(rest)) => out.push(format!("{long}={rest}").into()),
            _ => out.push(arg),
        }
    }
    out.extend(iter);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(args: &[&str]) -> Vec<String> {
        git_diff_shorts(args.iter().map(OsString::from).collect())
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect()
    }

    #[test]
    fn c_after_diff_finds_copies_and_before_it_is_a_directory() {
        assert_eq!(
            rewrite(&[
                "git-t3", "-C", "sub", "diff", "-C", "-C75%", "-M", "-M5", "--", "-C"
            ]),
            [
                "git-t3",
                "-C",
                "sub",
                "diff",
                "--find-copies",
                "--find-copies=75%",
                "--find-renames",
                "--find-renames=5",
                "--",
                "-C"
            ]
        );
        assert_eq!(
            rewrite(&["git-t3", "list", "-C", "x"]),
            ["git-t3", "list", "-C", "x"]
        );
        assert_eq!(
            rewrite(&["git-t3", "--json", "-Csub", "diff", "-Cx"]),
            ["git-t3", "--json", "-Csub", "diff", "--find-copies=x"]
        );
    }
}
