//! Man pages: `git-t3.1` and one page per command, generated from the clap
//! definitions, with the sections clap does not know (a synopsis that keeps
//! value names, EXAMPLES, EXIT STATUS, ENVIRONMENT, CONFIGURATION, FILES,
//! SEE ALSO), and where `man` finds them for a `cargo install` user.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::CommandFactory as _;

use super::Cli;

/// Write `git-t3.1` and one page per visible command into `man/man1`;
/// returns the files written, sorted.
pub fn generate(man: &Path) -> std::io::Result<Vec<PathBuf>> {
    // Section 1's pages, where `man -M <man>` (or MANPATH) looks for them.
    let dir = &man.join("man1");
    std::fs::create_dir_all(dir)?;
    let mut root = Cli::command().disable_help_subcommand(true);
    root.build();
    let mut written = vec![write_page(dir, "git-t3", &root, MAIN_EXTRA)?];
    for sub in root.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("git-t3-{}", sub.get_name());
        let extra = COMMAND_EXAMPLES
            .iter()
            .find(|(n, _)| *n == sub.get_name())
            .map_or("", |(_, text)| *text);
        written.push(write_page(dir, &name, sub, extra)?);
    }
    written.sort();
    Ok(written)
}

/// The man folder `git t3 mangen` writes into when none is given (the
/// pages go into its `man1`): `share/man` beside the `bin` folder holding
/// this program, whose `man1` `man` searches for every `bin` folder on
/// `PATH` (for `cargo install`, `~/.cargo/share/man/man1`).
pub fn default_dir() -> std::io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let prefix = exe
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| std::io::Error::other("cannot tell where git-t3 is installed"))?;
    Ok(prefix.join("share").join("man"))
}

/// The page for `--help` on `args` (`git-t3` or `git-t3-<command>`), when
/// git-t3 should show a man page instead of its built-in help: `--help`
/// (not `-h`) was asked for, stdout is a terminal and `man` knows the page.
/// git turns `git t3 --help` into `man git-t3` itself; this covers
/// `git-t3 --help` and `git t3 <command> --help`.
pub fn page_for_help(args: &[std::ffi::OsString], stdout_is_terminal: bool) -> Option<String> {
    let words: Vec<&str> = args.iter().skip(1).map(|a| a.to_str()).collect::<Option<_>>()?;
    let help_at = words.iter().position(|w| *w == "--help")?;
    if !stdout_is_terminal || words[..help_at].contains(&"--") {
        return None;
    }
    let root = Cli::command();
    let command = words[..help_at]
        .iter()
        .find(|w| !w.starts_with('-'))
        .and_then(|w| root.find_subcommand(w))
        .map(|c| c.get_name().to_owned());
    let page = command.map_or_else(|| "git-t3".to_owned(), |c| format!("git-t3-{c}"));
    let found = std::process::Command::new("man")
        .args(["-w", &page])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    found.then_some(page)
}

/// Show man page `page` and return its exit status (`man` not startable: 1).
pub fn show(page: &str) -> i32 {
    std::process::Command::new("man")
        .arg(page)
        .status()
        .map_or(1, |s| s.code().unwrap_or(1))
}

fn write_page(dir: &Path, name: &str, cmd: &clap::Command, extra: &str) -> std::io::Result<PathBuf> {
    let bin = match name.strip_prefix("git-t3-") {
        Some(sub) => format!("git t3 {sub}"),
        None => "git t3".to_owned(),
    };
    let cmd = cmd.clone().display_name(name.to_owned()).bin_name(bin);
    let man = clap_mangen::Man::new(cmd.clone());
    let mut page = Vec::new();
    // Like git's pages: title, section, (no) date, source, manual.
    writeln!(
        page,
        ".TH \"{}\" \"1\" \"\" \"git-t3 {}\" \"Git Manual\"",
        name.to_uppercase(),
        env!("CARGO_PKG_VERSION")
    )?;
    man.render_name_section(&mut page)?;
    page.write_all(synopsis(&cmd).as_bytes())?;
    man.render_description_section(&mut page)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut page)?;
    }
    if cmd.has_subcommands() {
        man.render_subcommands_section(&mut page)?;
    }
    page.write_all(escape_examples(extra).as_bytes())?;
    if name != "git-t3" {
        page.write_all(b".SH \"SEE ALSO\"\ngit-t3(1), git-diff(1), git-notes(1)\n")?;
    }
    let path = dir.join(format!("{name}.1"));
    std::fs::write(&path, &page)?;
    Ok(path)
}

