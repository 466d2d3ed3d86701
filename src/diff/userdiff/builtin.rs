//! git's built-in diff drivers (`userdiff.c` of git 2.47), byte for byte:
//! for each, the funcname patterns (one a line, `!` before one that
//! rejects a line) and the word regex, before git appends the catch-all
//! alternatives ([`super::word_regex`]). `icase`: the funcname patterns are
//! matched ignoring case (git's `IPATTERN`).

/// One built-in driver.
pub(super) struct Builtin {
    /// The name `diff=<name>` selects it by.
    pub name: &'static str,
    /// Its funcname patterns ignore case.
    pub icase: bool,
    /// Its funcname patterns, extended syntax, one a line.
    pub funcname: &'static [u8],
    /// Its word regex, without git's catch-all alternatives.
    pub word: &'static [u8],
}

/// git's built-in drivers, by name (`default` has no patterns and is not listed).
pub(super) const BUILTIN: &[Builtin] = &[
    Builtin {
        name: "ada",
        icase: true,
        funcname: b"!^(.*[ \t])?(is[ \t]+new|renames|is[ \t]+separate)([ \t].*)?$\n\
            !^[ \t]*with[ \t].*$\n\
            ^[ \t]*((procedure|function)[ \t]+.*)$\n\
            ^[ \t]*((package|protected|task)[ \t]+.*)$",
        word: b"[a-zA-Z][a-zA-Z0-9_]*\
            |[-+]?[0-9][0-9#_.aAbBcCdDeEfF]*([eE][+-]?[0-9_]+)?\
            |=>|\\.\\.|\\*\\*|:=|/=|>=|<=|<<|>>|<>",
    },
    Builtin {
        name: "bash",
        icase: false,
        funcname: b"^[ \t]*\
            (\
            (\
            [a-zA-Z_][a-zA-Z0-9_]*[ \t]*\\([ \t]*\\))\
            |\
            (function[ \t]+[a-zA-Z_][a-zA-Z0-9_]*(([ \t]*\\([ \t]*\\))|([ \t]+))\
            )\
            [ \t]*\
            (\\{|\\(\\(?|\\[\\[)\
            )",
        word: b"[^ \t]+",
    },
    Builtin {
        name: "bibtex",
        icase: false,
        funcname: b"(@[a-zA-Z]{1,}[ \t]*\\{{0,1}[ \t]*[^ \t\"@',\\#}{~%]*).*$",
        word: b"[={}\"]|[^={}\" \t]+",
    },
    Builtin {
        name: "cpp",
        icase: false,
        funcname: b"!^[ \t]*[A-Za-z_][A-Za-z_0-9]*:[[:space:]]*($|/[/*])\n\
            ^((::[[:space:]]*)?[A-Za-z_].*)$",
        word: b"[a-zA-Z_][a-zA-Z0-9_]*\
            |[0-9][0-9.]*([Ee][-+]?[0-9]+)?[fFlLuU]*\
            |0[xXbB][0-9a-fA-F]+[lLuU]*\
            |\\.[0-9][0-9]*([Ee][-+]?[0-9]+)?[fFlL]?\
            |[-+*/<>%&^|=!]=|--|\\+\\+|<<=?|>>=?|&&|\\|\\||::|->\\*?|\\.\\*|<=>",
    },
    Builtin {
        name: "csharp",
        icase: false,
        funcname: b"!(^|[ \t]+)\
            (do|while|for|foreach|if|else|new|default|return|switch|case|throw\
            |catch|using|lock|fixed)\
            ([ \t(]+|$)\n\
            ^[ \t]*\
            (\
            (\
            [][[:alnum:]@_.]\
            (<[][[:alnum:]@_, \t<>]+>)?\
            )+\
            ([ \t]+\
            ([][[:alnum:]@_.](<[][[:alnum:]@_, \t<>]+>)?)+\
            )+\
            [ \t]*\
            \\(\
            [^;]*\
            )$\n\
            ^[ \t]*(\
            ([][[:alnum:]@_.](<[][[:alnum:]@_, \t<>]+>)?)+\
            ([ \t]+\
            ([][[:alnum:]@_.](<[][[:alnum:]@_, \t<>]+>)?)+\
            )+\
            [^;=:,()]*\
            )$\n\
            ^[ \t]*(((static|public|internal|private|protected|new|unsafe|sealed|abstract|partial)[ \t]+)*(class|enum|interface|struct|record)[ \t]+.*)$\n\
            ^[ \t]*(namespace[ \t]+.*)$",
        word: b"[a-zA-Z_][a-zA-Z0-9_]*\
            |[-+0-9.e]+[fFlL]?|0[xXbB]?[0-9a-fA-F]+[lL]?\
            |[-+*/<>%&^|=!]=|--|\\+\\+|<<=?|>>=?|&&|\\|\\||::|->",
    },
    Builtin {
        name: "css",
        icase: true,
        funcname: b"![:;][[:space:]]*$\n\
            ^[:[@.#]?[_a-z0-9].*$",
        word: b"-?[_a-zA-Z][-_a-zA-Z0-9]*\
            |-?[0-9]+|\\#[0-9a-fA-F]+",
    },
    Builtin {
        name: "dts",
        icase: false,
        funcname: b"!;\n\
            !=\n\
            ^[ \t]*((/[ \t]*\\{|&?[a-zA-Z_]).*)",
        word: b"[a-zA-Z0-9,._+?#-]+\
            |[-+*/%&^|!~]|>>|<<|&&|\\|\\|",
    },
    Builtin {
        name: "elixir",
        icase: false,
        funcname: b"^[ \t]*((def(macro|module|impl|protocol|p)?|test)[ \t].*)$",
        word: b"[@:]?[a-zA-Z0-9@_?!]+\
            |[-+]?0[xob][0-9a-fA-F]+\
            |[-+]?[0-9][0-9_.]*([eE][-+]?[0-9_]+)?\
            |:?(\\+\\+|--|\\.\\.|~~~|<>|\\^\\^\\^|<?\\|>|<<<?|>?>>|<<?~|~>?>|<~>|<=|>=|===?|!==?|=~|&&&?|\\|\\|\\|?|=>|<-|\\\\\\\\|->)\
            |:?%[A-Za-z0-9_.]\\{\\}?",
    },
    Builtin {
        name: "fortran",
        icase: true,
        funcname: b"!^([C*]|[ \t]*!)\n\
            !^[ \t]*MODULE[ \t]+PROCEDURE[ \t]\n\
            ^[ \t]*((END[ \t]+)?(PROGRAM|MODULE|BLOCK[ \t]+DATA\
            |([^!'\" \t]+[ \t]+)*(SUBROUTINE|FUNCTION))[ \t]+[A-Z].*)$",
        word: b"[a-zA-Z][a-zA-Z0-9_]*\
            |\\.([Ee][Qq]|[Nn][Ee]|[Gg][TtEe]|[Ll][TtEe]|[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|[Aa][Nn][Dd]|[Oo][Rr]|[Nn]?[Ee][Qq][Vv]|[Nn][Oo][Tt])\\.\
            |[-+]?[0-9.]+([AaIiDdEeFfLlTtXx][Ss]?[-+]?[0-9.]*)?(_[a-zA-Z0-9][a-zA-Z0-9_]*)?\
            |//|\\*\\*|::|[/<>=]=",
    },
    Builtin {
        name: "fountain",
        icase: true,
        funcname: b"^((\\.[^.]|(int|ext|est|int\\.?/ext|i/e)[. ]).*)$",
        word: b"[^ \t-]+",
    },
    Builtin {
        name: "golang",
        icase: false,
        funcname: b"^[ \t]*(func[ \t]*.*(\\{[ \t]*)?)\n\
            ^[ \t]*(type[ \t].*(struct|interface)[ \t]*(\\{[ \t]*)?)",
        word: b"[a-zA-Z_][a-zA-Z0-9_]*\
            |[-+0-9.eE]+i?|0[xX]?[0-9a-fA-F]+i?\
            |[-+*/<>%&^|=!:]=|--|\\+\\+|<<=?|>>=?|&\\^=?|&&|\\|\\||<-|\\.{3}",
    },
    Builtin {
        name: "html",
        icase: false,
        funcname: b"^[ \t]*(<[Hh][1-6]([ \t].*)?>.*)$",
        word: b"[^<>= \t]+",
    },
    Builtin {
        name: "java",
        icase: false,
        funcname: b"!^[ \t]*(catch|do|for|if|instanceof|new|return|switch|throw|while)\n\
            ^[ \t]*(([a-z-]+[ \t]+)*(class|enum|interface|record)[ \t]+.*)$\n\
            ^[ \t]*(([A-Za-z_<>&][][?&<>.,A-Za-z_0-9]*[ \t]+)+[A-Za-z_][A-Za-z_0-9]*[ \t]*\\([^;]*)$",
        word: b"[a-zA-Z_][a-zA-Z0-9_]*\
            |[-+0-9.e]+[fFlL]?|0[xXbB]?[0-9a-fA-F]+[lL]?\
            |[-+*/<>%&^|=!]=\
            |--|\\+\\+|<<=?|>>>?=?|&&|\\|\\|",
    },
    Builtin {
        name: "kotlin",
        icase: false,
        funcname: b"^[ \t]*(([a-z]+[ \t]+)*(fun|class|interface)[ \t]+.*)$",
        word: b"[a-zA-Z_][a-zA-Z0-9_]*\
            |0[xXbB][0-9a-fA-F_]+[lLuU]*\
            |[0-9][0-9_]*([.][0-9_]*)?([Ee][-+]?[0-9]+)?[fFlLuU]*\
            |[.][0-9][0-9_]*([Ee][-+]?[0-9]+)?[fFlLuU]?\
            |[-+*/<>%&^|=!]==?|--|\\+\\+|<<=|>>=|&&|\\|\\||->|\\.\\*|!!|[?:.][.:]",
    },
    Builtin {
        name: "markdown",
        icase: false,
        funcname: b"^ {0,3}#{1,6}[ \t].*",
        word: b"[^<>= \t]+",
    },
    Builtin {
        name: "matlab",
        icase: false,
        funcname: b"^[[:space:]]*((classdef|function)[[:space:]].*)$|^(%%%?|##)[[:space:]].*$",
        word: b"[a-zA-Z_][a-zA-Z0-9_]*|[-+0-9.e]+|[=~<>]=|\\.[*/\\^']|\\|\\||&&",
    },
    Builtin {
        name: "objc",
        icase: false,
        funcname: b"!^[ \t]*(do|for|if|else|return|switch|while)\n\
            ^[ \t]*([-+][ \t]*\\([ \t]*[A-Za-z_][A-Za-z_0-9* \t]*\\)[ \t]*[A-Za-z_].*)$\n\
            ^[ \t]*(([A-Za-z_][A-Za-z_0-9]*[ \t]+)+[A-Za-z_][A-Za-z_0-9]*[ \t]*\\([^;]*)$\n\
            ^(@(implementation|interface|protocol)[ \t].*)$",
        word: b"[a-zA-Z_][a-zA-Z0-9_]*\
            |[-+0-9.e]+[fFlL]?|0[xXbB]?[0-9a-fA-F]+[lL]?\
            |[-+*/<>%&^|=!]=|--|\\+\\+|<<=?|>>=?|&&|\\|\\||::|->",
    },
    Builtin {
        name: "pascal",
        icase: false,
        funcname: b"^(((class[ \t]+)?(procedure|function)|constructor|destructor|interface\
            |implementation|initialization|finalization)[ \t]*.*)$\n\
            ^(.*=[ \t]*(class|record).*)$",
        word: b"[a-zA-Z_][a-zA-Z0-9_]*\
            |[-+0-9.e]+|0[xXbB]?[0-9a-fA-F]+\
            |<>|<=|>=|:=|\\.\\.",
    },
    Builtin {
        name: "perl",
        icase: false,
        funcname: b"^package .*\n\
            ^sub [[:alnum:]_':]+[ \t]*\
            (\\([^)]*\\)[ \t]*)?\
            (:[^;#]*)?\
            (\\{[ \t]*)?\
            (#.*)?$\n\
            ^(BEGIN|END|INIT|CHECK|UNITCHECK|AUTOLOAD|DESTROY)[ \t]*\
            (\\{[ \t]*)?\
            (#.*)?$\n\
            ^=head[0-9] .*",
        word: b"[[:alpha:]_'][[:alnum:]_']*\
            |0[xb]?[0-9a-fA-F_]*\
            |[0-9a-fA-F_]+(\\.[0-9a-fA-F_]+)?([eE][-+]?[0-9_]+)?\
            |=>|-[rwxoRWXOezsfdlpSugkbctTBMAC>]|~~|::\
            |&&=|\\|\\|=|//=|\\*\\*=\
            |&&|\\|\\||//|\\+\\+|--|\\*\\*|\\.\\.\\.?\
            |[-+*/%.^&<>=!|]=\
            |=~|!~\
            |<<|<>|<=>|>>",
    },
    Builtin {
        name: "php",
        icase: false,
        funcname: b"^[\t ]*(((public|protected|private|static|abstract|final)[\t ]+)*function.*)$\n\
            ^[\t ]*((((final|abstract)[\t ]+)?class|enum|interface|trait).*)$",
        word: b"[a-zA-Z_][a-zA-Z0-9_]*\
            |[-+0-9.e]+|0[xXbB]?[0-9a-fA-F]+\
            |[-+*/<>%&^|=!.]=|--|\\+\\+|<<=?|>>=?|===|&&|\\|\\||::|->",
    },
    Builtin {
        name: "python",
        icase: false,
        funcname: b"^[ \t]*((class|(async[ \t]+)?def)[ \t].*)$",
        word: b"[a-zA-Z_][a-zA-Z0-9_]*\
            |[-+0-9.e]+[jJlL]?|0[xX]?[0-9a-fA-F]+[lL]?\
            |[-+*/<>%&^|=!]=|//=?|<<=?|>>=?|\\*\\*=?",
    },
    Builtin {
        name: "ruby",
        icase: false,
        funcname: b"^[ \t]*((class|module|def)[ \t].*)$",
        word: b"(@|@@|\\$)?[a-zA-Z_][a-zA-Z0-9_]*\
            |[-+0-9.e]+|0[xXbB]?[0-9a-fA-F]+|\\?(\\\\C-)?(\\\\M-)?.\
            |//=?|[-+*/<>%&^|=!]=|<<=?|>>=?|===|\\.{1,3}|::|[!=]~",
    },
    Builtin {
        name: "rust",
        icase: false,
        funcname: b"^[\t ]*((pub(\\([^\\)]+\\))?[\t ]+)?((async|const|unsafe|extern([\t ]+\"[^\"]+\"))[\t ]+)?(struct|enum|union|mod|trait|fn|impl|macro_rules!)[< \t]+[^;]*)$",
        word: b"[a-zA-Z_][a-zA-Z0-9_]*\
            |[0-9][0-9_a-fA-Fiosuxz]*(\\.([0-9]*[eE][+-]?)?[0-9_fF]*)?\
            |[-+*\\/<>%&^|=!:]=|<<=?|>>=?|&&|\\|\\||->|=>|\\.{2}=|\\.{3}|::",
    },
    Builtin {
        name: "scheme",
        icase: false,
        funcname: b"^[\t ]*(\\(((define|def(struct|syntax|class|method|rules|record|proto|alias)?)[-*/ \t]|(library|module|struct|class)[*+ \t]).*)$",
        word: b"\\|([^\\\\]*)\\|\
            |([^][)(}{[ \t])+",
    },
    Builtin {
        name: "tex",
        icase: false,
        funcname: b"^(\\\\((sub)*section|chapter|part)\\*{0,1}\\{.*)$",
        word: b"\\\\[a-zA-Z@]+|\\\\.|([a-zA-Z0-9]|[^\x01-\x7f])+",
    },
];
