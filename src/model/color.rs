//! git's colours: the value syntax of git-config(1)'s "color" type turned
//! into the escape bytes git writes (`git config --get-color` prints the
//! same), and the palette of `color.diff.<slot>` with git's defaults.
//!
//! A value is a list of words separated by whitespace: up to two colours
//! (foreground, then background) and any attributes. Colours are `normal`
//! (or `-1`: leave it), `default`, the eight names `black` … `white` with an
//! optional `bright` prefix (case does not matter), a number 0–255, or
//! `#rrggbb` / `#rgb`. Attributes are `bold`, `dim`, `italic`, `ul`,
//! `blink`, `reverse`, `strike`, each also as `no<attr>` or `no-<attr>`, and
//! `reset`. The escape lists `reset` first (as an empty parameter), then the
//! attributes by code, then the foreground, then the background; a value
//! that sets nothing is the empty string.

/// Ends a colour run.
pub const RESET: &str = "\x1b[m";

/// The colour names, in ANSI order.
const NAMES: [&str; 8] = [
    "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
];

/// The attributes and their codes; a `no` form adds 20 (`nobold` and
/// `nodim` are both 22).
const ATTRIBUTES: [(&str, u8); 7] = [
    ("bold", 1),
    ("dim", 2),
    ("italic", 3),
    ("ul", 4),
    ("blink", 5),
    ("reverse", 7),
    ("strike", 9),
];

/// One colour word, as git reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Colour {
    /// `normal`, `-1`: takes a place, writes nothing.
    Normal,
    /// `default`: the terminal's own colour (39/49).
    Default,
    /// The 16 ANSI colours: 0–7, and 8–15 for the bright ones.
    Ansi(u8),
    /// 16–255 of the 256-colour palette.
    Indexed(u8),
    /// `#rrggbb`.
    Rgb(u8, u8, u8),
}

impl Colour {
    /// The colour named by `word`, if it is one.
    fn parse(word: &str) -> Option<Colour> {
        let lower = word.to_ascii_lowercase();
        if lower == "normal" {
            return Some(Colour::Normal);
        }
        if lower == "default" {
            return Some(Colour::Default);
        }
        let (bright, name) = match lower.strip_prefix("bright") {
            Some(rest) => (8, rest),
            None => (0, lower.as_str()),
        };
        if let Some(i) = NAMES.iter().position(|n| *n == name) {
            return u8::try_from(i).ok().map(|i| Colour::Ansi(i + bright));
        }
        if let Some(hex) = word.strip_prefix('#') {
            return rgb(hex);
        }
        match number(word)? {
            -1 => Some(Colour::Normal),
            n @ 0..=15 => u8::try_from(n).ok().map(Colour::Ansi),
            n @ 16..=255 => u8::try_from(n).ok().map(Colour::Indexed),
            _ => None,
        }
    }

    /// Its escape parameter as a foreground (`background`: as a background).
    fn parameter(self, background: bool) -> Option<String> {
        let base = if background { 40 } else { 30 };
        Some(match self {
            Colour::Normal => return None,
            Colour::Default => format!("{}", base + 9),
            Colour::Ansi(n) if n < 8 => format!("{}", base + u16::from(n)),
            Colour::Ansi(n) => format!("{}", base + 60 + u16::from(n - 8)),
            Colour::Indexed(n) => format!("{};5;{n}", base + 8),
            Colour::Rgb(r, g, b) => format!("{};2;{r};{g};{b}", base + 8),
        })
    }
}

/// A decimal number as C's `strtol` reads a whole word: an optional sign,
/// then digits and nothing else.
fn number(word: &str) -> Option<i64> {
    let digits = word.strip_prefix(['+', '-']).unwrap_or(word);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Too many digits for any colour: an error like an out-of-range one.
    let n: i64 = digits.parse().ok()?;
    Some(if word.starts_with('-') { -n } else { n })
}

/// `rrggbb` or `rgb` (each digit doubled) in hex.
fn rgb(hex: &str) -> Option<Colour> {
    let digit = |c: u8| char::from(c).to_digit(16).and_then(|d| u8::try_from(d).ok());
    let d: Vec<u8> = hex.bytes().map(digit).collect::<Option<_>>()?;
    match d.as_slice() {
        [r1, r2, g1, g2, b1, b2] => Some(Colour::Rgb(r1 * 16 + r2, g1 * 16 + g2, b1 * 16 + b2)),
        [r, g, b] => Some(Colour::Rgb(r * 17, g * 17, b * 17)),
        _ => None,
    }
}

