//! git's whitespace errors (`core.whitespace`, git-config(1)) and where a
//! coloured patch highlights them, as git 2.47 shows them.
//!
//! The rules: `blank-at-eol` (whitespace at the end of a line),
//! `blank-at-eof` (blank lines added at the end of the file),
//! `trailing-space` (both), `space-before-tab` (spaces before a tab in the
//! indent), `indent-with-non-tab` (an indent of `tabwidth` or more
//! spaces), `tab-in-indent` (a tab in the indent), `cr-at-eol` (a CR ending
//! a line is part of the line ending, not an error) and `tabwidth=<n>`
//! (1–63, default 8). The default is `blank-at-eol,blank-at-eof,
//! space-before-tab`. A `-` before a rule turns it off.
//!
//! Only space, TAB, CR and LF count as whitespace here (git's own ctype),
//! not VT or FF.

use std::ops::Range;

/// A set of whitespace rules and the TAB width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    bits: u8,
    /// Columns of a TAB, for `indent-with-non-tab`.
    pub tab_width: usize,
}

const BLANK_AT_EOL: u8 = 1;
const SPACE_BEFORE_TAB: u8 = 1 << 1;
const INDENT_WITH_NON_TAB: u8 = 1 << 2;
const CR_AT_EOL: u8 = 1 << 3;
const BLANK_AT_EOF: u8 = 1 << 4;
const TAB_IN_INDENT: u8 = 1 << 5;

/// The rule names, in the order a shortened name is looked up (`t` is
/// `trailing-space`, `blank` is `blank-at-eol`).
const NAMES: [(&str, u8); 7] = [
    ("trailing-space", BLANK_AT_EOL | BLANK_AT_EOF),
    ("space-before-tab", SPACE_BEFORE_TAB),
    ("indent-with-non-tab", INDENT_WITH_NON_TAB),
    ("cr-at-eol", CR_AT_EOL),
    ("blank-at-eol", BLANK_AT_EOL),
    ("blank-at-eof", BLANK_AT_EOF),
    ("tab-in-indent", TAB_IN_INDENT),
];

impl Default for Rule {
    fn default() -> Self {
        Rule {
            bits: BLANK_AT_EOL | BLANK_AT_EOF | SPACE_BEFORE_TAB,
            tab_width: 8,
        }
    }
}

/// What is wrong with a `core.whitespace` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A `tabwidth=` outside 1–63: ignored, with a warning (git's too).
    TabWidth(String),
    /// `tab-in-indent` with `indent-with-non-tab`: git refuses to run.
    Conflict,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::TabWidth(w) => write!(f, "tabwidth {w} out of range (1 to 63); ignored"),
            Problem::Conflict => f.write_str("cannot enforce both tab-in-indent and indent-with-non-tab"),
        }
    }
}

impl Rule {
    /// The rules `value` (a `core.whitespace` setting) leaves on, starting
    /// from the default; and what was wrong with it. Words are separated by
    /// commas (spaces before a word are skipped); a word may be shortened
    /// (`trail`); unknown words are ignored, as git ignores them.
    pub fn parse(value: &str) -> (Rule, Vec<Problem>) {
        let mut rule = Rule::default();
        let mut problems = Vec::new();
        for word in value.split(',') {
            let word = word.trim_start_matches([' ', '\t', '\n', '\r']);
            if let Some(width) = word.strip_prefix("tabwidth=") {
                match leading_number(width) {
                    Some(n @ 1..=63) => rule.tab_width = n,
                    _ => problems.push(Problem::TabWidth(width.to_owned())),
                }
                continue;
            }
            let (off, name) = match word.strip_prefix('-') {
                Some(rest) => (true, rest),
                None => (false, word),
            };
            if name.is_empty() {
                continue;
            }
            if let Some((_, bits)) = NAMES.iter().find(|(full, _)| full.starts_with(name)) {
                if off {
                    rule.bits &= !bits;
                } else {
                    rule.bits |= bits;
                }
            }
        }
        if rule.has(TAB_IN_INDENT) && rule.has(INDENT_WITH_NON_TAB) {
            problems.push(Problem::Conflict);
        }
        (rule, problems)
    }

    fn has(self, bit: u8) -> bool {
        self.bits & bit != 0
    }

    /// Whether `blank-at-eof` is on.
    pub fn blank_at_eof(self) -> bool {
        self.has(BLANK_AT_EOF)
    }

    /// The `whitespace` attribute set: every rule that finds errors but
    /// `tab-in-indent` (git leaves it out of "all"), with `tab_width`.
    pub fn all(tab_width: usize) -> Rule {
        Rule {
            bits: BLANK_AT_EOL | BLANK_AT_EOF | SPACE_BEFORE_TAB | INDENT_WITH_NON_TAB,
            tab_width,
        }
    }

