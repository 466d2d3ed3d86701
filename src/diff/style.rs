//! How a coloured patch looks, read from git's config the way `git diff`
//! reads it: `color.diff.<slot>` (and its old spelling `diff.color.<slot>`)
//! for the palette, `core.whitespace` for what counts as a whitespace error,
//! `diff.wsErrorHighlight` for which lines show them.
//!
//! git refuses to run with a colour it cannot parse, a slot without a
//! value, a `diff.wsErrorHighlight` it does not know, or `core.whitespace`
//! asking for both `tab-in-indent` and `indent-with-non-tab`; so does this
//! (with the key, value and where it was set). A `tabwidth` out of range is
//! a warning, as in git.

use gix::bstr::ByteSlice;

use crate::error::{Error, Result};
use crate::model::color::{self, Palette};
use crate::model::whitespace::{Highlight, Problem, Rule};

/// Everything a coloured patch or stat needs from the config.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Look {
    /// The colour of each slot.
    pub palette: Palette,
    /// What counts as a whitespace error (`core.whitespace`).
    pub whitespace: Rule,
    /// Which lines get their whitespace errors highlighted.
    pub highlight: Highlight,
}

/// The look `repo`'s config asks for, and warnings to show.
pub fn read(repo: &gix::Repository) -> Result<(Look, Vec<String>)> {
    let config = repo.config_snapshot();
    let file = config.plumbing();
    let mut palette = Palette::default();
    // Every setting in the order git reads them (files, then `-c`): the last wins.
    for section in file.sections() {
        let header = section.header();
        let name = header.name().to_str_lossy().to_ascii_lowercase();
        let sub = header.subsection_name().map(|s| s.to_str_lossy().into_owned());
        let spelling = match (name.as_str(), sub.as_deref()) {
            ("color", Some("diff")) => "color.diff",
            ("diff", Some("color")) => "diff.color",
            _ => continue,
        };
        let body = section.body();
        for slot in body.value_names() {
            let Some(target) = palette.slot_mut(&slot) else {
                continue;
            };
            let key = format!("{spelling}.{slot}");
            let origin = || origin(section.meta());
            let value = match body.value_implicit(&slot) {
                Some(Some(v)) => v.to_str_lossy().into_owned(),
                Some(None) => {
                    return Err(Error::BadConfig {
                        key,
                        value: String::new(),
                        origin: origin(),
                        problem: "a colour needs a value".into(),
                    });
                }
                None => continue,
            };
            *target = color::parse(&value).ok_or_else(|| Error::BadConfig {
                key,
                value: value.clone(),
                origin: origin(),
                problem: "not a colour (see \"color\" in git-config(1))".into(),
            })?;
        }
    }
    let mut warnings = Vec::new();
    let whitespace = match config.string("core.whitespace") {
        None => Rule::default(),
        Some(v) => {
            let value = v.to_str_lossy().into_owned();
            let (rule, problems) = Rule::parse(&value);
            for p in problems {
                match p {
                    Problem::TabWidth(_) => warnings.push(format!("core.whitespace: {p}")),
                    Problem::Conflict => {
                        return Err(Error::BadConfig {
                            key: "core.whitespace".into(),
                            value,
                            origin: "git config".into(),
                            problem: p.to_string(),
                        });
                    }
                }
            }
            rule
        }
    };
    let highlight = match config.string("diff.wsErrorHighlight") {
        None => Highlight::default(),
        Some(v) => {
            let value = v.to_str_lossy().into_owned();
            Highlight::parse(&value).ok_or_else(|| Error::BadConfig {
                key: "diff.wsErrorHighlight".into(),
                value,
                origin: "git config".into(),
                problem: "use a list of old, new, context, all, default or none".into(),
            })?
        }
    };
    Ok((
        Look {
            palette,
            whitespace,
            highlight,
        },
        warnings,
    ))
}

/// Where a setting comes from, for a message: its file, or `git -c`.
fn origin(meta: &gix::config::file::Metadata) -> String {
    match (&meta.path, meta.source) {
        (_, gix::config::Source::Cli) => "git -c".into(),
        (Some(path), _) => path.display().to_string(),
        (None, source) => format!("{source:?} config"),
    }
}
