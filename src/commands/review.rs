//! `git t3 review`: what the local web page's server did. The server itself
//! lives at the edge (the `review` module beside `app`), since it runs the
//! other commands.

use serde::Serialize;

/// Why the server stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stopped {
    /// No request came for the idle timeout.
    Idle,
    /// Ctrl-C or SIGTERM.
    Interrupted,
}

/// What `review` did once it stopped.
#[derive(Debug, Serialize)]
pub struct ReviewOutcome {
    /// The URL it served (with its token).
    pub url: String,
    /// Requests answered.
    pub requests: u64,
    /// Reverts done from the page.
    pub reverts: u64,
    /// Why it stopped.
    pub stopped: Stopped,
    /// Warnings (a browser that could not be started).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
}
