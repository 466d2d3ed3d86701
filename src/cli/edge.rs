//! What the edge knows that some commands need besides their arguments:
//! the output's form, the terminal, where the command runs, the time zone,
//! and where a line for the person goes.

use std::path::Path;

/// What the edge knows that some commands need.
pub(super) struct Edge<'a> {
    pub(super) json: bool,
    /// `-q`: on `diff`, git's `--quiet`.
    pub(super) quiet: bool,
    pub(super) term: &'a crate::output::pager::Terminal,
    /// `-C`, else `.`: where relative paths start.
    pub(super) base: &'a Path,
    pub(super) time_zone: &'a Option<Option<jiff::tz::TimeZone>>,
    /// Where a line for the person goes (see [`super::Environment::say`]).
    pub(super) say: Option<fn(&str)>,
}

impl Edge<'_> {
    /// The local time zone (see [`Environment::time_zone`]).
    pub(super) fn time_zone(&self) -> Option<jiff::tz::TimeZone> {
        match self.time_zone {
            Some(fixed) => fixed.clone(),
            None => Some(jiff::tz::TimeZone::system()),
        }
    }
}
