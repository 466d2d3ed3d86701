//! Line-level facts about two texts: git's binary rule, lines added and
//! deleted (`git diff --numstat`), and lines as interned tokens,
//! exact or with all whitespace squeezed out like `--ignore-all-space`
//! (gix has no whitespace-ignoring diff).

use gix::diff::blob::{Diff, InternedInput};
use gix::objs::tree::EntryKind;

use crate::diff::changes::{TreeChange, load};
pub use crate::diff::space::{Space, Squeezed, intern};
use crate::error::{Context as _, Result};

/// How git decides that a blob is binary: a NUL in its first 8000 bytes.
const BINARY_SNIFF: usize = 8000;

/// What a file's attributes change in how its content is counted: its
/// diff driver's `binary` for each side (`None`: as the content says), and
/// the algorithm a driver set (`diff.<driver>.algorithm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Treat {
    /// Old side, new side: binary (`Some(true)`), text (`Some(false)`), or
    /// as git's rule finds the content.
    pub binary: [Option<bool>; 2],
    /// The algorithm instead of the diff's.
    pub algorithm: Option<Algorithm>,
}

impl Treat {
    /// Whether either side is binary: by its driver, else by its content.
    pub fn is_binary(&self, old: &[u8], new: &[u8]) -> bool {
        self.binary[0].unwrap_or_else(|| is_binary(old)) || self.binary[1].unwrap_or_else(|| is_binary(new))
    }
}

/// Line counts of one change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Lines added.
    pub additions: u64,
    /// Lines deleted.
    pub deletions: u64,
    /// Either side is binary; the counts are then 0.
    pub binary: bool,
}

/// git's rule: a NUL in the first 8000 bytes makes a blob binary.
pub fn is_binary(data: &[u8]) -> bool {
    data[..data.len().min(BINARY_SNIFF)].contains(&0)
}

/// Count the lines a change adds and deletes with `algorithm` ([`algorithm`]
/// reads it from the config once per diff), like `git diff --numstat` (with
/// `-w`, `-b` or `--ignore-space-at-eol` as `space` says).
pub fn count(
    repo: &gix::Repository,
    change: &TreeChange,
    space: Space,
    algorithm: Algorithm,
    treat: Treat,
) -> Result<Counts> {
    let [counts] = count_modes(repo, change, [space], algorithm, treat)?;
    Ok(counts)
}

/// [`count`] in several whitespace modes from one read of the blobs.
pub fn count_modes<const N: usize>(
    repo: &gix::Repository,
    change: &TreeChange,
    modes: [Space; N],
    algorithm: Algorithm,
    treat: Treat,
) -> Result<[Counts; N]> {
    let algorithm = treat.algorithm.unwrap_or(algorithm);
    // A blob too large to read whole is summarised like a binary one: a
    // diff's memory stays bounded whatever the file size.
    if is_large(repo, change.old)? || is_large(repo, change.new)? {
        return Ok([Counts {
            binary: true,
            ..Counts::default()
        }; N]);
    }
    let (old, new) = (load(repo, change.old)?, load(repo, change.new)?);
    let (Some(old), Some(new)) = (old, new) else {
        // git shows a gitlink as one "Subproject commit <id>" line.
        return Ok([Counts {
            additions: u64::from(change.new.is_some_and(|s| s.kind == EntryKind::Commit)),
            deletions: u64::from(change.old.is_some_and(|s| s.kind == EntryKind::Commit)),
            binary: false,
        }; N]);
    };
    if treat.is_binary(&old, &new) {
        return Ok([Counts {
            binary: true,
            ..Counts::default()
        }; N]);
    }
    Ok(modes.map(|ws| line_counts_with(&old, &new, ws, algorithm)))
}

/// Blobs larger than this are not read whole to count lines or build hunks;
/// they are shown like binary files ("Binary files differ").
pub const LARGE_BLOB: u64 = 32 << 20;

/// Whether one side of a change is a blob above [`LARGE_BLOB`] (read from
/// its header, not its content).
pub fn is_large(repo: &gix::Repository, side: Option<crate::diff::changes::Side>) -> Result<bool> {
    let Some(side) = side.filter(|s| s.kind != EntryKind::Commit) else {
        return Ok(false);
    };
    let header = repo
        .find_header(side.id)
        .context(|| format!("could not read the header of blob {}", side.id))?;
    Ok(header.size() > LARGE_BLOB)
}

/// A diff algorithm, as `diff.algorithm` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// git's default: Myers with xdiff's pre-pass that discards lines
    /// frequent in the other file and its cost heuristics (gix's port), so
    /// counts and hunks are what `git diff` says, in bounded time.
    Myers,
    /// Myers without the cost cut-offs (`minimal`), as the user's git runs
    /// it: before git 2.50 its pre-pass still set frequent lines aside
    /// (`frequency_limit`), since then it does not.
    Minimal {
        /// The pre-pass keeps its frequency limit (git before 2.50).
        frequency_limit: bool,
    },
    /// Patience diff (`patience`, [`crate::diff::patience`]).
    Patience,
    /// xdiff's histogram diff (`histogram`, [`crate::diff::xdiff::histogram`]).
    Histogram,
}

/// The diff algorithm `diff.algorithm` names (git's default when unset or
/// unknown).
pub fn algorithm(repo: &gix::Repository) -> Algorithm {
    let config = repo.config_snapshot();
    config
        .string("diff.algorithm")
        .and_then(|v| Algorithm::from_name(&v.to_string()))
        .unwrap_or(Algorithm::Myers)
}