    /// The `whitespace` attribute unset (`-whitespace`): no rule, `tab_width`.
    pub fn none(tab_width: usize) -> Rule {
        Rule { bits: 0, tab_width }
    }
}

/// The number at the start of `s` as C's `strtol` reads it (leading
/// whitespace, a sign, digits; what follows is ignored); `None` without
/// digits or when it is negative or huge.
fn leading_number(s: &str) -> Option<usize> {
    let s = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let s = s.strip_prefix('+').unwrap_or(s);
    let end = s.bytes().position(|b| !b.is_ascii_digit()).unwrap_or(s.len());
    s.get(..end)?.parse().ok()
}

/// How a part of a line is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paint {
    /// As is, without any colour (git writes indent TABs this way).
    Plain,
    /// In the line's colour.
    Line,
    /// In the whitespace-error colour.
    Error,
}

/// Whether `b` is whitespace to git.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Whether `line` is blank: whitespace only (or empty).
pub fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| is_space(*b))
}

/// The parts of `line` (without its LF) in order, and how git paints each
/// when it highlights whitespace errors under `rule`; empty parts are left
/// out.
///
/// In the indent, each TAB settles the whitespace before it: under
/// `space-before-tab`, spaces since the previous TAB are an error and the
/// TAB is plain; else under `tab-in-indent` the TAB is the error and the
/// spaces plain; else both are plain. Then, under `indent-with-non-tab`,
/// `tabwidth` or more spaces that follow are an error. The rest is in the
/// line's colour, except trailing whitespace under `blank-at-eol`; under
/// `cr-at-eol` a final CR is plain, after everything.
pub fn paint(line: &[u8], rule: Rule) -> Vec<(Paint, Range<usize>)> {
    let mut parts: Vec<(Paint, Range<usize>)> = Vec::new();
    let mut push = |paint: Paint, range: Range<usize>| {
        if range.is_empty() {
            return;
        }
        // Plain text next to plain text is one part.
        if let Some((Paint::Plain, last)) = parts.last_mut()
            && paint == Paint::Plain
            && last.end == range.start
        {
            last.end = range.end;
            return;
        }
        parts.push((paint, range));
    };
    let cr = rule.has(CR_AT_EOL) && line.last() == Some(&b'\r');
    let end = line.len() - usize::from(cr);
    let body_end = if rule.has(BLANK_AT_EOL) {
        line.get(..end)
            .and_then(|l| l.iter().rposition(|b| !is_space(*b)))
            .map_or(0, |i| i + 1)
    } else {
        end
    };
    let mut written = 0;
    for (i, &b) in line.iter().enumerate().take(body_end) {
        match b {
            b' ' => continue,
            b'\t' => {}
            _ => break,
        }
        if rule.has(SPACE_BEFORE_TAB) && written < i {
            push(Paint::Error, written..i);
            push(Paint::Plain, i..i + 1);
        } else if rule.has(TAB_IN_INDENT) {
            push(Paint::Plain, written..i);
            push(Paint::Error, i..i + 1);
        } else {
            push(Paint::Plain, written..i + 1);
        }
        written = i + 1;
    }
    if rule.has(INDENT_WITH_NON_TAB) {
        let spaces = line
            .get(written..body_end)
            .map_or(0, |rest| rest.iter().take_while(|b| **b == b' ').count());
        if spaces >= rule.tab_width {
            push(Paint::Error, written..written + spaces);
            written += spaces;
        }
    }
    push(Paint::Line, written..body_end.max(written));
    push(Paint::Error, body_end.max(written)..end);
    push(Paint::Plain, end..line.len());
    parts
}

/// Which lines of a coloured patch get their whitespace errors
/// highlighted (`diff.wsErrorHighlight`; git's default: added lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Highlight {
    /// Removed lines.
    pub old: bool,
    /// Added lines.
    pub new: bool,
    /// Context lines.
    pub context: bool,
}

impl Default for Highlight {
    fn default() -> Self {
        Highlight {
            old: false,
            new: true,
            context: false,
        }
    }
}

