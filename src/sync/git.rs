//! Running `git` for the transport: without the environment a hook may have
//! set, with git's own error words kept for the message.

use std::path::Path;
use std::process::Command;

use crate::child;
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;

/// Run `git` in `workdir` without the environment a hook may have set;
/// a signal to us ends it (see [`child`]).
pub fn run_git(workdir: &Path, args: &[String], interrupt: Interrupt) -> Result<()> {
    let action = if args.first().is_some_and(|a| a == "push") {
        "push"
    } else {
        "fetch"
    };
    git_output(workdir, args, interrupt)
        .map(drop)
        .map_err(|e| match e {
            Error::Remote { message, .. } => Error::Remote {
                action,
                remote: args
                    .iter()
                    .skip(1)
                    .find(|a| !a.starts_with('-'))
                    .cloned()
                    .unwrap_or_default(),
                message,
            },
            other => other,
        })
}

/// What `git` printed on stdout, or git's reason for failing.
pub fn git_output(workdir: &Path, args: &[String], interrupt: Interrupt) -> Result<Vec<u8>> {
    git_output_with(workdir, args, None, interrupt)
}

/// What `git` printed on stdout given `input` on stdin, or git's reason
/// for failing.
pub fn git_output_with(
    workdir: &Path,
    args: &[String],
    input: Option<Vec<u8>>,
    interrupt: Interrupt,
) -> Result<Vec<u8>> {
    let mut command = Command::new("git");
    command
        .current_dir(workdir)
        .args(["-c", "core.fsmonitor=false"])
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env("LC_MESSAGES", "C");
    let options = child::Options {
        stdout: true,
        input,
        ..Default::default()
    };
    let done = child::run(&mut command, options, interrupt).map_err(|e| match e {
        Error::Io { source, .. } => Error::Io {
            context: "could not run git".into(),
            path: None,
            source,
        },
        other => other,
    })?;
    if done.success() {
        return Ok(done.stdout);
    }
    Err(Error::Remote {
        action: "fetch",
        remote: String::new(),
        message: done.stderr_line(),
    })
}

/// `git fetch` of `refspecs` from `remote`, quietly and without FETCH_HEAD.
pub fn fetch_args(remote: &str, refspecs: impl IntoIterator<Item = String>) -> Vec<String> {
    // `--end-of-options`: a remote name from config can never be an option.
    // No tags and no configured refspecs: only `refspecs` write, and only
    // into the staging namespace (a remote's tag, or a user's
    // `remote.<name>.fetch = +refs/notes/*:refs/notes/*`, would otherwise
    // write past it).
    let mut args = vec![
        "fetch".to_owned(),
        "--quiet".into(),
        "--no-write-fetch-head".into(),
        "--no-tags".into(),
        "--refmap=".into(),
        "--end-of-options".into(),
        remote.to_owned(),
    ];
    args.extend(refspecs);
    args
}