/// `.SH SYNOPSIS` with every option and its value name, like git's pages:
/// `git t3 diff [--thread <ID>] [--turn <N>] … [-- <PATH>…]`.
fn synopsis(cmd: &clap::Command) -> String {
    let mut words = vec![format!(
        "\\fB{}\\fR",
        roff(cmd.get_bin_name().unwrap_or(cmd.get_name()))
    )];
    let mut positionals = Vec::new();
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        let id = arg.get_id().as_str();
        if id == "help" || id == "version" {
            continue;
        }
        let value = arg
            .get_value_names()
            .map(|names| {
                names
                    .iter()
                    .map(|n| format!(" \\fI<{}>\\fR", roff(n)))
                    .collect::<String>()
            })
            .filter(|_| arg.get_action().takes_values());
        let flag = match (arg.get_short(), arg.get_long()) {
            (Some(s), Some(l)) => format!("\\fB-{s}\\fR|\\fB--{}\\fR", roff(l)),
            (Some(s), None) => format!("\\fB-{s}\\fR"),
            (None, Some(l)) => format!("\\fB--{}\\fR", roff(l)),
            (None, None) => {
                let name = arg
                    .get_value_names()
                    .and_then(|n| n.first())
                    .map_or_else(|| id.to_uppercase(), ToString::to_string);
                let many = if arg.get_num_args().is_some_and(|n| n.max_values() > 1) {
                    "..."
                } else {
                    ""
                };
                let last = arg.is_last_set();
                let text = format!("\\fI<{}>\\fR{many}", roff(&name));
                positionals.push(match (arg.is_required_set(), last) {
                    (true, false) => text,
                    (true, true) => format!("\\fB--\\fR {text}"),
                    (false, false) => format!("[{text}]"),
                    (false, true) => format!("[\\fB--\\fR {text}]"),
                });
                continue;
            }
        };
        let value = value.unwrap_or_default();
        let optional_value = arg.get_num_args().is_some_and(|n| n.min_values() == 0) && !value.is_empty();
        let text = if optional_value {
            format!("{flag}[={}]", value.trim_start())
        } else {
            format!("{flag}{value}")
        };
        words.push(if arg.is_required_set() {
            text
        } else {
            format!("[{text}]")
        });
    }
    if cmd.has_subcommands() {
        words.push("\\fI<command>\\fR [\\fI<args>\\fR]".to_owned());
    }
    words.extend(positionals);
    // One option never breaks across lines (`\ ` is roff's unbreakable
    // space); the list wraps between options, left-aligned, unhyphenated.
    let words: Vec<String> = words.iter().map(|w| w.replace(' ', "\\ ")).collect();
    format!(".SH SYNOPSIS\n.ad l\n.nh\n{}\n.hy\n.ad\n", words.join(" "))
}

