//! The module graph has layers, and no arrow runs back up: a module may use
//! its own layer and the ones below it, never one above (see docs/design.md).

use std::collections::BTreeSet;
use std::path::Path;

/// Each top-level module of `src/` and its layer, from the bottom.
const LAYERS: &[(&str, u8)] = &[
    ("error", 0),
    ("fault", 0),
    ("interrupt", 0),
    ("child", 0),
    ("trace", 0),
    ("atomic", 0),
    ("fsread", 0),
    ("testing", 0),
    ("model", 0),
    ("repo", 1),
    ("store", 2),
    ("oplog", 2),
    ("prompts", 2),
    ("snapshot", 2),
    ("diff", 2),
    ("restore", 2),
    ("provider", 3),
    ("revert", 3),
    ("sync", 3),
    ("retention", 3),
    ("commands", 4),
    ("output", 4),
    ("cli", 5),
    ("app", 5),
    ("review", 5),
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
fn no_module_uses_a_higher_layer() {
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
            if used_layer > own {
                problems.push(format!(
                    "{} (layer {own}) uses crate::{used} (layer {used_layer})",
                    rel.display()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "arrows running up:\n{}", problems.join("\n"));
}

#[test]
fn the_parser_sees_grouped_imports() {
    let used = used_modules("use crate::{repo::{self, Locked}, model::note};\nlet x = crate::store::f();");
    assert!(
        used.contains("repo") && used.contains("model") && used.contains("store"),
        "{used:?}"
    );
}
