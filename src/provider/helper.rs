//! External provider helpers: a program run as `<helper> rollback` in the
//! worktree root with `{"thread","turns","workspace","target_turn"}` on
//! stdin. Exit 0 is success; anything else (or no answer within the
//! timeout) is a failure that carries the helper's stderr. The helper runs
//! in its own process group, so a timeout or a signal ends whatever it
//! started too.

use std::process::Command;
use std::time::Duration;

use super::Rollback;
use crate::child;
use crate::error::{Error, Result};

/// Run the helper `argv` of provider `name` as `<argv> rollback` with
/// `request` on stdin; an error carries the helper's stderr.
pub fn run(
    name: &str,
    argv: &[String],
    request: &Rollback<'_>,
    timeout: Duration,
    interrupt: crate::interrupt::Interrupt,
) -> Result<()> {
    let Some((program, args)) = argv.split_first() else {
        return Ok(());
    };
    let input = serde_json::to_vec(request)
        .map_err(|e| Error::Internal(format!("could not encode the provider request: {e}")))?;
    let mut command = Command::new(program);
    command.args(args).arg("rollback").current_dir(request.workspace);
    let done = child::run(
        &mut command,
        child::Options {
            input: Some(input),
            stdout: false,
            // Its own process group, so a timeout stops whatever it started too.
            own_group: true,
            timeout: Some(timeout),
            ..Default::default()
        },
        interrupt,
    )
    .map_err(|e| match e {
        Error::Io { source, .. } => Error::Provider {
            name: name.to_owned(),
            problem: format!("could not run {program}: {source}"),
        },
        other => other,
    })?;
    let text = done.stderr_line();
    let status = done.status;
    match status {
        Some(s) if s.success() => Ok(()),
        Some(s) => Err(Error::Provider {
            name: name.to_owned(),
            problem: format!(
                "failed to roll back {} turn(s) ({s}){}",
                request.turns,
                if text.is_empty() {
                    String::new()
                } else {
                    format!(": {text}")
                }
            ),
        }),
        None => Err(Error::Provider {
            name: name.to_owned(),
            problem: format!(
                "did not answer within {}s and was stopped{}",
                timeout.as_secs_f64(),
                if text.is_empty() {
                    String::new()
                } else {
                    format!(": {text}")
                }
            ),
        }),
    }
}
