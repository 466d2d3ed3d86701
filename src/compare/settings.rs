//! git's diff settings checked the way `git diff` reads them: a value git
//! refuses stops the diff (git dies before printing anything), with the
//! key, the value and git's reason; `diff.dirstat`'s unknown parameters
//! are only a warning, as in git.

use crate::error::{Error, Result};

/// Settings git reads as booleans for `diff` (`git_config_bool`).
const BOOLEANS: &[&str] = &[
    "diff.noprefix",
    "diff.mnemonicPrefix",
    "diff.indentHeuristic",
    "diff.suppressBlankEmpty",
    "core.quotePath",
    "color.pager",
];

/// Settings git reads as whole numbers for `diff` (`git_config_int`).
const NUMBERS: &[&str] = &["diff.statNameWidth", "diff.statGraphWidth", "diff.renameLimit"];

/// Settings git reads as colour switches (`git_config_colorbool`).
const COLOR_SWITCHES: &[&str] = &["color.diff", "diff.color", "color.ui"];

/// Refuse what git refuses in `repo`'s diff settings; the warnings git
/// gives for the rest.
pub fn check(repo: &gix::Repository) -> Result<Vec<String>> {
    let config = repo.config_snapshot();
    let raw = |key: &str| config.string(key).map(|v| v.to_string()).unwrap_or_default();
    let bad = |key: &str, problem: &str| Error::BadConfig {
        key: key.into(),
        value: raw(key),
        origin: "git config".into(),
        problem: problem.into(),
    };
    for key in BOOLEANS {
        if config.try_boolean(*key).is_err() {
            return Err(bad(key, "not a boolean (true or false)"));
        }
    }
    for key in NUMBERS {
        if config.try_integer(*key).is_err() {
            return Err(bad(key, "not a number"));
        }
    }
    for key in COLOR_SWITCHES {
        let known = config.string(*key).is_some_and(|v| {
            matches!(
                v.to_string().to_ascii_lowercase().as_str(),
                "never" | "always" | "auto"
            )
        });
        if !known && config.try_boolean(*key).is_err() {
            return Err(bad(key, "not a boolean, never, always or auto"));
        }
    }
    if let Some(v) = config.string("diff.renames") {
        let copies = matches!(v.to_string().to_ascii_lowercase().as_str(), "copies" | "copy");
        if !copies && config.try_boolean("diff.renames").is_err() {
            return Err(bad("diff.renames", "not a boolean or copies"));
        }
    }
    if let Some(v) = config.string("diff.algorithm") {
        let v = v.to_string().to_ascii_lowercase();
        if !matches!(
            v.as_str(),
            "myers" | "default" | "minimal" | "patience" | "histogram"
        ) {
            return Err(bad(
                "diff.algorithm",
                "unknown value (use myers, minimal, patience or histogram)",
            ));
        }
    }
    abbrev(&config).map_err(|problem| bad("core.abbrev", problem))?;
    Ok(dirstat_warning(&config).into_iter().collect())
}

/// git's `core.abbrev`: `auto`, a false boolean (the full ids), or a number
/// of digits, at least 4 (more than an id has is the whole id).
fn abbrev(config: &gix::config::Snapshot<'_>) -> std::result::Result<(), &'static str> {
    let Some(v) = config.string("core.abbrev") else {
        return Ok(());
    };
    let v = v.to_string().to_ascii_lowercase();
    if matches!(v.as_str(), "auto" | "false" | "no" | "off" | "") {
        return Ok(());
    }
    match config.try_integer("core.abbrev") {
        Ok(Some(n)) if n >= 4 => Ok(()),
        Ok(_) => Err("abbrev length out of range (at least 4)"),
        Err(_) => Err("not a number"),
    }
}

/// git's warning for `diff.dirstat` parameters it does not know (it takes
/// the ones it knows and goes on).
fn dirstat_warning(config: &gix::config::Snapshot<'_>) -> Option<String> {
    let value = config.string("diff.dirstat")?.to_string();
    let (_, problems) = crate::diff::dirstat::Params::default().parse_lenient(&value);
    (!problems.is_empty()).then(|| {
        format!(
            "warning: Found errors in 'diff.dirstat' config variable: {}",
            problems.join("; ")
        )
    })
}
