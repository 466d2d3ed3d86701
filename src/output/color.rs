//! The terminal colours git uses in patches and diffstats.

/// File headers.
pub const BOLD: &str = "\x1b[1m";
/// `@@` hunk ranges.
pub const CYAN: &str = "\x1b[36m";
/// Removed lines.
pub const RED: &str = "\x1b[31m";
/// Added lines.
pub const GREEN: &str = "\x1b[32m";
/// Back to plain.
pub const RESET: &str = "\x1b[m";
/// A commit's header line in `git log`.
pub const YELLOW: &str = "\x1b[33m";
