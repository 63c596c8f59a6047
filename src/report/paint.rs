//! Colour as a value: whether text is coloured is decided once, from the
//! flags and the environment ([`Palette::choose`]), and the [`Palette`]
//! goes to whoever renders (the terminal report, board diagrams,
//! `explain`). Nothing global is set or read, so two renderings in one
//! process may differ (a report on the terminal in colour, the same
//! report for a file or the JSON's `details` plain) and no command has to
//! remember to set anything first.
//!
//! Why not `colored`'s `Colorize` as is: its strings decide at `Display`
//! time from a process-wide flag (`colored::control`), which is the
//! global this replaces. `colored` stays the vocabulary: an [`Ink`] is
//! made of its [`Color`]s, and their SGR codes come from
//! [`Color::to_fg_str`] / [`Color::to_bg_str`]; only the few lines that
//! put a code around a text are written here, in the same byte order
//! `colored` writes them (style, background, foreground), so coloured
//! output is byte for byte what it was.

use std::ffi::OsString;
use std::fmt::Display;

pub use colored::Color;

/// `--color`: when to colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColorChoice {
    /// When stdout is a terminal and the environment does not say no.
    #[default]
    Auto,
    Always,
    Never,
}

/// How text is coloured, or that it is not: a value handed to renderers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Palette {
    colour: bool,
}

/// What a piece of text is painted with: a foreground, a background,
/// bold, dimmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ink {
    fg: Option<Color>,
    bg: Option<Color>,
    bold: bool,
    dimmed: bool,
}

impl Ink {
    /// No ink: the text as it is, whatever the palette.
    pub const PLAIN: Ink = Ink {
        fg: None,
        bg: None,
        bold: false,
        dimmed: false,
    };
    /// Bold, in the terminal's own colour.
    pub const BOLD: Ink = Ink::PLAIN.bold();
    /// Dimmed, in the terminal's own colour.
    pub const DIMMED: Ink = Ink {
        dimmed: true,
        ..Ink::PLAIN
    };

    /// What was expected.
    pub const GREEN: Ink = Ink::fg(Color::Green);
    /// What was answered instead; what went wrong.
    pub const RED: Ink = Ink::fg(Color::Red);
    pub const YELLOW: Ink = Ink::fg(Color::Yellow);
    /// A pass, `ok`, an answer that matches.
    pub const GOOD: Ink = Ink::GREEN.bold();
    /// A failure, an error, a mismatch.
    pub const BAD: Ink = Ink::RED.bold();
    /// A snapshot written.
    pub const NEWS: Ink = Ink::fg(Color::Cyan).bold();
    /// `note:`, a memory check's heading.
    pub const NOTE: Ink = Ink::YELLOW.bold();

    /// Text in colour `fg`.
    pub const fn fg(fg: Color) -> Ink {
        Ink {
            fg: Some(fg),
            ..Ink::PLAIN
        }
    }

    /// This ink on a `bg` background.
    pub const fn on(self, bg: Color) -> Ink {
        Ink {
            bg: Some(bg),
            ..self
        }
    }

    /// This ink, bold.
    pub const fn bold(self) -> Ink {
        Ink { bold: true, ..self }
    }

    /// The SGR sequence that starts this ink (`\x1b[1;31m`).
    fn start(self) -> String {
        let mut codes: Vec<std::borrow::Cow<'static, str>> = Vec::new();
        if self.bold {
            codes.push("1".into());
        }
        if self.dimmed {
            codes.push("2".into());
        }
        codes.extend(self.bg.map(|c| c.to_bg_str()));
        codes.extend(self.fg.map(|c| c.to_fg_str()));
        format!("\x1b[{}m", codes.join(";"))
    }
}

const RESET: &str = "\x1b[0m";

impl Palette {
    /// No colour: text as it is.
    pub const PLAIN: Palette = Palette { colour: false };
    /// ANSI colour.
    pub const COLOUR: Palette = Palette { colour: true };