impl Algorithm {
    /// The algorithm git's `parse_algorithm_value` reads `name` as (case
    /// ignored): `myers` or `default`, `minimal`, `patience`, `histogram`.
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Some(match name.to_ascii_lowercase().as_str() {
            "myers" | "default" => Algorithm::Myers,
            "minimal" => Algorithm::Minimal {
                frequency_limit: git_before(2, 50),
            },
            "patience" => Algorithm::Patience,
            "histogram" => Algorithm::Histogram,
            _ => return None,
        })
    }
}

/// Whether the `git` on `PATH` is older than `major.minor` (asked once per
/// process; an unreadable answer counts as a current git).
fn git_before(major: u32, minor: u32) -> bool {
    static VERSION: std::sync::OnceLock<Option<(u32, u32)>> = std::sync::OnceLock::new();
    let version = VERSION.get_or_init(|| {
        let mut command = std::process::Command::new("git");
        command.arg("version");
        let options = crate::child::Options {
            stdout: true,
            stdout_cap: Some(256),
            timeout: Some(std::time::Duration::from_secs(10)),
            ..Default::default()
        };
        let done = crate::child::run(&mut command, options, crate::interrupt::process()).ok()?;
        parse_git_version(&String::from_utf8_lossy(&done.stdout))
    });
    version.is_some_and(|v| v < (major, minor))
}

/// `git version 2.47.3` (or `2.39.5.windows.1`) → (2, 47).
fn parse_git_version(text: &str) -> Option<(u32, u32)> {
    let number = text.trim().strip_prefix("git version ")?;
    let mut parts = number.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts
        .next()?
        .trim_end_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .ok()?;
    Some((major, minor))
}

/// The lines of `input` each side removed or added, by `algorithm`
/// (before hunks are compacted and placed).
pub fn compute(algorithm: Algorithm, input: &InternedInput<&[u8]>) -> Diff {
    use gix::diff::blob::Algorithm as Imara;
    let (before, after, n) = (&input.before, &input.after, input.interner.num_tokens());
    match algorithm {
        Algorithm::Myers => Diff::compute(Imara::Myers, input),
        Algorithm::Minimal { frequency_limit } => {
            let mode = crate::diff::xdiff::Mode {
                minimal: true,
                frequency_limit,
            };
            let (removed, added) = crate::diff::xdiff::myers::diff(before, after, n, mode);
            crate::diff::patience::diff_from_marks(&removed, &added)
        }
        Algorithm::Histogram => {
            let (removed, added) = crate::diff::xdiff::histogram::diff(before, after, n);
            crate::diff::patience::diff_from_marks(&removed, &added)
        }
        Algorithm::Patience => super::patience::diff(before, after, n),
    }
}

/// Lines added and deleted between two texts, with git's default algorithm.
pub fn line_counts(old: &[u8], new: &[u8], ignore_whitespace: bool) -> Counts {
    line_counts_with(old, new, Space::from(ignore_whitespace), Algorithm::Myers)
}

/// Lines added and deleted between two texts, with `algorithm`.
pub fn line_counts_with(old: &[u8], new: &[u8], space: Space, algorithm: Algorithm) -> Counts {
    if old == new {
        return Counts::default();
    }
    let mut scratch = Squeezed::default();
    let input = intern(old, new, space, &mut scratch);
    let diff = compute(algorithm, &input);
    Counts {
        additions: u64::from(diff.count_additions()),
        deletions: u64::from(diff.count_removals()),
        binary: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines_like_git() {
        let c = line_counts(b"a\nb\nc\n", b"a\nB\nc\nd\n", false);
        assert_eq!((c.additions, c.deletions), (2, 1));
        // A missing newline at the end is a change of that line.
        let c = line_counts(b"x", b"x\n", false);
        assert_eq!((c.additions, c.deletions), (1, 1));
    }

    #[test]
    fn ignores_all_whitespace_like_git_w() {
        let c = line_counts(b"fn a() {}\nfn b() {}\n", b"fn a() {  }\n    fn b() {}\n", true);
        assert_eq!((c.additions, c.deletions), (0, 0));
        let c = line_counts(b"x", b"x\n", true);
        assert_eq!((c.additions, c.deletions), (0, 0));
        let c = line_counts(b"a\r\nb\r\n", b"a\nb\nc\n", true);
        assert_eq!((c.additions, c.deletions), (1, 0));
        // git's isspace keeps vertical tab and form feed.
        let c = line_counts(b"a\x0b\nb\x0c\n", b"a\nb\n", true);
        assert_eq!((c.additions, c.deletions), (2, 2));
    }

    #[test]
    fn patience_is_computed_by_the_patience_module() {
        let mut input = InternedInput::default();
        input.update_before(b"a\nb\nc\nb\n".split_inclusive(|b| *b == b'\n'));
        input.update_after(b"c\nb\na\nd\n".split_inclusive(|b| *b == b'\n'));
        let hunks = |d: &Diff| d.hunks().map(|h| (h.before, h.after)).collect::<Vec<_>>();
        let ours = crate::diff::patience::diff(&input.before, &input.after, input.interner.num_tokens());
        assert_eq!(hunks(&compute(Algorithm::Patience, &input)), hunks(&ours));
    }

    #[test]
    fn binary_is_a_nul_in_the_first_8000_bytes() {
        assert!(is_binary(b"a\0b"));
        let mut late = vec![b'a'; 9000];
        late.push(0);
        assert!(!is_binary(&late));
    }
}
