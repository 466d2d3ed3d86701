//! Which thread a command works on: the one `--thread` (or `T3_THREAD`)
//! names — a full id or a unique prefix — or `@`, the current thread,
//! which is also what a thread command takes when none is named: the
//! thread of the newest checkpoint captured in this worktree.

use super::edge::Edge;
use crate::commands::Context;
use crate::error::{Error, Result};
use crate::model::thread::ThreadId;

/// The name of the current thread.
pub const CURRENT: &str = "@";

/// A thread as the command line names it, checked before a repository is
/// opened (so a bad id is a usage error wherever the command runs).
#[derive(Debug)]
pub(super) enum Named {
    /// `@`, or nothing where the current thread is the default (`said`:
    /// name it on stderr for human output).
    Current {
        /// Taken without being named.
        unnamed: bool,
    },
    /// An id, whole or a prefix.
    Id(ThreadId),
}

impl Named {
    /// `--thread` of a command that defaults to the current thread.
    pub(super) fn or_current(raw: Option<&str>) -> Result<Self> {
        match raw {
            None => Ok(Named::Current { unnamed: true }),
            Some(raw) => Self::given(raw),
        }
    }

    /// `--thread` as given (`@`: the current thread).
    pub(super) fn given(raw: &str) -> Result<Self> {
        if raw == CURRENT {
            Ok(Named::Current { unnamed: false })
        } else {
            ThreadId::parse(raw).map(Named::Id)
        }
    }

    /// An optional `--thread` (none: every thread).
    pub(super) fn optional(raw: Option<&str>) -> Result<Option<Self>> {
        raw.map(Self::given).transpose()
    }

    /// The thread, an id's prefix resolved in `ctx` (see
    /// [`Context::resolve`]); the current one said on stderr when it was
    /// taken unnamed and the output is for a person.
    pub(super) fn resolve(self, ctx: &Context, edge: &Edge<'_>) -> Result<ThreadId> {
        match self {
            Named::Id(id) => ctx.resolve(id),
            current @ Named::Current { .. } => current.exact(ctx, edge),
        }
    }

    /// The thread for a command that may create it, or that names another
    /// repository's thread: the id exactly as given (no prefix is
    /// resolved), or the current one.
    pub(super) fn exact(self, ctx: &Context, edge: &Edge<'_>) -> Result<ThreadId> {
        match self {
            Named::Id(id) => Ok(id),
            Named::Current { unnamed } => current(
                ctx,
                (unnamed && !edge.json && !edge.quiet)
                    .then_some(edge.say)
                    .flatten(),
            ),
        }
    }
}

/// This worktree's current thread, said through `say` when given.
fn current(ctx: &Context, say: Option<fn(&str)>) -> Result<ThreadId> {
    let here = || {
        ctx.repo
            .workdir()
            .map(|w| crate::repo::canonical(w).display().to_string())
            .unwrap_or_default()
    };
    let Some(t) = crate::store::current_thread(&ctx.repo)? else {
        return Err(Error::NoCurrentThread { worktree: here() });
    };
    if let Some(say) = say {
        say(&describe(&t.thread, t.title.as_deref()));
    }
    ThreadId::parse(&t.thread)
}

/// `thread "Fix the parser" (3f2a9c1)`, or `thread 3f2a9c1…` untitled.
fn describe(thread: &str, title: Option<&str>) -> String {
    let short: String = thread.chars().take(7).collect();
    let short = if short.len() < thread.len() {
        short
    } else {
        thread.to_owned()
    };
    match title {
        Some(title) => format!("thread \"{title}\" ({short})"),
        None => format!("thread {short}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_is_named_by_title_and_short_id() {
        assert_eq!(
            describe("3f2a9c1e-0000-4000-8000-000000000000", Some("Fix the parser")),
            "thread \"Fix the parser\" (3f2a9c1)"
        );
        assert_eq!(describe("t1", None), "thread t1");
    }
}