impl Highlight {
    /// `diff.wsErrorHighlight`: a comma-separated list of `old`, `new`,
    /// `context`, `all`, `default` (new) and `none` (clears what came
    /// before); `None` for anything else, which git refuses.
    pub fn parse(value: &str) -> Option<Highlight> {
        let mut h = Highlight {
            old: false,
            new: false,
            context: false,
        };
        let words: Vec<&str> = value.split(',').collect();
        for (i, word) in words.iter().enumerate() {
            match *word {
                "none" => {
                    h = Highlight {
                        old: false,
                        new: false,
                        context: false,
                    }
                }
                "default" | "new" => h.new = true,
                "old" => h.old = true,
                "context" => h.context = true,
                "all" => {
                    h = Highlight {
                        old: true,
                        new: true,
                        context: true,
                    }
                }
                // `new,` is accepted, `new,,old` is not.
                "" if i + 1 == words.len() => {}
                _ => return None,
            }
        }
        Some(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(value: &str) -> Rule {
        Rule::parse(value).0
    }

    /// `line` painted as git 2.47 paints it: `[x]` is an error, `<x>` the
    /// line's colour, bare text plain.
    fn shown(line: &str, r: Rule) -> String {
        paint(line.as_bytes(), r)
            .into_iter()
            .map(|(p, range)| {
                let text = &line[range];
                match p {
                    Paint::Plain => text.to_owned(),
                    Paint::Line => format!("<{text}>"),
                    Paint::Error => format!("[{text}]"),
                }
            })
            .collect()
    }

    #[test]
    fn parsing_like_git() {
        assert_eq!(rule(""), Rule::default());
        assert_eq!(rule("-trailing-space").bits, SPACE_BEFORE_TAB);
        // Shortened names take the first rule they begin.
        assert_eq!(rule("-t").bits, SPACE_BEFORE_TAB);
        assert_eq!(rule("-blank").bits, BLANK_AT_EOF | SPACE_BEFORE_TAB);
        // A space after a word makes it unknown; before, it is skipped.
        assert_eq!(rule("-trailing-space ,x"), Rule::default());
        assert_eq!(rule("x, -trailing-space").bits, SPACE_BEFORE_TAB);
        assert_eq!(rule("tabwidth=4x").tab_width, 4);
        assert_eq!(rule("tabwidth= +4").tab_width, 4);
        let (r, problems) = Rule::parse("tabwidth=4,tabwidth=64");
        assert_eq!((r.tab_width, problems), (4, vec![Problem::TabWidth("64".into())]));
        assert_eq!(
            Rule::parse("tab-in-indent,indent-with-non-tab").1,
            [Problem::Conflict]
        );
        assert!(Rule::parse("tab-in-indent,indent-with-non-tab,-tab").1.is_empty());
    }

    #[test]
    fn painting_like_git() {
        let d = Rule::default();
        assert_eq!(shown("  x", d), "<  x>");
        assert_eq!(shown("\tx", d), "\t<x>");
        assert_eq!(shown(" \tx", d), "[ ]\t<x>");
        assert_eq!(shown("  \t  \tx  \t ", d), "[  ]\t[  ]\t<x>[  \t ]");
        assert_eq!(shown("\t \tx", d), "\t[ ]\t<x>");
        assert_eq!(shown("\t\t", d), "[\t\t]");
        assert_eq!(shown("x\r", d), "<x>[\r]");
        assert_eq!(shown("x\x0b", d), "<x\x0b>");
        let tii = rule("tab-in-indent");
        assert_eq!(shown("\t\tx", tii), "[\t][\t]<x>");
        assert_eq!(shown("\t \tx", tii), "[\t][ ]\t<x>");
        let tii_only = rule("tab-in-indent,-space-before-tab");
        assert_eq!(shown("  \t        \t x", tii_only), "  [\t]        [\t]< x>");
        let iwnt = rule("indent-with-non-tab");
        assert_eq!(shown("  \t        x", iwnt), "[  ]\t[        ]<x>");
        assert_eq!(shown("         x", iwnt), "[         ]<x>");
        assert_eq!(
            shown("        \tx", rule("-space-before-tab,indent-with-non-tab")),
            "        \t<x>"
        );
        let cr = rule("cr-at-eol");
        assert_eq!(shown("x \r", cr), "<x>[ ]\r");
        assert_eq!(shown("\t\r", cr), "[\t]\r");
        assert_eq!(shown("x \r", rule("cr-at-eol,-blank-at-eol")), "<x >\r");
        assert_eq!(shown(" \t", rule("cr-at-eol,-blank-at-eol")), "[ ]\t");
        assert_eq!(shown("", d), "");
    }

    #[test]
    fn highlight_settings_like_git() {
        let h = |old, new, context| Some(Highlight { old, new, context });
        assert_eq!(Highlight::parse("old,context"), h(true, false, true));
        assert_eq!(Highlight::parse("none,new"), h(false, true, false));
        assert_eq!(Highlight::parse("all"), h(true, true, true));
        assert_eq!(Highlight::parse("default"), h(false, true, false));
        assert_eq!(Highlight::parse("new,"), h(false, true, false));
        assert_eq!(Highlight::parse(""), h(false, false, false));
        for bad in ["Old", "no-new", "context, new", "context,,new", "bogus"] {
            assert_eq!(Highlight::parse(bad), None, "{bad}");
        }
    }
}
