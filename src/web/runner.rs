//! The use cases the page calls, with typed requests, rendered as the
//! command line renders them (JSON, or a patch's text).

use super::*;
use crate::commands::diff::{Format as DiffFormat, Mode as DiffMode};
use crate::commands::{self, Context};
use crate::model::thread::ThreadId;
use http::{DiffQuery, Mode};

/// Calls the library for the API, as the command line would.
pub(super) struct Runner<'a> {
    /// Opens the repository: read-only (`false`) for a GET, writable
    /// (`true`) for the revert POST.
    pub(super) open: &'a dyn Fn(bool) -> Result<Context>,
    /// The worktree the page shows (where `diff.relative` starts).
    pub(super) base: PathBuf,
}

type Answer = std::result::Result<Vec<u8>, (u16, Error)>;

/// An error with its HTTP status.
fn failed(e: Error) -> (u16, Error) {
    (status_of(&e), e)
}

impl Runner<'_> {
    /// The repository, opened read-only.
    fn look(&self) -> std::result::Result<Context, (u16, Error)> {
        (self.open)(false).map_err(failed)
    }

    /// The thread `raw` names in `ctx` (a unique prefix works).
    fn thread(ctx: &Context, raw: &str) -> std::result::Result<ThreadId, (u16, Error)> {
        ThreadId::parse(raw).and_then(|t| ctx.resolve(t)).map_err(failed)
    }

    /// `git t3 --json list` (`T3_THREAD` never narrows it: nothing here
    /// reads the environment).
    pub(super) fn threads(&self) -> Answer {
        let ctx = self.look()?;
        let listed = commands::list::threads(&ctx.repo).map_err(failed)?;
        render(&Outcome::Threads(listed), Format::Json)
    }

    /// `git t3 --json list --thread T`.
    pub(super) fn turns(&self, thread: &str) -> Answer {
        let ctx = self.look()?;
        let thread = Self::thread(&ctx, thread)?;
        let how = crate::compare::Counting::of(&ctx.repo);
        let listed = commands::list::turns(&ctx, &thread, how).map_err(failed)?;
        render(&Outcome::Turns(listed), Format::Json)
    }

    /// What `q` compares, with its totals and files (`git t3 --json diff …`).
    pub(super) fn diff(&self, q: &DiffQuery) -> Answer {
        let ctx = self.look()?;
        let mut outcome = self.run_diff(&ctx, q, DiffFormat::Numstat)?;
        outcome.view.format = DiffFormat::Patch.into();
        render(&Outcome::Diff(outcome), Format::Json)
    }

    /// The patch of `q` (`git t3 diff --no-color …`): files from `start`
    /// on, a page at most.
    pub(super) fn patch(&self, q: &DiffQuery, start: usize) -> Answer {
        let ctx = self.look()?;
        let mut outcome = self.run_diff(&ctx, q, DiffFormat::Patch)?;
        // Like git, a colour or whitespace setting it cannot use stops the
        // diff even when it is not coloured.
        let (look, warnings) = crate::diff::style::read(&ctx.repo).map_err(failed)?;
        outcome.view.look = look;
        outcome.notices.extend(warnings);
        let text = render(&Outcome::Diff(outcome), Format::Human)?;
        serde_json::to_vec(&web::patch_page(&text, start)).map_err(|e| (500, Error::Internal(e.to_string())))
    }

    fn run_diff(
        &self,
        ctx: &Context,
        q: &DiffQuery,
        format: DiffFormat,
    ) -> std::result::Result<commands::diff::DiffOutcome, (u16, Error)> {
        let (thread, mode) = match &q.mode {
            Mode::Turn { thread, turn } => (Some(thread), DiffMode::Turn(*turn)),
            Mode::Full { thread, to } => (Some(thread), DiffMode::Full { to: *to }),
            Mode::Worktree => (None, DiffMode::Worktree),
            Mode::Branch { base } => (None, DiffMode::Branch(base.clone().filter(|b| !b.is_empty()))),
        };
        let thread = thread.map(|t| Self::thread(ctx, t)).transpose()?;
        let prefix = crate::repo::prefix(&ctx.repo, &self.base);
        let relative = commands::diff::relative_from_config(&ctx.repo, prefix.as_ref()).map_err(failed)?;
        let opts = commands::diff::Options {
            thread,
            mode,
            ignore_whitespace: q.ignore_whitespace,
            binary: false,
            format: format.into(),
            context: crate::diff::patch::CONTEXT,
            paths: Vec::new(),
            prefix,
            relative,
            include_user_edits: false,
            shape: Default::default(),
        };
        commands::diff::run(ctx, opts).map_err(failed)
    }

    /// `git t3 --json revert --to N [--files-only]`: the one request that
    /// writes.
    pub(super) fn revert(&self, form: &super::forms::RevertForm) -> Answer {
        let ctx = (self.open)(true).map_err(failed)?;
        let thread = Self::thread(&ctx, &form.thread)?;
        let action = commands::revert::Action::To {
            turn: form.to,
            files_only: form.files_only,
            dry_run: form.dry_run,
            force: false,
        };
        let outcome = commands::revert::run(&ctx, &thread, action).map_err(failed)?;
        render(&Outcome::Revert(outcome), Format::Json)
    }
}