/// The sections in `extra` with the lines of each `.nf` … `.fi` block
/// (commands, written plainly) escaped for roff, so that `-` stays a
/// hyphen-minus a reader can copy.
fn escape_examples(extra: &str) -> String {
    let mut out = String::with_capacity(extra.len() + 64);
    let mut in_block = false;
    for line in extra.lines() {
        match line {
            ".nf" => in_block = true,
            ".fi" => in_block = false,
            _ if in_block => {
                out.push_str(&roff(line));
                out.push('\n');
                continue;
            }
            _ => {}
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Escape text for roff: backslashes, and a leading `.` or `'`.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// The sections of `git-t3.1` that clap knows nothing about.
const MAIN_EXTRA: &str = r#".SH EXAMPLES
.TP
Set up an agent's hooks once (Claude Code here; also --codex, --cursor, --opencode):
.nf
git t3 install-hooks --claude-code
.fi
.TP
Checkpoint by hand (the hooks do this each turn):
.nf
git t3 baseline --thread fix-login        # turn 0, before the agent starts
git t3 capture  --thread fix-login        # after each turn
.fi
.TP
Review what the agent did:
.nf
git t3 log  --thread fix-login --oneline
git t3 diff --thread fix-login --turn 3 -- src/
git t3 diff --thread fix-login --full --stat
git difftool $(git t3 rev --thread fix-login --turn 2)
git t3 review                             # the same in a browser page
.fi
.TP
Go back, and change your mind:
.nf
git t3 revert --thread fix-login --to 2
git t3 revert --thread fix-login --undo
git t3 restore --thread fix-login --turn 2 -- src/login.rs
git t3 op log
.fi
.TP
Share checkpoints with a teammate:
.nf
git t3 push origin
git t3 fetch origin
.fi
.SH "EXIT STATUS"
.TP
.B 0
The command did what it was asked.
.TP
.B 1
It failed; one line on standard error says why (with \fB--json\fR, a JSON
document with the error's kind). \fBdiff --exit\-code\fR and
\fBdiff --quiet\fR exit 1 when there are differences; \fBverify\fR exits 1
when it finds a problem.
.TP
.B 2
The command line was wrong (an unknown option, a bad value, an ambiguous
thread id).
.TP
.B 128+N
Stopped by signal N (130 for Ctrl-C) at a safe point; a revert can be
resumed with \fBrevert --continue\fR or undone with \fBrevert --abort\fR.
.SH ENVIRONMENT
.TP
.B T3_THREAD
The thread id when \fB--thread\fR is not given.
.TP
.B T3_LOCK_TIMEOUT
Seconds to wait for another git-t3 holding the repository lock.
.TP
.B T3_PROVIDER_TIMEOUT
Seconds a provider helper may run (overrides \fBt3.providerTimeout\fR).
.TP
.B T3_TRACE
When set, timings of each step on standard error (as \fB--timings\fR).
.TP
.B GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT, GIT_CONFIG_KEY_<n>, GIT_CONFIG_VALUE_<n>
Set by \fBgit \-c key=value t3 ...\fR (or by scripts); those settings win
over every configuration file, as in git.
.TP
.B GIT_PAGER, PAGER, LESS, LV
The pager for patches and logs on a terminal, as git chooses it
(\fBGIT_PAGER\fR, then \fBcore.pager\fR, then \fBPAGER\fR, then less with
\fBLESS=FRX\fR unless \fBLESS\fR is set).
.TP
.B GIT_PAGER_IN_USE
Set by \fBgit \-p\fR: output goes to git's pager, coloured unless
\fBcolor.pager\fR is false.
.TP
.B NO_COLOR, TERM, COLUMNS
No automatic colour when \fBNO_COLOR\fR is set or \fBTERM\fR is unset or
dumb; \fBCOLUMNS\fR sets the width of \fB--stat\fR.
.TP
.B GIT_T3_COMPLETE
Used by the completion scripts (\fBgit t3 completions\fR) to ask for
candidates.
.TP
.B GIT_DIR, GIT_WORK_TREE
Which repository, as for git.
.SH CONFIGURATION
Read with git's rules (system, global, repository, worktree, \fBgit \-c\fR).
.TP
.B t3.diff.ignoreWhitespace
Whether turn diffs ignore whitespace (default true; \fB--keep\-whitespace\fR
for one command).
.TP
.B t3.provider.<name>.command
The helper that rolls a conversation back for provider \fIname\fR
(default: \fBgit\-t3\-provider\-<name>\fR on PATH).
.TP
.B t3.providerTimeout
Seconds a provider helper may run (default 120).
.TP
.B t3.maxFileSize
Untracked files larger than this are left out of checkpoints and listed
in the note (default 10m; 0 for no limit).
.TP
.B t3.fsmonitor
Which file-system watcher a capture asks what changed since the last one:
\fBwatchman\fR (Watchman's command-line client), \fBhook\fR (the
fsmonitor hook \fBcore.fsmonitor\fR names, protocol version 2; the
default when \fBcore.fsmonitor\fR names a program) or \fBfalse\fR (no
watcher). Whatever the watcher does not list is taken from the capture
cache without being looked at; a watcher that fails or resets means a
full walk, with a notice.
.TP
.B core.fsyncMethod
How a capture flushes the objects it wrote before a ref names them:
\fBbatch\fR (each file written out, then one flush that covers them, as
git's batch mode; the default on ext4 and XFS), \fBfsync\fR (a full
flush of every file; the default elsewhere).
Ref files are always flushed in full.
.TP
.B t3.pruneAfter
Threads whose latest checkpoint is older than this (30d, 2w, 12h) are
pruned, at most once a day, in the background after a capture (default
30d; \fBnever\fR to keep every thread).
.TP
.B gc.auto, gc.autoPackLimit
As for git: when a capture finds more loose objects, or more packs (a
capture writes one), than these, it starts \fBgit gc --auto\fR in the
background.
.TP
.B diff.algorithm, diff.renames, diff.renameLimit, diff.statGraphWidth, diff.statNameWidth
As for \fBgit diff\fR (\fBdiff.renames=copies\fR finds copies too; the
notes always hold renames only).
.TP
.B core.abbrev, core.quotePath, core.pager
As for git: abbreviated ids, how paths are quoted, the pager.
.TP
.B color.ui, color.diff, color.diff.<slot>, color.pager
When and how output is coloured, as for \fBgit diff\fR.
.SH FILES
.TP
.B refs/t3/checkpoints/<thread>/turn/<n>
One commit per checkpoint; its note in \fBrefs/notes/t3\fR holds the status
and the changed files.
.TP
.B .t3ignore, $GIT_DIR/info/t3\-exclude
Paths never captured (same syntax as .gitignore).
.TP
.B $GIT_COMMON_DIR/t3/prune\-stamp, $GIT_COMMON_DIR/t3/maintenance.lock
When the daily prune last ran; the lock that keeps two background
maintenance runs from overlapping.
.TP
.B $GIT_COMMON_DIR/t3/packs/
An empty file named after each pack git\-t3 wrote: the packs background
maintenance folds (past 8), whatever gc.auto says.
.SH "SEE ALSO"
git(1), git-diff(1), git-notes(1), git-restore(1), git-difftool(1)
"#;

/// EXAMPLES for the commands people reach for most.
const COMMAND_EXAMPLES: &[(&str, &str)] = &[
    (
        "prune",
        r#".SH EXAMPLES
.nf
git t3 du                                   # what each thread holds on disk
git t3 prune --older\-than 14d --dry\-run     # what would go
git t3 prune --keep\-last 20                 # keep the 20 most recent threads
git gc --prune=now                          # free their objects at once
.fi
"#,
    ),
    (
        "diff",
        r#".SH EXAMPLES
.nf
git t3 diff --thread T                       # what the latest turn did
git t3 diff --thread T --turn 3 -- src/     # turn 3, only under src/
git t3 diff --thread T --from 2 --to 5 --stat
git t3 diff --thread T --full --name-status  # the whole thread
git t3 diff --worktree                        # live: worktree against HEAD
git t3 diff --thread T --quiet && echo unchanged
.fi
"#,
    ),
    (
        "revert",
        r#".SH EXAMPLES
.nf
git t3 revert --thread T --to 2 --dry-run   # what would change
git t3 revert --thread T --to 2             # files and conversation
git t3 revert --thread T --to 2 --files-only
git t3 revert --thread T --undo             # back to before the revert
.fi
"#,
    ),
    (
        "log",
        r#".SH EXAMPLES
.nf
git t3 log --thread T
git t3 log --thread T --oneline
git t3 log --thread T -p -- src/
.fi
"#,
    ),
    (
        "restore",
        r#".SH EXAMPLES
.nf
git t3 restore --thread T --turn 2 -- src/lib.rs
git t3 op undo                  # put the files back as they were
.fi
"#,
    ),
    (
        "rev",
        r#".SH EXAMPLES
.nf
git diff $(git t3 rev --thread T --turn 2) -- src/
git restore --source=$(git t3 rev --thread T --turn 2) -- src/lib.rs
git difftool -d $(git t3 rev --thread T --turn 1) $(git t3 rev --thread T)
.fi
"#,
    ),
];