    /// The palette `choice` asks for. `auto` colours when stdout is a
    /// terminal (`stdout_is_terminal`) unless the environment (`env`, a
    /// variable's value by name) says no: `NO_COLOR` set and not empty
    /// (no-color.org), or `CLICOLOR=0`. (`CLICOLOR_FORCE` is not read:
    /// `--color always` says it, and a variable left in a shell must not
    /// colour what scripts and tests read from a pipe.)
    pub fn choose(
        choice: ColorChoice,
        env: impl Fn(&str) -> Option<OsString>,
        stdout_is_terminal: bool,
    ) -> Palette {
        let colour = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                env("NO_COLOR").is_none_or(|v| v.is_empty())
                    && env("CLICOLOR").is_none_or(|v| v != "0")
                    && stdout_is_terminal
            }
        };
        Palette { colour }
    }

    /// The palette `choice` asks for in this process: its environment and
    /// whether its stdout is a terminal.
    pub fn for_stdout(choice: ColorChoice) -> Palette {
        use std::io::IsTerminal;
        Palette::choose(
            choice,
            |name| std::env::var_os(name),
            std::io::stdout().is_terminal(),
        )
    }

    /// Whether this palette colours at all.
    pub fn is_colour(self) -> bool {
        self.colour
    }

    /// `text` in `ink`, or as it is without colour. A reset inside `text`
    /// (a painted piece within) is followed by this ink again, so the rest
    /// keeps it.
    pub fn paint(self, text: impl Display, ink: Ink) -> String {
        let text = text.to_string();
        if !self.colour || ink == Ink::PLAIN {
            return text;
        }
        let start = ink.start();
        let inner = text.replace(RESET, &format!("{RESET}{start}"));
        format!("{start}{inner}{RESET}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn one_text_painted_with_and_without_colour_in_one_process() {
        let fail = Ink::fg(Color::Red).bold();
        // The codes, by hand: bold (1) and red (31); black (30) on green (42).
        assert_eq!(Palette::COLOUR.paint("FAIL", fail), "\x1b[1;31mFAIL\x1b[0m");
        assert_eq!(Palette::PLAIN.paint("FAIL", fail), "FAIL");
        assert_eq!(
            Palette::COLOUR.paint("+P", Ink::fg(Color::Black).on(Color::Green)),
            "\x1b[42;30m+P\x1b[0m"
        );
        assert_eq!(
            Palette::COLOUR.paint("0.1s", Ink::DIMMED),
            "\x1b[2m0.1s\x1b[0m"
        );
        // A painted piece inside a painted text: the outer ink resumes.
        let inner = Palette::COLOUR.paint("b", Ink::BOLD);
        assert_eq!(
            Palette::COLOUR.paint(format!("a{inner}c"), Ink::fg(Color::Green)),
            "\x1b[32ma\x1b[1mb\x1b[0m\x1b[32mc\x1b[0m"
        );
    }

    #[test]
    fn auto_colours_a_terminal_unless_the_environment_says_no() {
        let env = |vars: &[(&str, &str)]| {
            let vars: HashMap<String, OsString> = vars
                .iter()
                .map(|(k, v)| (k.to_string(), OsString::from(v)))
                .collect();
            move |name: &str| vars.get(name).cloned()
        };
        let auto = |vars: &[(&str, &str)], tty| Palette::choose(ColorChoice::Auto, env(vars), tty);
        assert_eq!(auto(&[], true), Palette::COLOUR);
        assert_eq!(auto(&[], false), Palette::PLAIN);
        assert_eq!(auto(&[("NO_COLOR", "1")], true), Palette::PLAIN);
        assert_eq!(auto(&[("NO_COLOR", "")], true), Palette::COLOUR);
        assert_eq!(auto(&[("CLICOLOR", "0")], true), Palette::PLAIN);
        assert_eq!(auto(&[("CLICOLOR", "1")], true), Palette::COLOUR);
        assert_eq!(auto(&[("CLICOLOR_FORCE", "1")], false), Palette::PLAIN);
        // The flag wins over everything.
        let all = [("NO_COLOR", "1"), ("CLICOLOR", "0")];
        assert_eq!(
            Palette::choose(ColorChoice::Always, env(&all), false),
            Palette::COLOUR
        );
        assert_eq!(
            Palette::choose(ColorChoice::Never, env(&[]), true),
            Palette::PLAIN
        );
    }
}
