//! Parsing the command line as git's parse-options would for `diff`: where
//! each option was given (git's options act in order, the last one wins),
//! and `-U<n>`/`-X<params>` whose value, as git's, only ever comes attached.

use std::collections::HashMap;
use std::ffi::OsString;

use clap::{CommandFactory, FromArgMatches};

use super::{Cli, Command};

/// Where on the command line each of `diff`'s options was given: the
/// positions of every value of an option that collects them, of the last
/// occurrence of one that does not (clap keeps the last).
#[derive(Debug, Clone, Default)]
pub struct Seen {
    at: HashMap<&'static str, Vec<usize>>,
}

/// The value clap records for an option given without one (`--stat`, not
/// `--stat=`): a NUL, which no argument can hold.
pub(super) const ABSENT: &str = "\0";

/// C's `strtoul` of `text`: leading blanks, a sign, decimal digits (a minus
/// wraps, as in C; too many digits: the largest value), and what is left.
pub(super) fn strtoul(text: &str) -> (u64, &str) {
    let t = text.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (negative, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return (0, text);
    }
    let (number, rest) = t.split_at(digits);
    let n = number.parse::<u64>().unwrap_or(u64::MAX);
    (if negative { n.wrapping_neg() } else { n }, rest)
}

/// `diff`'s options whose order matters (clap ids: the field names).
const ORDERED: &[&str] = &[
    "patch",
    "no_patch",
    "binary",
    "stat",
    "patch_with_stat",
    "numstat",
    "name_only",
    "name_status",
    "unified",
    "color",
    "no_color",
    "shortstat",
    "summary",
    "compact_summary",
    "no_compact_summary",
    "dirstat",
    "cumulative",
    "dirstat_by_file",
    "src_prefix",
    "dst_prefix",
    "no_prefix",
    "default_prefix",
    "output",
    "word_diff",
    "color_words",
    "word_diff_regex",
];

impl Seen {
    /// The positions of `diff`'s ordered options in `m`, given on the
    /// command line (not from the environment or a default).
    fn of(m: &clap::ArgMatches) -> Seen {
        let mut at = HashMap::new();
        for id in ORDERED {
            if m.value_source(id) != Some(clap::parser::ValueSource::CommandLine) {
                continue;
            }
            if let Some(indices) = m.indices_of(id) {
                at.insert(*id, indices.collect());
            }
        }
        Seen { at }
    }

    /// The position of each value of `id`, in order.
    pub fn all(&self, id: &str) -> &[usize] {
        self.at.get(id).map_or(&[], |v| v.as_slice())
    }

    /// Where `id` was given last.
    pub fn last(&self, id: &str) -> Option<usize> {
        self.all(id).last().copied()
    }
}

/// The command line parsed (clap's errors and help exit, as
/// `Cli::parse_from` does), with where `diff`'s options were given.
pub fn parse(args: Vec<OsString>) -> Cli {
    let args = attach_values(args);
    let matches = Cli::command().get_matches_from(args);
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.format(&mut Cli::command()).exit());
    if let (Command::Diff(d), Some(("diff", m))) = (&mut cli.command, matches.subcommand()) {
        d.seen = Seen::of(m);
    }
    cli
}

/// `diff`'s options that take their value as the next argument (so it is
/// left alone, whatever it looks like).
const TAKES_NEXT: &[&str] = &[
    "--thread",
    "--turn",
    "--from",
    "--to",
    "--diff-algorithm",
    "--diff-filter",
    "--src-prefix",
    "--dst-prefix",
    "--output",
    "--inter-hunk-context",
    "--word-diff-regex",
];

/// git's `-U` and `-X` take a value only when it is attached (`-U5`,
/// `-X10`; `-U 5` is `-U` and an argument `5`): spelt `--unified=5` and
/// `--dirstat=10` for clap, which cannot say so of a short option.
fn attach_values(args: Vec<OsString>) -> Vec<OsString> {
    let Some(diff) = subcommand_at(&args).filter(|i| args.get(*i).is_some_and(|a| a == "diff")) else {
        return args;
    };
    let mut out = Vec::with_capacity(args.len());
    let (mut paths, mut value_next) = (false, false);
    for (i, arg) in args.into_iter().enumerate() {
        if i <= diff || paths || std::mem::take(&mut value_next) {
            out.push(arg);
            continue;
        }
        match arg.to_str() {
            Some("--") => paths = true,
            Some(t) if TAKES_NEXT.contains(&t) => value_next = true,
            Some(t) if t.starts_with("-U") || t.starts_with("-X") => {
                let long = if t.starts_with("-U") {
                    "--unified"
                } else {
                    "--dirstat"
                };
                let rest = t.get(2..).unwrap_or_default();
                out.push(if rest.is_empty() {
                    long.into()
                } else {
                    format!("{long}={rest}").into()
                });
                continue;
            }
            _ => {}
        }
        out.push(arg);
    }
    out
}

/// The position of the subcommand in `args`: the first argument after the
/// program that is neither an option of git-t3's own nor `-C`'s path.
fn subcommand_at(args: &[OsString]) -> Option<usize> {
    let mut i = 1;
    while let Some(arg) = args.get(i) {
        match arg.to_str() {
            Some("-C") => i += 2,
            Some(a) if a.starts_with('-') => i += 1,
            _ => return Some(i),
        }
    }
    None
}