/// The largest image the page is sent.
const MAX_IMAGE: u64 = 16 << 20;

/// The content type of an image the page can show, by the path's extension.
fn image_type(path: &str) -> Option<&'static str> {
    let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "webp" => "image/webp",
        _ => return None,
    })
}

impl Runner<'_> {
    /// An image on one side of the diff `q` asks for, with its content type:
    /// what the page shows side by side. Only images, at most 16 MiB, and
    /// not the live worktree's (its objects are only in memory).
    pub(super) fn file(
        &self,
        q: &DiffQuery,
        side: http::FileSide,
        path: &str,
    ) -> std::result::Result<(&'static str, Vec<u8>), (u16, Error)> {
        let content_type = image_type(path).ok_or_else(|| {
            (
                415,
                Error::usage(format!("{path} is not an image the page shows")),
            )
        })?;
        let ctx = self.look()?;
        let d = self.run_diff(&ctx, q, DiffFormat::NameOnly)?;
        let (old, new) = d.trees.ok_or_else(|| {
            (
                404,
                Error::usage("the live worktree's files are not served: open them in your editor"),
            )
        })?;
        let tree = match side {
            http::FileSide::Old => old,
            http::FileSide::New => new,
        };
        let not_found = || {
            (
                404,
                Error::usage(format!("{path} is not on that side of the diff")),
            )
        };
        let (mode, id) = crate::repo::entry_at(&ctx.repo, tree, path.as_bytes())
            .map_err(failed)?
            .ok_or_else(not_found)?;
        if !mode.is_blob() {
            return Err(not_found());
        }
        let data = crate::repo::read_blob(&ctx.repo, id, MAX_IMAGE).map_err(failed)?;
        Ok((content_type, data))
    }

    /// `git t3 --json op log`: every operation, newest first.
    pub(super) fn ops(&self) -> Answer {
        let ctx = self.look()?;
        let ops = commands::op::log(&ctx.repo, None).map_err(failed)?;
        render(&Outcome::Op(ops), Format::Json)
    }

    /// `git t3 --json op undo OP`: writes, like a revert.
    pub(super) fn undo(&self, form: &super::forms::UndoForm) -> Answer {
        let ctx = (self.open)(true).map_err(failed)?;
        let undone = commands::op::undo(&ctx, Some(&form.op), false).map_err(failed)?;
        render(&Outcome::Op(undone), Format::Json)
    }
}

pub(super) fn render(outcome: &Outcome, format: Format) -> Answer {
    let mut out = Vec::new();
    output::render(outcome, format, false, &mut out)
        .map_err(|e| (500, Error::Internal(format!("could not render: {e}"))))?;
    Ok(out)
}

/// The HTTP status of a command's error.
pub(super) fn status_of(e: &Error) -> u16 {
    use crate::error::ErrorKind as K;
    match e.kind() {
        K::Usage => 400,
        K::NotFound => 404,
        K::Conflict | K::Refused => 409,
        K::Interrupted => 503,
        _ => 500,
    }
}
