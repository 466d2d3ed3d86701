//! Adding what was being done to an error, and errors as one line.

use super::*;

impl<T> Context<T> for std::result::Result<T, gix::Error> {
    fn context(self, context: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| Error::Git {
            context: context(),
            source: Box::new(e),
        })
    }
}

impl<T> Context<T> for std::result::Result<T, std::io::Error> {
    fn context(self, context: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|source| Error::Io {
            context: context(),
            path: None,
            source,
        })
    }
}

/// Attach what was being done and the file concerned to an I/O error.
pub trait IoContext<T> {
    /// Wrap the error as [`Error::Io`] naming `path`.
    fn at(self, action: &str, path: &std::path::Path) -> Result<T>;
}

impl<T> IoContext<T> for std::result::Result<T, std::io::Error> {
    fn at(self, action: &str, path: &std::path::Path) -> Result<T> {
        self.map_err(|source| Error::Io {
            context: action.to_owned(),
            path: Some(path.to_owned()),
            source,
        })
    }
}

/// Wrap any error from a gix sub-crate with a context message.
pub(crate) fn git_err<E: std::error::Error + Send + Sync + 'static>(
    context: impl Into<String>,
) -> impl FnOnce(E) -> Error {
    let context = context.into();
    move |source| Error::Git {
        context,
        source: Box::new(source),
    }
}

/// The error and its causes on one line, for stderr.
pub fn one_line(e: &Error) -> String {
    let mut msg = e.to_string();
    let mut source = std::error::Error::source(e);
    // `Io` and `Git` already print their source; skip it once.
    if matches!(e, Error::Io { .. } | Error::Git { .. }) {
        source = source.and_then(std::error::Error::source);
    }
    while let Some(s) = source {
        let text = s.to_string();
        if !msg.contains(&text) {
            msg.push_str(": ");
            msg.push_str(&text);
        }
        source = s.source();
    }
    msg.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// "'a', 'b' and 'c'" (at most five, then how many more).
pub(super) fn list_candidates(candidates: &[String]) -> String {
    const SHOWN: usize = 5;
    let quoted: Vec<String> = candidates.iter().take(SHOWN).map(|c| format!("'{c}'")).collect();
    let more = candidates.len().saturating_sub(SHOWN);
    match (quoted.split_last(), more) {
        (Some((last, rest)), 0) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        (_, 0) => quoted.join(", "),
        _ => format!("{} and {more} more", quoted.join(", ")),
    }
}
