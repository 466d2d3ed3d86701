//! Running a watcher through [`crate::child`]: its answer within a
//! deadline, capped, its process group stopped; what went wrong as a
//! [`WatchError`].

use super::*;

/// What a watcher said.
pub(super) struct Answer {
    /// How it exited.
    pub(super) status: ExitStatus,
    /// What it printed on stdout.
    pub(super) stdout: Vec<u8>,
    /// The end of its stderr, on one line, without control characters.
    pub(super) stderr: String,
}

/// Run `command` in its own process group with `input` on stdin (else
/// none), and collect its answer: all it prints on stdout, up to
/// [`MAX_ANSWER`], until that closes, stopping it (and its group) at
/// `deadline` (`timeout` after the first call began, for the message).
pub(super) fn run(
    command: &mut Command,
    input: Option<&[u8]>,
    deadline: Instant,
    timeout: Duration,
    what: &str,
) -> Result<Answer, WatchError> {
    let options = crate::child::Options {
        input: input.map(<[u8]>::to_vec),
        stdout: true,
        stdout_cap: Some(MAX_ANSWER),
        whole_stdout: true,
        own_group: true,
        timeout: Some(deadline.saturating_duration_since(Instant::now())),
    };
    // A signal to git-t3 is not looked at here (a watcher has its time
    // limit); the walk that follows stops on it.
    let done = crate::child::run(command, options, crate::interrupt::Interrupt::default()).map_err(|e| {
        let source = match e {
            crate::Error::Io { source, .. } => source,
            other => std::io::Error::other(other.to_string()),
        };
        WatchError::Spawn {
            what: what.to_owned(),
            source,
        }
    })?;
    if done.stdout_over {
        return Err(WatchError::Malformed {
            what: what.to_owned(),
            why: format!("more than {} MiB", MAX_ANSWER >> 20),
        });
    }
    let Some(status) = done.status else {
        return Err(WatchError::TimedOut {
            what: what.to_owned(),
            after: timeout,
        });
    };
    Ok(Answer {
        status,
        stdout: done.stdout,
        stderr: one_line(&done.stderr),
    })
}

/// The end of a watcher's stderr, on one line.
pub(super) fn one_line(bytes: &[u8]) -> String {
    let text = shown(
        bytes
            .to_str_lossy()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .as_bytes(),
    );
    let skip = text.chars().count().saturating_sub(STDERR_SHOWN);
    if skip == 0 {
        text
    } else {
        format!("…{}", text.chars().skip(skip).collect::<String>())
    }
}

pub(super) fn status_text(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(code), _) => code.to_string(),
        (None, Some(signal)) => format!("signal {signal}"),
        (None, None) => status.to_string(),
    }
}