/// The code of attribute `word` (`bold`, `nobold`, `no-bold`, …), if it is one.
fn attribute(word: &str) -> Option<u8> {
    let (negated, name) = match word.strip_prefix("no") {
        Some(rest) => (true, rest.strip_prefix('-').unwrap_or(rest)),
        None => (false, word),
    };
    let &(_, code) = ATTRIBUTES.iter().find(|(n, _)| *n == name)?;
    Some(match (negated, code) {
        (false, c) => c,
        // `nobold` and `nodim` share 22 (21 is double underline).
        (true, 1) => 22,
        (true, c) => c + 20,
    })
}

/// The escape bytes of colour value `value`, as git writes them; `None`
/// when git would reject it ("invalid color value").
pub fn parse(value: &str) -> Option<String> {
    let mut reset = false;
    let mut attributes = [false; 30];
    let mut colours: Vec<Colour> = Vec::new();
    for word in value.split([' ', '\t', '\n', '\r']).filter(|w| !w.is_empty()) {
        if let Some(c) = Colour::parse(word) {
            if colours.len() == 2 {
                return None;
            }
            colours.push(c);
        } else if word == "reset" {
            reset = true;
        } else {
            let code = attribute(word)?;
            *attributes.get_mut(usize::from(code))? = true;
        }
    }
    let mut params: Vec<String> = Vec::new();
    if reset {
        params.push(String::new());
    }
    params.extend(
        attributes
            .iter()
            .enumerate()
            .filter(|(_, on)| **on)
            .map(|(code, _)| code.to_string()),
    );
    let fg = colours.first().and_then(|c| c.parameter(false));
    let bg = colours.get(1).and_then(|c| c.parameter(true));
    params.extend(fg);
    params.extend(bg);
    if params.is_empty() {
        return Some(String::new());
    }
    Some(format!("\x1b[{}m", params.join(";")))
}

/// The colours of a diff, by git's slot names, as escape bytes (empty:
/// no colour, though git still ends the run with [`RESET`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Palette {
    /// `context` (also `plain`): unchanged lines. Default: none.
    pub context: String,
    /// `meta`: the file header lines. Default: bold.
    pub meta: String,
    /// `frag`: the `@@ … @@` ranges. Default: cyan.
    pub frag: String,
    /// `func`: the function name after the ranges. Default: none.
    pub func: String,
    /// `old`: removed lines. Default: red.
    pub old: String,
    /// `new`: added lines. Default: green.
    pub new: String,
    /// `commit`: a commit's header line in a log (`turn N` in `git t3 log`).
    /// Default: yellow.
    pub commit: String,
    /// `whitespace`: whitespace errors. Default: red background.
    pub whitespace: String,
    /// Moved lines (`--color-moved`), by [`MOVED_SLOTS`]: removed, then
    /// added; each plain, alternative, dimmed, alternative dimmed.
    pub moved: Box<[String; 8]>,
}

/// The `color.diff.<slot>` names of [`Palette::moved`], in its order.
pub const MOVED_SLOTS: [&str; 8] = [
    "oldmoved",
    "oldmovedalternative",
    "oldmoveddimmed",
    "oldmovedalternativedimmed",
    "newmoved",
    "newmovedalternative",
    "newmoveddimmed",
    "newmovedalternativedimmed",
];

impl Default for Palette {
    fn default() -> Self {
        Palette {
            context: String::new(),
            meta: "\x1b[1m".into(),
            frag: "\x1b[36m".into(),
            func: String::new(),
            old: "\x1b[31m".into(),
            new: "\x1b[32m".into(),
            commit: "\x1b[33m".into(),
            whitespace: "\x1b[41m".into(),
            moved: Box::new(
                [
                    "\x1b[1;35m",
                    "\x1b[1;34m",
                    "\x1b[2m",
                    "\x1b[2;3m",
                    "\x1b[1;36m",
                    "\x1b[1;33m",
                    "\x1b[2m",
                    "\x1b[2;3m",
                ]
                .map(String::from),
            ),
        }
    }
}

