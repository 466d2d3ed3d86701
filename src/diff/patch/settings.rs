//! What a whole patch reads from git's config once: the algorithm, the
//! indent heuristic, the abbreviation of ids and the zlib level of binary
//! payloads.

use gix::ObjectId;

use super::Options;
use crate::diff::lines;
use crate::error::{Error, Result};
use crate::model::whitespace::Rule;

/// The settings of a whole patch, read once, not per file.
pub(super) fn settings(repo: &gix::Repository, opts: Options) -> Result<Settings> {
    Ok(Settings {
        opts,
        algorithm: lines::algorithm(repo),
        indent_heuristic: repo
            .config_snapshot()
            .boolean("diff.indentHeuristic")
            .unwrap_or(true),
        abbrev: abbrev_len(repo),
        compression: if opts.binary {
            compression(repo)?
        } else {
            flate2::Compression::fast()
        },
        whitespace: repo
            .config_snapshot()
            .string("core.whitespace")
            .map_or_else(Default::default, |v| Rule::parse(&v.to_string()).0),
        lookup: {
            // Abbreviating an id that exists never needs the pack folder
            // read again (gix rescans it after every prefix search).
            let mut odb = repo.objects.clone();
            odb.refresh_never();
            odb
        },
    })
}

/// git's `core.abbrev`: a number (4 to the full length), `no` for full ids,
/// or `auto` (the default): half the bits of the packed object count, at
/// least 7.
fn abbrev_len(repo: &gix::Repository) -> usize {
    let full = repo.object_hash().len_in_hex();
    let config = repo.config_snapshot();
    match config
        .string("core.abbrev")
        .map(|v| v.to_string().to_ascii_lowercase())
    {
        Some(v) if matches!(v.as_str(), "no" | "false" | "off") => full,
        Some(v) if v != "auto" => v.parse::<usize>().map_or(7, |n| n.clamp(4, full)),
        _ => {
            let packed = repo.objects.packed_object_count().unwrap_or(0);
            ((64 - packed.leading_zeros()).div_ceil(2) as usize).max(7)
        }
    }
}

/// Hex digits git shows for `id`: `abbrev` ([`abbrev_len`]), longer when
/// that is ambiguous (gix's disambiguation, through `lookup`); the null id
/// at the plain length.
pub(super) fn short_len(lookup: &gix::OdbHandle, id: ObjectId, abbrev: usize) -> usize {
    // The whole id needs no disambiguation (and gix would not know a
    // `core.abbrev` beyond it, which git takes as the whole id).
    if id.is_null() || abbrev >= id.kind().len_in_hex() {
        return abbrev;
    }
    gix::odb::store::prefix::disambiguate::Candidate::new(id, abbrev)
        .ok()
        .and_then(|candidate| lookup.disambiguate_prefix(candidate).ok().flatten())
        .map_or(abbrev, |p| p.hex_len())
}

/// The zlib level of binary patches, as git's: `core.looseCompression`,
/// else `core.compression`, else 1 (best speed); -1 is zlib's default (6).
/// Any other value outside 0 to 9 is refused, as git refuses it.
fn compression(repo: &gix::Repository) -> Result<flate2::Compression> {
    let config = repo.config_snapshot();
    for key in ["core.looseCompression", "core.compression"] {
        let bad = |problem: String| Error::BadInput {
            source_name: format!("{key} in git's config"),
            problem,
        };
        let level = match config.try_integer(key) {
            Ok(None) => continue,
            Ok(Some(level)) => level,
            Err(e) => return Err(bad(e.to_string())),
        };
        return match level {
            -1 => Ok(flate2::Compression::default()),
            _ => i32::try_from(level)
                .ok()
                .filter(|l| (0..=9).contains(l))
                .map(|l| flate2::Compression::new(l.unsigned_abs()))
                .ok_or_else(|| bad(format!("bad zlib compression level {level}"))),
        };
    }
    Ok(flate2::Compression::fast())
}

/// The caller's options and what the repository's config says, for a whole patch.
pub(super) struct Settings {
    pub(super) opts: Options,
    pub(super) algorithm: lines::Algorithm,
    pub(super) indent_heuristic: bool,
    pub(super) abbrev: usize,
    /// The zlib level of binary payloads.
    pub(super) compression: flate2::Compression,
    /// `core.whitespace` (a file's `whitespace` attribute starts from it).
    pub(super) whitespace: Rule,
    /// The object database, never rescanning the pack folder on a miss.
    pub(super) lookup: gix::OdbHandle,
}
