//! The module graph has ranks, and every arrow runs down: a room (a
//! top-level module of `src/`) may use only rooms of a lower rank — not
//! its own rank, not a higher one — so there is no circle (see
//! docs/design.md).

use std::collections::BTreeSet;
use std::path::Path;

/// Each top-level module of `src/` and its rank, from the bottom.
const LAYERS: &[(&str, u8)] = &[
    ("error", 0),
    ("fault", 0),
    ("fsread", 0),
    ("testing", 0),
    ("trace", 0),
    ("atomic", 1),
    ("interrupt", 1),
    ("model", 1),
    ("child", 2),
    ("repo", 2),
    ("diff", 3),
    ("oplog", 3),
    ("prompts", 3),
    ("snapshot", 3),
    ("provider", 4),
    ("restore", 4),
    ("store", 4),
    ("retention", 5),
    ("revert", 5),
    ("sync", 5),
    ("commands", 6),
    ("output", 7),
    ("web", 8),
    ("cli", 9),
];

fn layer(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, l)| *l)
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules a source text refers to as `crate::<module>`.
fn used_modules(text: &str) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            used.insert(name);
        }
        // `use crate::{a, b::{c, d}}` names several: the first path segment
        // of each top-level item of the group.
        if let Some(group) = rest.strip_prefix('{') {
            for part in top_level_items(group) {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    used.insert(name);
                }
            }
        }
    }
    used
}

/// The comma-separated items of a `{…}` group (its opening brace already
/// stripped), nested groups kept whole.
fn top_level_items(group: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..i]);
                return items;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..]);
    items
}

#[test]
fn every_room_uses_only_lower_ranks() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let mut problems = Vec::new();
    for path in all {
        let rel = path.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap()
            .trim_end_matches(".rs")
            .to_owned();
        if top == "lib" || top == "main" {
            continue;
        }
        let Some(own) = layer(&top) else {
            problems.push(format!("src/{top} has no layer in tests/it/layers.rs"));
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        for used in used_modules(&text) {
            // `crate::Error`, `crate::Result` are re-exports of `error`.
            let used_layer = match used.as_str() {
                "Error" | "Result" => 0,
                other => layer(other).unwrap_or(0),
            };
            if used != top && used_layer >= own {
                problems.push(format!(
                    "{} (layer {own}) uses crate::{used} (layer {used_layer})",
                    rel.display()
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "arrows not running down:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_parser_sees_grouped_imports() {
    let used = used_modules("use crate::{repo::{self, Locked}, model::note};\nlet x = crate::store::f();");
    assert!(
        used.contains("repo") && used.contains("model") && used.contains("store"),
        "{used:?}"
    );
}

#[test]
fn at_most_three_unsafe_blocks_each_with_its_proof() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let mut blocks = Vec::new();
    for path in all {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if !code.contains("unsafe {") {
                continue;
            }
            // The comment that proves it sound, just above (attributes and
            // `#[cfg]` lines may sit between).
            let proved = lines[..i]
                .iter()
                .rev()
                .take_while(|l| {
                    let t = l.trim();
                    t.starts_with("//") || t.starts_with("#[") || !t.contains(';') && !t.ends_with('}')
                })
                .any(|l| l.trim().starts_with("// SAFETY:"));
            blocks.push((format!("{}:{}", path.display(), i + 1), proved));
        }
    }
    assert!(blocks.len() <= 3, "more than 3 unsafe blocks: {blocks:?}");
    let unproved: Vec<_> = blocks.iter().filter(|(_, p)| !p).collect();
    assert!(
        unproved.is_empty(),
        "unsafe blocks without a SAFETY comment: {unproved:?}"
    );
}