impl Palette {
    /// The colour of `slot` (a `color.diff.<slot>` name, any case); `None`
    /// for a slot git-t3's output does not use.
    pub fn slot_mut(&mut self, slot: &str) -> Option<&mut String> {
        let slot = slot.to_ascii_lowercase();
        if let Some(i) = MOVED_SLOTS.iter().position(|m| *m == slot) {
            return self.moved.get_mut(i);
        }
        Some(match slot.as_str() {
            "context" | "plain" => &mut self.context,
            "meta" => &mut self.meta,
            "frag" => &mut self.frag,
            "func" => &mut self.func,
            "old" => &mut self.old,
            "new" => &mut self.new,
            "commit" => &mut self.commit,
            "whitespace" => &mut self.whitespace,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    /// Each value against the bytes `git config --get-color "" <value>`
    /// printed (git 2.47).
    #[test]
    fn values_give_gits_bytes() {
        let cases: &[(&str, &str)] = &[
            ("red", "\x1b[31m"),
            ("bold red", "\x1b[1;31m"),
            ("ul blue yellow", "\x1b[4;34;43m"),
            ("brightred", "\x1b[91m"),
            ("BrightRed", "\x1b[91m"),
            ("RED", "\x1b[31m"),
            ("1", "\x1b[31m"),
            ("7", "\x1b[37m"),
            ("8", "\x1b[90m"),
            ("15", "\x1b[97m"),
            ("16", "\x1b[38;5;16m"),
            ("255", "\x1b[38;5;255m"),
            ("9 12", "\x1b[91;104m"),
            ("0 1", "\x1b[30;41m"),
            ("+1", "\x1b[31m"),
            ("007", "\x1b[37m"),
            ("#ff0080", "\x1b[38;2;255;0;128m"),
            ("#FFaa00", "\x1b[38;2;255;170;0m"),
            ("#f08", "\x1b[38;2;255;0;136m"),
            ("normal", ""),
            ("-1", ""),
            ("", ""),
            ("normal normal", ""),
            ("default", "\x1b[39m"),
            ("red default", "\x1b[31;49m"),
            ("default default", "\x1b[39;49m"),
            ("normal red", "\x1b[41m"),
            ("-1 red", "\x1b[41m"),
            ("red normal", "\x1b[31m"),
            ("default normal", "\x1b[39m"),
            ("ul normal", "\x1b[4m"),
            ("reset", "\x1b[m"),
            ("reset reset", "\x1b[m"),
            ("reset red", "\x1b[;31m"),
            ("bold reset", "\x1b[;1m"),
            ("no-bold", "\x1b[22m"),
            ("nobold", "\x1b[22m"),
            ("no-dim", "\x1b[22m"),
            ("no-bold no-dim", "\x1b[22m"),
            ("no-ul", "\x1b[24m"),
            ("noul", "\x1b[24m"),
            ("no-blink", "\x1b[25m"),
            ("no-reverse", "\x1b[27m"),
            ("no-italic", "\x1b[23m"),
            ("nostrike", "\x1b[29m"),
            ("dim italic strike blink reverse", "\x1b[2;3;5;7;9m"),
            ("strike bold", "\x1b[1;9m"),
            ("no-ul bold", "\x1b[1;24m"),
            ("bold bold", "\x1b[1m"),
            ("bold no-bold", "\x1b[1;22m"),
            ("green reverse", "\x1b[7;32m"),
            ("brightblack brightwhite", "\x1b[90;107m"),
            ("  red  ", "\x1b[31m"),
            ("red\tbold", "\x1b[1;31m"),
            (
                "bold dim italic ul blink reverse strike no-bold no-dim no-italic no-ul \
                 no-blink no-reverse no-strike #ffffff #ffffff reset",
                "\x1b[;1;2;3;4;5;7;9;22;23;24;25;27;29;38;2;255;255;255;48;2;255;255;255m",
            ),
        ];
        for (value, bytes) in cases {
            assert_eq!(parse(value).as_deref(), Some(*bytes), "{value:?}");
        }
    }

    /// Values git rejects with "invalid color value".
    #[test]
    fn what_git_rejects() {
        for value in [
            "bright red",
            "Bold",
            "red BOLD",
            "underline",
            "strikethrough",
            "256",
            "-2",
            "1x",
            "foo",
            "red green blue",
            "normal normal normal",
            "#12345",
            "#ff00800",
            "#",
            "#GGGGGG",
            "brightdefault",
            "brightnormal",
            "no-",
            "no-nobold",
            "red,bold",
            "99999999999999999999999",
        ] {
            assert_eq!(parse(value), None, "{value:?}");
        }
    }
}
